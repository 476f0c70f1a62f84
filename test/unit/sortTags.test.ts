/** Quote Tags sorting (nodes/QuoteTags/operation), from source: each case sorted in place, descending and ascending. */
import type { IDataObject } from 'n8n-workflow';

import { sortTags } from '../../nodes/QuoteTags/operation';

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
	for (const [order, expected] of [
		['desc', desc],
		['asc', asc],
	] as const) {
		const tags: IDataObject[] = rows.map((row) =>
			row.length > 1 ? { name: row[0], [field]: row[1] as IDataObject[string] } : { name: row[0] },
		);
		sortTags(tags, field, order);
		expect(tags.map((t) => t.name).join(' ')).toBe(expected);
	}
});
