import { Stopper } from '../../nodes/shared/transport/attempt';
import { limiterFor } from '../../nodes/shared/transport/client';
import { Limiter, MAX_WAIT_MS, START, forgetLimiters } from '../../nodes/shared/transport/limiter';
import { Pace } from '../../nodes/shared/transport/quota';
import type { Run, Ticket } from '../../nodes/shared/transport/types';

const newRun = (max = 256): Run => ({ max, stop: new Stopper(), inFlight: 0, queue: [] });
const MINUTE = 60_000;

/** Takes a turn that must be given at once. */
async function go(limiter: Limiter, run: Run, budget = MINUTE): Promise<Ticket> {
	const turn = await limiter.acquire(run, budget, MAX_WAIT_MS);
	if (!turn.ok) throw new Error(`refused: ${turn.why}`);
	return turn.ticket;
}

/** Whether a promise has settled after the microtasks queued now have run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
	let done = false;
	void promise.then(() => (done = true));
	for (let i = 0; i < 20; i++) await Promise.resolve();
	return done;
}

afterEach(() => jest.restoreAllMocks());

/** A limiter whose first answer has come back, with the allowance it then has at least */
const opened = () => Object.assign(new Limiter(), { allowance: START });

/** A limiter (allowance 512) answering requests sent at the times given, each `took` ms later (the clock mocked) */
function answering(took = 0) {
	const [limiter, run, start] = [
		Object.assign(new Limiter(), { allowance: 512 }),
		newRun(),
		Date.now(),
	];
	const clock = jest.spyOn(Date, 'now');
	const answer = (sentAt: number, status: number, pauseMs?: number) => {
		clock.mockReturnValue(sentAt + took);
		limiter.release(run, { sentAt, level: 1, seq: 1 }, { status, pauseMs });
	};
	return { limiter, answer, start };
}

/** Each round of answers kept the process waiting idle for `ms` (as Node.js's event loop utilization tells). */
const idle = (ms: number) =>
	jest
		.spyOn(performance as unknown as { eventLoopUtilization(): object }, 'eventLoopUtilization')
		.mockReturnValue({ idle: ms, active: 0, utilization: 0 });

describe('slots', () => {
	test('a new limiter: one request; waiting idle past 10 ms for the first answer, doubled per 2 ms; a healthy answer grows from that level', async () => {
		const limiter = new Limiter();
		const run = newRun();
		const first = await go(limiter, run);
		const waiting = Array.from({ length: 8 }, () => limiter.acquire(run, MINUTE, MAX_WAIT_MS));
		// n8n busy (here: not waiting at all): the first goes alone
		expect(await Promise.all(waiting.map(settled))).toEqual(Array(8).fill(false));
		// 150 ms waiting idle for the first answer (Node.js's measure mocked: work another test file left running in
		// this process must not make it look busy, nor hold up the ramp's timer): far more than 8 may be under way
		idle(150);
		const all = async () => (await Promise.all(waiting.map(settled))).every(Boolean);
		for (let n = 0; n < 100 && !(await all()); n++)
			await new Promise((resolve) => setTimeout(resolve, 50));
		expect(await Promise.all(waiting.map(settled))).toEqual(Array(8).fill(true));
		limiter.release(run, first, { status: 200 });
		expect(limiter.allowance).toBeGreaterThan(8);
	});

	test(`the first answer within 10 ms lets ${START} go`, async () => {
		const limiter = new Limiter();
		const run = newRun();
		const first = await go(limiter, run);
		jest.spyOn(Date, 'now').mockReturnValue(first.sentAt + 2);
		const waiting = Array.from({ length: START + 1 }, () =>
			limiter.acquire(run, MINUTE, MAX_WAIT_MS),
		);
		expect(await settled(waiting[0])).toBe(false);
		limiter.release(run, first, { status: 200 });
		expect(await Promise.all(waiting.map(settled))).toEqual([...Array(START).fill(true), false]);
	});

	test('each run keeps its own Concurrency; a run at its cap holds up no other', async () => {
		const limiter = opened();
		const [a, b] = [newRun(1), newRun(4)];
		const first = await go(limiter, a);
		const second = limiter.acquire(a, MINUTE, MAX_WAIT_MS);
		expect(await settled(second)).toBe(false);
		const bs = [0, 1, 2].map(() => limiter.acquire(b, MINUTE, MAX_WAIT_MS));
		expect(await Promise.all(bs.map(settled))).toEqual([true, true, true]);
		expect(limiter.inFlight).toBe(4);
		limiter.release(a, first, { status: 200 });
		expect(await settled(second)).toBe(true);
	});

	test('Stop lets the waiting requests of that run go at once, and no other run', async () => {
		const limiter = opened();
		const [a, b] = [newRun(), newRun()];
		await Promise.all(Array.from({ length: START }, () => go(limiter, a)));
		const waitingA = limiter.acquire(a, MINUTE, MAX_WAIT_MS);
		const waitingB = limiter.acquire(b, MINUTE, MAX_WAIT_MS);
		(a.stop as Stopper).stop();
		limiter.leave(a);
		expect(await waitingA).toMatchObject({ ok: false, why: 'stopped' });
		expect(await settled(waitingB)).toBe(false);
	});
});

describe('the in-flight allowance', () => {
	test.each([
		[0, START + 1],
		[10, START * 2],
		[20, START * 4],
		[200, 512],
	])(
		'per round of healthy answers while requests wait, %i ms waited for them: it doubles per 10 ms',
		async (ms, grown) => {
			idle(ms);
			const limiter = opened();
			const run = newRun();
			const sentAt = Date.now();
			const tickets = await Promise.all(Array.from({ length: START }, () => go(limiter, run)));
			const waiting = limiter.acquire(run, MINUTE, MAX_WAIT_MS);
			jest.spyOn(Date, 'now').mockReturnValue(sentAt + ms);
			for (const t of tickets) limiter.release(run, { ...t, sentAt }, { status: 200 });
			await waiting;
			expect(limiter.allowance).toBe(grown);
		},
	);

	test('a round of answers slower than twice the fastest round only stops the growth', async () => {
		const limiter = opened();
		const run = newRun();
		const now = Date.now();
		jest.spyOn(Date, 'now').mockReturnValue(now);
		idle(20);
		for (const ms of [50, 120, 500]) {
			const tickets = await Promise.all(
				Array.from({ length: limiter.allowance }, () => go(limiter, run)),
			);
			const waiting = limiter.acquire(run, MINUTE, MAX_WAIT_MS);
			const sentAt = now - ms;
			for (const t of tickets) limiter.release(run, { ...t, sentAt }, { status: 200 });
			const turn = await waiting;
			if (turn.ok) limiter.release(run, { ...turn.ticket, sentAt: now }, { status: 0 });
			expect(limiter.allowance).toBe(START * 4);
		}
	});

	test('a 503 sets it one under the lowest level its wave refused; refused again under that, it halves', async () => {
		const limiter = new Limiter();
		const run = newRun();
		limiter.allowance = 20;
		const tickets = await Promise.all(Array.from({ length: 20 }, () => go(limiter, run)));
		// sent as the 16th in flight: refused for our going past the cap, so its retry need not back off
		expect(limiter.release(run, tickets[15], { status: 503 })).toBe(true);
		expect(limiter.allowance).toBe(15);
		// the refusals of one wave come back in any order: the lowest level refused sets it
		limiter.release(run, tickets[11], { status: 503 });
		expect(limiter.allowance).toBe(11);
		limiter.release(run, tickets[13], { status: 503 });
		expect(limiter.allowance).toBe(11);
		for (const t of [...tickets.slice(0, 11), tickets[12], tickets[14], ...tickets.slice(16)])
			limiter.release(run, t, { status: 200 });
		jest.spyOn(Date, 'now').mockReturnValue(Date.now() + 5);
		const again = await go(limiter, run);
		// refused under the level the last cut allowed: the service takes fewer, and the retry backs off
		expect(limiter.release(run, { ...again, level: 8 }, { status: 503 })).toBe(false);
		expect(limiter.allowance).toBe(4);
	});
});

describe('waits', () => {
	test('a Retry-After of a billion seconds pauses the service for at most two minutes', async () => {
		const limiter = new Limiter();
		const run = newRun();
		limiter.release(run, await go(limiter, run), { status: 429, pauseMs: 1e12 });
		const turn = await limiter.acquire(run, 1000, MAX_WAIT_MS);
		expect(turn).toMatchObject({ ok: false, why: 'paused' });
		expect((turn as { waitMs: number }).waitMs).toBeLessThanOrEqual(MAX_WAIT_MS);
		expect((turn as { waitMs: number }).waitMs).toBeGreaterThan(MAX_WAIT_MS - 5000);
	});

	test('a quota of 0 whose reset has passed lets one request go to learn the new window', async () => {
		const limiter = new Limiter();
		const run = newRun();
		const ticket = await go(limiter, run);
		limiter.release(run, ticket, {
			status: 200,
			quota: { remaining: 0, resetAt: Date.now() - 1, limit: 0 },
		});
		const probe = limiter.acquire(run, MINUTE, MAX_WAIT_MS);
		expect(await settled(probe)).toBe(true);
		expect(await probe).toMatchObject({ ok: true });
	});

	test('a quota that resets later than the request may wait is refused at once, saying when', async () => {
		const limiter = new Limiter();
		const run = newRun();
		const quota = { remaining: 0, resetAt: Date.now() + 10 * MINUTE, limit: 0 };
		limiter.release(run, await go(limiter, run), { status: 200, quota });
		const turn = await limiter.acquire(run, MINUTE, MAX_WAIT_MS);
		expect(turn).toMatchObject({ ok: false, why: 'quota' });
	});

	test('a 429 without quota headers starts the pace under what the service accepted, then it grows past it', async () => {
		const limiter = opened();
		const run = newRun();
		const tickets = await Promise.all(Array.from({ length: START }, () => go(limiter, run)));
		for (const t of tickets.slice(0, 3)) limiter.release(run, t, { status: 200 });
		expect(limiter.pace?.rate).toBeUndefined();
		limiter.release(run, tickets[3], { status: 429 });
		// three accepted at once, counted over half a second: a plateau of 6/s, and the pace starts at 80% of it
		expect(limiter.pace?.rate).toBeCloseTo(4.8, 5);
		const later = Date.now() + 3000;
		jest.spyOn(Date, 'now').mockReturnValue(later);
		limiter.release(run, { sentAt: later, level: 1, seq: 99 }, { status: 200 });
		expect(limiter.pace?.rate!).toBeGreaterThan(6);
	});

	test('a first 429 after a wave sent over a while: what the service banked is not counted as its rate', () => {
		const { limiter, answer, start } = answering(50);
		// 13 accepted, sent over 150 ms, by a service of 20/s with 10 banked: 10 + 20 × 0.15
		for (let i = 0; i < 13; i++) answer(start + (150 * i) / 12, 200);
		answer(start + 150, 429);
		// over 150 ms, the half second the bank is worth added: 20/s (the spread alone would say 87/s)
		expect(limiter.pace?.rate).toBeCloseTo(0.8 * 20, 5);
	});

	test('a first 429 after a steady stream counts its last two seconds: a slow drain of the bank is not a wave', () => {
		const { limiter, answer, start } = answering();
		// 23/s for 3 s to a service of 20/s with 10 banked: the bank runs dry after 3.3 s
		for (let i = 0; i < 69; i++) answer(start + (1000 * i) / 23, 200);
		answer(start + 3000, 429);
		// 46 over the last 2 s and the half second a bank is worth: 18.4/s (the last second alone: 15.3/s)
		expect(limiter.pace?.rate).toBeCloseTo((0.8 * 46) / 2.5, 5);
	});

	test("a later 429 counts what the service accepted over the pace's whole run: what a bucket banked counts little", () => {
		const { limiter, answer, start } = answering();
		for (let i = 0; i < 40; i++) answer(start - 1, 200);
		answer(start, 429); // 40 at once, counted over half a second: the pace starts at 80% of 80/s
		// four seconds at 20/s, and in the last of them 10 more: the bucket's bank, drained by the pace's probing
		for (let i = 0; i < 80; i++) answer(start + 50 * i, 200);
		for (let i = 0; i < 10; i++) answer(start + 3500 + 50 * i, 200);
		answer(start + 4000, 429);
		// 90 over the pace's 4 s: a plateau of 22.5/s (the last second alone would say 30/s)
		expect(limiter.pace?.rate).toBeCloseTo(0.8 * 22.5, 5);
	});

	test('a 429 soon after the pause a 429 asked for counts the pace since the pause, not the pause', () => {
		const { limiter, answer, start } = answering();
		for (let i = 0; i < 30; i++) answer(start - 1, 200);
		answer(start, 429, 1000); // 30 at once, over half a second: 60/s; the pace starts after a second's pause
		for (let i = 0; i < 10; i++) answer(start + 1000 + 30 * i, 200);
		answer(start + 1400, 429);
		// 10 over the 0.4 s since the pause, counted over half a second: 20/s (with the pause, 10/s)
		expect(limiter.pace?.rate).toBeCloseTo(0.8 * 20, 5);
	});
});

test('limiters are shared per key and forgotten after a quarter of an hour unused', () => {
	forgetLimiters();
	const first = limiterFor('a');
	expect(limiterFor('a')).toBe(first);
	jest.spyOn(Date, 'now').mockReturnValue(Date.now() + 16 * MINUTE);
	limiterFor('b');
	expect(limiterFor('a')).not.toBe(first);
});

describe('the pace', () => {
	/** When each request (in the order they came) gets its moment at `pace`: fake timers move the clock. */
	async function moments(pace: Pace, count: number, stop = new Stopper()): Promise<number[]> {
		const at: number[] = [];
		const turns = Array.from({ length: count }, async () => {
			await pace.turn(stop);
			at.push(Date.now());
		});
		await jest.advanceTimersByTimeAsync(5000);
		await Promise.all(turns);
		return at;
	}

	afterEach(() => jest.useRealTimers());

	test('its curve starts where the pause ends, and the first request after the pause goes alone', async () => {
		jest.useFakeTimers({ now: 0 });
		const pace = new Pace(0, 20, 1000);
		pace.grow(900);
		expect(pace.rate).toBeCloseTo(16, 5);
		const [first, second] = await moments(pace, 2);
		expect(first).toBe(1000);
		expect(second).toBeCloseTo(1000 + 1000 / 16, -1);
		pace.grow(1000 + 2000); // back at the plateau 2 s after the pause
		expect(pace.rate).toBeCloseTo(20, 5);
	});

	test('requests go in the order they came, each at the rate of its moment: a rise counts at once', async () => {
		jest.useFakeTimers({ now: 0 });
		const pace = new Pace(0, 20, 0);
		const order: number[] = [];
		const stop = new Stopper();
		const turns = Array.from({ length: 30 }, async (_, n) => {
			await pace.turn(stop);
			order.push(n);
		});
		await jest.advanceTimersByTimeAsync(990); // 16/s: 16 in the first second, 14 wait
		expect(order).toHaveLength(16);
		pace.grow(6000);
		expect(pace.rate).toBeGreaterThan(50);
		await jest.advanceTimersByTimeAsync(300); // at 50/s and more, the 14 left go within 0.3 s
		await Promise.all(turns);
		expect(order).toEqual([...order].sort((a, b) => a - b));
	});

	test('after an idle spell, up to a quarter second of the pace goes at once, and the curve did not move', async () => {
		jest.useFakeTimers({ now: 10_000 });
		const pace = new Pace(0, 20, 0);
		const at = await moments(pace, 7);
		// 16/s: the burst holds a quarter second (4 intervals) besides the request due now
		expect(at.filter((t) => t === 10_000)).toHaveLength(5);
		expect(at[5]).toBeGreaterThan(10_000);
		// the idle spell stood still on the curve: half a second later it is still under the plateau
		pace.grow(10_500);
		expect(pace.rate).toBeLessThan(20);
	});

	test('Stop takes a request out of the line at once; a new pace sends the line on', async () => {
		jest.useFakeTimers({ now: 0 });
		const pace = new Pace(0, 2, 0);
		const [stopped, other] = [new Stopper(), new Stopper()];
		const went: string[] = [];
		const first = pace.turn(other).then(() => went.push('first'));
		const second = pace.turn(stopped).then(() => went.push('stopped'));
		const third = pace.turn(other).then(() => went.push('third'));
		await first;
		stopped.stop();
		await second;
		expect(went).toEqual(['first', 'stopped']);
		// the stopped request took no moment: the third has the next; a new pace lets it go on at once
		pace.end();
		await third;
		expect(Date.now()).toBe(0);
	});

	test('a stated rate (60 a minute), from the first request: never more than 60 in any minute', async () => {
		const limiter = new Limiter(60);
		const run = newRun();
		const now = Date.now();
		const clock = jest.spyOn(Date, 'now').mockReturnValue(now);
		for (let i = 0; i < 60; i++) limiter.release(run, await go(limiter, run), { status: 200 });
		// the 61st waits for the first to leave the minute (refused here: it may wait only 1 s)
		expect(await limiter.acquire(run, MINUTE, 1000)).toEqual({
			ok: false,
			why: 'quota',
			waitMs: 60_000,
		});
		clock.mockReturnValue(now + 60_000);
		expect(await limiter.acquire(run, MINUTE, 1000)).toMatchObject({ ok: true });
	});
});
