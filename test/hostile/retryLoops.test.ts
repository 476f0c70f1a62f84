/**
 * Retry loops that a service's answers must not make endless or wrong: zero waits, malformed Retry-After, a pause of
 * decades, and retry fields beyond what Node's timers can hold.
 */
import type { Fault } from '../servers';
import { GETS, KINDS, type Kind, NODE, pageLinking, runNode, serverOf, useServices } from './setup';

const s = useServices();
/** More refusals queued than any bounded loop sends; after them the service answers normally. */
const QUEUED = 100;
/** The most requests a bounded loop may take for one item (Max Attempts 3, Max Retry Wait 2 s). */
const BOUNDED = 25;
const LIMIT_MS = 20_000;
/** For runs whose retries wait out their backoff (up to ~20 s); a loop past BOUNDED is stopped at once anyway. */
const SLOW_LIMIT_MS = 60_000;
/** The longest shared pause a service's Retry-After may impose on later runs (s). */
const PAUSE_CAP_S = 120;

describe('429s that ask for no wait are not retried without end', () => {
	const retryAfters: Array<[string, string]> = [
		['Retry-After: 0', '0'],
		['Retry-After: abc 5 (no date: read as one in the past)', 'abc 5'],
		['Retry-After: a date in the past', 'Thu, 01 Jan 1970 00:00:00 GMT'],
	];
	const targets: Array<Kind | 'images'> = [...KINDS, 'images'];
	test.each([
		// every Retry-After for one service, the simplest for the others (a run of ten 429s takes ~18 s)
		...retryAfters.map(([name, value]) => ['museum', name, value]),
		...targets.slice(1).map((target) => [target, ...retryAfters[0]]),
	])(
		'%s, %s: a bounded number of requests, then a clear error',
		async (target, _name, retryAfter) => {
			const fault: Fault = { kind: 'status', status: 429, retryAfter };
			const images = target === 'images';
			const server = images ? s.images : serverOf(s, target as Kind);
			if (images) s.museum.fail(pageLinking(`${s.images.url}/images/7.png`));
			server.fail(...Array.from({ length: QUEUED }, () => fault));
			const result = await runNode(s, images ? 'museum' : (target as Kind), {
				options: { retryDelay: 5, maxRetryWait: 2, maxAttempts: 3 },
				params: images ? { downloadImages: true } : {},
				limitMs: SLOW_LIMIT_MS,
				stopWhen: () =>
					server.requests.length > BOUNDED
						? `made ${server.requests.length} requests (more than ${BOUNDED})`
						: undefined,
			});
			expect(server.requests.length).toBeLessThanOrEqual(BOUNDED);
			const error = result.error(NODE);
			expect(error?.message).toMatch(/\[item 0\]$/);
			expect(`${error?.httpCode} ${error?.message}`).toMatch(/429/);
			expect(s.trigger.deliveries).toHaveLength(0);
		},
		2 * SLOW_LIMIT_MS,
	);
});

describe('a malformed Retry-After is ignored: the backoff applies, not a wait of 0', () => {
	test.each(
		GETS.flatMap((kind) =>
			['abc 5', '2020-01-01', 'Thu 01 Jan 2026'].map((value) => [kind, value] as const),
		),
	)('%s, a 503 with Retry-After %j', async (kind, retryAfter) => {
		const server = serverOf(s, kind);
		server.fail(
			...Array.from({ length: 3 }, () => ({ kind: 'status', status: 503, retryAfter }) as const),
		);
		// the first backoff (5 to 10 s) is longer than Max Retry Wait: no retry at all
		const result = await runNode(s, kind, {
			options: { retryDelay: 10_000, maxRetryWait: 1, maxAttempts: 3 },
			limitMs: LIMIT_MS,
		});
		expect(server.requests).toHaveLength(1);
		const error = result.error(NODE)!;
		expect(error.httpCode).toBe('503');
		expect(error.description).toContain('would pass the Max Retry Wait of 1 s');
		expect(error.description).not.toContain('as Retry-After asked');
	});
});

describe('a pause of decades (Retry-After: 1000000000) does not block the service for good', () => {
	test.each(KINDS)(
		'%s: the next run, once the service is back, is refused for a bounded time at most',
		async (kind) => {
			const server = serverOf(s, kind);
			server.fail({ kind: 'status', status: 429, retryAfter: '1000000000' });
			const first = await runNode(s, kind, { options: { maxRetryWait: 1 }, limitMs: LIMIT_MS });
			expect(first.error(NODE)!.message).toMatch(/\[item 0\]$/);
			expect(server.requests).toHaveLength(1);

			// the service is back: the next run succeeds (a probe), or is told of a wait of the shared pause's cap at most
			const next = await runNode(s, kind, { options: { maxRetryWait: 1 }, limitMs: LIMIT_MS });
			const error = next.error(NODE);
			if (error) {
				const said = `${error.message} ${error.description ?? ''}`;
				const waits = [...said.matchAll(/(\d+(?:\.\d+)?) ?(s|seconds?)\b/g)]
					.map(([, n]) => Number(n))
					.filter((n) => n !== 1); // the Max Retry Wait of 1 s
				const longest = Math.max(0, ...waits);
				expect({ said, longest }).toEqual({ said, longest: Math.min(longest, PAUSE_CAP_S) });
				expect(server.requests).toHaveLength(1);
			} else expect(server.requests).toHaveLength(2);
		},
	);
});

describe('time fields beyond the maxima are refused before any request', () => {
	/** The maxima of the fields (each within what Node's timers hold, 2³¹−1 ms). */
	const fields: Array<[string, number, string, number]> = [
		['Timeout (ms)', 3_000_000_000, 'timeout', 3_600_000],
		['Initial Retry Delay (ms)', 3_000_000_000, 'retryDelay', 600_000],
		['Max Retry Wait (Seconds)', 3_000_000, 'maxRetryWait', 3600],
	];
	test.each(KINDS.flatMap((kind) => fields.map((field) => [kind, ...field] as const)))(
		'%s: %s = %i',
		async (kind, displayName, value, name, max) => {
			const result = await runNode(s, kind, { options: { [name]: value }, limitMs: LIMIT_MS });
			const message = result.error(NODE)?.message ?? '(no error)';
			expect(message).toContain(displayName.replace(/ \(.*/, ''));
			expect(message).toMatch(/\[item 0\]$/);
			// a range named in the message ends at the field's maximum
			const upTo = / to ([\d,]+)/.exec(message)?.[1];
			if (upTo !== undefined) expect(Number(upTo.replace(/,/g, ''))).toBe(max);
			expect(serverOf(s, kind).requests).toHaveLength(0);
		},
	);
});
