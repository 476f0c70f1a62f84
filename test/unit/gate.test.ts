/** The shared gate of a node run (nodes/shared/transport/gate), from source. */
import { Budget, budgetFor, forgetBudgets } from '../../nodes/shared/transport/budget';
import { Gate, type Turn } from '../../nodes/shared/transport/gate';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const ticket = (turn: Turn) => {
	if (!turn.ok) throw new Error('no turn');
	return turn.ticket;
};

/**
 * The gate once the service has answered a new budget's first wave (not counted toward a round), `ms` after it was
 * sent: on `clock` (the budget's), or waited for.
 */
async function answered(gate: Gate, ms = 20, clock?: { now: number }): Promise<Gate> {
	const turns = await Promise.all(Array.from({ length: Gate.START }, () => gate.acquire(1000)));
	if (clock) clock.now += ms;
	else await sleep(ms);
	for (const turn of turns) gate.release('neutral', undefined, false, ticket(turn));
	return gate;
}

/** Starts `n` acquires; `granted` counts those that got a slot so far. */
function contenders(gate: Gate, n: number, budget = 60_000) {
	let granted = 0;
	const all = Array.from({ length: n }, () =>
		gate.acquire(budget).then((turn) => {
			if (turn.ok) granted++;
			return turn;
		}),
	);
	return {
		all,
		get granted() {
			return granted;
		},
	};
}

/** A gate whose budget allows 16 in flight, on a fake clock, its first wave answered. */
async function atSixteen(clock = { now: 0 }): Promise<Gate> {
	const budget = new Budget(() => clock.now);
	budget.limit = 16;
	return await answered(new Gate(64, undefined, budget), 20, clock);
}

describe('Gate', () => {
	test('never more than `limit` in flight; a release lets the next one in', async () => {
		const gate = new Gate(3);
		const c = contenders(gate, 5);
		await sleep(10);
		expect(c.granted).toBe(3);
		expect(gate.state).toMatchObject({ inFlight: 3, limit: 3 });
		gate.release('neutral');
		await sleep(10);
		expect(c.granted).toBe(4);
		gate.release('neutral');
		await sleep(10);
		expect(c.granted).toBe(5);
		expect(gate.state.inFlight).toBe(3);
	});

	test(`a new budget sends ${Gate.START} at once, and no more until a round is answered, nor more than the run's cap`, async () => {
		const wide = contenders(new Gate(128), Gate.START + 3);
		await sleep(10);
		expect(wide.granted).toBe(Gate.START);
		const narrow = contenders(new Gate(Gate.START - 1), Gate.START + 3);
		await sleep(10);
		expect(narrow.granted).toBe(Gate.START - 1);
	});

	test('max 1: one at a time, in the order asked', async () => {
		const gate = new Gate(1);
		const order: number[] = [];
		const jobs = [0, 1, 2, 3].map(async (n) => {
			const turn = await gate.acquire(1000);
			expect(turn.ok).toBe(true);
			order.push(n);
			await sleep(5);
			expect(gate.state.inFlight).toBe(1);
			gate.release('ok');
		});
		await Promise.all(jobs);
		expect(order).toEqual([0, 1, 2, 3]);
		expect(gate.state.limit).toBe(1); // never above max
	});

	test(`starts at ${Gate.START} and doubles per healthy round (slow start), or per ${Budget.ROUND_MS} ms when rounds are shorter, never past max`, async () => {
		const clock = { now: 0 };
		const gate = await answered(new Gate(128, undefined, new Budget(() => clock.now)), 20, clock);
		expect(gate.state.limit).toBe(Gate.START);
		const first = contenders(gate, 40);
		await sleep(10);
		expect(first.granted).toBe(Gate.START);
		// the round's answers free their slots but do not grow the allowance until the whole round is in
		for (let i = 0; i < Gate.START - 1; i++) gate.release('ok');
		expect(gate.state.limit).toBe(Gate.START);
		await sleep(10);
		expect(first.granted).toBe(2 * Gate.START - 1);
		clock.now += Budget.ROUND_MS;
		gate.release('ok');
		expect(gate.state.limit).toBe(2 * Gate.START);
		await sleep(10);
		expect(first.granted).toBe(3 * Gate.START);
		// a round half as long (a service next door): √2 as many
		clock.now += Budget.ROUND_MS / 2;
		for (let i = 0; i < 2 * Gate.START; i++) gate.release('ok');
		expect(gate.state.limit).toBe(Math.floor(2 * Gate.START * Math.SQRT2));

		const small = await answered(new Gate(10, undefined, new Budget(() => clock.now)), 20, clock);
		for (let r = 0; r < 3; r++) {
			const c = contenders(small, 12);
			const turns = (await Promise.all(c.all.slice(0, small.state.limit))).map(ticket);
			clock.now += Budget.ROUND_MS; // answered together, a round trip away
			for (const t of turns) small.release('ok', undefined, false, t);
			await Promise.all(c.all.slice(turns.length));
			for (let i = turns.length; i < 12; i++) small.release('ok');
		}
		expect(small.state.limit).toBe(10);
	});

	test('a round with a push-back does not grow; answers that are merely not ok (a 404) do not stop growth', async () => {
		const clock = { now: 0 };
		const gate = await answered(new Gate(128, undefined, new Budget(() => clock.now)), 20, clock);
		const c = contenders(gate, Gate.START + 1); // one more than the allowance: the round is full
		await Promise.all(c.all.slice(0, Gate.START));
		clock.now += Budget.ROUND_MS;
		for (let i = 0; i < Gate.START - 1; i++) gate.release('neutral');
		gate.release('ok');
		expect(gate.state.limit).toBe(2 * Gate.START);
		// a 503 in the next round: one under the level at which the refused request was sent
		const d = contenders(gate, 4);
		const turns = await Promise.all(d.all);
		const refused = ticket(turns[3]);
		gate.release('pushback', undefined, false, refused);
		expect(gate.state.limit).toBe(refused.level - 1);
	});

	test('a round in which nobody waited for a slot does not grow the allowance (the demand, not the service, set its pace)', async () => {
		const clock = { now: 0 };
		const gate = await answered(new Gate(128, undefined, new Budget(() => clock.now)), 20, clock);
		for (let round = 0; round < 3; round++) {
			const c = contenders(gate, Gate.START);
			await Promise.all(c.all);
			clock.now += Budget.ROUND_MS;
			for (let i = 0; i < Gate.START; i++) gate.release('ok');
		}
		expect(gate.state.limit).toBe(Gate.START);
	});

	/** A round trip to a distant service: a round this long doubles the allowance */
	const RT = Budget.ROUND_MS;

	/**
	 * Full rounds against a fake clock: every slot of the allowance busy and one request waiting. Answered `together`
	 * `ms` after they went (a distant service), `serial`: one after another, `ms` in all (each costs the same work), or
	 * `varied`: all but the last after an eighth of `ms`, the last after `ms` (a distant service whose latency varies).
	 */
	function rounds(max: number, first = RT) {
		const clock = { now: 0 };
		let held = 0;
		let gate: Gate;
		const round = async (ms: number, answers: 'together' | 'serial' | 'varied' = 'together') => {
			gate ??= await answered(new Gate(max, undefined, new Budget(() => clock.now)), first, clock);
			const limit = gate.state.limit;
			const need = limit - held;
			const c = contenders(gate, need + 1);
			await Promise.all(c.all.slice(0, need));
			const start = clock.now;
			for (let i = 0; i < limit; i++) {
				if (answers === 'serial') clock.now = start + (ms * (i + 1)) / limit;
				else clock.now = start + (answers === 'varied' && i < limit - 1 ? ms / 8 : ms);
				gate.release('ok');
			}
			await c.all[need]; // the waiting one goes in the next round
			held = 1;
		};
		/** The run's last answer: nothing in flight until the next run */
		const end = () => {
			gate.release('ok');
			held = 0;
		};
		return { gate: () => gate, round, clock, end };
	}

	const K = Budget.KEPT;
	/** Slow start on a distant service: doubling from the start to `KEPT`, then fourfold */
	const steps = [2 * Gate.START, K, Budget.GROWTH * K];

	test('past 16, a growth step that brings no faster answers is taken back, and tried again a minute later', async () => {
		const { gate, round, clock } = rounds(256);
		// a distant service: n times as many in flight, n times the answers per second: grows
		for (const limit of steps) {
			await round(RT);
			expect(gate().state.limit).toBe(limit);
		}
		// the next step brings answers only 1.2 times faster: back to the step before, and no more growth
		await round((Budget.GROWTH * RT) / 1.2);
		expect(gate().state.limit).toBe(K);
		for (let r = 0; r < 5; r++) await round(1);
		expect(gate().state.limit).toBe(K);
		clock.now += 60_000;
		await round(RT);
		expect(gate().state.limit).toBe(Budget.GROWTH * K);
	});

	test('however many runs share it, the budget never lets more than 256 be in flight to one service', async () => {
		const { gate, round } = rounds(4096);
		for (let r = 0; r < 8; r++) await round(RT);
		expect(gate().state.limit).toBe(256);
	});

	test('a step taken back is tried again when the next run starts (the slow round may have been a busy machine)', async () => {
		const { gate, round, clock, end } = rounds(256);
		for (let r = 0; r < steps.length; r++) await round(RT);
		await round((Budget.GROWTH * RT) / 1.2);
		expect(gate().state.limit).toBe(K);
		end();
		clock.now += 1000;
		await round(RT);
		expect(gate().state.limit).toBe(Budget.GROWTH * K);
	});

	test('time the budget sat idle between runs is not read as slow answers: the next run still grows', async () => {
		const clock = { now: 0 };
		const gate = await answered(new Gate(256, undefined, new Budget(() => clock.now)), RT, clock);
		let held = 0;
		const full = async (n: number) => {
			const c = contenders(gate, n - held + 1); // one waits: the round is full
			await Promise.all(c.all.slice(0, n - held));
			clock.now += RT;
			for (let i = 0; i < n; i++) gate.release('ok');
			await c.all[n - held];
			held = 1;
		};
		await full(Gate.START);
		await full(2 * Gate.START);
		expect(gate.state.limit).toBe(K);
		gate.release('ok'); // the run's last answer; a minute later the next run
		held = 0;
		clock.now += 60_000;
		await full(K);
		expect(gate.state.limit).toBe(Budget.GROWTH * K);
	});

	test('on a service next door (each answer costs the same work, however many are in flight) it stops at 16', async () => {
		const { gate, round, clock } = rounds(128, 0.8);
		let most = 0;
		for (let r = 0; r === 0 || clock.now < 20 * RT; r++) {
			await round(0.8 * (r ? gate().state.limit : Gate.START), 'serial');
			most = Math.max(most, gate().state.limit);
		}
		expect(most).toBe(K);
	});

	test('a slow first wave (the node run starting up) is not timed: next door still stops at 16', async () => {
		const clock = { now: 0 };
		const gate = new Gate(128, undefined, new Budget(() => clock.now));
		let held = 0;
		/** A full round, its answers one after another, `ms` in all */
		const full = async (ms: number) => {
			const n = gate.state.limit;
			const c = contenders(gate, n - held + 1);
			await Promise.all(c.all.slice(0, n - held));
			for (let i = 0; i < n; i++) {
				clock.now += ms / n;
				gate.release('ok');
			}
			await c.all[n - held];
			held = 1;
		};
		await full(40);
		const limits = [];
		while (clock.now < 20 * RT) {
			await full(0.8 * gate.state.limit);
			limits.push(gate.state.limit);
		}
		expect(Math.max(...limits)).toBe(K);
	});

	test('a distant service whose latency varies (most answers quick, one slow) is not held at the start', async () => {
		const { gate, round } = rounds(128);
		for (const limit of steps) {
			await round(1.2 * RT, 'varied');
			expect(gate().state.limit).toBe(limit);
		}
	});

	test('push-backs set the allowance one under the lowest level refused; it holds there a while, then grows by about one per round trip', async () => {
		const clock = { now: 0 };
		const gate = await atSixteen(clock);
		const turns = (await Promise.all(contenders(gate, 12).all)).map(ticket);
		// a cap of 9 in flight: the 10th to 12th were refused, their answers come back in any order
		for (const t of [turns[11], turns[9], turns[10]]) gate.release('pushback', undefined, false, t);
		expect(gate.state.limit).toBe(9);
		for (const t of turns.slice(0, 9)) gate.release('ok', undefined, false, t);
		const answers = async (n: number) => {
			for (let i = 0; i < n; i++) {
				const turn = await gate.acquire(1000);
				gate.release('ok', undefined, false, ticket(turn));
			}
		};
		await answers(30);
		expect(gate.state.limit).toBe(9);
		clock.now += 10_001;
		await answers(30);
		expect(gate.state.limit).toBeGreaterThanOrEqual(10);
		expect(gate.state.limit).toBeLessThanOrEqual(13);
		// never below one
		for (let i = 0; i < 10; i++) {
			const turn = await gate.acquire(1000);
			gate.release('pushback', undefined, false, { ...ticket(turn), level: 1 });
		}
		expect(gate.state.limit).toBe(1);
	});

	test('refused again at the allowance a push-back set (we count more in flight than the service does): it halves, and holds there', async () => {
		const gate = await atSixteen();
		const first = (await Promise.all(contenders(gate, 16).all)).map(ticket);
		gate.release('pushback', undefined, false, first[15]);
		expect(gate.state.limit).toBe(15);
		// sent before that push-back: one under its level, as any
		gate.release('pushback', undefined, false, first[14]);
		expect(gate.state.limit).toBe(14);
		gate.release('ok', undefined, false, first[0]);
		await new Promise((resolve) => setTimeout(resolve, 5)); // the next request leaves later
		const next = ticket(await gate.acquire(1000));
		expect(next.level).toBe(14);
		gate.release('pushback', undefined, false, next);
		expect(gate.state.limit).toBe(7);
		for (const t of first.slice(1, 14)) gate.release('ok', undefined, false, t);
		for (let i = 0; i < 30; i++) {
			const turn = await gate.acquire(1000);
			gate.release('ok', undefined, false, ticket(turn));
		}
		expect(gate.state.limit).toBe(7);
	});

	test('a pause blocks every acquire until it ends', async () => {
		const gate = new Gate(8);
		await gate.acquire(1000);
		const paused = Date.now();
		gate.release('neutral', 150);
		const started = Date.now();
		const turns = await Promise.all([gate.acquire(1000), gate.acquire(1000)]);
		expect(turns).toMatchObject([{ ok: true }, { ok: true }]);
		expect(Date.now() - paused).toBeGreaterThanOrEqual(140);
		expect(Date.now() - started).toBeGreaterThanOrEqual(130);
	});

	test('a pause longer than the budget: refused at once, with how long it would last', async () => {
		const gate = new Gate(8);
		await gate.acquire(1000);
		gate.release('neutral', 2000, true);
		const started = Date.now();
		const turn = await gate.acquire(500);
		expect(Date.now() - started).toBeLessThan(100);
		expect(turn.ok).toBe(false);
		const { pauseMs } = turn as { ok: false; pauseMs: number };
		expect(pauseMs).toBeGreaterThan(500);
		expect(pauseMs).toBeLessThanOrEqual(2000);
		expect(gate.state.inFlight).toBe(0); // nothing taken
	});

	test('a stop (cancel) releases everybody waiting, without a slot', async () => {
		const controller = new AbortController();
		const gate = new Gate(1, controller.signal);
		await gate.acquire(1000);
		const waiting = contenders(gate, 3);
		await sleep(10);
		expect(waiting.granted).toBe(0);
		controller.abort();
		const turns = await Promise.all(waiting.all);
		expect(turns.every((t) => !t.ok)).toBe(true);
		expect(gate.state.inFlight).toBe(1);
		expect(await gate.acquire(1000)).toEqual({ ok: false, pauseMs: 0 });
	});
});

describe('budgetFor: one budget per service and credential in the process', () => {
	test('the same budget for the same key; forgotten after a quarter of an hour unused, the oldest past 256', () => {
		forgetBudgets();
		const clock = jest.spyOn(Date, 'now').mockReturnValue(1e12);
		const a = budgetFor('http://a k1');
		expect(budgetFor('http://a k1')).toBe(a);
		expect(budgetFor('http://a k2')).not.toBe(a);
		clock.mockReturnValue(1e12 + 15 * 60_000 + 1);
		expect(budgetFor('http://a k1')).not.toBe(a);
		const kept = budgetFor('kept');
		for (let i = 0; i < 256; i++) budgetFor(`other ${i}`);
		expect(budgetFor('kept')).not.toBe(kept);
		clock.mockRestore();
	});
});
