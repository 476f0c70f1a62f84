/**
 * Selected Fields across Museum Object Search versions: version 1 keeps its comma-separated text and outputs
 * exactly the fields listed; version 1.1 takes a multi-select of common fields plus Other Fields and always
 * keeps the record's ID. Wrong values are refused before any request, naming the field and the item.
 */
import type { IDataObject } from 'n8n-workflow';

import { type MuseumServer, loadMuseumRecords, startMuseumServer } from '../servers';
import { NODE, jsonOf, runSearch } from '../museum/setup';

let museum: MuseumServer;
beforeAll(async () => {
	museum = await startMuseumServer({
		records: loadMuseumRecords({ source: 'fixture' }),
		imageBaseUrl: 'http://127.0.0.1:9/img',
	});
});
afterAll(() => museum.close());
beforeEach(() => museum.reset());

const run = (typeVersion: number, params: IDataObject) =>
	runSearch({ limit: 2, ...params }, { museumUrl: museum.url, extra: { typeVersion } });

test.each<[number, IDataObject, string[]]>([
	[1, { selectedFields: 'title, images.0.width' }, ['title', 'images.0.width']],
	[1, { selectedFields: 'title', selectedFieldList: ['people'] }, ['title']],
	[1.1, { selectedFieldList: ['title', 'people'] }, ['objectid', 'title', 'people']],
	[
		1.1,
		{ selectedFieldList: ['title'], otherFields: 'images.0.width, objectid' },
		['objectid', 'title', 'images.0.width'],
	],
	[1.1, { otherFields: 'technique', selectedFields: 'title' }, ['objectid', 'technique']],
])('version %s, %j: outputs %j', async (version, params, keys) => {
	const result = await run(version, { output: 'selected', ...params });
	const items = jsonOf(result);
	expect(items).toHaveLength(2);
	for (const item of items) expect(Object.keys(item)).toEqual(keys);
	expect(items[0].objectid ?? items[0].title).not.toBeNull();
});

test.each<[number, IDataObject, RegExp]>([
	[
		1.1,
		{ selectedFieldList: ['title', 'nope'] },
		/^"Selected Fields" has "nope", which is not one of accessionyear, .*, url \[item 0\]$/,
	],
	[1.1, { selectedFieldList: '={{ [3] }}' }, /^"Selected Fields" has 3, which is not one of/],
	[
		1.1,
		{ otherFields: '={{ { a: 1 } }}' },
		/^"Other Fields" must be text, not \{"a":1\} \[item 0\]$/,
	],
	[1.1, {}, /^"Selected Fields" is empty while Output is Selected Fields \[item 0\]$/],
	[1, { selectedFieldList: ['title'] }, /^"Selected Fields" is empty while Output is/],
])('version %s, %j: refused before any request', async (version, params, message) => {
	const result = await run(version, { output: 'selected', ...params });
	expect(result.error(NODE)?.message).toMatch(message);
	expect(museum.requests).toHaveLength(0);
});

test("size is the pager's: Additional Query Parameters may not send it", async () => {
	const result = await run(1.1, {
		additionalQuery: { parameters: [{ name: 'size', value: '5' }] },
	});
	expect(result.error(NODE)?.message).toMatch(
		/^"Additional Query Parameters: size" would send the parameter "size", which the pager \(Limit, Page\) already sends \[item 0\]$/,
	);
	expect(museum.requests).toHaveLength(0);
});
