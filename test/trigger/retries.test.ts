/** Retries never fire an automation twice: `requests` is what arrived, `deliveries` what fired. */
import type { IDataObject } from 'n8n-workflow';

import { logs, useServer } from '../harness/engine';
import { type Fault, startTriggerServer } from '../servers';
import { FAST, NODE, numbered, runTrigger } from './helpers';

const server = useServer(() => startTriggerServer());

const KEYED = { ...FAST, idempotencyKey: '={{ $execution.id }}-{{ $itemIndex }}' };
const AUTO = { ...FAST, idempotency: 'auto' };
const AUTO_KEY = /^n8n-(\d+)-(node-\d+)-0-(\d+)$/;
const NO_RETRY =
	/The node did not retry: without an Idempotency Key .* a retry could fire the automation twice\. To make retries safe, set Options > Idempotency Key Mode to Automatic, or give a key unique per item, e\.g\. order-\{\{ \$json\.orderNumber \}\} \(the service must honour the Idempotency-Key header\)\./;

function retryLogs() {
	return logs
		.filter((l) =>
			/^Triptych: trigger: retry (\d+ of \d+|\(attempt \d+; 429s do not count toward Max Attempts\)) in \d+ ms after /.test(
				l.message,
			),
		)
		.map((l) => l.message);
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
		// the service holds its answer well past Timeout (a second, so that a loaded machine still sends in time)
		server.fail({ kind: 'slow', ms: 2500 });
		const result = await runTrigger(server, { event: 'slow', options: { ...FAST, timeout: 1000 } });
		const error = result.error(NODE)!;
		for (let i = 0; i < 50 && server.requests.length === 0; i++)
			await new Promise((r) => setTimeout(r, 50));
		expect(server.requests).toHaveLength(1);
		expect(server.deliveries).toHaveLength(1);
		expect(error.message).toBe(
			'The trigger service did not answer in full within the Timeout (1 s) [item 0]',
		);
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
		expect(retryLogs()[0]).toMatch(
			/^Triptych: trigger: retry \(attempt 2; 429s do not count toward Max Attempts\) in \d+ ms after HTTP 429$/,
		);
		expect(retryLogs()[1]).toMatch(/^Triptych: trigger: retry \(attempt 3; 429s do not count/);
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
		expect(error.message).toMatch(
			/^Nothing listens at http:\/\/127\.0\.0\.1:\d+ \(connection refused\)/,
		);
		expect(error.description).toContain('ECONNREFUSED');
		expect(error.description).toContain('gave up after 3 attempts');
		expect(error.description).not.toMatch(NO_RETRY);
		expect(retryLogs()).toHaveLength(2);
		expect(retryLogs()[0]).toMatch(
			/^Triptych: trigger: retry 1 of 2 in \d+ ms after ECONNREFUSED \(/,
		);
	});

	test('several items, one reset: every item reaches the service exactly once (Continue On Fail)', async () => {
		// the first request is answered normally (a zero delay), item 1's with a reset after the service processed it
		// (one call at a time, so the faults meet the items in order)
		server.fail({ kind: 'slow', ms: 0 }, { kind: 'reset' });
		const result = await runTrigger(
			server,
			{ event: '={{ "item_" + $itemIndex }}', options: { ...FAST, concurrency: 1 } },
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

describe('a cut-off answer (2xx whose JSON stops halfway)', () => {
	test('without an Idempotency Key it is not repeated: one request, and the error says why', async () => {
		server.fail({ kind: 'truncated' });
		const result = await runTrigger(server, { event: 'cut', options: FAST });
		const error = result.error(NODE)!;
		expect(server.requests).toHaveLength(1);
		expect(error.message).toBe(
			"The trigger service's answer was cut off: the transfer broke before the end [item 0]",
		);
		expect(error.description).toContain('ETRUNCATED');
		expect(error.description).toMatch(NO_RETRY);
		expect(retryLogs()).toEqual([]);
	});

	test('with an Idempotency Key it is retried and succeeds', async () => {
		server.fail({ kind: 'truncated' });
		const result = await runTrigger(server, { event: 'cut', options: KEYED });
		expect(result.workflowError).toBeUndefined();
		expect(server.requests).toHaveLength(2);
		expect(server.requests[0].headers['idempotency-key']).toBe(
			server.requests[1].headers['idempotency-key'],
		);
		expect(server.deliveries).toHaveLength(1);
		expect(result.output(NODE)[0].json).toMatchObject({
			event: 'cut',
			id: server.deliveries[0].id,
		});
		expect(retryLogs()).toHaveLength(1);
		expect(retryLogs()[0]).toMatch(/after ETRUNCATED \(/);
	});
});

describe('Idempotency Key Mode', () => {
	test('Automatic: n8n-<execution>-<node>-<run>-<item>, a distinct key per item', async () => {
		const result = await runTrigger(
			server,
			{ event: 'auto', options: AUTO },
			{ items: numbered(4) },
		);
		expect(result.workflowError).toBeUndefined();
		const keys = server.requests.map((r) => r.headers['idempotency-key'] as string);
		expect(keys).toHaveLength(4);
		expect(new Set(keys).size).toBe(4);
		// each item's call carried the key of its own item (the service echoes it back)
		const echoed = result.output(NODE).map((o) => o.json.idempotencyKey as string);
		echoed.forEach((key, i) => {
			const m = AUTO_KEY.exec(key);
			expect(m).not.toBeNull();
			expect(m![3]).toBe(String(i));
		});
		// the same execution and node for all of them
		expect(new Set(echoed.map((key) => AUTO_KEY.exec(key)![1] + AUTO_KEY.exec(key)![2])).size).toBe(
			1,
		);
		expect([...echoed].sort()).toEqual([...keys].sort());
		expect(server.deliveries).toHaveLength(4);
	});

	test('Automatic: a new execution gets new keys', async () => {
		await runTrigger(server, { event: 'auto', options: { idempotency: 'auto' } });
		await runTrigger(server, { event: 'auto', options: { idempotency: 'auto' } });
		const [a, b] = server.requests.map((r) => r.headers['idempotency-key'] as string);
		expect(a).toMatch(AUTO_KEY);
		expect(b).toMatch(AUTO_KEY);
		expect(a).not.toBe(b);
		expect(server.deliveries).toHaveLength(2);
	});

	test('Custom: the given key is sent; a key without a mode also means Custom', async () => {
		await runTrigger(server, {
			event: 'e',
			options: { idempotency: 'custom', idempotencyKey: 'order-17' },
		});
		await runTrigger(server, { event: 'e', options: { idempotencyKey: 'order-18' } });
		expect(server.requests.map((r) => r.headers['idempotency-key'])).toEqual([
			'order-17',
			'order-18',
		]);
	});

	test('None: no header, even with a key filled in', async () => {
		server.fail({ kind: 'status', status: 503, retryAfter: '0' });
		const result = await runTrigger(server, {
			event: 'e',
			options: { ...FAST, idempotency: 'none', idempotencyKey: 'order-19' },
		});
		expect(server.requests).toHaveLength(1);
		expect(server.requests[0].headers['idempotency-key']).toBeUndefined();
		expect(result.error(NODE)?.description).toMatch(NO_RETRY);
	});

	test('Custom with an empty key is refused before any request', async () => {
		const result = await runTrigger(
			server,
			{ event: 'e', options: { idempotency: 'custom', idempotencyKey: '={{ $json.missing }}' } },
			{ items: numbered(2) },
		);
		const error = result.error(NODE)!;
		expect(error.message).toBe(
			'"Idempotency Key" is empty while Idempotency Key Mode is Custom [item 0]',
		);
		expect(error.description).toContain('Automatic');
		expect(server.requests).toHaveLength(0);
	});
});

describe('with an Idempotency Key', () => {
	test.each<[string, Fault, IDataObject, boolean]>([
		['HTTP 502', { kind: 'status', status: 502, retryAfter: '0' }, KEYED, false],
		['HTTP 503', { kind: 'status', status: 503, retryAfter: '0' }, KEYED, false],
		['HTTP 504', { kind: 'status', status: 504, retryAfter: '0' }, KEYED, false],
		// the service recognises the repeat of a call it processed
		['a reset after the request was read', { kind: 'reset' }, KEYED, true],
		['a timeout after sending', { kind: 'slow', ms: 2000 }, { ...KEYED, timeout: 600 }, true],
		['HTTP 503, Automatic key', { kind: 'status', status: 503, retryAfter: '0' }, AUTO, false],
		['a reset after the request was read, Automatic key', { kind: 'reset' }, AUTO, true],
	])('%s is retried with the same key; fired once', async (_, fault, options, duplicate) => {
		server.fail(fault);
		const result = await runTrigger(server, {
			event: 'r',
			payload: 'json',
			jsonBody: '{"value1": "x"}',
			options,
		});
		expect(result.workflowError).toBeUndefined();
		expect(server.requests).toHaveLength(2);
		expect(server.requests[1].json).toEqual({ value1: 'x' });
		expect(server.requests[0].headers['idempotency-key']).toBe(
			server.requests[1].headers['idempotency-key'],
		);
		expect(server.requests[0].headers['idempotency-key']).toMatch(
			options === AUTO ? AUTO_KEY : /^\d+-0$/,
		);
		expect(server.deliveries).toHaveLength(1);
		expect(result.output(NODE)[0].json).toMatchObject({
			event: 'r',
			idempotencyKey: server.requests[0].headers['idempotency-key'],
			duplicate,
			id: server.deliveries[0].id,
			message: 'Fired r',
		});
	});

	test.each([1, 3])(
		'Max Attempts %i: that many requests, then it gives up',
		async (maxAttempts) => {
			server.fail(
				...[0, 1, 2, 3].map(() => ({ kind: 'status' as const, status: 503, retryAfter: '0' })),
			);
			const result = await runTrigger(server, { event: 'e', options: { ...KEYED, maxAttempts } });
			const error = result.error(NODE)!;
			expect(server.requests).toHaveLength(maxAttempts);
			expect(server.deliveries).toHaveLength(0);
			expect(error.description).toContain(`gave up after ${maxAttempts} attempt`);
			expect(error.description).not.toMatch(NO_RETRY);
		},
	);

	test('many items, mixed faults, 4 at a time: each item fires exactly once, output in input order', async () => {
		server.fail(
			{ kind: 'reset' },
			{ kind: 'status', status: 503, retryAfter: '0' },
			{ kind: 'slow', ms: 1500 },
			{ kind: 'status', status: 502, retryAfter: '0' },
			{ kind: 'status', status: 429, retryAfter: '0' },
			{ kind: 'reset' },
		);
		const items = numbered(12);
		const result = await runTrigger(
			server,
			{ event: 'batch', payload: 'item', options: { ...KEYED, timeout: 600, concurrency: 4 } },
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
