/**
 * Retries must not fire an automation twice. The trigger server counts what it really received (`requests`) and
 * what fired (`deliveries`, deduplicated by Idempotency-Key), so each case checks both:
 * - a POST that may have reached the service (502/503/504, connection reset after the body was read, timeout after
 *   sending) is retried only with an Idempotency Key; without one the item fails and says why and how to fix it;
 * - 429 with Retry-After and failures before anything was sent (connection refused) are always retried.
 */
import type { IDataObject } from 'n8n-workflow';

import { logs } from '../harness/engine';
import { type TriggerServer, startTriggerServer } from '../servers';
import { FAST, NODE, numbered, runTrigger } from './helpers';

let server: TriggerServer;

beforeAll(async () => {
	server = await startTriggerServer();
});
afterAll(async () => await server.close());
beforeEach(() => {
	server.reset();
	logs.length = 0;
});

const KEYED = { ...FAST, idempotencyKey: '={{ $execution.id }}-{{ $itemIndex }}' };
const NO_RETRY =
	/The node did not retry: without an Idempotency Key .* a retry could fire the automation twice\. To make retries safe, set Options > Idempotency Key to a value unique per item, e\.g\. \{\{ \$execution\.id \}\}-\{\{ \$itemIndex \}\}/;

function retryLogs() {
	return logs.filter((l) => /^Triptych: .* retry \d+ of \d+/.test(l.message)).map((l) => l.message);
}

describe('without an Idempotency Key', () => {
	test.each([502, 503, 504])(
		'HTTP %i is not retried, and the error says why and how to make retries safe',
		async (status) => {
			server.fail({ kind: 'status', status, retryAfter: '0' });
			const result = await runTrigger(server, { event: 'e', options: FAST });
			const error = result.error(NODE)!;
			expect(server.requests).toHaveLength(1);
			expect(error.httpCode).toBe(String(status));
			expect(error.message).toMatch(/\[item 0\]$/);
			expect(error.description).toContain(
				`answered HTTP ${status} after receiving the request, so it may have acted on it already`,
			);
			expect(error.description).toMatch(NO_RETRY);
			expect(error.description).not.toContain('Max Attempts');
			expect(retryLogs()).toEqual([]);
		},
	);

	test('a connection reset after the request was read: fired once, not sent again', async () => {
		server.fail({ kind: 'reset' });
		const result = await runTrigger(server, { event: 'reset_me', options: FAST });
		const error = result.error(NODE)!;
		expect(server.requests).toHaveLength(1);
		expect(server.deliveries).toHaveLength(1); // the automation did fire, although the node saw a failure
		expect(error.message).toBe(
			'The connection to the trigger service broke after the request was sent [item 0]',
		);
		expect(error.description).toContain('ECONNRESET');
		expect(error.description).toMatch(NO_RETRY);
	});

	test('a timeout after sending: fired once, not sent again', async () => {
		server.fail({ kind: 'slow', ms: 400 });
		const result = await runTrigger(server, { event: 'slow', options: { ...FAST, timeout: 100 } });
		const error = result.error(NODE)!;
		expect(server.requests).toHaveLength(1);
		expect(server.deliveries).toHaveLength(1);
		expect(error.message).toBe('The trigger service did not answer in time [item 0]');
		expect(error.description).toContain('Raise "Timeout"');
		expect(error.description).toMatch(NO_RETRY);
	});

	test('429 with Retry-After is always retried: it was not processed', async () => {
		server.fail(
			{ kind: 'status', status: 429, retryAfter: '0' },
			{ kind: 'status', status: 429, retryAfter: '0' },
		);
		const result = await runTrigger(server, { event: 'busy', options: FAST });
		expect(result.workflowError).toBeUndefined();
		expect(server.requests).toHaveLength(3);
		expect(server.deliveries).toHaveLength(1);
		expect(result.output(NODE)[0].json).toMatchObject({ event: 'busy', duplicate: false });
		expect(retryLogs()).toHaveLength(2);
	});

	test('429 whose Retry-After is longer than Max Retry Wait stops at once and says so', async () => {
		server.fail({ kind: 'status', status: 429, retryAfter: '120' });
		const result = await runTrigger(server, {
			event: 'busy',
			options: { ...FAST, maxRetryWait: 1 },
		});
		const error = result.error(NODE)!;
		expect(server.requests).toHaveLength(1);
		expect(error.httpCode).toBe('429');
		expect(error.description).toContain('Retry-After');
		expect(error.description).toContain('Max Retry Wait');
	});

	test('connection refused (nothing was sent) is retried up to Max Attempts', async () => {
		const closed = await startTriggerServer();
		await closed.close();
		const result = await runTrigger(closed, { event: 'e', options: { ...FAST, maxAttempts: 3 } });
		const error = result.error(NODE)!;
		expect(error.message).toMatch(/^Could not reach the trigger service/);
		expect(error.description).toContain('ECONNREFUSED');
		expect(error.description).toContain('gave up after 3 attempts');
		expect(error.description).not.toMatch(NO_RETRY);
		expect(retryLogs()).toHaveLength(2);
		expect(retryLogs()[0]).toContain('ECONNREFUSED');
	});

	test('several items, one reset: every item reaches the service exactly once (Continue On Fail)', async () => {
		// the first request is answered normally (a zero delay), item 1's with a reset after the service processed it
		server.fail({ kind: 'slow', ms: 0 }, { kind: 'reset' });
		const result = await runTrigger(
			server,
			{ event: '={{ "item_" + $itemIndex }}', options: FAST },
			{ items: numbered(4), extra: { continueOnFail: true } },
		);
		const out = result.output(NODE);
		expect(out).toHaveLength(4);
		expect(out[1].json.error).toMatch(/broke after the request was sent \[item 1\]/);
		expect(out[1].json.description).toMatch(NO_RETRY);
		expect([0, 2, 3].map((i) => out[i].json.event)).toEqual(['item_0', 'item_2', 'item_3']);
		expect(server.requests.map((r) => r.path)).toEqual([
			'/trigger/item_0',
			'/trigger/item_1',
			'/trigger/item_2',
			'/trigger/item_3',
		]);
		expect(server.deliveries.map((d) => d.event)).toEqual(['item_0', 'item_1', 'item_2', 'item_3']);
	});
});

describe('with an Idempotency Key', () => {
	test.each([502, 503, 504])('HTTP %i is retried and fires once', async (status) => {
		server.fail({ kind: 'status', status, retryAfter: '0' });
		const result = await runTrigger(server, { event: 'e', options: KEYED });
		expect(result.workflowError).toBeUndefined();
		expect(server.requests).toHaveLength(2);
		expect(server.requests[0].headers['idempotency-key']).toBe(
			server.requests[1].headers['idempotency-key'],
		);
		expect(server.deliveries).toHaveLength(1);
		expect(result.output(NODE)[0].json).toMatchObject({
			duplicate: false,
			id: server.deliveries[0].id,
		});
	});

	test('a reset after the request was read is retried; the service recognises the repeat', async () => {
		server.fail({ kind: 'reset' });
		const result = await runTrigger(server, {
			event: 'r',
			payload: 'json',
			jsonBody: '{"value1": "x"}',
			options: KEYED,
		});
		expect(result.workflowError).toBeUndefined();
		expect(server.requests).toHaveLength(2);
		expect(server.requests[1].json).toEqual({ value1: 'x' });
		expect(server.deliveries).toHaveLength(1);
		const out = result.output(NODE)[0].json;
		expect(out).toMatchObject({
			event: 'r',
			duplicate: true,
			id: server.deliveries[0].id,
			message: 'Fired r',
		});
	});

	test('a timeout after sending is retried; fired once', async () => {
		server.fail({ kind: 'slow', ms: 400 });
		const result = await runTrigger(server, { event: 't', options: { ...KEYED, timeout: 100 } });
		expect(result.workflowError).toBeUndefined();
		expect(server.requests).toHaveLength(2);
		expect(server.deliveries).toHaveLength(1);
		expect(result.output(NODE)[0].json).toMatchObject({
			duplicate: true,
			id: server.deliveries[0].id,
		});
	});

	test('Max Attempts 1 turns retries off', async () => {
		server.fail({ kind: 'status', status: 503, retryAfter: '0' });
		const result = await runTrigger(server, { event: 'e', options: { ...KEYED, maxAttempts: 1 } });
		const error = result.error(NODE)!;
		expect(server.requests).toHaveLength(1);
		expect(error.description).toContain('gave up after 1 attempt');
		expect(error.description).not.toMatch(NO_RETRY);
	});

	test('retries give up after Max Attempts', async () => {
		const all503 = Array.from({ length: 5 }, () => ({
			kind: 'status' as const,
			status: 503,
			retryAfter: '0',
		}));
		server.fail(...all503);
		const result = await runTrigger(server, { event: 'e', options: { ...KEYED, maxAttempts: 3 } });
		expect(result.error(NODE)?.description).toContain('gave up after 3 attempts');
		expect(server.requests).toHaveLength(3);
		expect(server.deliveries).toHaveLength(0);
	});

	test('many items, mixed faults, 4 at a time: each item fires exactly once, output in input order', async () => {
		server.fail(
			{ kind: 'reset' },
			{ kind: 'status', status: 503, retryAfter: '0' },
			{ kind: 'slow', ms: 300 },
			{ kind: 'status', status: 502, retryAfter: '0' },
			{ kind: 'status', status: 429, retryAfter: '0' },
			{ kind: 'reset' },
		);
		const items = numbered(12);
		const result = await runTrigger(
			server,
			{ event: 'batch', payload: 'item', options: { ...KEYED, timeout: 150, concurrency: 4 } },
			{ items },
		);
		expect(result.workflowError).toBeUndefined();
		const out = result.output(NODE);
		expect(out.map((o) => (o.json.received as IDataObject).n)).toEqual(items.map((it) => it.n));
		expect(out.map((o) => o.pairedItem)).toEqual(items.map((_, item) => ({ item })));
		// every item delivered once, whatever the number of attempts
		expect(server.deliveries).toHaveLength(12);
		expect(new Set(server.deliveries.map((d) => d.idempotencyKey)).size).toBe(12);
		expect(
			server.deliveries.map((d) => (d.body as IDataObject).n).sort((a, b) => Number(a) - Number(b)),
		).toEqual(items.map((it) => it.n));
		expect(server.requests.length).toBeGreaterThanOrEqual(12 + 6);
		// the items that saw a reset or a timeout got the first answer back
		expect(out.filter((o) => o.json.duplicate === true).length).toBeGreaterThanOrEqual(2);
	});
});
