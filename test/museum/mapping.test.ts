/** Museum Object Search: fields onto query parameters, output modes, bad values. */
import type { IDataObject } from 'n8n-workflow';

import { loadPackage, logs, useServer } from '../harness/engine';
import {
	COLOR_DISTANCE,
	type MuseumRecord,
	loadMuseumRecords,
	parseHex,
	startMuseumServer,
} from '../servers';
import { jsonOf, NODE, pairedTo, runSearch } from './setup';

const fixtures = loadMuseumRecords({ source: 'fixture' });
const museum = useServer(() =>
	startMuseumServer({ records: fixtures, imageBaseUrl: 'http://127.0.0.1:9/img' }),
);

const run = (params: IDataObject, opts: { items?: IDataObject[]; extra?: IDataObject } = {}) =>
	runSearch(params, { museumUrl: museum.url, ...opts });
const byId = (id: unknown) => fixtures.find((r) => r.objectid === id) as MuseumRecord;

describe('node description', () => {
	test('Output and Max Image Size are named for the editor', async () => {
		const { pkg } = await loadPackage();
		const properties = (
			pkg.nodeTypes.museumObjectSearch.type as unknown as {
				description: { properties: IDataObject[]; codex?: { alias?: string[] } };
			}
		).description.properties;
		// names, defaults, choices and display conditions of every parameter: test/surface/surface.test.ts
		const top = (name: string) => properties.find((p) => p.name === name);
		expect(top('output')?.displayName).toBe('Output');
		expect(top('maxImageSize')).toMatchObject({
			displayName: 'Max Image Size (MB)',
			typeOptions: { minValue: 1, maxValue: 1024 },
		});
	});
});

describe('fields become query parameters', () => {
	test('Search, Limit, every filter and every option, under the best-known service’s names', async () => {
		const result = await run({
			q: 'hokusai',
			limit: 5,
			filters: {
				person: 'Katsushika Hokusai',
				classification: 'Prints',
				period: 'Edo period',
				color: '#194B7D',
				hasImage: true,
			},
			output: 'raw',
			options: { sort: 'datebegin', sortOrder: 'desc', fields: 'title, people' },
		});
		expect(result.workflowError).toBeUndefined();
		expect(museum.requests).toHaveLength(1);
		const req = museum.requests[0];
		expect(req.method).toBe('GET');
		expect(req.path).toBe('/object');
		expect(req.query).toEqual({
			q: 'hokusai',
			person: 'Katsushika Hokusai',
			classification: 'Prints',
			period: 'Edo period',
			color: '#194b7d',
			hasimage: '1',
			sort: 'datebegin',
			sortorder: 'desc',
			fields: 'title,people,objectid',
			limit: '5',
			page: '1',
		});
		const out = jsonOf(result);
		// Fields: only those fields come back (objectid added by the node so pages can be de-duplicated)
		expect(out.map((r) => Object.keys(r).sort())).toEqual([['objectid', 'people', 'title']]);
		expect(out[0].title).toBe('Under the Wave off Kanagawa (Kanagawa oki nami ura)');
	});

	test('an empty node sends only limit 50 and page 1', async () => {
		const result = await run({});
		expect(museum.requests[0].query).toEqual({ limit: '50', page: '1' });
		expect(result.output(NODE)).toHaveLength(fixtures.length);
	});

	test('Has Image off sends hasimage=0 and returns only objects without image', async () => {
		const result = await run({ filters: { hasImage: false }, limit: 100 });
		expect(museum.requests[0].query.hasimage).toBe('0');
		const ids = jsonOf(result).map((r) => r.id);
		expect(ids).toEqual(fixtures.filter((r) => r.imagecount === 0).map((r) => r.objectid));
		expect(jsonOf(result).every((r) => r.imageUrl === null)).toBe(true);
	});

	test('Page is the start page, in pages of Limit records', async () => {
		const paged = await run({ limit: 5, options: { page: 3 } });
		expect(museum.requests[0].query).toMatchObject({ limit: '5', page: '3' });
		expect(jsonOf(paged).map((r) => r.id)).toEqual(fixtures.slice(10, 15).map((r) => r.objectid));
	});

	test.each([
		['#AFAF4B', '#afaf4b'],
		['#abc', '#aabbcc'],
		['afaf4b', '#afaf4b'],
		['#afaf4bff', '#afaf4b'],
		['rgb(175, 175, 75)', '#afaf4b'],
		['#afaf4b|#FAFAFA', '#afaf4b|#fafafa'],
	])('Color %j is sent as %j', async (color, sent) => {
		const result = await run({ filters: { color } });
		expect(result.workflowError).toBeUndefined();
		expect(museum.requests[0].query.color).toBe(sent);
	});

	test('colour search finds the objects whose palette holds a near colour', async () => {
		const target = parseHex('#afaf4b')!;
		const near = (r: MuseumRecord) =>
			r.colors.some((c) => {
				const rgb = parseHex(c.color)!;
				return (
					Math.hypot(rgb[0] - target[0], rgb[1] - target[1], rgb[2] - target[2]) <= COLOR_DISTANCE
				);
			});
		const result = await run({ filters: { color: '#AFAF4B' } });
		const ids = jsonOf(result).map((r) => r.id);
		expect(ids.length).toBeGreaterThanOrEqual(2);
		expect(ids).toEqual(fixtures.filter(near).map((r) => r.objectid));
	});

	test('filters are renamed under Filter Parameter Names', async () => {
		const result = await run({
			filters: { person: 'Cassatt', color: '#4b7daf', hasImage: true },
			options: {
				filterNames: {
					names: [
						{ filter: 'person', parameter: 'artist' },
						{ filter: 'color', parameter: 'colour' },
						{ filter: 'hasImage', parameter: 'has_image' },
					],
				},
			},
		});
		expect(result.workflowError).toBeUndefined();
		expect(museum.requests[0].query).toEqual({
			artist: 'Cassatt',
			colour: '#4b7daf',
			has_image: '1',
			limit: '50',
			page: '1',
		});
	});

	test('Additional Query Parameters are sent as they are', async () => {
		const result = await run({
			q: 'portrait',
			options: {
				additionalQuery: {
					parameters: [
						{ name: 'culture', value: 'Dutch' },
						{ name: 'yearmade', value: '1600-1700' },
						{ name: 'keyword', value: '' },
					],
				},
			},
		});
		expect(result.workflowError).toBeUndefined();
		expect(museum.requests[0].query).toEqual({
			q: 'portrait',
			culture: 'Dutch',
			yearmade: '1600-1700',
			keyword: '',
			limit: '50',
			page: '1',
		});
	});

	test.each([
		[
			{ q: 'x', options: { additionalQuery: { parameters: [{ name: 'q', value: 'y' }] } } },
			/"Additional Query Parameters: q" would send the parameter "q", which Search already sends \[item 0\]/,
		],
		[
			{ options: { additionalQuery: { parameters: [{ name: 'page', value: '2' }] } } },
			/would send the parameter "page", which the pager \(Limit, Page\) already sends/,
		],
		[
			{ options: { additionalQuery: { parameters: [{ name: 'limit', value: '2' }] } } },
			/would send the parameter "limit"/,
		],
		[
			{
				filters: { person: 'x' },
				options: { additionalQuery: { parameters: [{ name: 'person', value: 'y' }] } },
			},
			/"Additional Query Parameters: person" would send the parameter "person", which Artist already sends/,
		],
		[
			{
				options: {
					additionalQuery: {
						parameters: [
							{ name: 'a', value: '1' },
							{ name: 'a', value: '2' },
						],
					},
				},
			},
			/"Additional Query Parameters: a" would send the parameter "a", which Additional Query Parameters: a already sends/,
		],
		[
			{ options: { additionalQuery: { parameters: [{ name: ' ', value: '1' }] } } },
			/"Additional Query Parameters: Name of parameter 1" is empty \[item 0\]/,
		],
		[
			{
				q: 'x',
				filters: { person: 'y' },
				options: { filterNames: { names: [{ filter: 'person', parameter: 'q' }] } },
			},
			/"Artist" would send the parameter "q", which Search already sends/,
		],
		[
			{
				filters: { period: 'y' },
				options: { filterNames: { names: [{ filter: 'period', parameter: '' }] } },
			},
			/"Filter Parameter Names: Period" is empty/,
		],
		[
			{
				options: {
					filterNames: {
						names: [
							{ filter: 'period', parameter: 'a' },
							{ filter: 'period', parameter: 'b' },
						],
					},
				},
			},
			/"Filter Parameter Names" renames the Period filter twice/,
		],
	])('clashing or empty parameter names are refused: %j', async (params, message) => {
		const result = await run(params as IDataObject);
		const error = result.error(NODE)!;
		expect(error.message).toMatch(message);
		expect(error.name).toBe('NodeOperationError');
		expect(museum.requests).toHaveLength(0);
	});
});

describe('output', () => {
	test('Simplified (default): one flat item per object with the mapped fields', async () => {
		const result = await run({ q: 'golden bough' });
		const [item] = jsonOf(result);
		const record = byId(262044);
		expect(item).toEqual({
			id: 262044,
			title: record.title,
			artist: 'Joseph Mallord William Turner, William Miller',
			date: record.dated,
			classification: 'Prints',
			period: null,
			culture: 'British',
			medium: record.medium,
			imageUrl: 'http://127.0.0.1:9/img/images/262044.jpg',
			url: record.url,
			creditLine: record.creditline,
			imagePermissionLevel: null,
			publicDomain: null,
		});
		for (const value of Object.values(item))
			expect(typeof value === 'object' && value !== null).toBe(false);
	});

	test('Simplified: every record maps (nulls where the record has nothing)', async () => {
		const out = jsonOf(await run({ returnAll: true }));
		expect(out).toHaveLength(fixtures.length);
		out.forEach((item, n) => {
			const r = fixtures[n];
			expect(item.id).toBe(r.objectid);
			expect(item.title).toBe(r.title);
			expect(item.date).toBe(r.dated);
			expect(item.classification).toBe(r.classification);
			expect(item.period).toBe(r.period);
			expect(item.culture).toBe(r.culture);
			expect(item.medium).toBe(r.medium);
			expect(item.url).toBe(r.url);
			expect(item.artist).toBe(
				r.people.length ? r.people.map((p) => p.displayname).join(', ') : null,
			);
			expect(item.imageUrl).toBe(
				r.imagecount
					? `http://127.0.0.1:9/img/images/${r.objectid}.${r.objectid % 2 ? 'png' : 'jpg'}`
					: null,
			);
		});
	});

	test('Simplified items stay small for AI tool use (< 1 kB each, 50 items < 25 kB)', async () => {
		const out = jsonOf(await run({ limit: 50 }));
		const sizes = out.map((i) => JSON.stringify(i).length);
		expect(Math.max(...sizes)).toBeLessThan(1024);
		expect(sizes.reduce((a, b) => a + b, 0)).toBeLessThan(25 * 1024);
		const raw = jsonOf(await run({ limit: 50, output: 'raw' }));
		expect(JSON.stringify(raw).length).toBeGreaterThan(2 * JSON.stringify(out).length);
	});

	test('Raw: the records as the service sent them', async () => {
		const out = jsonOf(await run({ limit: 3, output: 'raw' }));
		expect(out).toHaveLength(3);
		const { images, primaryimageurl, ...rest } = byId(fixtures[0].objectid);
		expect(out[0]).toMatchObject(rest);
		expect(primaryimageurl).toBeNull(); // the fixture has no address: the server adds its image host's
		expect(out[0].primaryimageurl).toBe(`http://127.0.0.1:9/img/images/${rest.objectid}.png`);
		expect((out[0].images as IDataObject[]).map((i) => i.imageid)).toEqual(
			images.map((i) => i.imageid),
		);
		expect(out[0]).toHaveProperty('people');
		expect(out[0]).toHaveProperty('colors');
	});

	test('Selected Fields: the listed fields, dotted paths reach inside, absent ones are null', async () => {
		const out = jsonOf(
			await run({
				q: 'wave',
				output: 'selected',
				selectedFieldList: ['title'],
				otherFields: 'people.0.name, images.0.width, nope',
			}),
		);
		const r = byId(228563);
		expect(out).toEqual([
			{
				objectid: 228563,
				title: r.title,
				'people.0.name': 'Katsushika Hokusai',
				'images.0.width': r.images[0].width,
				nope: null,
			},
		]);
	});
});

describe('several input items', () => {
	test('each item runs its own search from expressions and its results are paired to it', async () => {
		const result = await run(
			{
				q: '={{ $json.term }}',
				limit: '={{ $json.max }}',
				filters: { person: '={{ $json.artist }}', color: '={{ $json.color }}' },
			},
			{
				items: [
					{ term: '', artist: 'Hokusai', max: 5, color: '' },
					{ term: 'portrait', artist: 'Rembrandt', max: 1, color: '' },
					{ term: '', artist: 'Nobody At All', max: 3, color: '' },
					{ term: '', artist: 'Turner', max: 10, color: '#AFAF4B' },
				],
			},
		);
		expect(result.workflowError).toBeUndefined();
		// the items' searches run concurrently: one request each, in any order
		const byLimit = (q: IDataObject) => Number(q.limit);
		expect(
			museum.requests.map((r) => r.query as IDataObject).sort((a, b) => byLimit(a) - byLimit(b)),
		).toEqual([
			{ q: 'portrait', person: 'Rembrandt', limit: '1', page: '1' },
			{ person: 'Nobody At All', limit: '3', page: '1' },
			{ person: 'Hokusai', limit: '5', page: '1' },
			{ person: 'Turner', color: '#afaf4b', limit: '10', page: '1' },
		]);
		const out = result.output(NODE);
		expect(pairedTo(out, 0).map((i) => i.json.title)).toEqual([
			'Under the Wave off Kanagawa (Kanagawa oki nami ura)',
			'Fine Wind, Clear Morning (Gaifū kaisei)',
		]);
		expect(pairedTo(out, 1).map((i) => i.json.id)).toEqual([299843]);
		expect(pairedTo(out, 2)).toHaveLength(0);
		expect(pairedTo(out, 3).map((i) => i.json.id)).toEqual([261131]);
		expect(out).toHaveLength(4);
	});
});

describe('bad values are refused before any request, naming the field and the item', () => {
	test.each([
		[{ limit: 0 }, /"Limit" must be a whole number of 1 or more, not 0 \[item 0\]/],
		[{ limit: -5 }, /"Limit" must be a whole number of 1 or more, not -5 \[item 0\]/],
		[{ options: { page: -1 } }, /"Page" must be a whole number of 1 or more, not -1 \[item 0\]/],
		[{ options: { page: 0 } }, /"Page" must be a whole number of 1 or more, not 0/],
		[{ options: { page: 1.5 } }, /"Page" must be a whole number of 1 or more, not 1.5/],
		[{ options: { maxPages: 0 } }, /"Max Pages" must be a whole number of 1 or more, not 0/],
		[
			{ filters: { color: 'reddish' } },
			/"Color" must be a hex color such as #afaf4b or a hue name such as Blue, not "reddish" \[item 0\]/,
		],
		[{ filters: { color: '#12345' } }, /"Color" must be a hex color/],
		[{ filters: { color: '#afaf4b|bleu' } }, /"Color" must be a hex color.*not "#afaf4b\|bleu"/],
		[
			{ filters: { color: '#afaf4b|blue' } },
			/"Color" has the hue name "Blue", which this museum service cannot search \[item 0\]/,
		],
		[{ filters: { color: 'rgb(300, 0, 0)' } }, /"Color" must be a hex color/],
		[{ filters: { hasImage: '={{ "maybe" }}' } }, /"Has Image" must be true or false, not "maybe"/],
		[{ filters: { person: '={{ { a: 1 } }}' } }, /"Artist" must be text, not \{"a":1\}/],
		[{ q: '={{ ["a"] }}' }, /"Search" must be text, not \["a"\] \[item 0\]/],
		[
			{ filters: { classification: '={{ 5 > 3 ? { x: 1 } : "" }}' } },
			/"Classification" must be text, not \{"x":1\}/,
		],
		[{ filters: { period: '={{ { p: 1 } }}' } }, /"Period" must be text, not \{"p":1\}/],
		[{ options: { sort: '={{ { by: "title" } }}' } }, /"Sort" must be text, not \{"by":"title"\}/],
		[
			// (n8n shows, and so requires, Selected Fields whenever Output is an expression)
			{ output: '={{ "pretty" }}', selectedFields: 'title' },
			/^"Output" must be one of raw, selected, simplified, not "pretty" \[item 0\]$/,
		],
		[
			{ output: 'selected', selectedFields: '={{ $json.none ?? "" }}' },
			/"Selected Fields" is empty while Output is Selected Fields \[item 0\]/,
		],
		[{ output: 'selected', selectedFields: ' , ' }, /"Selected Fields" is empty/],
		[
			{ options: { sortOrder: '={{ "up" }}' } },
			/^"Sort Order" must be one of asc, desc, not "up" \[item 0\]$/,
		],
		[
			{ downloadImages: true, maxImages: -1 },
			/"Max Images" must be a whole number of 0 or more, not -1/,
		],
		[
			{ downloadImages: true, binaryPropertyName: '={{ " " }}' },
			/"Put Output File in Field" is empty/,
		],
		[
			{ downloadImages: true, maxImageSize: 0 },
			/^"Max Image Size \(MB\)" must be a whole number from 1 to 1024, not 0 \[item 0\]$/,
		],
		[
			{ downloadImages: true, maxImageSize: 1025 },
			/^"Max Image Size \(MB\)" must be a whole number from 1 to 1024, not 1025 \[item 0\]$/,
		],
		[
			{ options: { timeout: 0 } },
			/^"Timeout \(ms\)" must be a whole number from 1 to 3600000, not 0 \[item 0\]$/,
		],
		[
			{ options: { retryDelay: -5 } },
			/^"Initial Retry Delay \(ms\)" must be a whole number from 0 to 600000, not -5 \[item 0\]$/,
		],
		[
			{ options: { maxResponseSize: 0 } },
			/^"Max Response Size \(MB\)" must be a whole number from 1 to 1024, not 0 \[item 0\]$/,
		],
		[
			{ options: { concurrency: 513 } },
			/^"Concurrency" must be a whole number from 1 to 512, not 513 \[item 0\]$/,
		],
		[
			{ options: { concurrency: 0 } },
			/^"Concurrency" must be a whole number from 1 to 512, not 0 \[item 0\]$/,
		],
	])('%j', async (params, message) => {
		const result = await run(params as IDataObject);
		const error = result.error(NODE)!;
		expect(error).toBeDefined();
		expect(error.message).toMatch(message);
		expect(error.name).toBe('NodeOperationError');
		expect((error.context as IDataObject).itemIndex).toBe(0);
		expect(museum.requests).toHaveLength(0);
	});

	test('Output Selected Fields without Selected Fields is refused by the node before any request', async () => {
		const result = await run({ output: 'selected' });
		expect(result.error(NODE)!.message).toMatch(
			/^"Selected Fields" is empty while Output is Selected Fields \[item 0\]$/,
		);
		expect(museum.requests).toHaveLength(0);
	});

	// Selected Fields is not `required`: n8n shows (and would require) a field whenever the field it depends on is an
	// expression, so an Output set by an expression that yields raw could not run. The node checks it at run time.
	test('Output from an expression (raw) runs without Selected Fields', async () => {
		const result = await run({ limit: 2, output: '={{ "raw" }}' });
		expect(result.workflowError).toBeUndefined();
		expect(jsonOf(result)).toHaveLength(2);
		expect(jsonOf(result)[0]).toHaveProperty('colors');
	});

	test('a bad value in a later item stops the run before the first item’s request', async () => {
		const result = await run(
			{ filters: { color: '={{ $json.color }}' } },
			{ items: [{ color: '#ffffff' }, { color: '#fff' }, { color: 'not-a-colour' }] },
		);
		expect(result.error(NODE)!.message).toMatch(
			/"Color" must be a hex color .*not "not-a-colour" \[item 2\]/,
		);
		expect(museum.requests).toHaveLength(0);
	});

	test('with Continue On Fail the bad item becomes an error item and the others run', async () => {
		const result = await run(
			{ limit: '={{ $json.max }}' },
			{ items: [{ max: 1 }, { max: 0 }, { max: 2 }], extra: { continueOnFail: true } },
		);
		expect(result.workflowError).toBeUndefined();
		const out = result.output(NODE);
		expect(out.map((i) => i.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 1 },
			{ item: 2 },
			{ item: 2 },
		]);
		expect(out[1].json.error).toMatch(
			/"Limit" must be a whole number of 1 or more, not 0 \[item 1\]/,
		);
		expect(museum.requests.map((r) => r.query.limit).sort()).toEqual(['1', '2']);
	});
});
