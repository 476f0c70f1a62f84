/**
 * Stop (n8n's cancel of a running execution) through n8n's engine, for each node: mid-request (an answer that
 * trickles, with the default 30 s Timeout) and mid-backoff (a Retry-After of 10 s): the run ends within ~1 s.
 */
import type { IDataObject } from 'n8n-workflow';

import {
	type AllServices,
	KINDS,
	type Kind,
	NODE,
	runNode,
	serverOf,
	startServices,
	until,
} from './setup';

jest.setTimeout(15_000);

let s: AllServices;
beforeAll(async () => {
	s = await startServices();
});
afterAll(() => s.stop());
beforeEach(() => s.reset());

/** Runs the node, stops it `afterMs` after the server got `requests` requests; returns the ms from stop to end. */
async function stopDuring(kind: Kind, options: IDataObject, requests = 1, afterMs = 200) {
	const server = serverOf(s, kind);
	let stop: () => void = () => {};
	const running = runNode(s, kind, { options, onStart: (fn) => (stop = fn) });
	await until(() => server.requests.length >= requests, 5000);
	await new Promise((r) => setTimeout(r, afterMs));
	const stoppedAt = Date.now();
	stop();
	const result = await running;
	return { result, afterStop: Date.now() - stoppedAt, stoppedAt, server };
}

describe('Stop', () => {
	test.each(KINDS)(
		'%s, mid-request (a trickling answer, Timeout 30 s): ends within 1 s',
		async (kind) => {
			s[kind].fail({ kind: 'trickle', intervalMs: 50 });
			const { result, afterStop, stoppedAt, server } = await stopDuring(kind, {});
			expect(afterStop).toBeLessThan(1000);
			expect(result.run.status).toBe('canceled');
			expect(result.error(NODE)?.message).toBe(
				`The request to the ${kind} service was stopped with the execution [item 0]`,
			);
			expect(server.requests).toHaveLength(1);
			expect(s.trigger.deliveries).toHaveLength(0);
			// the connection was closed, not left to trickle on
			await until(() => server.requests[0].clientGoneAt !== undefined, 2000);
			expect(server.requests[0].clientGoneAt! - stoppedAt).toBeLessThan(1000);
		},
	);

	test.each(KINDS)(
		'%s, mid-backoff (429 with Retry-After 10): ends within 1 s, nothing more sent',
		async (kind) => {
			s[kind].fail({ kind: 'status', status: 429, retryAfter: '10' });
			const { result, afterStop, server } = await stopDuring(kind, { maxRetryWait: 30 });
			expect(afterStop).toBeLessThan(1000);
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
	test('quotes without the key, mid-request: ends within 1 s, says the sent request was stopped', async () => {
		s.quotes.fail({ kind: 'trickle', intervalMs: 50 });
		let stop: () => void = () => {};
		const running = runNode(s, 'quotes', {
			credentials: { sendKeyToQuotes: false },
			onStart: (fn) => (stop = fn),
		});
		await until(() => s.quotes.requests.length === 1);
		await new Promise((r) => setTimeout(r, 200));
		const stoppedAt = Date.now();
		stop();
		const result = await running;
		expect(Date.now() - stoppedAt).toBeLessThan(1000);
		expect(result.run.status).toBe('canceled');
		expect(result.error(NODE)?.message).toBe(
			'The request to the quotes service was stopped with the execution [item 0]',
		);
	});

	test.each(['museum', 'quotes'] as const)(
		'%s, mid-backoff (503 with Retry-After 10): ends within 1 s',
		async (kind) => {
			s[kind].fail({ kind: 'status', status: 503, retryAfter: '10' });
			const { result, afterStop, server } = await stopDuring(kind, { maxRetryWait: 30 });
			expect(afterStop).toBeLessThan(1000);
			expect(result.run.status).toBe('canceled');
			expect(server.requests).toHaveLength(1);
		},
	);
});
