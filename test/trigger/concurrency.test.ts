/** Fire Automation run concurrently: the shared 429 gate, the no-repeat rule, output order and pairing. */
import type { IDataObject, IPairedItemData } from 'n8n-workflow';

import { START } from '../../nodes/shared/transport/limiter';
import { startTriggerServer } from '../servers';
import { useServer } from '../harness/engine';
import { FAST, NODE, numbered, runTrigger } from './helpers';

const server = useServer(() => startTriggerServer());

test('a 429 with Retry-After: 2 pauses every call of the run: no request arrives for 2 s', async () => {
	server.fail({ kind: 'status', status: 429, retryAfter: '2' });
	// a near service (10 ms): its first answer comes before more requests go (a farther one gets dozens meanwhile)
	server.setMode({ delayMs: 10 });
	const started = Date.now();
	const result = await runTrigger(
		server,
		{ event: 'paused', options: { idempotency: 'auto', maxRetryWait: 10 } },
		{ items: numbered(30) },
	);
	expect(result.workflowError).toBeUndefined();
	expect(result.output(NODE)).toHaveLength(30);
	// The 429 is the first answer (sent 10 ms after its request came). Requests already on their way when it reached
	// the node may still arrive in the next moments (later on a loaded machine); after that, nothing arrives until the
	// 2 s are over.
	const refused = server.requests[0].at;
	const quiet = server.requests.filter((r) => r.at > refused + 1000 && r.at < refused + 1950);
	expect(quiet.map((r) => r.at - refused)).toEqual([]);
	const underWay = server.requests.filter((r) => r.at > refused && r.at <= refused + 1000);
	expect(underWay.length).toBeLessThanOrEqual(START * 2);
	const late = server.requests.filter((r) => r.at >= refused + 1950);
	expect(late.length).toBeGreaterThan(0);
	expect(Date.now() - started).toBeGreaterThanOrEqual(2000);
	// every event delivered exactly once, the refused one included (it carried a key and was sent again)
	expect(server.deliveries).toHaveLength(30);
	expect(new Set(server.deliveries.map((d) => d.idempotencyKey)).size).toBe(30);
});

test('without an idempotency key, calls that may have fired are never repeated, however many run at once', async () => {
	// a few of the first calls fail after the service received them
	server.fail({ kind: 'status', status: 503 }, { kind: 'reset' }, { kind: 'status', status: 502 });
	const result = await runTrigger(
		server,
		{ event: 'norepeat', options: FAST },
		{ items: numbered(40), extra: { continueOnFail: true } },
	);
	const output = result.output(NODE);
	expect(output).toHaveLength(40);
	// one request per item, never a second one
	expect(server.requests).toHaveLength(40);
	const failed = output.filter((item) => item.json.error !== undefined);
	expect(failed.length).toBe(3);
	for (const item of failed) expect(String(item.json.description)).toMatch(/did not retry/);
});

test('output keeps the input order and pairing while answers come back in another order', async () => {
	// the first calls answer last
	server.fail(
		{ kind: 'slow', ms: 160 },
		{ kind: 'slow', ms: 120 },
		{ kind: 'slow', ms: 80 },
		{ kind: 'slow', ms: 40 },
	);
	server.setMode({ concurrencyProbe: true });
	const items = numbered(50);
	const result = await runTrigger(server, { event: 'order', payload: 'item' }, { items });
	const output = result.output(NODE);
	expect(output.map((item) => (item.pairedItem as IPairedItemData).item)).toEqual(
		items.map((_, n) => n),
	);
	expect(output.map((item) => (item.json.received as IDataObject)?.n ?? item.json.n)).toEqual(
		items.map((_, n) => n),
	);
	expect(server.maxInFlight).toBeGreaterThan(1);
});

test('Stop during a concurrent run: calls in flight end, nothing new is sent, the run ends within 1 s', async () => {
	// answers held long enough that a loaded machine still stops the run between two waves of requests
	server.setMode({ delayMs: 1500 });
	let stop: () => void = () => undefined;
	const running = runTrigger(
		server,
		{ event: 'stopped' },
		{ items: numbered(60), onStart: (fn) => (stop = fn) },
	);
	for (let i = 0; i < 200 && server.requests.length < START; i++) {
		await new Promise((resolve) => setTimeout(resolve, 20));
	}
	expect(server.requests.length).toBeGreaterThan(1);
	const stoppedAt = Date.now();
	stop();
	const result = await running;
	expect(Date.now() - stoppedAt).toBeLessThan(1000);
	expect(result.run.status).toBe('canceled');
	// nothing new was sent after the Stop (requests already on their way may land a few ms later)
	expect(server.requests.filter((r) => r.at > stoppedAt + 50)).toEqual([]);
	expect(server.requests.length).toBeLessThan(60);
});
