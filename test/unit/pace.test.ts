/** The learned request pace (nodes/shared/transport/pace), from source, against limiters in virtual time. */
import { highestRateThatRefuses, lowestRateThatAccepts } from '../../nodes/shared/transport/bucket';
import { Pace, type Ticket } from '../../nodes/shared/transport/pace';
import { Limiter, type RateLimit } from '../servers/ratelimit';

/**
 * A client that sends as fast as the pace allows to a service with `limit` that answers at once; a 429 pauses it for
 * the service's Retry-After. Returns when each request was accepted or refused, in virtual milliseconds.
 */
function simulate(
	limit: RateLimit,
	untilMs: number,
	{
		firstWaveSpacingMs = 0,
		refuseAt = Infinity,
		sendMs = 0,
		answerMs = 0,
	}: {
		/** Before the first 429, one request every this many ms (a client's first waves spread out), not all at once */
		firstWaveSpacingMs?: number;
		/** The first request sent from then on is refused (it reached the service sooner than it left the client) */
		refuseAt?: number;
		/** Each request takes this long to send (a bunch goes out over a while, the service's bucket refilling) */
		sendMs?: number;
		/** A 429 reaches the client this long after it was sent; more requests go meanwhile */
		answerMs?: number;
	} = {},
) {
	let now = 0;
	const limiter = new Limiter(limit, () => now);
	const pace = new Pace();
	let pausedUntil = 0;
	const accepted: number[] = [];
	const refused: number[] = [];
	const tickets: Ticket[] = [];
	let answer: { ticket: Ticket; at: number; pauseMs: number } | undefined;
	while (now < untilMs) {
		now = Math.max(now, pausedUntil);
		const delay = pace.delay(now);
		if (delay > 0) {
			now += delay;
			continue;
		}
		pace.take(now);
		const ticket = pace.record(now);
		tickets.push(ticket);
		const unpaced = !pace.active;
		const early = now >= refuseAt;
		if (early) refuseAt = Infinity;
		const verdict = early ? { status: 429, headers: { 'retry-after': '1' } } : limiter.admit();
		ticket.outcome = verdict.status ? 'refused' : 'ok';
		ticket.answered = now;
		if (!verdict.status) accepted.push(now);
		else {
			refused.push(now);
			if (!answer)
				answer = {
					ticket,
					at: now + answerMs,
					pauseMs: 1000 * Number(verdict.headers['retry-after']),
				};
		}
		if (answer && now >= answer.at) {
			pausedUntil = now + answer.pauseMs;
			pace.refused(answer.ticket, now, pausedUntil);
			answer = undefined;
		}
		if (unpaced && pace.active === false) now += firstWaveSpacingMs;
		now += sendMs;
	}
	const within = (list: number[], from: number, to = untilMs) =>
		list.filter((t) => t >= from && t < to).length;
	return { pace, accepted, refused, tickets, within };
}

describe('Pace', () => {
	test('no pace before the first 429', () => {
		const pace = new Pace();
		expect(pace.active).toBe(false);
		expect(pace.delay(0)).toBe(0);
	});

	test.each([
		[20, 10],
		[5, 1],
		[100, 100],
		[2, 5],
	])(
		'learns a bucket of %d/s, burst %d: then a 429 at most every 20 s, and at least 85%% of the rate',
		(perSecond, burst) => {
			const run = simulate({ perSecond, burst }, 60_000);
			// a few 429s while it learns (the first burst, then one or two while discovering the rate)
			expect(run.refused.length).toBeGreaterThanOrEqual(1);
			// afterwards it stays under the rate; after 10 s without a 429 it creeps up (+1%/s, in case the limit was
			// raised) until the service refuses one request, and it fits again
			expect(run.within(run.refused, 15_000)).toBeLessThanOrEqual(3);
			// accepted per second from then on, pauses included (the service's own bucket forbids more than its rate)
			const learned = run.within(run.accepted, 15_000) / 45;
			expect(learned).toBeGreaterThanOrEqual(0.85 * perSecond);
			// what the service's bucket holds after a 1 s pause: all of it, or what refilled in that second
			expect(run.pace.burst).toBeGreaterThanOrEqual(Math.min(burst, perSecond));
			expect(run.pace.burst).toBeLessThanOrEqual(burst);
		},
	);

	test('a first burst counted too high (the bucket refilled while the first requests went out): the bunch after the pause goes no faster, and the refill is not read as a slow rate', () => {
		// 100/s, burst 20; the first requests go one per 3 ms: the service accepts 28 before its bucket is empty, so
		// the first count says 28; at once, the bunch after the pause would meet a bucket of 20
		const run = simulate({ perSecond: 100, burst: 20 }, 30_000, { firstWaveSpacingMs: 3 });
		expect(run.within(run.refused, 1000, 2000)).toBe(0);
		expect(run.pace.burst).toBeLessThanOrEqual(21);
		expect(run.within(run.accepted, 10_000) / 20).toBeGreaterThanOrEqual(85);
		expect(run.within(run.refused, 10_000)).toBeLessThanOrEqual(2);
	});

	test.each([1, 3])(
		'a bunch sent at one request per %d ms counted the refill of the bucket: the burst and the rate are fitted without it',
		(sendMs) => {
			// 100/s, burst 20: a bunch that empties the bucket counts 22 or more
			const run = simulate({ perSecond: 100, burst: 20 }, 30_000, { sendMs });
			expect(run.pace.burst).toBeLessThanOrEqual(21);
			expect(run.pace.rate).toBeGreaterThanOrEqual(0.97 * 95);
			expect(run.within(run.accepted, 10_000) / 20).toBeGreaterThanOrEqual(92);
		},
	);

	test.each([10, 40])(
		'a 429 that comes back %d ms after it went (more requests went meanwhile, a few finding a refilled token): the bucket is taken for empty after the last of them',
		(answerMs) => {
			const run = simulate({ perSecond: 100, burst: 20 }, 30_000, { sendMs: 1, answerMs });
			expect(run.pace.burst).toBeLessThanOrEqual(21);
			expect(run.within(run.accepted, 10_000) / 20).toBeGreaterThanOrEqual(92);
		},
	);

	test('a late 429 to a request sent before the bucket was last found empty leaves the pace as it was', () => {
		const run = simulate({ perSecond: 20, burst: 10 }, 30_000, { sendMs: 1, answerMs: 20 });
		const { pace, tickets } = run;
		const rate = pace.rate!;
		// sent just before the last refused one; its 429 comes back after the pause
		const last = tickets.findLastIndex((t) => t.outcome === 'refused');
		const late = tickets[last - 1];
		late.outcome = 'refused';
		pace.refused(late, 30_000, 31_000);
		pace.delay(31_000);
		expect(pace.rate).toBeCloseTo(rate, 5);
	});

	test('a lowered limit (40/s → 10/s): the first 429 that shows the lower rate sets the pace under it', () => {
		const run = simulate(
			{ perSecond: 40, burst: 10, then: { ms: 20_000, limit: { perSecond: 10, burst: 10 } } },
			90_000,
		);
		const refusedAfterChange = run.refused.filter((t) => t >= 20_000);
		const acceptedLate = run.within(run.accepted, 60_000);
		expect(refusedAfterChange.length).toBeGreaterThanOrEqual(1);
		// settled at the new rate within 5 s: from then on only the creep's rare 429s (one per 20 s or so)
		expect(refusedAfterChange.filter((t) => t >= 25_000).length).toBeLessThanOrEqual(3);
		expect(acceptedLate / 30).toBeGreaterThanOrEqual(8);
	});

	test('a limit lowered a little (100/s → 95/s): the estimate whose pace was refused comes down under it', () => {
		const run = simulate(
			{ perSecond: 100, burst: 20, then: { ms: 20_000, limit: { perSecond: 95, burst: 20 } } },
			80_000,
		);
		// kept, the fit from before would pace at about 97/s and be refused every few seconds
		expect(run.within(run.refused, 30_000)).toBeLessThanOrEqual(5);
		expect(run.within(run.accepted, 30_000) / 50).toBeGreaterThanOrEqual(0.9 * 95);
	});
});

describe('windows', () => {
	test.each<[string, RateLimit, number]>([
		['sliding window of 20 per second', { sliding: 20, windowMs: 1000 }, 20],
		['fixed window of 30 per 3 s', { fixed: 30, windowMs: 3000 }, 10],
	])(
		'a %s: refused twice (the first bunch, then the probe), then a full window at a time',
		(_, limit, perSecond) => {
			const run = simulate(limit, 40_000);
			expect(run.refused).toHaveLength(2);
			const late = run.accepted.filter((t) => t >= 10_000).length / 30;
			expect(late).toBeGreaterThanOrEqual(0.95 * perSecond);
		},
	);

	test('a request refused long after the last pause (it reached the service early) costs a pause, not half the rate', () => {
		const run = simulate({ sliding: 20, windowMs: 1000 }, 30_000, { refuseAt: 10_500 });
		expect(run.within(run.refused, 10_000)).toBe(1);
		expect(run.within(run.accepted, 15_000) / 15).toBeGreaterThanOrEqual(0.95 * 20);
	});

	test('a bucket that refills between bunches is told from a window by the probe, and paced at its rate', () => {
		const run = simulate({ perSecond: 20, burst: 10 }, 30_000);
		expect(run.refused.filter((t) => t >= 10_000).length).toBeLessThanOrEqual(1);
		expect(run.accepted.filter((t) => t >= 10_000).length / 20).toBeGreaterThanOrEqual(17);
	});

	test.each<[string, RateLimit]>([
		['2/s, 40 at once (as Shopify)', { perSecond: 2, burst: 40 }],
		['1/s, 10 at once', { perSecond: 1, burst: 10 }],
	])(
		'a slow bucket, %s: what it refilled during a pause, per pause; no 429 after the first few seconds',
		(_, limit) => {
			const run = simulate(limit, 60_000);
			expect(run.within(run.refused, 5_000)).toBe(0);
			const perSecond = (limit as { perSecond: number }).perSecond;
			expect(run.within(run.accepted, 5_000) / 55).toBeGreaterThanOrEqual(0.95 * perSecond);
		},
	);

	test('after a pause, a whole bunch goes before the probe: sends from before the pause fill the window, but are no bunch', () => {
		const pace = new Pace();
		const send = (at: number) => (pace.take(at), pace.record(at));
		// a bunch of 10, the 11th refused, a pause of 1 s
		const first = Array.from({ length: 11 }, (_, i) => pace.record(i));
		first.forEach((t, i) => (t.outcome = i < 10 ? 'ok' : 'refused'));
		pace.refused(first[10], 12, 1012);
		// the bunch after the pause: the service takes 8 of 10
		const second = Array.from(
			{ length: 10 },
			(_, i) => (expect(pace.delay(1012 + i)).toBe(0), send(1012 + i)),
		);
		second.forEach((t, i) =>
			Object.assign(t, { outcome: i < 8 ? 'ok' : 'refused', answered: 1022 }),
		);
		pace.refused(second[8], 1022, 2022);
		// after the next pause: 8 go as the window allows, all taken; the next is the probe, a quarter window later
		let now = 2022;
		for (let i = 0; i < 8; i++) {
			now += pace.delay(now);
			Object.assign(send(now), { outcome: 'ok', answered: now });
		}
		expect(now).toBeLessThan(2022 + 20);
		expect(pace.delay(now)).toBeGreaterThan(200);
	});

	test('a request stays in the window until its answer came (it may have reached the service as late as that)', () => {
		const pace = new Pace();
		let now = 0;
		const send = (answerMs: number) => {
			now += pace.delay(now);
			pace.take(now);
			return Object.assign(pace.record(now), { outcome: 'ok', answered: now + answerMs });
		};
		// a bunch of 10, the 11th (sent at 10 ms) refused, a pause of 1 s: a window of 10 per 1,010 ms
		const first = Array.from({ length: 11 }, (_, i) => pace.record(i));
		first.forEach((t, i) => Object.assign(t, { outcome: i < 10 ? 'ok' : 'refused', answered: 12 }));
		pace.refused(first[10], 12, 1012);
		now = 1012;
		for (let i = 0; i < 10; i++) send(3);
		// the probe, a quarter window later: a window refuses it
		const probe = Object.assign(send(1), { outcome: 'refused' });
		pace.refused(probe, now + 1, now + 1001);
		// the next bunch goes out over a while: its answers come 40 ms after the requests left
		const next = Array.from({ length: 10 }, () => send(40));
		expect(next[0].sent).toBeGreaterThanOrEqual(2024);
		// a window after the first of them left, none has surely left the window
		expect(pace.delay(next[0].sent + 1013)).toBeGreaterThan(30);
		expect(pace.delay(next[0].sent + 1052)).toBe(0);
	});

	test("a window's pause counts from when the refused request left, not from when its 429 came back", () => {
		const pace = new Pace();
		// a bunch of 10 and the 11th refused, each answered 100 ms after it left; the 429 asks for a pause of 1 s
		const first = Array.from({ length: 11 }, (_, i) => pace.record(i));
		first.forEach((t, i) =>
			Object.assign(t, { outcome: i < 10 ? 'ok' : 'refused', answered: i + 100 }),
		);
		pace.refused(first[10], 110, 1110);
		// the bunch after the pause, answered 100 ms later; the probe a quarter window after it, refused
		// (as fast as the first went: one per ms)
		let at = 1110;
		const bunch = Array.from({ length: 10 }, () => {
			at += pace.delay(at);
			pace.take(at);
			return Object.assign(pace.record(at), { outcome: 'ok', answered: at + 100 });
		});
		expect(at).toBeLessThanOrEqual(1120);
		const probeAt = at + pace.delay(at);
		pace.take(probeAt);
		Object.assign(pace.record(probeAt), { outcome: 'refused', answered: probeAt + 100 });
		// the window is 10 per 1,010 ms (the pause from when the 11th left, since the first): the next bunch goes a
		// window after the answers to this one, not a round trip later
		expect(bunch).toHaveLength(10);
		expect(pace.delay(2215)).toBeGreaterThan(0);
		expect(pace.delay(2221)).toBe(0);
	});

	test('a late 429 to a request sent before the last pause leaves the window as it was', () => {
		const pace = new Pace();
		const sent = Array.from({ length: 12 }, (_, i) => pace.record(i));
		for (const ticket of sent.slice(0, 10)) ticket.outcome = 'ok';
		sent[10].outcome = 'refused';
		pace.refused(sent[10], 12, 1012);
		expect(pace.delay(1012)).toBe(0);
		expect(pace.burst).toBe(10);
		// the twelfth was slow: its 429 comes after the pause
		sent[11].outcome = 'refused';
		pace.refused(sent[11], 1500, 2500);
		expect(pace.delay(2500)).toBe(0);
		expect(pace.burst).toBe(10);
	});
});

describe('the bucket arithmetic', () => {
	test('lowestRateThatAccepts: one request every 50 ms from an empty bucket needs about 20/s', () => {
		const sends = Array.from({ length: 40 }, (_, i) => 50 * (i + 1));
		const rate = lowestRateThatAccepts(sends, 0, 10);
		// a tenth of a token of slack for jitter: 0.9 token per 50 ms
		expect(rate).toBeGreaterThan(17.9);
		expect(rate).toBeLessThanOrEqual(20.01);
		expect(lowestRateThatAccepts([], 0, 10)).toBe(0);
		// ten at once from an empty bucket of one: no rate fits
		expect(lowestRateThatAccepts(Array(10).fill(100), 0, 1)).toBe(0);
	});

	test('highestRateThatRefuses: a bucket refilled for 1 s, ten taken, the next refused 30 ms later', () => {
		const accepted = Array(10).fill(1000);
		const high = highestRateThatRefuses(accepted, 0, 1030, 10);
		// 10 tokens at 1 s needs >= 10/s; no token 30 ms after the ten needs < 1 / 0.03 s
		expect(high).toBeGreaterThan(33);
		expect(high).toBeLessThanOrEqual(33.4);
		expect(highestRateThatRefuses([], 0, 0, 10)).toBe(Infinity);
	});
});
