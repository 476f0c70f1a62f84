/**
 * The editor's lists (Get's Object, the Classification, Period and Department filters) against services that answer
 * oddly: what an entry may carry into the editor (which saves a picked entry in the workflow and opens its link), how
 * much a list holds, and that a list's requests take the nodes' road (the key, the envelope, the shared pause). Then
 * the open museums' own lists on their stand-ins: what each list shows, and that a picked entry filters a search.
 */
import * as http from 'node:http';
import type { IDataObject } from 'n8n-workflow';
import type { AddressInfo } from 'node:net';

import { listSearch } from '../harness/loadOptions';
import { testCredential, useServer } from '../harness/engine';
import {
	AIC_ARTWORK_TYPES,
	AIC_DEPARTMENT_TERMS,
	AIC_ERRORS,
	AIC_STYLE_TERMS,
	type AicTerm,
	aicArtworksFrom,
	clevelandArtworksFrom,
	generateMuseumRecords,
	loadAicArtworks,
	loadClevelandArtworks,
	startAicServer,
	startClevelandServer,
} from '../servers';
import { NODE, jsonOf, runSearch } from './setup';

const KEY = 'picker-key-5f3a9c2e71';

type Answer = { status?: number; headers?: Record<string, string>; body: unknown };
interface Scripted {
	url: string;
	requests: URL[];
	/** What each request gets, from its address */
	answer: (url: URL, req: http.IncomingMessage) => Answer;
	close(): Promise<void>;
}

async function startScripted(): Promise<Scripted> {
	const scripted = {
		requests: [] as URL[],
		answer: (): Answer => ({ body: { info: { pages: 1 }, records: [] } }),
	} as unknown as Scripted;
	const server = http.createServer((req, res) => {
		const url = new URL(req.url ?? '/', 'http://127.0.0.1');
		scripted.requests.push(url);
		const { status = 200, headers = {}, body } = scripted.answer(url, req);
		res.writeHead(status, { 'content-type': 'application/json', ...headers });
		res.end(typeof body === 'string' ? body : JSON.stringify(body));
	});
	await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
	scripted.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	scripted.close = async () => await new Promise<void>((done) => server.close(() => done()));
	return scripted;
}

let service: Scripted;
beforeEach(async () => {
	service = await startScripted();
});
afterEach(async () => await service.close());

const harvard = () => ({ apiKey: KEY, museumUrl: service.url, museumApi: 'harvard' });
const search = (
	method: string,
	filter?: unknown,
	token?: unknown,
	credentials: IDataObject = harvard(),
) => listSearch('museumObjectSearch', method, credentials, filter as string, token as string);

/** Echoes the request back the way a debugging proxy does: the address and the header it got, key and all */
const echo = (url: URL, req: http.IncomingMessage) =>
	`${url.pathname}${url.search} Auth ${String(req.headers.authorization ?? '')}`;

test('an entry keeps a link only when it is a web address: the editor opens it as it is', async () => {
	const links = [
		'javascript:alert(document.cookie)',
		'data:text/html,<script>1</script>',
		'https://museum.example/object/3',
		' JAVASCRIPT:alert(1)',
		'vbscript:x',
		42,
	];
	service.answer = () => ({
		body: {
			info: { pages: 1 },
			records: links.map((url, n) => ({ objectid: n + 1, title: `Work ${n + 1}`, url })),
		},
	});
	const { results } = await search('objects', 'work');
	expect(results).toHaveLength(links.length);
	expect(results.map((entry) => entry.url)).toEqual([
		undefined,
		undefined,
		'https://museum.example/object/3',
		undefined,
		undefined,
		undefined,
	]);
	for (const entry of results)
		expect(Object.keys(entry).sort()).toEqual(
			entry.url ? ['name', 'url', 'value'] : ['name', 'value'],
		);
});

test.each([
	['objects', 'harvard'],
	['classifications', 'harvard'],
	['periods', 'harvard'],
	['objects', 'generic'],
])(
	'%s (%s style): a service that echoes the request shows no piece of the key in any entry',
	async (method, museumApi) => {
		service.answer = (url, req) => ({
			body: {
				status: 'success',
				message: echo(url, req),
				data: {
					info: { pages: 1 },
					records: [
						{
							objectid: 1,
							id: 1,
							name: echo(url, req),
							title: echo(url, req),
							dated: KEY.slice(3, 15),
							url: `https://museum.example/${url.search}`,
						},
						{
							objectid: 2,
							id: 2,
							name: `Prints ${echo(url, req)}`,
							title: 'Plain',
							url: `https://museum.example/o?apikey=${KEY}`,
						},
					],
				},
			},
		});
		const { results } = await search(method, '', undefined, { ...harvard(), museumApi });
		expect(results.length).toBeGreaterThan(0);
		const shown = JSON.stringify(results);
		expect(shown).not.toContain(KEY);
		expect(shown).not.toContain(KEY.slice(3, 15));
		expect(shown).not.toContain(encodeURIComponent(KEY));
	},
);

test('Generic style: From List reads the documented {status, data, message} envelope, as Search does', async () => {
	service.answer = () => ({
		body: {
			status: 'success',
			message: 'OK',
			data: { info: { pages: 1 }, records: [{ id: 'a.1', title: 'Enveloped' }] },
		},
	});
	const { results } = await search('objects', 'env', undefined, {
		apiKey: KEY,
		museumUrl: service.url,
	});
	expect(results).toEqual([{ name: 'Enveloped', value: 'a.1' }]);
	expect(service.requests[0].pathname).toBe('/object');
});

test('a list page holds what was asked for, whatever the service sends: the dropdown renders every entry', async () => {
	const records = Array.from({ length: 100_000 }, (_, n) => ({ id: n, name: `T${n}` }));
	service.answer = () => ({ body: { info: { pages: 9 }, records } });
	const objects = await search('objects');
	expect(objects.results).toHaveLength(20);
	expect(objects.paginationToken).toBe('2');
	const classifications = await search('classifications');
	expect(classifications.results).toHaveLength(100);
});

test('typing in the Period list finds names on every page (bounded), since the editor asks for no next page then', async () => {
	const names = Array.from({ length: 298 }, (_, n) => `Period ${String(n).padStart(3, '0')}`);
	service.answer = (url) => {
		const page = Number(url.searchParams.get('page'));
		const size = Number(url.searchParams.get('size'));
		const records = names
			.slice((page - 1) * size, page * size)
			.map((name, n) => ({ periodid: n, name }));
		return { body: { info: { pages: 3, page }, records } };
	};
	const found = await search('periods', 'period 29');
	expect(found.results.map((entry) => entry.value)).toEqual(
		names.filter((n) => n.startsWith('Period 29')),
	);
	expect(found.paginationToken).toBeUndefined();
	expect(service.requests.map((r) => r.searchParams.get('page'))).toEqual(['1', '2', '3']);
	// without typed text, one page at a time as the editor scrolls
	service.requests.length = 0;
	const first = await search('periods');
	expect(first.results).toHaveLength(100);
	expect(first.paginationToken).toBe('2');
	expect(service.requests).toHaveLength(1);
});

test('an empty page ends a list even when it carries a next link', async () => {
	service.answer = (url) => ({
		body: {
			info: {
				pages: 50,
				next: `${service.url}/object?page=${Number(url.searchParams.get('page')) + 1}`,
			},
			records: [],
		},
	});
	expect(await search('objects', 'x')).toEqual({ results: [] });
	expect(await search('classifications')).toEqual({ results: [] });
});

test('filter and token of any shape (an expression can hand over objects) never give a bare TypeError', async () => {
	service.answer = () => ({
		body: { info: { pages: 1 }, records: [{ objectid: 1, name: 'A', title: 'A' }] },
	});
	const hostile = { toString: 42, valueOf: 'x' };
	await expect(search('objects', hostile, hostile)).resolves.toEqual({
		results: [{ name: 'A', value: '1' }],
	});
	await expect(search('periods', hostile, hostile)).resolves.toEqual({
		results: [{ name: 'A', value: 'A' }],
	});
	expect(service.requests.every((r) => r.searchParams.get('page') === '1')).toBe(true);
});

test('a list honours the pause a service asked for: the editor does not keep calling it', async () => {
	service.answer = () => ({
		status: 429,
		headers: { 'retry-after': '60' },
		body: { message: 'slow down' },
	});
	await expect(search('objects', 'a')).rejects.toThrow(/429|rate-limit/);
	const sent = service.requests.length;
	expect(sent).toBe(1);
	await expect(search('objects', 'b')).rejects.toThrow(/rate-limiting/);
	expect(service.requests).toHaveLength(sent);
});

test('the credential Test sends no key to the quotes service while its switch is off, on an origin shared with the museum', async () => {
	const seen: Array<{ path: string; auth?: string }> = [];
	service.answer = (url, req) => {
		seen.push({ path: url.pathname, auth: req.headers.authorization });
		return {
			body: url.pathname.endsWith('/tags')
				? [{ name: 'wisdom' }]
				: { info: { pages: 1 }, records: [] },
		};
	};
	const result = await testCredential({
		apiKey: KEY,
		museumUrl: `${service.url}/museum`,
		quotesUrl: `${service.url}/quotes`,
	});
	expect(result.status).toBe('OK');
	const quotes = seen.filter((r) => r.path.startsWith('/quotes'));
	expect(quotes).toHaveLength(1);
	expect(quotes[0].auth).toBeUndefined();
	expect(seen.find((r) => r.path.startsWith('/museum'))?.auth).toBe(`Bearer ${KEY}`);
});

test('Return All: a next link back to a page already read ends the search after one round, each object once', async () => {
	const link = (page: number) => `${service.url}/object?page=${page}&limit=100`;
	service.answer = (url) => {
		const page = Number(url.searchParams.get('page'));
		const records = Array.from({ length: 10 }, (_, n) => ({
			id: (page - 1) * 10 + n + 1,
			title: 'T',
		}));
		return { body: { info: { next: link(page === 2 ? 1 : 2) }, records } };
	};
	const result = await runSearch(
		{ returnAll: true, q: 'x', output: 'raw' },
		{ museumUrl: service.url, credentials: { apiKey: KEY } },
	);
	expect(result.workflowError).toBeUndefined();
	expect(jsonOf(result).map((r) => r.id)).toEqual(Array.from({ length: 20 }, (_, n) => n + 1));
	expect(service.requests.map((r) => r.searchParams.get('page'))).toEqual(['1', '2', '1']);
});

test.each(['harvard', 'generic'])(
	'Department From List (%s style): the service has no such filter, and the error says so',
	async (museumApi) => {
		const name = museumApi === 'harvard' ? 'Harvard Art Museums API' : 'Generic';
		await expect(search('departments', '', undefined, { ...harvard(), museumApi })).rejects.toThrow(
			`This museum service (${name} style) has no Department filter: remove it`,
		);
		expect(service.requests).toHaveLength(0);
	},
);

const locator = (mode: string, value: string) => ({ __rl: true, mode, value });
const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);

describe('Art Institute of Chicago API: its own lists', () => {
	const ALL = [
		...loadAicArtworks({ source: 'fixture' }),
		...aicArtworksFrom(generateMuseumRecords(300)),
	];
	const aic = useServer(() => startAicServer({ artworks: ALL }));
	const credentials = () => ({ apiKey: KEY, museumUrl: aic.apiUrl, museumApi: 'artic' });
	const list = (method: string, filter?: string, token?: string) =>
		listSearch('museumObjectSearch', method, credentials(), filter, token);
	const entries = (terms: AicTerm[]) =>
		terms.map((t) => ({ name: t.title, value: String(t.id) })).sort(byName);
	/** Every list request: keyless, one page of at most 100 */
	function keyless() {
		expect(aic.keySeen(KEY)).toBe(false);
		for (const r of aic.requests) {
			expect(r.headers.authorization).toBeUndefined();
			expect(r.query).toMatchObject({ limit: '100' });
		}
	}
	const filtered = async (filters: IDataObject) => {
		aic.reset();
		const result = await runSearch(
			{ returnAll: true, filters, output: 'raw' },
			{ museumUrl: aic.apiUrl, credentials: { ...credentials() } },
		);
		expect(result.error(NODE)).toBeUndefined();
		return { query: aic.requests[0].query, ids: jsonOf(result).map((r) => r.id) };
	};

	test('Department: GET /departments, by name, the department ID as value; a picked one filters', async () => {
		const { results } = await list('departments');
		expect(results).toEqual(entries(AIC_DEPARTMENT_TERMS));
		expect(aic.requests.map((r) => [r.path, r.query])).toEqual([
			['/api/v1/departments', { limit: '100', page: '1' }],
		]);
		keyless();
		expect((await list('departments', ' ASIA ')).results).toEqual([
			{ name: 'Arts of Asia', value: 'PC-7' },
		]);
		const picked = await filtered({ department: locator('list', 'PC-7') });
		expect(picked.query).toMatchObject({ 'query[bool][filter][0][term][department_id]': 'PC-7' });
		const asia = ALL.filter((a) => a.department_id === 'PC-7').map((a) => a.id);
		expect(asia.length).toBeGreaterThan(1);
		expect(picked.ids.sort()).toEqual(asia.sort());
		// By Name, and a value saved before Department had From List (a plain string), still filter by title
		for (const department of [locator('name', 'Arts of Asia'), 'Arts of Asia']) {
			const named = await filtered({ department });
			expect(named.query).toMatchObject({
				'query[bool][filter][0][term][department_title.keyword]': 'Arts of Asia',
			});
			expect(named.ids.sort()).toEqual(asia.sort());
		}
	});

	test('Classification: GET /artwork-types, the type ID as value; a picked one filters', async () => {
		const { results } = await list('classifications');
		expect(results).toEqual(entries(AIC_ARTWORK_TYPES));
		expect(aic.requests.map((r) => r.path)).toEqual(['/api/v1/artwork-types']);
		keyless();
		const prints = await list('classifications', 'print');
		expect(prints.results).toEqual([{ name: 'Print', value: '18' }]);
		const picked = await filtered({ classification: locator('list', '18') });
		expect(picked.query).toMatchObject({ 'query[bool][filter][0][term][artwork_type_id]': '18' });
		const expected = ALL.filter((a) => a.artwork_type_id === 18).map((a) => a.id);
		expect(expected.length).toBeGreaterThan(1);
		expect(picked.ids.sort()).toEqual(expected.sort());
	});

	test('Period: the styles of GET /category-terms/search, the title as value; a picked one filters', async () => {
		const { results } = await list('periods');
		const styles = AIC_STYLE_TERMS.map((t) => ({ name: t.title, value: t.title }));
		expect(results).toEqual(styles.sort(byName));
		expect(aic.requests.map((r) => [r.path, r.query])).toEqual([
			[
				'/api/v1/category-terms/search',
				{ 'query[term][subtype]': 'style', limit: '100', page: '1' },
			],
		]);
		keyless();
		expect((await list('periods', ' ISM')).results).toEqual(
			styles.filter((s) => s.name.toLowerCase().includes('ism')),
		);
		expect((await list('periods', 'Arts of')).results).toEqual([]);
		const picked = await filtered({ period: locator('list', 'Impressionism') });
		expect(picked.query).toMatchObject({
			'query[bool][filter][0][match_phrase][style_title]': 'Impressionism',
		});
		const impressionist = ALL.filter((a) => a.style_title === 'Impressionism').map((a) => a.id);
		expect(impressionist.length).toBeGreaterThan(1);
		expect(picked.ids.sort()).toEqual(impressionist.sort());
	});

	test("Period: a long style list is read no deeper than AIC's first 1,000 results", async () => {
		const styles = Array.from({ length: 1050 }, (_, n) => ({
			...AIC_STYLE_TERMS[0],
			id: `TM-${n + 20000}`,
			title: `Style ${n + 1000}`,
		}));
		const long = await startAicServer({ artworks: ALL.slice(0, 5), styles });
		try {
			const at = { ...credentials(), museumUrl: long.apiUrl };
			const read = (filter?: string, token?: string) =>
				listSearch('museumObjectSearch', 'periods', at, filter, token);
			const ninth = await read(undefined, '9');
			expect([ninth.results.length, ninth.paginationToken]).toEqual([100, '10']);
			const tenth = await read(undefined, '10');
			expect(tenth.results.map((e) => e.name)).toEqual(styles.slice(900, 1000).map((t) => t.title));
			expect(tenth.paginationToken).toBeUndefined();
			expect(await read(undefined, '11')).toEqual({ results: [] });
			expect(long.requests.map((r) => r.query.page)).toEqual(['9', '10']);
			long.reset();
			expect(await read('style 1999')).toEqual({
				results: [{ name: 'Style 1999', value: 'Style 1999' }],
			});
			expect(await read('style 2049')).toEqual({ results: [] });
			// ten pages of 100 for each typed text: the last asks for results 901 to 1,000
			const reach = long.requests.map((r) => Number(r.query.page) * Number(r.query.limit));
			expect(reach).toEqual(
				[1, 2].flatMap(() => [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((p) => p * 100)),
			);
			// the page past them is one AIC refuses
			const past = await fetch(`${long.apiUrl}/category-terms/search?limit=100&page=11`);
			expect([past.status, await past.json()]).toEqual([403, AIC_ERRORS.tooManyResults]);
		} finally {
			await long.close();
		}
	});

	test('a long list: pages of limit 100 by page; typed text looked for on every page (bounded)', async () => {
		const types = Array.from({ length: 250 }, (_, n) => ({
			...AIC_ARTWORK_TYPES[0],
			id: n + 100,
			title: `Type ${n + 100}`,
			updated_at: `2024-01-01T00:00:${String(n % 60).padStart(2, '0')}-05:00`,
		}));
		const long = await startAicServer({ artworks: ALL.slice(0, 5), artworkTypes: types });
		try {
			const at = { ...credentials(), museumUrl: long.apiUrl };
			const read = (filter?: string, token?: string) =>
				listSearch('museumObjectSearch', 'classifications', at, filter, token);
			const first = await read();
			expect(first.results).toHaveLength(100);
			expect(first.paginationToken).toBe('2');
			const third = await read(undefined, '3');
			expect(third.results).toHaveLength(50);
			expect(third.paginationToken).toBeUndefined();
			const shown = [first, await read(undefined, '2'), third].flatMap((p) => p.results);
			expect(new Set(shown.map((e) => e.value)).size).toBe(250);
			long.reset();
			const typed = await read('type 24');
			const wanted = types.filter((t) => t.title.startsWith('Type 24'));
			expect(typed).toEqual({ results: entries(wanted) });
			expect(long.requests.map((r) => [r.query.limit, r.query.page])).toEqual([
				['100', '1'],
				['100', '2'],
				['100', '3'],
			]);
		} finally {
			await long.close();
		}
	});
});

describe('Cleveland Museum of Art Open Access API: its documented lists', () => {
	const ALL = [
		...loadClevelandArtworks({ source: 'fixture' }),
		...clevelandArtworksFrom(generateMuseumRecords(250)),
	];
	const cma = useServer(() => startClevelandServer({ artworks: ALL }));
	const credentials = () => ({ apiKey: KEY, museumUrl: cma.apiUrl, museumApi: 'cleveland' });
	const list = (method: string, filter?: string) =>
		listSearch('museumObjectSearch', method, credentials(), filter);

	test("Department and Classification: the documentation's constants, without a request", async () => {
		const departments = (await list('departments')).results;
		expect(departments).toHaveLength(21);
		expect(departments).toContainEqual({ name: 'Prints', value: 'Prints' });
		expect(departments).toContainEqual({
			name: 'Performing Arts, Music, & Film',
			value: 'Performing Arts, Music, & Film',
		});
		const types = (await list('classifications')).results;
		expect(types).toHaveLength(69);
		expect([...types].sort(byName)).toEqual(types);
		expect((await list('classifications', 'photo')).results).toEqual([
			{ name: 'Photograph', value: 'Photograph' },
		]);
		expect((await list('departments', 'PAINTING')).results.map((e) => e.name)).toEqual([
			'American Painting and Sculpture',
			'European Painting and Sculpture',
			'Modern European Painting and Sculpture',
		]);
		expect(cma.requests).toHaveLength(0);
	});

	test('picked Department and Classification go as department and type, keyless, and filter', async () => {
		const filters = {
			department: locator('list', 'Prints'),
			classification: locator('list', 'Print'),
		};
		const result = await runSearch(
			{ returnAll: true, filters, output: 'raw' },
			{ museumUrl: cma.apiUrl, credentials: credentials() },
		);
		expect(result.error(NODE)).toBeUndefined();
		expect(cma.requests[0].query).toMatchObject({ department: 'Prints', type: 'Print' });
		for (const r of cma.requests) {
			expect(r.headers.authorization).toBeUndefined();
			expect(JSON.stringify([r.path, r.query])).not.toContain(KEY);
		}
		const expected = ALL.filter((a) => a.department === 'Prints' && a.type === 'Print');
		expect(expected.length).toBeGreaterThan(1);
		expect(
			jsonOf(result)
				.map((r) => r.id)
				.sort(),
		).toEqual(expected.map((a) => a.id).sort());
	});

	test('Period: Cleveland has no such filter, and From List says so', async () => {
		await expect(list('periods')).rejects.toThrow(
			'This museum service (Cleveland Museum of Art Open Access API style) has no Period filter: remove it',
		);
		expect(cma.requests).toHaveLength(0);
	});
});
