/** Quote Tags sorting and tag shapes (nodes/QuoteTags/operation), from source. */
import type { IDataObject } from 'n8n-workflow';

import { sortTags, tagList } from '../../nodes/QuoteTags/operation';

type Field = Parameters<typeof sortTags>[1];

test.each<[string, Field, Array<[string, unknown?]>, string, string]>([
	[
		'counts compare as numbers, also when sent as text',
		'quoteCount',
		[
			['a', 9],
			['b', '100'],
			['c', 20],
			['d', '3'],
		],
		'b c a d',
		'd a c b',
	],
	[
		'stable: ties keep the order they came in',
		'quoteCount',
		[
			['x1', 5],
			['y', 7],
			['x2', 5],
			['x3', 5],
		],
		'y x1 x2 x3',
		'x1 x2 x3 y',
	],
	[
		'names compare case-insensitively',
		'name',
		[['banana'], ['Apple'], ['cherry'], ['Banana']],
		'cherry banana Banana Apple',
		'Apple banana Banana cherry',
	],
	[
		'dates compare as dates, whatever their format',
		'dateAdded',
		[
			['iso', '2019-12-31'],
			['long', 'January 5, 2020'],
			['time', '2019-12-31T23:59:00Z'],
			['old', '2001-02-03'],
		],
		'long time iso old',
		'old iso time long',
	],
	[
		'tags without the field go last',
		'quoteCount',
		[['none1'], ['two', 2], ['empty', ''], ['one', 1], ['null', null]],
		'two one none1 empty null',
		'one two none1 empty null',
	],
])('%s', (_, field, rows, desc, asc) => {
	const lacking = rows.filter(
		(row) => field !== 'name' && [undefined, null, ''].includes(row[1] as string),
	).length;
	for (const [order, expected] of [
		['desc', desc],
		['asc', asc],
	] as const) {
		const tags: IDataObject[] = rows.map((row) =>
			row.length > 1 ? { name: row[0], [field]: row[1] as IDataObject[string] } : { name: row[0] },
		);
		expect(sortTags(tags, field, order)).toBe(lacking);
		expect(tags.map((t) => t.name).join(' ')).toBe(expected);
	}
});

test.each<[Field, IDataObject[], string]>([
	[
		'quoteCount',
		[{ name: 'q', quoteCount: 2 }, { name: 'r', quotesCount: 7 }, { name: 'n' }],
		'r q n',
	],
	[
		'dateAdded',
		[
			{ name: 'q', dateAdded: '2020-01-01' },
			{ name: 'r', createdAt: '2024-11-21T08:00:00.000Z' },
			{ name: 'p', createdAt: '2024-11-21 07:00:00.5+00' },
		],
		'r p q',
	],
	[
		'dateModified',
		[
			{ name: 'u', updatedAt: '2021-01-01' },
			{ name: 'm', dateModified: '2022-01-01' },
		],
		'm u',
	],
])(
	'Sort By %s reads the field of each service (Quotable’s, or its rewrite’s)',
	(by, tags, expected) => {
		sortTags(tags, by, 'desc');
		expect(tags.map((t) => t.name).join(' ')).toBe(expected);
	},
);

test.each<[string, unknown, IDataObject[] | undefined]>([
	['objects', [{ _id: 'a', name: 'Love' }], [{ _id: 'a', name: 'Love' }]],
	['names', ['love', 'life', null], [{ name: 'love' }, { name: 'life' }]],
	[
		'a map of names and descriptions',
		{ funny: 'Funny quotes' },
		[{ name: 'funny', description: 'Funny quotes' }],
	],
	[
		'They Said So’s envelope',
		{ success: { total: 1 }, contents: { categories: { art: 'Art' } }, copyright: { year: 2026 } },
		[{ name: 'art', description: 'Art' }],
	],
	[
		'an envelope of objects',
		{ status: 'success', data: [{ name: 'x' }], message: 'OK' },
		[{ name: 'x' }],
	],
	['{results: [...]}', { count: 1, results: ['x'] }, [{ name: 'x' }]],
	['an error body', { error: 'Too many requests, please try again later.' }, undefined],
	['an object of numbers', { tagz: 1, other: 2 }, undefined],
	['an empty object', {}, undefined],
	['text', 'love', undefined],
])('tagList: %s', (_, body, expected) => expect(tagList(body)).toEqual(expected));

test('values of any shape sort and list without a TypeError (JSON can hold an object whose toString is not a function)', () => {
	const odd = JSON.parse('{"toString": 1, "valueOf": "x"}');
	const tags = [
		{ name: odd, quoteCount: odd, dateAdded: odd },
		{ name: 'b', quoteCount: 2, dateAdded: '2020-01-01' },
	];
	for (const by of ['name', 'quoteCount', 'dateAdded', 'dateModified'] as const)
		expect(() => sortTags([...tags], by, 'asc')).not.toThrow();
	expect(tagList([[odd], 'wisdom'])).toEqual([
		{ name: '[{"toString":1,"valueOf":"x"}]' },
		{ name: 'wisdom' },
	]);
});
