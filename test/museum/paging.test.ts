/** Museum Object Search: Return All and Limit across pages, stop rules, de-duplication. */
import type { IDataObject } from 'n8n-workflow';

import { logs, useServer } from '../harness/engine';
import {
	type MuseumRecord,
	generateMuseumRecords,
	hasSharedData,
	loadMuseumRecords,
	type MuseumServer,
	startMuseumServer,
} from '../servers';
import { jsonOf, NODE, pairedTo, runSearch } from './setup';

const fixtures = loadMuseumRecords({ source: 'fixture' });
const generated = generateMuseumRecords(1000);
const small = useServer(() => startMuseumServer({ records: fixtures }));
const gen = useServer(() => startMuseumServer({ records: generated }));

const ids = (items: IDataObject[]) => items.map((i) => i.id);
const objectIds = (records: MuseumRecord[]) => records.map((r) => r.objectid);
const pagesAsked = (server: MuseumServer) =>
	server.requests.map((r) => `${r.query.page}/${r.query.limit}`);
/** Pages asked for, in page order: once the first page says how many there are, the rest come concurrently. */
const pagesSorted = (server: MuseumServer) =>
	server.requests
		.map((r) => ({ page: Number(r.query.page), text: `${r.query.page}/${r.query.limit}` }))
		.sort((a, b) => a.page - b.page)
		.map((r) => r.text);
const success = (data: unknown) => ({
	kind: 'status' as const,
	status: 200,
	body: { status: 'success', data, message: 'OK' },
});

describe('answer shapes', () => {
	test.each(['envelope', 'dataArray', 'bareArray'] as const)(
		'%s: records are read',
		async (shape) => {
			small.setMode({ shape });
			const result = await runSearch({ limit: 5 }, { museumUrl: small.url });
			expect(result.workflowError).toBeUndefined();
			expect(ids(jsonOf(result))).toEqual(objectIds(fixtures.slice(0, 5)));
		},
	);

	test.each(['dataArray', 'bareArray'] as const)(
		'%s (no paging information): Return All goes on by page number and stops on the short page',
		async (shape) => {
			gen.setMode({ shape });
			const result = await runSearch({ returnAll: true }, { museumUrl: gen.url });
			expect(ids(jsonOf(result))).toEqual(objectIds(generated));
			// 1000 records: 10 full pages, then an empty 11th ends it
			expect(pagesAsked(gen)).toEqual([...Array.from({ length: 11 }, (_, n) => `${n + 1}/100`)]);
			small.setMode({ shape });
			const short = await runSearch({ returnAll: true }, { museumUrl: small.url });
			expect(jsonOf(short)).toHaveLength(fixtures.length);
			expect(pagesAsked(small)).toEqual(['1/100']); // 31 < 100: the short page is the last
		},
	);

	test('an unexpected shape is named in the error', async () => {
		small.setMode({ shape: 'weird' });
		const result = await runSearch({ limit: 5 }, { museumUrl: small.url });
		const error = result.error(NODE)!;
		expect(error.message).toBe(
			'The museum service answered with an object with the keys items, meta where a list of object records was expected [item 0]',
		);
		expect(error.description).toMatch(/data\.records|"records"/);
	});

	test.each([
		[
			{ status: 'success', data: null, message: 'OK' },
			/answered with an empty body where a list of object records/,
		],
		[
			{ status: 'success', data: 'nothing found', message: 'OK' },
			/answered with a string \(nothing found\) where/,
		],
		[
			{ status: 'success', data: { records: {} }, message: 'OK' },
			/answered with an object with the keys records where/,
		],
		[[1, 2], /sent result 1 as a number instead of an object/],
		[
			{ status: 'success', data: { records: [{ objectid: 1 }, null] }, message: 'OK' },
			/sent result 2 as null instead of an object/,
		],
	])('odd body %j', async (body, message) => {
		small.fail({ kind: 'status', status: 200, body });
		const result = await runSearch({ limit: 5 }, { museumUrl: small.url });
		expect(result.error(NODE)!.message).toMatch(message);
	});
});

describe('Limit and Return All across pages', () => {
	test('a Limit above 100 reads pages of 100 and cuts the last one', async () => {
		const result = await runSearch({ limit: 250 }, { museumUrl: gen.url });
		expect(ids(jsonOf(result))).toEqual(objectIds(generated.slice(0, 250)));
		expect(pagesAsked(gen)[0]).toBe('1/100');
		expect(pagesSorted(gen)).toEqual(['1/100', '2/100', '3/100']);
	});

	test('a Limit below 100 is the page size; with Page it starts further on', async () => {
		const result = await runSearch({ limit: 30, options: { page: 4 } }, { museumUrl: gen.url });
		expect(ids(jsonOf(result))).toEqual(objectIds(generated.slice(90, 120)));
		expect(pagesAsked(gen)).toEqual(['4/30']);
	});

	test('Return All: once the first page gives the page count, the others are asked for by number, records in order', async () => {
		gen.setMode({ concurrencyProbe: true, delayMs: 30 });
		const result = await runSearch({ returnAll: true }, { museumUrl: gen.url });
		expect(ids(jsonOf(result))).toEqual(objectIds(generated));
		expect(pagesAsked(gen)[0]).toBe('1/100');
		expect(pagesSorted(gen)).toEqual(Array.from({ length: 10 }, (_, n) => `${n + 1}/100`));
		// the pages after the first were in flight together
		expect(gen.maxInFlight).toBeGreaterThan(1);
	});

	test('Return All with a filter: every page carries it, and it stops at the last page', async () => {
		const result = await runSearch(
			{ returnAll: true, filters: { classification: 'Prints' } },
			{ museumUrl: gen.url },
		);
		const expected = generated.filter((r) => r.classification === 'Prints');
		expect(expected.length).toBeGreaterThan(100);
		expect(ids(jsonOf(result))).toEqual(objectIds(expected));
		const pages = Math.ceil(expected.length / 100);
		expect(pagesSorted(gen)).toEqual(Array.from({ length: pages }, (_, n) => `${n + 1}/100`));
		expect(gen.requests.every((r) => r.query.classification === 'Prints')).toBe(true);
	});

	test('Return All with Concurrency 1: one page after another, in order', async () => {
		gen.setMode({ concurrencyProbe: true });
		const result = await runSearch(
			{ returnAll: true, options: { concurrency: 1 } },
			{ museumUrl: gen.url },
		);
		expect(ids(jsonOf(result))).toEqual(objectIds(generated));
		expect(pagesAsked(gen)).toEqual(Array.from({ length: 10 }, (_, n) => `${n + 1}/100`));
		expect(gen.maxInFlight).toBe(1);
	});

	test('a next link is requested as it is (the service’s own parameters kept)', async () => {
		const page = (from: number, next?: string) =>
			success({ info: next ? { next } : {}, records: generated.slice(from, from + 100) });
		gen.fail(
			page(0, `${gen.url}/object?cursor=abc&limit=100`),
			page(100, `${gen.url}/object?cursor=def&limit=100`),
			page(200),
		);
		const result = await runSearch({ returnAll: true }, { museumUrl: gen.url });
		expect(jsonOf(result)).toHaveLength(300);
		expect(gen.requests.map((r) => r.query)).toEqual([
			{ limit: '100', page: '1' },
			{ cursor: 'abc', limit: '100' },
			{ cursor: 'def', limit: '100' },
		]);
		// the key goes along to the service's own origin
		expect(gen.requests.every((r) => r.headers.authorization === 'Bearer test-key-123')).toBe(true);
	});

	test('a short page with a next link is followed (a service whose page cap is below 100)', async () => {
		gen.fail(
			success({
				info: { next: `${gen.url}/object?page=2&limit=100` },
				records: generated.slice(0, 40),
			}),
			success({
				info: { next: `${gen.url}/object?page=3&limit=100` },
				records: generated.slice(40, 80),
			}),
			success({ info: {}, records: generated.slice(80, 100) }),
		);
		const result = await runSearch({ returnAll: true }, { museumUrl: gen.url });
		expect(ids(jsonOf(result))).toEqual(objectIds(generated.slice(0, 100)));
		expect(gen.requests).toHaveLength(3);
	});

	test('a next link to another host is not followed', async () => {
		const other = await startMuseumServer({ records: fixtures, requireKey: false });
		try {
			const foreign = other.url.replace('127.0.0.1', 'localhost');
			gen.fail(
				success({ info: { next: `${foreign}/object?page=2` }, records: generated.slice(0, 100) }),
			);
			const result = await runSearch({ returnAll: true }, { museumUrl: gen.url });
			expect(result.error(NODE)!.message).toMatch(
				/^The museum service sent a next-page link to another origin \(http:\/\/localhost:\d+\); it was not followed \[item 0\]$/,
			);
			expect(other.requests).toHaveLength(0);
			expect(gen.requests).toHaveLength(1);
		} finally {
			await other.close();
		}
	});

	test('an empty result is no items after one request', async () => {
		const result = await runSearch({ returnAll: true, q: 'zzzz-nothing' }, { museumUrl: gen.url });
		expect(result.workflowError).toBeUndefined();
		expect(result.output(NODE)).toHaveLength(0);
		expect(gen.requests).toHaveLength(1);
	});
});

describe('the Max Pages guard', () => {
	test('a service that never stops ends in a clear error after Max Pages requests, not a partial result', async () => {
		small.setMode({ endlessNext: true });
		const result = await runSearch(
			{ returnAll: true, options: { maxPages: 12 } },
			{ museumUrl: small.url },
		);
		const error = result.error(NODE)!;
		expect(error.name).toBe('NodeOperationError');
		expect(error.message).toBe(
			`The search needs more than 12 pages (Max Pages): the museum service still had more results after ${fixtures.length} records [item 0]`,
		);
		expect(error.description).toMatch(/Raise "Max Pages"/);
		expect(small.requests).toHaveLength(12);
	});

	test('the default guard (500 pages) stops an endless service too', async () => {
		// small pages (one new record each, always with a next link) keep this fast
		small.fail(
			...Array.from({ length: 501 }, (_, n) =>
				success({
					info: { next: `${small.url}/object?page=${n + 2}` },
					records: [{ objectid: n + 1 }],
				}),
			),
		);
		const result = await runSearch({ returnAll: true, output: 'raw' }, { museumUrl: small.url });
		expect(result.error(NODE)!.message).toMatch(
			/needs more than 500 pages .* after 500 records \[item 0\]/,
		);
		expect(small.requests).toHaveLength(500);
	});

	test('with Continue On Fail the guard is an error item paired to its input', async () => {
		small.setMode({ endlessNext: true });
		const result = await runSearch(
			{ returnAll: true, options: { maxPages: 3 } },
			{ museumUrl: small.url, extra: { continueOnFail: true } },
		);
		expect(result.output(NODE)).toEqual([
			{
				json: expect.objectContaining({ error: expect.stringMatching(/needs more than 3 pages/) }),
				pairedItem: { item: 0 },
			},
		]);
	});

	test('the guard can be raised: 10 pages fail at 9 and pass at 10', async () => {
		const failing = await runSearch(
			{ returnAll: true, options: { maxPages: 9 } },
			{ museumUrl: gen.url },
		);
		// the first page says there are 10: the guard is checked at once, after that page's 100 records
		expect(failing.error(NODE)!.message).toBe(
			'The search needs more than 9 pages (Max Pages): the museum service still had more results after 100 records [item 0]',
		);
		expect(gen.requests).toHaveLength(1);
		expect(failing.run.data.resultData.runData[NODE][0].data).toBeUndefined();
		gen.reset();
		const passing = await runSearch(
			{ returnAll: true, options: { maxPages: 10 } },
			{ museumUrl: gen.url },
		);
		expect(passing.workflowError).toBeUndefined();
		expect(jsonOf(passing)).toHaveLength(1000);
		expect(gen.requests).toHaveLength(10); // page 10 has no next link: no 11th request
	});

	test('a Limit reached within Max Pages never trips the guard', async () => {
		small.setMode({ endlessNext: true });
		const result = await runSearch(
			{ limit: 20, options: { maxPages: 1 } },
			{ museumUrl: small.url },
		);
		expect(result.workflowError).toBeUndefined();
		expect(jsonOf(result)).toHaveLength(20);
	});
});

describe('overlapping pages', () => {
	test('records repeated on the next page are output once, in order, and the repeats are logged', async () => {
		gen.setMode({ duplicateAcrossPages: true });
		const result = await runSearch({ returnAll: true }, { museumUrl: gen.url });
		const out = ids(jsonOf(result));
		expect(out).toEqual(objectIds(generated));
		// pages of 100 overlapping by one: 1 + ceil(900 / 99) = 11 pages, 10 repeats
		expect(gen.requests).toHaveLength(11);
		const line = logs.find((l) =>
			/museum search of item 0 fetched 11 pages and 1000 records, dropped 10 repeated/.test(
				l.message,
			),
		);
		expect(line).toBeDefined();
	});

	test('a Limit counts distinct records only', async () => {
		gen.setMode({ duplicateAcrossPages: true });
		const result = await runSearch({ limit: 250 }, { museumUrl: gen.url });
		expect(ids(jsonOf(result))).toEqual(objectIds(generated.slice(0, 250)));
		expect(gen.requests).toHaveLength(3);
	});

	test('with Fields, objectid is still asked for so repeats are recognised', async () => {
		gen.setMode({ duplicateAcrossPages: true });
		const result = await runSearch(
			{ limit: 150, output: 'raw', options: { fields: 'title' } },
			{ museumUrl: gen.url },
		);
		expect(gen.requests[0].query.fields).toBe('title,objectid');
		const out = jsonOf(result);
		expect(out.map((r) => r.objectid)).toEqual(objectIds(generated.slice(0, 150)));
	});
});

describe('Return All over more than 10,000 records', () => {
	const real = hasSharedData();
	const name = real
		? 'real Tate records: all prints'
		: 'generated records (../shared/data is absent): all 12,000';
	test(name, async () => {
		const records = real
			? loadMuseumRecords({ source: 'real', collections: ['tate'] })
			: generateMuseumRecords(12_000);
		const expected = real ? records.filter((r) => r.classification === 'Prints') : records;
		expect(expected.length).toBeGreaterThan(10_000);
		const server = await startMuseumServer({ records });
		try {
			const result = await runSearch(
				real ? { returnAll: true, filters: { classification: 'Prints' } } : { returnAll: true },
				{ museumUrl: server.url },
			);
			expect(result.workflowError).toBeUndefined();
			const out = jsonOf(result);
			expect(out).toHaveLength(expected.length);
			expect(new Set(out.map((i) => i.id)).size).toBe(expected.length);
			expect(out[0].id).toBe(expected[0].objectid);
			expect(out[out.length - 1].id).toBe(expected[expected.length - 1].objectid);
			const pages = Math.ceil(expected.length / 100);
			expect(server.requests).toHaveLength(pages);
			expect(server.requests[0].query.page).toBe('1');
			expect(server.requests.map((r) => Number(r.query.page)).sort((a, b) => a - b)).toEqual(
				Array.from({ length: pages }, (_, n) => n + 1),
			);
			expect(pairedTo(result.output(NODE), 0)).toHaveLength(expected.length);
		} finally {
			await server.close();
		}
	});
});
