/** Museum Object Search against the Cleveland Museum of Art Open Access API stand-in: no key, skip paging, its terms. */
import type { IDataObject } from 'n8n-workflow';

import { testCredential, useServer } from '../harness/engine';
import { listSearch } from '../harness/loadOptions';
import {
	clevelandArtworksFrom,
	generateMuseumRecords,
	jpegSize,
	loadClevelandArtworks,
	startClevelandServer,
} from '../servers';
import { NODE, jsonOf, keySightings, runSearch, hintsOf } from './setup';

const SECRET = 'cma-must-never+see/this';
const OWN = loadClevelandArtworks({ source: 'fixture' });
const ALL = [...OWN, ...clevelandArtworksFrom(generateMuseumRecords(250))];
const cma = useServer(() => startClevelandServer({ artworks: ALL }));

const credentials = (apiKey = SECRET) => ({
	apiKey,
	museumUrl: cma.apiUrl,
	museumApi: 'cleveland',
});
const run = (params: IDataObject, extra = {}, apiKey = SECRET) =>
	runSearch(params, { museumUrl: cma.apiUrl, credentials: credentials(apiKey), extra });
const locator = (mode: string, value: string) => ({ __rl: true, mode, value });

/** The key in no request (path, query, headers), nor anywhere in the run or its logs. */
function noKey(result: Awaited<ReturnType<typeof run>>) {
	for (const r of cma.requests) {
		expect(JSON.stringify([r.path, r.query, r.headers])).not.toContain('must-never');
		expect(r.headers.authorization).toBeUndefined();
	}
	expect(keySightings(result, SECRET)).toEqual([]);
}

describe('Cleveland Museum of Art Open Access API style', () => {
	test('Search: q with a Limit, limit and skip, one Simplified record per work', async () => {
		const result = await run({ q: 'harbor lights', limit: 5 });
		expect(result.error(NODE)).toBeUndefined();
		expect(cma.requests.map((r) => [r.path, r.query])).toEqual([
			['/api/artworks/', { q: 'harbor lights', limit: '5', skip: '0' }],
		]);
		const record = OWN.find((a) => a.accession_number === '2011.88')!;
		expect(jsonOf(result)).toEqual([
			{
				id: record.id,
				title: 'Harbor Lights',
				artist: 'Margaret Hale, Hale & Sons',
				date: 'c. 1890',
				classification: 'Print',
				period: null,
				culture: (record.culture as string[])[0] ?? null,
				medium: record.technique ?? null,
				imageUrl: `${cma.cdnUrl}/2011.88/2011.88_web.jpg`,
				url: 'https://clevelandart.org/art/2011.88',
				creditLine: record.creditline ?? null,
				publicDomain: true,
				imagePermissionLevel: null,
			},
		]);
		noKey(result);
	});

	test('Return All over unstable pages: every object once, limit always sent', async () => {
		const result = await run({ returnAll: true });
		expect(result.error(NODE)).toBeUndefined();
		for (const r of cma.requests) expect(r.query.limit).toBe('100');
		expect(cma.requests.map((r) => Number(r.query.skip)).sort((a, b) => a - b)).toEqual([
			0, 100, 200,
		]);
		const ids = jsonOf(result).map((o) => o.id);
		expect(new Set(ids).size).toBe(ids.length);
		// the pages traded records across their boundaries: some came twice, so fewer than all came at all
		expect(ids.length).toBeLessThan(ALL.length);
		expect(ids.length).toBeGreaterThan(ALL.length - 5);
		noKey(result);
	});

	test('a Limit across pages still returns that many distinct objects', async () => {
		const result = await run({ limit: 200 });
		const ids = jsonOf(result).map((o) => o.id);
		expect(ids).toHaveLength(200);
		expect(new Set(ids).size).toBe(200);
	});

	test('no image, rights: images {} or null, Copyrighted is publicDomain false', async () => {
		for (const noImages of ['empty', 'null'] as const) {
			cma.setMode({ noImages });
			const out = jsonOf(await run({ q: 'Street Corner', limit: 5 }));
			expect(out).toEqual([
				expect.objectContaining({
					title: 'Street Corner, Morning',
					imageUrl: null,
					publicDomain: false,
				}),
			]);
		}
	});

	test('the API Key may be empty; the credential Test is a one-record search without it', async () => {
		expect(jsonOf(await run({ limit: 2 }, {}, ''))).toHaveLength(2);
		for (const apiKey of ['', SECRET]) {
			cma.reset();
			const verdict = await testCredential(credentials(apiKey));
			expect(verdict.status).toBe('OK');
			expect(cma.requests.map((r) => [r.path, r.query])).toEqual([
				['/api/artworks/', { limit: '1' }],
			]);
		}
	});

	test.each([
		['By ID', locator('id', '152230'), '152230'],
		['By ID: an accession number', locator('id', '2011.88'), '2011.88'],
		[
			'By URL: the object page',
			locator('url', 'https://www.clevelandart.org/art/2011.88'),
			'2011.88',
		],
		['From List', locator('list', '152230'), '152230'],
	])('Get %s: GET /artworks/{id} once', async (_name, objectId, sent) => {
		const result = await run({ operation: 'get', objectId });
		expect(result.error(NODE)).toBeUndefined();
		expect(cma.requests.map((r) => r.path)).toEqual([`/api/artworks/${sent}`]);
		expect(jsonOf(result)).toEqual([
			expect.objectContaining({ id: 152230, title: 'Harbor Lights' }),
		]);
		noKey(result);
	});

	test('Get: a work the museum does not hold is a 404 naming it, asked once', async () => {
		const result = await run({ operation: 'get', objectId: locator('id', '1999.999') });
		expect(result.error(NODE)!.message).toBe(
			'The museum service has no object with the ID "1999.999" [item 0]',
		);
		expect(cma.requests).toHaveLength(1);
	});

	test('the From List picker names each work', async () => {
		const found = await listSearch('museumObjectSearch', 'objects', credentials(), 'harbor lights');
		expect(found.results).toEqual([
			{
				name: 'Harbor Lights – Margaret Hale, Hale & Sons, c. 1890',
				value: '152230',
				url: 'https://clevelandart.org/art/2011.88',
			},
		]);
		expect(cma.requests[0].query).toMatchObject({ q: 'harbor lights', limit: '20', skip: '0' });
	});
});

describe('Cleveland Museum of Art Open Access API: filters in its own terms', () => {
	test('Public Domain Only (cc0), Classification (type), Department, Has Image, years', async () => {
		const filters = {
			publicDomainOnly: true,
			classification: 'Print',
			department: 'Prints',
			hasImage: true,
			createdAfter: 1800,
			createdBefore: 1925,
		};
		const result = await run({ returnAll: true, filters });
		expect(result.error(NODE)).toBeUndefined();
		expect(cma.requests[0].query).toEqual({
			cc0: '1',
			type: 'Print',
			department: 'Prints',
			has_image: '1',
			created_after: '1800',
			created_before: '1925',
			limit: '100',
			skip: '0',
		});
		const out = jsonOf(result);
		expect(out.length).toBeGreaterThan(0);
		expect(out.every((o) => o.publicDomain === true && o.classification === 'Print')).toBe(true);
	});

	test('Artist goes as "artists"', async () => {
		const out = jsonOf(await run({ limit: 10, filters: { person: 'Margaret Hale' } }));
		expect(cma.requests[0].query.artists).toBe('Margaret Hale');
		expect(out.map((o) => o.title)).toEqual(['Harbor Lights']);
	});

	test.each<[string, IDataObject, IDataObject?]>([
		['Period', { period: 'Edo period' }],
		['Color', { color: '#336699' }],
		['Sort', {}, { sort: 'title' }],
	])(
		'%s cannot be used: refused before any request, naming it and the service',
		async (label, filters, options = {}) => {
			const result = await run({ limit: 5, filters, options });
			expect(result.error(NODE)!.message).toMatch(
				new RegExp(`^"${label}" cannot be used with the Cleveland Museum of Art Open Access API`),
			);
			expect(cma.requests).toHaveLength(0);
		},
	);

	test('Public Domain Only with Harvard or a generic service says it cannot tell', async () => {
		for (const museumApi of ['harvard', 'generic']) {
			const result = await runSearch(
				{ limit: 5, filters: { publicDomainOnly: true } },
				{ museumUrl: cma.apiUrl, credentials: { museumApi } },
			);
			expect(result.error(NODE)!.message).toMatch(
				/^"Public Domain Only" cannot be used with the .*: it does not say which works are in the public domain/,
			);
		}
		expect(cma.requests).toHaveLength(0);
	});
});

describe('Cleveland Museum of Art Open Access API: images', () => {
	test('web for post and thumbnail sizes, print for the original; none without images', async () => {
		const web = await run({
			returnAll: true,
			filters: { department: 'Prints' },
			downloadImages: true,
		});
		expect(web.error(NODE)).toBeUndefined();
		const paths = cma.imageRequests.map((r) => r.path);
		expect(paths.length).toBeGreaterThan(0);
		expect(paths.every((p) => p.endsWith('_web.jpg'))).toBe(true);
		for (const item of web.output(NODE)) {
			if (item.json.imageUrl === null) expect(item.binary).toBeUndefined();
			else expect(jpegSize(Buffer.from(item.binary!.data.data, 'base64'))).toBeDefined();
		}
		cma.reset();
		const original = await run({
			operation: 'get',
			objectId: locator('id', '2011.88'),
			downloadImages: true,
			imageSize: 'original',
		});
		expect(cma.imageRequests.map((r) => r.path)).toEqual(['/2011.88/2011.88_print.jpg']);
		expect(original.output(NODE)[0].binary!.data.fileName).toBe('2011.88_print.jpg');
		cma.reset();
		await run({
			operation: 'get',
			objectId: locator('id', '2011.88'),
			downloadImages: true,
			imageSize: 'custom',
			imageWidth: 2000,
		});
		expect(cma.imageRequests.map((r) => r.path)).toEqual(['/2011.88/2011.88_print.jpg']);
	});

	test('an image the CDN does not have (404, as it answers now and then) leaves that work without binary data; the search goes on', async () => {
		cma.setMode({ missingImages: ['2011.88'] });
		const result = await run({
			operation: 'get',
			objectId: locator('id', '2011.88'),
			downloadImages: true,
		});
		expect(result.error(NODE)).toBeUndefined();
		expect(result.output(NODE)[0].binary).toBeUndefined();
		expect(hintsOf(result).map((h) => h.message)).toEqual([
			'The image host had no image at 1 address (HTTP 404 or 410): that object has no binary data; the other objects are complete.',
		]);
	});
});

describe('the open museums’ filters refuse a wrong value before any request, naming the field and the item', () => {
	test.each([
		[
			{ createdAfter: '={{ "1800s" }}' },
			/^"Created After" must be a whole number from -10000 to 10000, not "1800s" \[item 0\]$/,
		],
		[
			{ createdBefore: 1850.5 },
			/^"Created Before" must be a whole number from -10000 to 10000, not 1850\.5 \[item 0\]$/,
		],
		[
			{ createdAfter: 99999 },
			/^"Created After" must be a whole number from -10000 to 10000, not 99999 \[item 0\]$/,
		],
		[
			{ publicDomainOnly: '={{ "maybe" }}' },
			/^"Public Domain Only" must be true or false, not "maybe" \[item 0\]$/,
		],
		[{ department: '={{ { "toString": 1 } }}' }, /^"Department" .*\[item 0\]$/],
	])('%j', async (filters, message) => {
		const result = await run({ q: 'a', limit: 1, filters });
		expect(result.error(NODE)?.message).toMatch(message);
		expect(cma.requests).toHaveLength(0);
	});
});
