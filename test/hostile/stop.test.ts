/** Stop ends a run mid-request and mid-backoff, long before Timeout or the wait would. */
import type { IDataObject } from 'n8n-workflow';

import { KINDS, type Kind, LATE, NODE, runNode, serverOf, until, useServices } from './setup';

const s = useServices();

/** Runs the node, stops it 200 ms after the server got the request; returns the ms from stop to end. */
async function stopDuring(kind: Kind, options: IDataObject, credentials?: IDataObject) {
	const server = serverOf(s, kind);
	let stop: () => void = () => {};
	const running = runNode(s, kind, { options, credentials, onStart: (fn) => (stop = fn) });
	await until(() => server.requests.length >= 1);
	await new Promise((r) => setTimeout(r, 200));
	const stoppedAt = Date.now();
	stop();
	const result = await running;
	return { result, afterStop: Date.now() - stoppedAt, stoppedAt, server };
}

describe('Stop', () => {
	test.each(KINDS)(
		'%s, mid-request (a trickling answer, Timeout 30 s): ends soon',
		async (kind) => {
			s[kind].fail({ kind: 'trickle', intervalMs: 50 });
			const { result, afterStop, stoppedAt, server } = await stopDuring(kind, {});
			expect(afterStop).toBeLessThan(LATE);
			expect(result.run.status).toBe('canceled');
			expect(result.error(NODE)?.message).toBe(
				`The request to the ${kind} service was stopped with the execution [item 0]`,
			);
			expect(server.requests).toHaveLength(1);
			expect(s.trigger.deliveries).toHaveLength(0);
			// the connection was closed, not left to trickle on
			await until(() => server.requests[0].clientGoneAt !== undefined, LATE);
			expect(server.requests[0].clientGoneAt! - stoppedAt).toBeLessThan(LATE);
		},
	);

	test.each(KINDS)(
		'%s, mid-backoff (429 with Retry-After 10): ends soon, nothing more sent',
		async (kind) => {
			s[kind].fail({ kind: 'status', status: 429, retryAfter: '10' });
			const { result, afterStop, server } = await stopDuring(kind, { maxRetryWait: 30 });
			expect(afterStop).toBeLessThan(LATE);
			expect(result.run.status).toBe('canceled');
			expect(result.error(NODE)?.message).toBe(
				`The request to the ${kind} service was not sent: the execution was stopped [item 0]`,
			);
			await new Promise((r) => setTimeout(r, 100));
			expect(server.requests).toHaveLength(1);
		},
	);

	// Without the key, n8n hands the attempt's abort signal to its HTTP client, which destroys the body first:
	// the node must still report the real reason (the deadline or Stop), not a broken transfer.
	test('quotes without the key, mid-request: ends soon, says the sent request was stopped', async () => {
		s.quotes.fail({ kind: 'trickle', intervalMs: 50 });
		const { result, afterStop } = await stopDuring('quotes', {}, { sendKeyToQuotes: false });
		expect(afterStop).toBeLessThan(LATE);
		expect(result.run.status).toBe('canceled');
		expect(result.error(NODE)?.message).toBe(
			'The request to the quotes service was stopped with the execution [item 0]',
		);
	});

	test.each(['museum', 'quotes'] as const)(
		'%s, mid-backoff (503 with Retry-After 10): ends soon',
		async (kind) => {
			s[kind].fail({ kind: 'status', status: 503, retryAfter: '10' });
			const { result, afterStop, server } = await stopDuring(kind, { maxRetryWait: 30 });
			expect(afterStop).toBeLessThan(LATE);
			expect(result.run.status).toBe('canceled');
			expect(server.requests).toHaveLength(1);
		},
	);
});
