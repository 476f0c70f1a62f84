/**
 * Selected Fields of Museum Object Search: a multi-select of common fields plus Other Fields, always keeping the
 * record's ID. Wrong values are refused before any request, naming the field and the item.
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

const run = (params: IDataObject) => runSearch({ limit: 2, ...params }, { museumUrl: museum.url });

test.each<[IDataObject, string[]]>([
	[{ selectedFieldList: ['title', 'people'] }, ['objectid', 'title', 'people']],
	[
		{ selectedFieldList: ['title'], otherFields: 'images.0.width, objectid' },
		['objectid', 'title', 'images.0.width'],
	],
	[{ otherFields: 'technique' }, ['objectid', 'technique']],
])('%j: outputs %j', async (params, keys) => {
	const result = await run({ output: 'selected', ...params });
	const items = jsonOf(result);
	expect(items).toHaveLength(2);
	for (const item of items) expect(Object.keys(item)).toEqual(keys);
	expect(items[0].objectid ?? items[0].title).not.toBeNull();
});

test.each<[IDataObject, RegExp]>([
	[
		{ selectedFieldList: ['title', 'nope'] },
		/^"Selected Fields" has "nope", which is not one of accessionyear, .*, url \[item 0\]$/,
	],
	[{ selectedFieldList: '={{ [3] }}' }, /^"Selected Fields" has 3, which is not one of/],
	[{ otherFields: '={{ { a: 1 } }}' }, /^"Other Fields" must be text, not \{"a":1\} \[item 0\]$/],
	[{}, /^"Selected Fields" is empty while Output is Selected Fields \[item 0\]$/],
])('%j: refused before any request', async (params, message) => {
	const result = await run({ output: 'selected', ...params });
	expect(result.error(NODE)?.message).toMatch(message);
	expect(museum.requests).toHaveLength(0);
});

test("size is the pager's: Additional Query Parameters may not send it", async () => {
	const result = await run({
		options: { additionalQuery: { parameters: [{ name: 'size', value: '5' }] } },
	});
	expect(result.error(NODE)?.message).toMatch(
		/^"Additional Query Parameters: size" would send the parameter "size", which the pager \(Limit, Page\) already sends \[item 0\]$/,
	);
	expect(museum.requests).toHaveLength(0);
});
