/** The servers' `rateLimit` mode over real sockets, and its limiters with a fake clock. */
import {
	Limiter,
	TokenBucket,
	TriggerServer,
	startQuotesServer,
	startTriggerServer,
} from '../servers';

const KEY = 'test-key-123';

describe('TokenBucket', () => {
	test('a burst, then refusals with the wait in whole seconds, then refill', () => {
		let t = 0;
		const bucket = new TokenBucket({ perSecond: 2, burst: 3 }, () => t);
		expect([bucket.take(), bucket.take(), bucket.take()]).toEqual([0, 0, 0]);
		expect(bucket.take()).toBe(1); // next token in 500 ms -> 1 s
		t = 499;
		expect(bucket.take()).toBe(1);
		t = 500;
		expect(bucket.take()).toBe(0);
		t = 10_000; // long quiet: back to burst, not more
		expect([0, 1, 2, 3].map(() => bucket.take())).toEqual([0, 0, 0, 1]);
	});

	test('slow refill rounds the wait up', () => {
		let t = 0;
		const bucket = new TokenBucket({ perSecond: 0.25, burst: 1 }, () => t);
		expect(bucket.take()).toBe(0);
		expect(bucket.take()).toBe(4);
		t = 1500;
		expect(bucket.take()).toBe(3); // 2.5 s left
	});
});

describe('Limiter shapes and their headers', () => {
	const admit = (limiter: Limiter, n: number) =>
		Array.from({ length: n }, () => limiter.admit().status ?? 200);

	test('fixed window: the burst, then nothing until the reset; draft-6 headers in delta seconds', () => {
		let t = 0;
		const limiter = new Limiter({ fixed: 3, windowMs: 2000, headers: 'draft6' }, () => t);
		expect(admit(limiter, 4)).toEqual([200, 200, 200, 429]);
		t = 500;
		expect(limiter.admit()).toMatchObject({
			status: 429,
			headers: {
				'ratelimit-limit': '3',
				'ratelimit-remaining': '0',
				'ratelimit-reset': '2',
				'retry-after': '2',
			},
		});
		t = 2000;
		expect(admit(limiter, 4)).toEqual([200, 200, 200, 429]);
	});

	test('sliding window with draft-11 fields; Retry-After as the whole window when asked', () => {
		let t = 0;
		const limiter = new Limiter(
			{ sliding: 2, windowMs: 1000, headers: 'draft11', retryAfterWindow: true },
			() => t,
		);
		expect(limiter.admit().headers).toEqual({
			ratelimit: '"default";r=1;t=1',
			'ratelimit-policy': '"default";q=2;w=1',
		});
		t = 600;
		expect(admit(limiter, 2)).toEqual([200, 429]);
		t = 1001; // the first has left the window, the second not yet
		expect(admit(limiter, 2)).toEqual([200, 429]);
	});

	test('token bucket with X-RateLimit-* (epoch reset, when the bucket is full again); a limit that drops', () => {
		let t = 1_700_000_000_000;
		const limiter = new Limiter(
			{
				perSecond: 10,
				burst: 2,
				headers: 'xRateLimit',
				then: { ms: 1000, limit: { perSecond: 1, burst: 1 } },
			},
			() => t,
		);
		expect(limiter.admit().headers).toEqual({
			'x-ratelimit-limit': '2',
			'x-ratelimit-remaining': '1',
			'x-ratelimit-reset': '1700000001',
		});
		t += 1000;
		expect(admit(limiter, 2)).toEqual([200, 429]);
	});

	test('a cap on requests in flight: 503 beyond it, room again when an answer has gone', () => {
		const limiter = new Limiter({ inFlight: 2 });
		const [a, b, c] = [limiter.admit(), limiter.admit(), limiter.admit()];
		expect([a.status, b.status, c.status]).toEqual([undefined, undefined, 503]);
		a.done();
		a.done(); // once only
		expect([limiter.admit().status, limiter.admit().status]).toEqual([undefined, 503]);
	});
});

describe('rateLimit mode', () => {
	let trigger: TriggerServer;
	beforeAll(async () => {
		trigger = await startTriggerServer();
	});
	afterAll(() => trigger.close());
	beforeEach(() => trigger.reset());

	const fire = () =>
		fetch(`${trigger.url}/trigger/ping`, {
			method: 'POST',
			headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
			body: '{"q":"x"}',
		});

	test('burst passes, the rest get 429 + Retry-After, are counted and not delivered', async () => {
		trigger.setMode({ rateLimit: { perSecond: 1, burst: 2 } });
		const answers = [];
		for (let i = 0; i < 4; i++) answers.push(await fire());
		expect(answers.map((r) => r.status)).toEqual([200, 200, 429, 429]);
		expect(answers[2].headers.get('retry-after')).toBe('1');
		expect(await answers[3].json()).toEqual({
			status: 'fail',
			data: null,
			message: 'Too many requests',
		});
		expect(trigger.rateLimited).toBe(2);
		expect(trigger.deliveries).toHaveLength(2);
		expect(trigger.requests.filter((r) => r.rateLimited)).toHaveLength(2);
		trigger.reset();
		expect(trigger.rateLimited).toBe(0);
		expect(trigger.mode.rateLimit).toBeUndefined();
	});

	test('a refused request does not use up a queued fault', async () => {
		trigger.setMode({ rateLimit: { perSecond: 1, burst: 1 } });
		expect((await fire()).status).toBe(200);
		trigger.fail({ kind: 'status', status: 503 });
		expect((await fire()).status).toBe(429);
		expect(trigger.faults).toHaveLength(1);
	});

	test('tokens refill over time', async () => {
		// one token per 400 ms: the second request comes well within it even on a loaded machine
		trigger.setMode({ rateLimit: { perSecond: 2.5, burst: 1 } });
		expect((await fire()).status).toBe(200);
		expect((await fire()).status).toBe(429);
		await new Promise((r) => setTimeout(r, 450));
		expect((await fire()).status).toBe(200);
		expect(trigger.deliveries).toHaveLength(2);
	});

	test('works on the other services too (quotes)', async () => {
		const quotes = await startQuotesServer();
		try {
			quotes.setMode({ rateLimit: { perSecond: 0.5, burst: 1 } });
			expect((await fetch(`${quotes.url}/tags`)).status).toBe(200);
			const refused = await fetch(`${quotes.url}/tags`);
			expect(refused.status).toBe(429);
			expect(refused.headers.get('retry-after')).toBe('2');
			expect(quotes.rateLimited).toBe(1);
		} finally {
			await quotes.close();
		}
	});
});
