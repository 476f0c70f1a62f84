/** Fire Automation: Concurrency, batching windows, output order, and a failure that stops sending. */
import type { IDataObject } from 'n8n-workflow';

import { startTriggerServer } from '../servers';
import { useServer } from '../harness/engine';
import { FAST, NODE, numbered, runTrigger } from './helpers';

const server = useServer(() => startTriggerServer());

function receivedN(result: Awaited<ReturnType<typeof runTrigger>>) {
	return result.output(NODE).map((o) => (o.json.received as IDataObject | undefined)?.n);
}

describe('concurrency', () => {
	test('default: the items are sent concurrently; the output follows the input order', async () => {
		server.setMode({ concurrencyProbe: true, delayMs: 40 });
		const result = await runTrigger(
			server,
			{ event: 'e', payload: 'item' },
			{ items: numbered(6) },
		);
		expect(result.workflowError).toBeUndefined();
		expect(server.maxInFlight).toBeGreaterThan(1);
		expect(server.maxInFlight).toBeLessThanOrEqual(6);
		expect(server.requests).toHaveLength(6);
		expect(receivedN(result)).toEqual([0, 1, 2, 3, 4, 5]);
		expect(result.output(NODE).map((o) => o.pairedItem)).toEqual(
			[0, 1, 2, 3, 4, 5].map((item) => ({ item })),
		);
	});

	test('Concurrency 1: one request at a time, in item order', async () => {
		server.setMode({ concurrencyProbe: true, delayMs: 10 });
		const result = await runTrigger(
			server,
			{ event: 'e', payload: 'item', options: { concurrency: 1 } },
			{ items: numbered(6) },
		);
		expect(result.workflowError).toBeUndefined();
		expect(server.maxInFlight).toBe(1);
		expect(server.requests.map((r) => (r.json as IDataObject).n)).toEqual([0, 1, 2, 3, 4, 5]);
	});

	test('Concurrency 4: at most 4 in flight, and it does use 4', async () => {
		server.setMode({ concurrencyProbe: true, delayMs: 300 });
		const result = await runTrigger(
			server,
			{ event: 'e', payload: 'item', options: { concurrency: 4 } },
			{ items: numbered(12) },
		);
		expect(result.workflowError).toBeUndefined();
		// each request is held 300 ms (long, for a busy machine), so 4 at once shows that 4 were sent together
		expect(server.maxInFlight).toBe(4);
		expect(server.requests).toHaveLength(12);
		expect(receivedN(result)).toEqual([...Array(12).keys()]);
	});

	test('answers out of order: the output still follows the input order and pairing', async () => {
		// the first request goes alone (a new service); of the four after it, three are answered late
		server.fail(
			{ kind: 'slow', ms: 0 },
			{ kind: 'slow', ms: 150 },
			{ kind: 'slow', ms: 100 },
			{ kind: 'slow', ms: 50 },
		);
		const items = numbered(8);
		const result = await runTrigger(
			server,
			{ event: 'e', payload: 'item', options: { concurrency: 4 } },
			{ items },
		);
		expect(result.workflowError).toBeUndefined();
		const arrival = server.deliveries.map((d) => (d.body as IDataObject).n);
		expect(arrival).toHaveLength(8);
		// four were in flight together, so the held answers came back after the others
		expect(server.maxInFlight).toBe(4);
		const out = result.output(NODE);
		expect(receivedN(result)).toEqual(items.map((it) => it.n));
		expect(out.map((o) => o.pairedItem)).toEqual(items.map((_, item) => ({ item })));
	});

	test('Concurrency 32 with 100 items', async () => {
		server.setMode({ concurrencyProbe: true, delayMs: 5 });
		const result = await runTrigger(
			server,
			{ event: 'e', payload: 'item', options: { concurrency: 32 } },
			{ items: numbered(100) },
		);
		expect(result.workflowError).toBeUndefined();
		expect(server.maxInFlight).toBeLessThanOrEqual(32);
		expect(server.maxInFlight).toBeGreaterThan(1);
		expect(server.deliveries).toHaveLength(100);
		expect(receivedN(result)).toEqual([...Array(100).keys()]);
	});
});

describe('batching', () => {
	/** Arrival times of the requests, grouped in windows of `size` */
	function windows(size: number) {
		const at = server.requests.map((r) => r.at);
		const out: number[][] = [];
		for (let i = 0; i < at.length; i += size) out.push(at.slice(i, i + size));
		return out;
	}

	test('Items per Batch 2, Batch Interval 120 ms: a pause between windows, never more than 2 per window', async () => {
		const started = Date.now();
		const result = await runTrigger(
			server,
			{
				event: 'e',
				payload: 'item',
				options: { batchSize: 2, batchInterval: 120, concurrency: 2 },
			},
			{ items: numbered(6) },
		);
		const took = Date.now() - started;
		expect(result.workflowError).toBeUndefined();
		expect(receivedN(result)).toEqual([0, 1, 2, 3, 4, 5]);
		const w = windows(2);
		expect(w).toHaveLength(3);
		for (let k = 1; k < w.length; k++) {
			// the next window starts a full interval after the previous one ended (timer slack: 10 ms)
			expect(Math.min(...w[k]) - Math.max(...w[k - 1])).toBeGreaterThanOrEqual(110);
		}
		expect(took).toBeGreaterThanOrEqual(230);
		expect(server.maxInFlight).toBeLessThanOrEqual(2);
	});

	test('with Concurrency 1 the items of a window go one after the other', async () => {
		server.setMode({ concurrencyProbe: true, delayMs: 5 });
		await runTrigger(
			server,
			{ event: 'e', payload: 'item', options: { batchSize: 3, batchInterval: 60, concurrency: 1 } },
			{ items: numbered(6) },
		);
		expect(server.maxInFlight).toBe(1);
		const w = windows(3);
		expect(Math.min(...w[1]) - Math.max(...w[0])).toBeGreaterThanOrEqual(50);
	});

	test('Batch Interval 0 turns batching off', async () => {
		const started = Date.now();
		await runTrigger(
			server,
			{ event: 'e', options: { batchSize: 1, batchInterval: 0 } },
			{ items: numbered(5) },
		);
		expect(server.requests).toHaveLength(5);
		expect(Date.now() - started).toBeLessThan(1000);
	});

	test('Items per Batch alone waits the default 1000 ms between windows', async () => {
		await runTrigger(server, { event: 'e', options: { batchSize: 1 } }, { items: numbered(2) });
		const [a, b] = server.requests.map((r) => r.at);
		expect(b - a).toBeGreaterThanOrEqual(990);
	});
});

describe('failures', () => {
	test('without Continue On Fail and Concurrency 1, a failed item stops the node and nothing after it is sent', async () => {
		server.fail({ kind: 'slow', ms: 0 }, { kind: 'status', status: 503, retryAfter: '0' });
		const result = await runTrigger(
			server,
			{ event: '={{ "n" + $itemIndex }}', options: { ...FAST, concurrency: 1 } },
			{ items: numbered(5) },
		);
		expect(result.error(NODE)?.message).toContain('[item 1]');
		expect(server.requests.map((r) => r.path)).toEqual(['/trigger/n0', '/trigger/n1']);
	});

	test('without Continue On Fail, concurrently: after a failure no new request starts; those in flight finish', async () => {
		// the first request to a new service goes alone while its answer comes within 20 ms; of those after it, the first
		// to arrive fails at once, the others already in flight are held 300 ms
		server.fail(
			{ kind: 'slow', ms: 0 },
			{ kind: 'status', status: 503, retryAfter: '0' },
			...Array.from({ length: 30 }, () => ({ kind: 'slow' as const, ms: 300 })),
		);
		const started = Date.now();
		const result = await runTrigger(
			server,
			{ event: '={{ "n" + $itemIndex }}', options: FAST },
			{ items: numbered(30) },
		);
		const error = result.error(NODE)!;
		expect(error.httpCode).toBe('503');
		expect(error.message).toMatch(/\[item \d+\]$/);
		// several were in flight together (as many as the adaptive limit lets go after the first answer)...
		expect(server.requests.length).toBeGreaterThan(2);
		// ...and the items still waiting for their turn were never sent
		expect(server.requests.length).toBeLessThan(30);
		// the node waited for those in flight: each of them reached the service and was answered
		expect(server.deliveries).toHaveLength(server.requests.length - 1);
		expect(Date.now() - started).toBeGreaterThanOrEqual(290);
	});

	test('a failure in one batch window stops the windows after it', async () => {
		server.fail({ kind: 'status', status: 503, retryAfter: '0' });
		const result = await runTrigger(
			server,
			{
				event: '={{ "n" + $itemIndex }}',
				options: { ...FAST, batchSize: 2, batchInterval: 50, concurrency: 2 },
			},
			{ items: numbered(6) },
		);
		// the first request meets the fault (item 1 goes beside it only if that answer takes over 20 ms)
		expect(result.error(NODE)?.message).toMatch(/answered .*\[item 0\]$/);
		// the next windows never opened
		expect(server.requests[0].path).toBe('/trigger/n0');
		expect(server.requests.map((r) => r.path)).toEqual(
			server.requests.length === 1 ? ['/trigger/n0'] : ['/trigger/n0', '/trigger/n1'],
		);
	});

	test('a failed first batch ends the batches at once: no waiting out a 60 s Batch Interval', async () => {
		server.fail({ kind: 'status', status: 503, retryAfter: '0' });
		const started = Date.now();
		const result = await runTrigger(
			server,
			{ event: 'e', options: { ...FAST, batchSize: 1, batchInterval: 60_000 } },
			{ items: numbered(3) },
		);
		expect(result.error(NODE)?.httpCode).toBe('503');
		expect(server.requests).toHaveLength(1);
		expect(Date.now() - started).toBeLessThan(20_000);
	});

	test('Stop during a 1-hour Batch Interval ends the run at once', async () => {
		let stop = () => {};
		const running = runTrigger(
			server,
			{ event: 'e', options: { batchSize: 1, batchInterval: 3_600_000 } },
			{ items: numbered(3), onStart: (fn) => (stop = fn) },
		);
		while (server.deliveries.length < 1) await new Promise((r) => setTimeout(r, 5));
		await new Promise((r) => setTimeout(r, 100));
		const stoppedAt = Date.now();
		stop();
		const result = await running;
		expect(Date.now() - stoppedAt).toBeLessThan(4000);
		expect(result.run.status).toBe('canceled');
		expect(server.requests).toHaveLength(1);
	});

	test('with Continue On Fail and batching, an item with a wrong field is an error item; the windows after it go on', async () => {
		const result = await runTrigger(
			server,
			{
				// only dots: not an event name
				event: '={{ $itemIndex === 1 ? ".." : "e" + $itemIndex }}',
				options: { batchSize: 2, batchInterval: 20 },
			},
			{ items: numbered(5), extra: { continueOnFail: true } },
		);
		const out = result.output(NODE);
		expect(out.map((o) => typeof o.json.error)).toEqual([
			'undefined',
			'string',
			'undefined',
			'undefined',
			'undefined',
		]);
		expect(out[1].json.error).toContain('Event');
		expect(server.requests.map((r) => r.path)).toEqual([
			'/trigger/e0',
			'/trigger/e2',
			'/trigger/e3',
			'/trigger/e4',
		]);
	});

	test('with Continue On Fail and Concurrency 4: error items in place, all others delivered', async () => {
		server.fail(
			{ kind: 'status', status: 503, retryAfter: '0' },
			{ kind: 'slow', ms: 0 },
			{ kind: 'status', status: 400, body: { status: 'fail', data: null, message: 'nope' } },
		);
		const items = numbered(10);
		const result = await runTrigger(
			server,
			{ event: 'e', payload: 'item', options: { ...FAST, concurrency: 4 } },
			{ items, extra: { continueOnFail: true } },
		);
		expect(result.workflowError).toBeUndefined();
		const out = result.output(NODE);
		expect(out).toHaveLength(10);
		expect(out.map((o) => o.pairedItem)).toEqual(items.map((_, item) => ({ item })));
		const failed = out.filter((o) => o.json.error !== undefined);
		expect(failed).toHaveLength(2);
		expect(failed.map((o) => o.json.httpCode).sort()).toEqual(['400', '503']);
		const ok = out.filter((o) => o.json.error === undefined);
		ok.forEach((o) =>
			expect((o.json.received as IDataObject).n).toBe((o.pairedItem as { item: number }).item),
		);
		expect(server.deliveries).toHaveLength(8);
		expect(server.requests).toHaveLength(10); // nothing sent twice
	});
});
