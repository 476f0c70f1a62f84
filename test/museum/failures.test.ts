/** Museum Object Search when the service misbehaves, Continue On Fail, and the key never showing. */
import type { IDataObject } from 'n8n-workflow';

import { logs, useServer } from '../harness/engine';
import { generateMuseumRecords, loadMuseumRecords, startMuseumServer } from '../servers';
import { dump, FAST, jsonOf, KEY, NODE, runSearch } from './setup';

const fixtures = loadMuseumRecords({ source: 'fixture' });
const bigRecords = generateMuseumRecords(500);
const museum = useServer(() => startMuseumServer({ records: fixtures }));
const big = useServer(() => startMuseumServer({ records: bigRecords }));

const run = (
	params: IDataObject,
	opts: { items?: IDataObject[]; extra?: IDataObject; credentials?: IDataObject } = {},
) => runSearch(params, { museumUrl: museum.url, ...opts });

describe('failures of the service', () => {
	test('401: a clear error pointing at the API key, not retried', async () => {
		const result = await run({ limit: 2, options: FAST }, { credentials: { apiKey: 'wrong-key' } });
		const error = result.error(NODE)!;
		expect(error.message).toBe(
			'The museum service answered status "fail": Invalid API key [item 0]',
		);
		expect(error.description).toMatch(/Check the API Key in the Triptych API credentials/);
		expect(error.httpCode).toBe('401');
		expect(museum.requests).toHaveLength(1);
	});

	test('the service’s own 400 (a hasimage value it refuses) shows its message', async () => {
		const result = await run({
			limit: 1,
			options: { additionalQuery: { parameters: [{ name: 'hasimage', value: 'yes' }] } },
		});
		expect(result.error(NODE)!.message).toMatch(
			/answered status "fail": hasimage must be 0 or 1 \[item 0\]/,
		);
		expect(result.error(NODE)!.httpCode).toBe('400');
	});

	test('a page failing in the middle of Return All fails the item: no partial result (Concurrency 1)', async () => {
		big.fail(
			{ kind: 'slow', ms: 0 },
			{ kind: 'slow', ms: 0 },
			...Array.from({ length: 2 }, () => ({ kind: 'status' as const, status: 502 })),
		);
		const result = await runSearch(
			{ returnAll: true, options: { ...FAST, maxAttempts: 2, concurrency: 1 } },
			{ museumUrl: big.url },
		);
		expect(result.error(NODE)!.message).toMatch(/answered status "error": Bad Gateway \[item 0\]/);
		// one page at a time: the pages after the failed one are never asked for
		expect(big.requests.map((r) => r.query.page)).toEqual(['1', '2', '3', '3']);
		expect(result.run.data.resultData.runData[NODE][0].data).toBeUndefined();
	});

	test('pages failing while fetched concurrently fail the item: no partial result', async () => {
		// page 1 is fine; every later request (pages 2-5 and their retries) gets a 502
		big.fail(
			{ kind: 'slow', ms: 0 },
			...Array.from({ length: 8 }, () => ({ kind: 'status' as const, status: 502 })),
		);
		const result = await runSearch(
			{ returnAll: true, options: { ...FAST, maxAttempts: 2 } },
			{ museumUrl: big.url },
		);
		expect(result.error(NODE)!.message).toMatch(/answered status "error": Bad Gateway \[item 0\]/);
		expect(result.error(NODE)!.description).toMatch(/gave up after 2 attempts/);
		// the page count is known from page 1: pages 2-5 were asked for by number, each twice
		expect(big.requests.map((r) => Number(r.query.page)).sort((a, b) => a - b)).toEqual([
			1, 2, 2, 3, 3, 4, 4, 5, 5,
		]);
		expect(result.run.data.resultData.runData[NODE][0].data).toBeUndefined();
	});

	test('a retried page in the middle of Return All does not repeat records', async () => {
		big.fail({ kind: 'slow', ms: 0 }, { kind: 'status', status: 503, retryAfter: '0' });
		const result = await runSearch({ returnAll: true, options: FAST }, { museumUrl: big.url });
		expect(result.workflowError).toBeUndefined();
		expect(jsonOf(result)).toHaveLength(500);
		expect(new Set(jsonOf(result).map((r) => r.id)).size).toBe(500);
		// the records keep the service's order, whatever order the pages arrived in
		expect(jsonOf(result).map((r) => r.id)).toEqual(bigRecords.map((r) => r.objectid));
		// page 1 once, then pages 2-5 concurrently: one of them (the first to arrive) was retried
		const pages = big.requests.map((r) => Number(r.query.page));
		expect(pages).toHaveLength(6);
		expect(pages[0]).toBe(1);
		expect(new Set(pages)).toEqual(new Set([1, 2, 3, 4, 5]));
		expect(pages.filter((p) => p === 1)).toHaveLength(1);
	});
});

describe('Continue On Fail', () => {
	test('a failed search becomes an error item paired to its input; the other items still run', async () => {
		museum.fail(
			{ kind: 'slow', ms: 0 },
			{ kind: 'envelope', envStatus: 'fail', message: 'Query too complex' },
		);
		// one search at a time, so the faults meet the items in order
		const result = await run(
			{ q: '={{ $json.q }}', limit: 2, options: { concurrency: 1 } },
			{ items: [{ q: 'turner' }, { q: 'monet' }, { q: 'rodin' }], extra: { continueOnFail: true } },
		);
		expect(result.workflowError).toBeUndefined();
		const out = result.output(NODE);
		expect(out.map((i) => i.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 0 },
			{ item: 1 },
			{ item: 2 },
			{ item: 2 },
		]);
		expect(out[2].json).toEqual({
			error: 'The museum service answered status "fail": Query too complex (HTTP 200) [item 1]',
			description: expect.any(String),
			httpCode: '200',
		});
		expect(out[0].json.artist).toMatch(/Turner/);
		expect(out[3].json.artist).toBe('Auguste Rodin');
	});

	test('without it the first failing item stops the run with its index', async () => {
		museum.fail({ kind: 'slow', ms: 0 }, { kind: 'status', status: 401 });
		const result = await run(
			{ q: '={{ $json.q }}', limit: 2, options: { concurrency: 1 } },
			{ items: [{ q: 'turner' }, { q: 'monet' }, { q: 'rodin' }] },
		);
		expect(result.error(NODE)!.message).toMatch(/\[item 1\]$/);
		expect((result.error(NODE)!.context as IDataObject).itemIndex).toBe(1);
		// the third item is never searched
		expect(museum.requests.map((r) => r.query.q)).toEqual(['turner', 'monet']);
	});
});

describe('the API key never shows', () => {
	test('not in output, errors, error items or logs, even when the service echoes the headers', async () => {
		museum.setMode({ echoHeaders: true });
		const failing = await run({ limit: 1, options: FAST });
		expect(museum.requests[0].headers.authorization).toBe(`Bearer ${KEY}`);
		expect(failing.error(NODE)!.message).toMatch(/Bearer \*\*\*/);
		const asItems = await run({ limit: 1, options: FAST }, { extra: { continueOnFail: true } });
		expect(asItems.output(NODE)[0].json.error).toMatch(/Bearer \*\*\*/);
		museum.setMode({ echoHeaders: false });
		museum.fail(
			{ kind: 'status', status: 429, retryAfter: '0' },
			{ kind: 'echoHeaders', status: 503 },
		);
		const retried = await run({ limit: 1, options: FAST });
		const ok = await run({ limit: 3, output: 'raw' });
		expect(jsonOf(ok)).toHaveLength(3);
		for (const result of [failing, asItems, retried, ok]) expect(dump(result)).not.toContain(KEY);
		expect(JSON.stringify(logs)).not.toContain(KEY);
	});
});
