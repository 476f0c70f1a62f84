/**
 * The announced quota, on a clock of its own: counted forward, waited for while none is left, and a token bucket whose
 * reset is rounded up to a whole second told from a window by one request before the reset.
 */
import { Quotas } from '../../nodes/shared/transport/quota';
import type { Quota } from '../../nodes/shared/transport/types';

/** A client of `quotas`: sends and answers on a clock of its own. */
function client() {
	const quotas = new Quotas();
	let sent = 0;
	return {
		quotas,
		send: () => quotas.take(++sent),
		answer: (seq: number, at: number, quota: Quota, verdict: 'ok' | 'rateLimited' = 'ok') =>
			quotas.answered(verdict, quota, { seq, sent, now: at }),
	};
}

test('requests sent after an answer count against the quota it told', () => {
	const c = client();
	for (let i = 0; i < 3; i++) c.send();
	c.answer(1, 100, { remaining: 2, resetAt: 60_000, limit: 5 });
	// two more on their way: none left for a third
	expect(c.quotas.delay(200, 2)).toBeGreaterThan(0);
});

test('a window: none left, a request waits for the reset; one goes at the reset to learn the new window', () => {
	const c = client();
	c.send();
	c.answer(1, 0, { remaining: 0, resetAt: 30_000, limit: 100 });
	expect(c.quotas.delay(1000, 0)).toBe(29_000);
	expect(c.quotas.delay(30_000, 0)).toBe(0);
});

test('a reset a few seconds away: one request goes before it; a window refuses it, and it is the only one', () => {
	const c = client();
	c.send();
	c.answer(1, 0, { remaining: 0, resetAt: 2000, limit: 10 });
	// a bucket full again at the reset would have given one back after a tenth of the wait
	expect(c.quotas.delay(0, 0)).toBe(200);
	expect(c.quotas.delay(200, 0)).toBe(0);
	c.send();
	c.answer(2, 210, { remaining: 0, resetAt: 2000, limit: 10 }, 'rateLimited');
	expect(c.quotas.delay(300, 0)).toBe(1700);
	// the next window: no second probe
	expect(c.quotas.delay(2000, 0)).toBe(0);
	for (let i = 0; i < 10; i++) c.send();
	c.answer(12, 2050, { remaining: 0, resetAt: 4000, limit: 10 });
	expect(c.quotas.delay(2100, 0)).toBe(1900);
});

test('a token bucket accepts the probe: then paced at the refill its answers show, not at the rounded reset', () => {
	const c = client();
	c.send();
	// 20 per second, 10 at once; the reset says when it is full again, rounded up to the second
	c.answer(1, 0, { remaining: 0, resetAt: 1000, limit: 10 });
	expect(c.quotas.delay(100, 0)).toBe(0);
	c.send();
	c.answer(2, 110, { remaining: 0, resetAt: 1000, limit: 10 });
	// then one every 50 ms for a second, each answered with what the bucket holds
	let at = 110;
	for (let seq = 3; seq < 23; seq++) {
		at += 50;
		c.send();
		c.answer(seq, at, { remaining: 0, resetAt: Math.ceil((at + 500) / 1000) * 1000, limit: 10 });
	}
	// none left: the next goes when the refill gives one back, well before the reset
	const wait = c.quotas.delay(at, 0);
	expect(wait).toBeGreaterThan(40);
	expect(wait).toBeLessThan(70);
});

test('a 429 to a paced bucket: the refill is counted anew, from the reset', () => {
	const c = client();
	c.send();
	c.answer(1, 0, { remaining: 0, resetAt: 1000, limit: 10 });
	c.quotas.delay(100, 0);
	c.send();
	c.answer(2, 110, { remaining: 0, resetAt: 1000, limit: 10 });
	c.send();
	c.answer(3, 200, { remaining: 0, resetAt: 1000, limit: 10 }, 'rateLimited');
	// the reset alone bounds the refill now: 9 in 800 ms
	expect(c.quotas.delay(200, 0)).toBeCloseTo(800 / 9, 0);
});

test('a service that stops announcing its quota is no longer held by it', () => {
	const c = client();
	c.send();
	c.answer(1, 0, { remaining: 0, resetAt: 60_000, limit: 10 });
	c.send();
	c.quotas.answered('ok', undefined, { seq: 2, sent: 2, now: 100 });
	expect(c.quotas.delay(200, 0)).toBe(0);
});
