/** Retry-After and backoff (nodes/shared/transport/retry), from source. */
import { Stopper, attempt, wait } from '../../nodes/shared/transport/attempt';
import type { Limiter } from '../../nodes/shared/transport/limiter';
import { parseRetryAfter, withRetries } from '../../nodes/shared/transport/retry';
import type { AttemptSpec, Sender } from '../../nodes/shared/transport/types';

describe('parseRetryAfter', () => {
	const now = Date.parse('2026-01-01T12:00:00Z');

	test.each([
		[undefined, undefined],
		[null, undefined],
		['', undefined],
		['soon', undefined],
		['0', 0],
		['2', 2000],
		['1.5', 1500],
		[' 3 ', 3000],
		[['4', '9'], 4000],
		[7, 7000],
	])('%p → %p', (value, ms) => {
		expect(parseRetryAfter(value, now)).toBe(ms);
	});

	test('an HTTP date: the time left until then', () => {
		expect(parseRetryAfter('Thu, 01 Jan 2026 12:00:30 GMT', now)).toBe(30_000);
	});

	test('an HTTP date in the past: no wait', () => {
		expect(parseRetryAfter('Thu, 01 Jan 2026 11:59:00 GMT', now)).toBe(0);
	});
});

describe('backoff', () => {
	/** The waits before the retries of a request answered 503 each time, on a limiter that holds none back. */
	async function backoffs(retryDelay: number, maxAttempts: number, random?: number) {
		const waits: number[] = [];
		const ticket = { sentAt: 0, level: 1, seq: 0 };
		const limiter = {
			acquire: async () => ({ ok: true, ticket, announcedMs: 0 }),
			release: () => false,
		};
		if (random !== undefined) jest.spyOn(Math, 'random').mockReturnValue(random);
		await withRetries(
			async () => ({ statusCode: 503, headers: {}, body: Buffer.alloc(0), url: '' }),
			{
				settings: {
					timeout: 1000,
					maxAttempts,
					retryDelay,
					maxRetryWait: 60_000,
					maxResponseBytes: 1,
				},
				repeatable: true,
				limiter: limiter as unknown as Limiter,
				run: { max: 1, stop: new Stopper(), inFlight: 0, queue: [] },
				log: (_text, meta) => waits.push(meta.delay as number),
			},
		);
		jest.restoreAllMocks();
		return waits;
	}

	test('base · 2^(attempt-1), scaled by a jitter factor in [0.5, 1)', async () => {
		expect(await backoffs(20, 4, 0)).toEqual([10, 20, 40]);
		expect(await backoffs(20, 4, 0.5)).toEqual([15, 30, 60]);
		expect(await backoffs(20, 4, 0.999999)).toEqual([20, 40, 80]);
		expect(await backoffs(0, 3, 0.7)).toEqual([0, 0]);
	});

	test('with Math.random: always within the bounds, and not always the same', async () => {
		const seen = new Set<number>();
		for (let i = 0; i < 15; i++) {
			const [ms] = await backoffs(40, 2);
			expect(ms).toBeGreaterThanOrEqual(20);
			expect(ms).toBeLessThanOrEqual(40);
			seen.add(ms);
		}
		expect(seen.size).toBeGreaterThan(1);
	});
});

describe('wait', () => {
	test('waits about the time asked', async () => {
		const started = Date.now();
		await wait(60);
		expect(Date.now() - started).toBeGreaterThanOrEqual(55);
	});

	test('ends early, without rejecting, at Stop', async () => {
		const stop = new Stopper();
		const started = Date.now();
		setTimeout(() => stop.stop(), 20);
		await expect(wait(5000, stop)).resolves.toBeUndefined();
		expect(Date.now() - started).toBeLessThan(1000);
	});

	test('an earlier Stop or a zero wait returns at once', async () => {
		const stop = new Stopper();
		stop.stop();
		const started = Date.now();
		await wait(5000, stop);
		await wait(0);
		expect(Date.now() - started).toBeLessThan(50);
	});
});

describe("the attempts' deadlines (one timer watches them all)", () => {
	const never: Sender = async () => await new Promise(() => undefined);
	const spec = (timeout: number, cancel?: Stopper): AttemptSpec => ({
		url: 'http://127.0.0.1:9/',
		method: 'GET',
		redirects: { follow: 'any' },
		timeout,
		maxBytes: 1000,
		cancel,
	});

	test('an attempt with a shorter Timeout, started after a longer one, ends at its own', async () => {
		const stop = new Stopper();
		const started = Date.now();
		const long = attempt(never, spec(60_000, stop));
		const short = await attempt(never, spec(100));
		const took = Date.now() - started;
		expect(short).toMatchObject({ kind: 'timeout', timeoutMs: 100 });
		expect(took).toBeGreaterThanOrEqual(95);
		expect(took).toBeLessThan(30_000);
		stop.stop();
		expect(await long).toMatchObject({ kind: 'canceled' });
	});

	test('many attempts each end at their deadline', async () => {
		const started = Date.now();
		const ends = await Promise.all(
			[150, 50, 100, 50].map(async (timeout) => {
				const failure = await attempt(never, spec(timeout));
				return { failure, timeout, took: Date.now() - started };
			}),
		);
		for (const { failure, timeout, took } of ends) {
			expect(failure).toMatchObject({ kind: 'timeout', timeoutMs: timeout });
			expect(took).toBeGreaterThanOrEqual(timeout - 5);
		}
	});
});
