/** Museum Object Search against the Art Institute of Chicago API stand-in: no key, its paging cap, its own terms. */
import type { IDataObject } from 'n8n-workflow';

import { testCredential, useServer } from '../harness/engine';
import { listSearch } from '../harness/loadOptions';
import {
	aicArtworksFrom,
	generateMuseumRecords,
	jpegSize,
	loadAicArtworks,
	startAicServer,
} from '../servers';
import { NODE, dump, hintsOf, jsonOf, keySightings, runSearch } from './setup';

const SECRET = 'aic-must-never+see/this';
const OWN = loadAicArtworks({ source: 'fixture' });
const ALL = [...OWN, ...aicArtworksFrom(generateMuseumRecords(1200))];
const aic = useServer(() => startAicServer({ artworks: ALL }));
const { version, name } = require('../../package.json') as { version: string; name: string };

const credentials = (apiKey = SECRET) => ({ apiKey, museumUrl: aic.apiUrl, museumApi: 'artic' });
const run = (params: IDataObject, extra = {}, apiKey = SECRET) =>
	runSearch(params, { museumUrl: aic.apiUrl, credentials: credentials(apiKey), extra });
const locator = (mode: string, value: string) => ({ __rl: true, mode, value });
const own = (id: number) => OWN.find((a) => a.id === id)!;

/** Every request: no key in any form, no Authorization, the AIC-User-Agent with the package's name and version. */
function checkRequests(result: Awaited<ReturnType<typeof run>>) {
	expect(aic.keySeen(SECRET)).toBe(false);
	expect(keySightings(result, SECRET)).toEqual([]);
	for (const r of aic.requests) {
		expect(r.headers.authorization).toBeUndefined();
		expect(r.query.apikey).toBeUndefined();
		expect(r.headers['aic-user-agent']).toMatch(
			new RegExp(`^${name}/${version.replace(/\./g, '\\.')}\\b`),
		);
	}
}

describe('Art Institute of Chicago API style', () => {
	test('Search: q with a Limit, the fields the output needs, one Simplified record per work', async () => {
		const result = await run({ q: 'cats', limit: 5 });
		expect(result.error(NODE)).toBeUndefined();
		const [request] = aic.requests;
		expect(aic.requests).toHaveLength(1);
		expect(request.path).toBe('/api/v1/artworks/search');
		expect(request.query).toMatchObject({ q: 'cats', limit: '5', page: '1' });
		expect(String(request.query.fields).split(',')).toEqual(
			expect.arrayContaining(['id', 'title', 'image_id', 'is_public_domain', 'credit_line']),
		);
		const out = jsonOf(result);
		expect(out.length).toBeGreaterThan(0);
		const cats = own(90044);
		expect(out.find((o) => o.id === cats.id)).toEqual({
			id: 90044,
			title: cats.title,
			artist: 'Utagawa Kunitora',
			date: '1857',
			classification: 'Print',
			period: cats.style_title ?? null,
			culture: cats.place_of_origin ?? null,
			medium: cats.medium_display ?? null,
			imageUrl: `${aic.iiifUrl}/${cats.image_id}/full/843,/0/default.jpg`,
			url: 'https://www.artic.edu/artworks/90044',
			creditLine: cats.credit_line,
			publicDomain: true,
			imagePermissionLevel: null,
		});
		checkRequests(result);
	});

	test('Simplified: no image is null, a master under 843 px is not upscaled, publicDomain from the flag', async () => {
		const result = await run({ returnAll: true, q: 'Border Blue Study' });
		const out = new Map(jsonOf(result).map((o) => [o.id, o]));
		expect(out.get(31877)).toMatchObject({ imageUrl: null, publicDomain: true, artist: 'Paracas' });
		expect(out.get(118902)).toMatchObject({ publicDomain: false });
		expect(out.get(20415)!.imageUrl).toBe(
			`${aic.iiifUrl}/${own(20415).image_id}/full/700,/0/default.jpg`,
		);
	});

	test('Return All stops at the 1,000-result cap without asking past it, and says so', async () => {
		const result = await run({ returnAll: true });
		expect(result.error(NODE)).toBeUndefined();
		const pages = aic.requests.map((r) => [Number(r.query.page), Number(r.query.limit)]);
		expect(pages.map(([p]) => p).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
		for (const [page, limit] of pages) expect(page * limit).toBeLessThanOrEqual(1000);
		const ids = jsonOf(result).map((o) => o.id);
		expect(ids).toHaveLength(1000);
		expect(new Set(ids).size).toBe(1000);
		expect(hintsOf(result).map((h) => h.message)).toEqual([
			`A search reached the first 1,000 results, the most the Art Institute of Chicago API answers for a search: ${ALL.length - 1000} more matching objects were not returned. Narrow the search with filters to reach them.`,
		]);
		checkRequests(result);
	});

	test('a Limit above the cap stops there too; a Page past it is refused before any request', async () => {
		const result = await run({ limit: 1500 });
		expect(jsonOf(result)).toHaveLength(1000);
		expect(Math.max(...aic.requests.map((r) => Number(r.query.page)))).toBe(10);
		expect(hintsOf(result)).toHaveLength(1);
		aic.reset();
		const past = await run({ limit: 50, options: { page: 21 } });
		expect(past.error(NODE)!.message).toMatch(/^"Page" starts past the first 1000 results/);
		expect(aic.requests).toHaveLength(0);
	});

	test('60 requests a minute, as the museum states, from the first: the 61st waits for the minute, none refused', async () => {
		const own = await startAicServer({ artworks: OWN });
		own.setMode({ throttlePerMinute: 60 });
		let stop: () => void = () => undefined;
		const running = runSearch(
			{ q: '={{ $json.q }}', limit: 1 },
			{
				museumUrl: own.apiUrl,
				credentials: { museumApi: 'artic' },
				items: Array.from({ length: 70 }, (_, n) => ({ q: `art ${n}` })),
				onStart: (fn) => (stop = fn),
			},
		);
		for (let i = 0; i < 500 && own.apiRequests.length < 60; i++)
			await new Promise((resolve) => setTimeout(resolve, 20));
		await new Promise((resolve) => setTimeout(resolve, 500));
		const sent = own.apiRequests.length;
		stop();
		const result = await running;
		await own.close();
		expect(sent).toBe(60);
		expect(result.run.status).toBe('canceled');
	});

	test('the API Key may be empty', async () => {
		const result = await run({ limit: 3 }, {}, '');
		expect(result.error(NODE)).toBeUndefined();
		expect(jsonOf(result)).toHaveLength(3);
	});

	test('the credential Test is a one-record search, without the key', async () => {
		for (const apiKey of ['', SECRET]) {
			aic.reset();
			const verdict = await testCredential(credentials(apiKey));
			expect(verdict.status).toBe('OK');
			expect(aic.requests.map((r) => [r.path, r.query.limit])).toEqual([
				['/api/v1/artworks/search', '1'],
			]);
			expect(aic.keySeen(SECRET)).toBe(false);
			expect(aic.requests[0].headers['aic-user-agent']).toMatch(/^n8n-nodes-triptych\//);
		}
	});

	test.each([
		['By ID', locator('id', '90044')],
		['By URL: the object page', locator('url', 'https://www.artic.edu/artworks/90044')],
		[
			'By URL: with its title slug',
			locator('url', 'https://www.artic.edu/artworks/90044/cats-on-a-rooftop-night'),
		],
		['From List', locator('list', '90044')],
	])('Get %s: GET /artworks/90044 once, as Search outputs it', async (_name, objectId) => {
		const result = await run({ operation: 'get', objectId });
		expect(result.error(NODE)).toBeUndefined();
		expect(aic.requests.map((r) => r.path)).toEqual(['/api/v1/artworks/90044']);
		expect(jsonOf(result)).toEqual([
			expect.objectContaining({
				id: 90044,
				publicDomain: true,
				url: 'https://www.artic.edu/artworks/90044',
			}),
		]);
		checkRequests(result);
	});

	test('Get: an unknown work is a 404 naming it, asked once; a non-numeric ID is refused unsent', async () => {
		const missing = await run({ operation: 'get', objectId: locator('id', '999999') });
		expect(missing.error(NODE)!.message).toBe(
			'The museum service has no object with the ID "999999" [item 0]',
		);
		expect(missing.error(NODE)!.httpCode).toBe('404');
		expect(aic.requests).toHaveLength(1);
		aic.reset();
		const wrong = await run({ operation: 'get', objectId: locator('id', 'abc') });
		expect(wrong.error(NODE)!.message).toMatch(
			/"Object" has "abc", which is not an object ID: an AIC artwork ID is a whole number/,
		);
		expect(aic.requests).toHaveLength(0);
	});

	test('the From List picker searches the museum and names each work', async () => {
		const found = await listSearch('museumObjectSearch', 'objects', credentials(), 'cats');
		expect(found.results).toContainEqual({
			name: 'Cats on a Rooftop, Night – Utagawa Kunitora, 1857',
			value: '90044',
			url: 'https://www.artic.edu/artworks/90044',
		});
		expect(aic.requests[0].query).toMatchObject({ q: 'cats', limit: '20', page: '1' });
		expect(aic.keySeen(SECRET)).toBe(false);
	});
});

describe('Art Institute of Chicago API: filters in its own terms', () => {
	test('Public Domain Only, Has Image and a date range go as query[bool][filter] clauses', async () => {
		const filters = {
			publicDomainOnly: true,
			hasImage: true,
			createdAfter: 1800,
			createdBefore: 1900,
		};
		const result = await run({ returnAll: true, filters });
		expect(result.error(NODE)).toBeUndefined();
		expect(aic.requests[0].query).toMatchObject({
			'query[bool][filter][0][exists][field]': 'image_id',
			'query[bool][filter][1][range][date_start][gte]': '1800',
			'query[bool][filter][2][range][date_end][lte]': '1900',
			'query[bool][filter][3][term][is_public_domain]': 'true',
		});
		const expected = ALL.filter(
			(a) =>
				a.is_public_domain &&
				a.image_id &&
				(a.date_start as number) >= 1800 &&
				(a.date_end as number) <= 1900,
		);
		const out = jsonOf(result);
		expect(out.map((o) => o.id).sort()).toEqual(expected.map((a) => a.id).sort());
		expect(out.every((o) => o.publicDomain === true && o.imageUrl)).toBe(true);
	});

	test('Artist, Classification and Department by name', async () => {
		const filters = {
			person: 'Utagawa Kunitora',
			classification: 'Print',
			department: 'Arts of Asia',
		};
		const result = await run({ limit: 10, filters });
		expect(jsonOf(result).map((o) => o.id)).toEqual([90044]);
	});

	test.each<[string, IDataObject, IDataObject?]>([
		['Color', { color: '#336699' }],
		[
			'Filter Parameter Names',
			{},
			{ filterNames: { names: [{ filter: 'person', parameter: 'artist' }] } },
		],
	])(
		'%s cannot be used: refused before any request, naming it and the service',
		async (label, filters, options = {}) => {
			const result = await run({ limit: 5, filters, options });
			expect(result.error(NODE)!.message).toMatch(
				new RegExp(`^"${label}" cannot be used with the Art Institute of Chicago API`),
			);
			expect(aic.requests).toHaveLength(0);
		},
	);
});

describe('Art Institute of Chicago API: images', () => {
	test('IIIF at the served width for the size, never an upscale; no image_id, no binary', async () => {
		const result = await run({
			q: 'Harbor Study Border Composition',
			returnAll: true,
			downloadImages: true,
			imageSize: 'thumbnail',
		});
		expect(result.error(NODE)).toBeUndefined();
		const items = result.output(NODE);
		const widths = aic.imageRequests.map((r) => r.path.split('/')[5]).sort();
		expect(widths.every((w) => ['400,'].includes(w))).toBe(true);
		for (const item of items) {
			const a = own(item.json.id as number);
			if (!a) continue;
			if (a.image_id === null) expect(item.binary).toBeUndefined();
			else expect(jpegSize(Buffer.from(item.binary!.data.data, 'base64'))?.width).toBe(400);
		}
		aic.reset();
		const original = await run({
			operation: 'get',
			objectId: locator('id', '20415'),
			downloadImages: true,
			imageSize: 'original',
		});
		expect(aic.imageRequests.map((r) => r.path)).toEqual([
			`/iiif/2/${own(20415).image_id}/full/700,/0/default.jpg`,
		]);
		expect(original.output(NODE)[0].binary!.data.fileName).toBe(`${own(20415).image_id}.jpg`);
		aic.reset();
		await run({
			operation: 'get',
			objectId: locator('id', '118902'),
			downloadImages: true,
			imageSize: 'original',
		});
		expect(aic.imageRequests.map((r) => r.path.split('/')[5])).toEqual(['843,']);
	});

	test("an image host's 403 (Cloudflare's challenge) leaves those items without binary data; a hint counts them", async () => {
		aic.setMode({ challenge: 'images' });
		const result = await run({ q: 'cats', limit: 10, downloadImages: true });
		expect(result.error(NODE)).toBeUndefined();
		const items = result.output(NODE);
		const withImages = items.filter((i) => i.json.imageUrl).length;
		expect(withImages).toBeGreaterThan(0);
		expect(items.every((i) => i.binary === undefined && !i.json.error)).toBe(true);
		expect(hintsOf(result).map((h) => h.message)).toEqual([
			`The image host refused ${withImages} downloads (HTTP 403): those objects have no binary data; the other objects are complete.`,
		]);
		expect(dump(result)).not.toContain(SECRET);
	});
});
