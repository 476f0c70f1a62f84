/**
 * Museum Object Search against the Harvard Art Museums API stand-in: Get (its three locator modes, an unknown ID),
 * the editor's lists, colours on the palette grid, image sizes, the run's hints and tool mode.
 */
import type { IDataObject, INodeType } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { loadPackage, runNode, useServer } from '../harness/engine';
import { listSearch } from '../harness/loadOptions';
import {
	type ImageHost,
	loadMuseumRecords,
	startHarvardServer,
	startImageHost,
	generateMuseumRecords,
	startMuseumServer,
} from '../servers';
import { NODE, hintsOf, jsonOf, keySightings, runSearch } from './setup';

const KEY = 'harvard+Key/7';
const RECORDS = loadMuseumRecords({ source: 'fixture' });
const images = useServer<ImageHost>(() => startImageHost());
const harvard = useServer(() =>
	startHarvardServer({ apiKey: KEY, records: RECORDS, imageBaseUrl: images.url }),
);
const credentials = () => ({ apiKey: KEY, museumUrl: harvard.url, museumApi: 'harvard' });
const run = (params: IDataObject, extra = {}) =>
	runSearch(params, { museumUrl: harvard.url, credentials: credentials(), extra });
const locator = (mode: string, value: string) => ({ __rl: true, mode, value });
const paths = () => harvard.requests.map((r) => r.path);

describe('Get', () => {
	test.each([
		['From List', locator('list', '228563')],
		['By ID', locator('id', '228563')],
		[
			'By URL: an object page',
			locator('url', 'https://harvardartmuseums.org/collections/object/228563'),
		],
		[
			'By URL: the API address',
			locator('url', 'https://api.harvardartmuseums.org/object/228563?x=1'),
		],
	])('%s: GET /object/228563 once, the object as Search outputs it', async (_name, objectId) => {
		const result = await run({ operation: 'get', objectId });
		expect(result.error(NODE)).toBeUndefined();
		const record = RECORDS.find((r) => r.objectid === 228563)!;
		expect(jsonOf(result)).toEqual([
			expect.objectContaining({
				id: 228563,
				title: record.title,
				creditLine: record.creditline,
				imagePermissionLevel: 0,
				url: 'https://harvardartmuseums.org/collections/object/228563',
			}),
		]);
		expect(paths()).toEqual(['/object/228563']);
		expect(keySightings(result, KEY)).toEqual([]);
	});

	test('an address that names no object is refused before any request', async () => {
		// n8n's editor checks a typed address; one from an expression is checked by the node
		const result = await run({
			operation: 'get',
			objectId: locator('url', '={{ "https://example.org/about" }}'),
		});
		expect(result.error(NODE)!.message).toBe(
			'"Object" has the address "https://example.org/about", which names no object [item 0]',
		);
		expect(harvard.requests).toHaveLength(0);
	});

	test('an unknown ID is a 404 naming it, not retried; with Continue On Fail an error item', async () => {
		const objectId = locator('id', '999');
		const result = await run({ operation: 'get', objectId });
		const error = result.error(NODE)!;
		expect(error.message).toBe('The museum service has no object with the ID "999" [item 0]');
		expect(error.httpCode).toBe('404');
		expect(harvard.requests).toHaveLength(1);
		const kept = await run({ operation: 'get', objectId }, { continueOnFail: true });
		expect(jsonOf(kept)).toEqual([expect.objectContaining({ httpCode: '404' })]);
	});

	test('the Generic style uses the same path', async () => {
		const generic = await startMuseumServer({ records: RECORDS });
		try {
			const result = await runSearch(
				{ operation: 'get', objectId: locator('id', '228570'), output: 'raw' },
				{ museumUrl: generic.url },
			);
			expect(jsonOf(result).map((r) => r.objectid)).toEqual([228570]);
			expect(generic.requests.map((r) => r.path)).toEqual(['/object/228570']);
		} finally {
			await generic.close();
		}
	});

	test.each<[string, IDataObject, RegExp]>([
		// from expressions: a static value is checked by n8n's editor before the run
		['empty', locator('id', '={{ "" }}'), /^"Object" is empty \[item 0\]$/],
		[
			'a path',
			locator('id', '={{ "12/../13" }}'),
			/^"Object" has "12\/\.\.\/13", which is not an object ID/,
		],
		[
			'spaces in it',
			locator('id', '={{ "1 2" }}'),
			/^"Object" has "1 2", which is not an object ID/,
		],
		[
			'a URL naming nothing',
			locator('url', '={{ "not a url" }}'),
			/^"Object" has the address "not a url"/,
		],
		[
			'too long',
			locator('id', `={{ "${'9'.repeat(400)}" }}`),
			/^"Object" has "9+", which is not an object ID/,
		],
		['"."', locator('id', '={{ "." }}'), /^"Object" has "\.", which is not an object ID/],
		['".." from the list', locator('list', '={{ ".." }}'), /^"Object" has "\.\.", which is not/],
		[
			'an address ending in %2E%2E',
			locator('url', '={{ "https://harvardartmuseums.org/collections/object/%2E%2E" }}'),
			/^"Object" has the address .*, which names no object \[item 0\]$/,
		],
		[
			'an address with a malformed escape',
			locator('url', '={{ "https://harvardartmuseums.org/collections/object/12%E0%A4%A" }}'),
			/^"Object" has the address .*, which names no object \[item 0\]$/,
		],
		[
			'an address with an ID past 100 characters',
			locator(
				'url',
				`={{ "https://harvardartmuseums.org/collections/object/${'7'.repeat(150)}" }}`,
			),
			/^"Object" has the address .*, which names no object \[item 0\]$/,
		],
		[
			'an object (a model can pass one)',
			locator('id', '={{ { "toString": 1 } }}'),
			/^"Object" has {"toString":1}, which is not an object ID \[item 0\]$/,
		],
	])('an Object that is %s is refused before any request', async (_name, objectId, message) => {
		const result = await run({ operation: 'get', objectId });
		expect(result.error(NODE)?.message).toMatch(message);
		expect(harvard.requests).toHaveLength(0);
	});

	test.each<[IDataObject, RegExp]>([
		[{ operation: 'remove' }, /^"Operation" must be one of .*, not "remove" \[item 0\]$/],
		[
			{ downloadImages: true, imageSize: 'huge' },
			/^"Image Size" must be one of .*, not "huge" \[item 0\]$/,
		],
		...[0, -1, 10_001, 2.5, '={{ "wide" }}'].map((imageWidth): [IDataObject, RegExp] => [
			{ downloadImages: true, imageSize: 'custom', imageWidth },
			/^"Image Width" must be a whole number from 16 to 10000, not .+ \[item 0\]$/,
		]),
	])('%j is refused before any request', async (params, message) => {
		const result = await run({ q: 'Hokusai', limit: 2, ...params });
		expect(result.error(NODE)?.message).toMatch(message);
		expect(harvard.requests).toHaveLength(0);
		expect(images.requests).toHaveLength(0);
	});
});

describe("the editor's lists", () => {
	const search = (method: string, filter?: string, token?: string, museumApi = 'harvard') =>
		listSearch('museumObjectSearch', method, { ...credentials(), museumApi }, filter, token);

	test('classifications: the service list, the ID as value', async () => {
		const { results } = await search('classifications');
		const prints = RECORDS.filter((r) => r.classification === 'Prints').length;
		expect(results).toContainEqual({
			name: 'Prints',
			value: expect.stringMatching(/^\d+$/),
		});
		expect(harvard.requests[0].query).toMatchObject({ apikey: KEY, size: '100', page: '1' });
		const filtered = await search('classifications', 'pain');
		expect(filtered.results.map((o) => o.name)).toEqual(['Paintings']);
		// the ID found in the list is what the search sends, and Harvard matches it
		const id = results.find((o) => o.name === 'Prints')!.value;
		harvard.reset();
		const found = await run({
			filters: { classification: locator('list', String(id)) },
			limit: 100,
		});
		expect(harvard.requests[0].query.classification).toBe(id);
		expect(jsonOf(found)).toHaveLength(prints);
	});

	test('periods: names as values; objects: title and artist, the ID as value', async () => {
		const periods = await search('periods', 'edo');
		expect(periods.results).toEqual([{ name: 'Edo period', value: 'Edo period' }]);
		const objects = await search('objects', 'wave');
		expect(objects.results[0]).toEqual({
			name: expect.stringMatching(/^Under the Wave off Kanagawa.* – Katsushika Hokusai, /),
			value: '228563',
			url: 'https://harvardartmuseums.org/collections/object/228563',
		});
	});

	test('a service without lists (Generic style) says so; errors never show the key', async () => {
		await expect(search('periods', '', undefined, 'generic')).rejects.toThrow(
			'This museum service (Generic style) keeps no list of periods: choose By Name and type one',
		);
		const wrong = listSearch('museumObjectSearch', 'periods', {
			...credentials(),
			apiKey: 'bad+key',
		});
		await expect(wrong).rejects.toThrow(/HTTP 401/);
		await expect(wrong).rejects.not.toThrow(/bad\+key|bad%2Bkey/);
	});
});

describe('colours and image sizes', () => {
	test.each([
		['#1A4C7E', { color: '#194b7d' }, [228563]],
		['#ff0000', { color: '#fa0000' }, []],
		[
			'Violet',
			{ q: 'colors.hue:Violet' },
			RECORDS.filter((r) => r.colors.some((c) => c.hue === 'Violet')),
		],
	])('Color %s sends %j', async (color, sent, expected) => {
		const result = await run({ filters: { color }, output: 'raw', limit: 100 });
		expect(harvard.requests[0].query).toMatchObject(sent);
		const ids = (expected as Array<number | { objectid: number }>).map((r) =>
			typeof r === 'number' ? r : r.objectid,
		);
		expect(jsonOf(result).map((r) => r.objectid)).toEqual(ids);
	});

	test.each([
		['post', {}, ['/iiif/228570/full/800,/0/default.jpg', '/images/228563.png?width=800']],
		['original', {}, ['/images/228563.png', '/images/228570.jpg']],
		[
			'custom',
			{ imageWidth: 320 },
			['/iiif/228570/full/320,/0/default.jpg', '/images/228563.png?width=320'],
		],
	])('Image Size %s asks for %j', async (imageSize, extra, asked) => {
		const result = await run({ q: 'Hokusai', limit: 2, downloadImages: true, imageSize, ...extra });
		expect(result.error(NODE)).toBeUndefined();
		const urls = images.requests.map(
			(r) => r.path + (r.query.width ? `?width=${r.query.width}` : ''),
		);
		expect(urls.sort()).toEqual(asked);
		const png = result.output(NODE)[0].binary!.data;
		expect(png.fileName).toBe('228563.png');
	});
});

describe("the run's hints", () => {
	test('a Limit beyond Max Pages returns what the pages hold and one hint says how many are left', async () => {
		const generic = await startMuseumServer({ records: generateMuseumRecords(260) });
		try {
			const result = await runSearch(
				{ limit: 250, options: { maxPages: 2 } },
				{ museumUrl: generic.url },
			);
			expect(jsonOf(result)).toHaveLength(200);
			expect(hintsOf(result)).toEqual([
				{
					message:
						'A search reached Max Pages (2) before Limit: 50 more matching objects were not returned. Raise "Max Pages" in the options to get them.',
					location: 'outputPane',
				},
			]);
		} finally {
			await generic.close();
		}
	});
});

describe("as an AI agent's tool", () => {
	/** n8n's editor adds a node's tool variant as `<name>Tool` with the same description and code. */
	beforeAll(async () => {
		const { pkg } = await loadPackage();
		const entry = pkg.nodeTypes.museumObjectSearch;
		const type = entry.type as INodeType;
		const description = { ...type.description, name: 'museumObjectSearchTool' };
		pkg.nodeTypes.museumObjectSearchTool ??= {
			...entry,
			type: Object.assign(Object.create(type) as INodeType, { description }),
		};
	});
	const runTool = (params: IDataObject) =>
		runNode('museumObjectSearchTool', NODE, params, { credentials: credentials() });

	test('the download fields are hidden, and a download asked for anyway is not made', async () => {
		const { pkg } = await loadPackage();
		const shown = (name: string, tool: boolean) => {
			const type = pkg.nodeTypes[tool ? 'museumObjectSearchTool' : 'museumObjectSearch']
				.type as INodeType;
			const property = type.description.properties.find((p) => p.name === name)!;
			const values = { downloadImages: true, imageSize: 'custom' };
			return NodeHelpers.displayParameter(values, property, null, type.description);
		};
		for (const name of [
			'downloadImages',
			'imageSize',
			'imageWidth',
			'maxImages',
			'binaryPropertyName',
		]) {
			expect([name, shown(name, false), shown(name, true)]).toEqual([name, true, false]);
		}
		const result = await runTool({ q: 'Hokusai', limit: 2, downloadImages: true });
		expect(result.output(NODE).map((i) => i.binary)).toEqual([undefined, undefined]);
		expect(images.requests).toHaveLength(0);
	});

	test.each([
		[
			{ q: '' },
			'Nothing to search for: give the search text (for example an artist, a title word or a subject) or a filter',
		],
		[
			{ operation: 'get', objectId: locator('id', '={{ "" }}') },
			'No object ID was given: pass the ID of the object to get, for example 228563 (the "id" of a search result)',
		],
	])('an empty call %j tells the model what to pass', async (params, message) => {
		const result = await runTool(params);
		expect(result.error(NODE)!.message).toBe(message);
		expect(harvard.requests).toHaveLength(0);
	});

	test('a field error reads without an item number: it means nothing to the model', async () => {
		const result = await runTool({ operation: 'get', objectId: locator('id', '={{ ".." }}') });
		expect(result.error(NODE)!.message).toBe('"Object" has "..", which is not an object ID');
		expect(harvard.requests).toHaveLength(0);
	});
});
