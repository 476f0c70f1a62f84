import { Pace, type Ticket } from './pace';
import { Plan } from './plan';
import type { Quota } from './timing';

/** How an answer went, as far as the service's capacity is concerned. */
export type Signal = 'ok' | 'pushback' | 'neutral';

/** A budget nobody used for this long is forgotten; at most this many are kept. */
const IDLE_MS = 15 * 60_000;
const MAX_BUDGETS = 256;
/** After a push-back, the allowance stays under the level that was refused for this long. */
const HOLD_MS = 10_000;
/** A growth step that did not pay is tried again after this long, or when the next busy spell starts. */
const REPROBE_MS = 60_000;

/** A request sent through a budget: when, at which in-flight level, and its place in the order of sends. */
export interface Sent extends Ticket {
	seq: number;
	level: number;
}

/**
 * The budget of one service (origin and credential) in this n8n process, shared by every node run that calls it:
 * concurrent executions, the next scheduled run, other workflows. It holds the allowance in flight, the shared
 * pause, the pace learned from refusals and the quota the service announces, so a run starts where the last left off.
 *
 * - **Quota headers first**: while the service says how many requests are left and when its window resets, requests
 *   go while some are left and wait for the reset when none are (`Plan`).
 * - **Without them, the service's refusals teach the pace** (`Pace`: a window, or a token bucket, fitted to its 429s).
 * - **Adaptive concurrency** (as TCP does it): `START` in flight, growing per round (one allowance's worth of
 *   answers; at most twice per `ROUND_MS`) while every answer is healthy (`grow`), then by about one per round trip. A
 *   push-back (503, 504, a timeout, a 429 before the pace is known) sets it one under the level of the refused
 *   request; refused again at the level a push-back set, it halves.
 * - **Fair turns**: requests waiting for a slot are let in one run after another, in turn.
 */
export class Budget {
	static readonly START = 4;
	/** Up to this many the allowance doubles per round, as in TCP: a first wave refused is at most about what was taken */
	static readonly KEPT = 16;
	/** Past `KEPT` a step is judged (`grow`), and fourfold, so that what it brings stands out from latency's noise */
	static readonly GROWTH = 4;
	/** The part of a step's possible speed-up it must bring (×4 in flight: at least ×1.75 the answers per second) */
	static readonly PAYOFF = 0.25;
	/**
	 * Up to `KEPT` the allowance doubles per round, or per this long when a round is shorter. More in flight pays where
	 * answers take long; next door, n8n's own work per request sets the pace at a few in flight, and a limit met there
	 * refuses only as many as are in flight.
	 */
	static readonly ROUND_MS = 100;
	/**
	 * The most in flight to one service from the process, whatever the runs' Concurrency adds up to: the most one run
	 * may have, so the answers being read take at most that many Max Response Sizes of memory.
	 */
	static readonly MOST = 256;

	limit = Budget.START;
	inFlight = 0;
	pausedUntil = 0;
	readonly pace = new Pace();
	readonly plan = new Plan();
	usedAt = 0;
	/**
	 * Answers to the first wave still to come: not counted, and the first round is timed from the last of them (a
	 * cold start's own work is not the service's speed)
	 */
	private untimed = Budget.START;
	private sent = 0;
	private threshold = Infinity;
	private ceiling = { level: Infinity, until: 0 };
	private hold = { level: Infinity, until: 0 };
	/** When a push-back last set the allowance (until it grows again) */
	private cutAt?: number;
	private round = newRound(0, false);
	private lastStep?: { limit: number; speed: number };
	/** Runs with requests waiting for a slot, in turn */
	private readonly waiting: Array<Waiter['run']> = [];
	/** The pace's waiting line: held by the request waiting for its moment, the others queue behind it */
	private lineHeld = false;
	private readonly line: Waiter[] = [];
	private answers: Array<() => void> = [];

	constructor(private readonly now: () => number = () => performance.now()) {}

	/** How many may be in flight now. */
	get allowance(): number {
		return Math.max(1, Math.floor(this.limit));
	}

	/** Room for one more request of `run`. */
	private room(run: Run): boolean {
		return run.inFlight < run.max && this.inFlight < this.allowance;
	}

	/**
	 * Takes a slot for `run` when there is room and no other run is waiting for one: the number in flight with it
	 * (0: none taken).
	 */
	take(run: Run): number {
		if (this.waiting.length || !this.room(run)) return 0;
		// a round measures the service while busy (idle time between runs is not a slow answer), and so may a new step
		if (this.inFlight === 0) {
			this.round = newRound(this.now(), false);
			this.ceiling.until = 0;
		}
		run.inFlight++;
		return ++this.inFlight;
	}

	/** `run` waits for a slot (its own queue); slots go to the waiting runs in turn. */
	enlist(run: Run): void {
		if (this.inFlight >= this.allowance) this.round.full = true;
		if (!this.waiting.includes(run)) this.waiting.push(run);
		this.wake();
	}

	leave(run: Run): void {
		const at = this.waiting.indexOf(run);
		if (at >= 0) this.waiting.splice(at, 1);
		for (let i = this.line.length - 1; i >= 0; i--)
			if (this.line[i].run === run) this.line.splice(i, 1)[0].resolve(false);
		this.wake();
	}

	/** Hands free slots to waiting requests, one run after another. */
	wake(): void {
		let skipped = 0;
		while (this.inFlight < this.allowance && skipped < this.waiting.length) {
			const run = this.waiting.shift()!;
			if (this.room(run) && run.queue.length) {
				run.inFlight++;
				run.queue.shift()!(++this.inFlight);
				skipped = 0;
			} else skipped++;
			if (run.queue.length) this.waiting.push(run);
		}
	}

	/** A request goes now; it took its slot when `level` were in flight. */
	record(now: number, level: number): Sent {
		const ticket = this.pace.record(now) as Sent;
		ticket.seq = ++this.sent;
		ticket.level = level;
		this.plan.take();
		return ticket;
	}

	/** Waits for the pace line; false when `run` stopped meanwhile. */
	async enterLine(run: Run): Promise<boolean> {
		if (!this.lineHeld) return (this.lineHeld = true);
		return await new Promise<boolean>((resolve) => this.line.push({ run, resolve }));
	}

	leaveLine(): void {
		const next = this.line.shift();
		if (next) next.resolve(true);
		else this.lineHeld = false;
	}

	/** Resolves with the next answer (or at once, when none is awaited). */
	async nextAnswer(): Promise<void> {
		if (this.inFlight > 0) await new Promise<void>((resolve) => this.answers.push(resolve));
	}

	/** Gives a slot back and learns from how the answer went; `pauseMs` pauses every request to the service. */
	release(signal: Signal, pauseMs?: number, rateLimited = false, ticket?: Sent, quota?: Quota) {
		this.inFlight = Math.max(0, this.inFlight - 1);
		const now = Date.now();
		const clock = this.now();
		this.usedAt = now;
		if (ticket) {
			ticket.outcome = signal === 'ok' ? 'ok' : rateLimited ? 'refused' : 'other';
			ticket.answered = now;
			this.plan.observe(quota, ticket.seq);
		}
		if (clock > this.ceiling.until && this.ceiling.level < Infinity) {
			// unless a push-back lowered it since, the allowance may grow again
			if (this.threshold >= this.ceiling.level) this.threshold = Infinity;
			this.ceiling.level = Infinity;
		}
		if (this.untimed > 0) {
			if (--this.untimed === 0) this.round.started = clock;
		} else if (this.limit < this.threshold) {
			// slow start: a round is one allowance's worth of answers; when it ends healthy, the allowance grows
			this.round.answers++;
			if (signal === 'pushback') this.round.healthy = false;
			if (this.round.answers >= this.allowance) {
				if (this.round.healthy && this.round.full) this.grow();
				this.round = newRound(clock, this.waiting.length > 0);
			}
		} else if (signal === 'ok' && (this.limit + 1 < this.hold.level || clock > this.hold.until)) {
			this.limit = Math.min(this.ceiling.level, Budget.MOST, this.limit + 1 / this.limit);
			this.cutAt = undefined;
		}
		// once the requests are paced, a 429 is the pace's business (a rate), not a sign of too many in flight
		if (signal === 'pushback' && !(rateLimited && (this.pace.active || this.plan.known))) {
			const level = ticket?.level ?? this.limit;
			// refused again at the allowance a push-back set, before it grew: the service counts fewer of ours in
			// flight than we do (answers on their way back), so one under is not enough
			const again =
				ticket && this.cutAt !== undefined && ticket.sent > this.cutAt && level >= this.limit;
			const cut = Math.max(1, again ? level / 2 : level - 1);
			if (cut < this.limit) this.cutAt = now;
			this.threshold = this.limit = Math.min(this.limit, cut);
			// it holds under the refused level, or when halved, under the one above the new allowance
			const under = again ? Math.ceil(cut) + 1 : level;
			const held = clock > this.hold.until ? under : Math.min(under, this.hold.level);
			this.hold = { level: held, until: clock + HOLD_MS };
		}
		const first = now >= this.pausedUntil; // the first answer of a wave of push-backs
		if (pauseMs !== undefined && pauseMs > 0 && now + pauseMs > this.pausedUntil)
			this.pausedUntil = now + pauseMs;
		if (rateLimited && first && ticket && !this.plan.known)
			this.pace.refused(ticket, now, this.pausedUntil);
		for (const answered of this.answers.splice(0)) answered();
		this.wake();
	}

	/**
	 * The end of a healthy slow-start round in which requests waited for a slot: the allowance grows; from `KEPT` on
	 * only if the step brought answers faster than the round before it (up to `KEPT`: the round at `START`), else it
	 * is taken back, not below `KEPT`, and tried again later. Four answers cannot tell a service next door from a
	 * distant one whose latency varies, and holding that one back costs far more than a larger first wave.
	 */
	private grow(): void {
		const ms = this.now() - this.round.started;
		const speed = this.round.answers / Math.max(ms, 0.01);
		const last = this.lastStep ?? { limit: this.limit, speed };
		const step = this.limit / last.limit;
		const paid = step <= 1 || speed >= last.speed * (1 + Budget.PAYOFF * (step - 1));
		if (this.limit >= Budget.KEPT && !paid) {
			this.limit = Math.max(last.limit, Budget.KEPT);
			this.threshold = this.limit;
			this.ceiling = { level: this.limit, until: this.now() + REPROBE_MS };
			return;
		}
		if (this.limit >= Budget.KEPT || step <= 1) this.lastStep = { limit: this.limit, speed };
		const factor =
			this.limit < Budget.KEPT ? 2 ** Math.min(1, ms / Budget.ROUND_MS) : Budget.GROWTH;
		this.limit = Math.min(
			this.ceiling.level,
			this.limit < Budget.KEPT ? Budget.KEPT : Infinity,
			this.limit * factor,
			Budget.MOST,
		);
		this.cutAt = undefined;
	}
}

/** A slow-start round: its answers so far, when it started, whether requests waited. */
function newRound(started: number, full: boolean) {
	return { answers: 0, healthy: true, started, full };
}

/** One node run's side of a budget: its own Concurrency cap, requests in flight and waiting, and Stop. */
export interface Run {
	readonly max: number;
	inFlight: number;
	/** Requests waiting for a slot: called with the number in flight with it, 0 when the run stopped */
	readonly queue: Array<(level: number) => void>;
}

interface Waiter {
	run: Run;
	resolve: (entered: boolean) => void;
}

const budgets = new Map<string, Budget>();

/**
 * The budget of a service in this process. Unused budgets are forgotten when one is asked for (no timer), and the
 * least recently used goes when there are too many.
 */
export function budgetFor(key: string): Budget {
	const now = Date.now();
	for (const [k, b] of budgets) if (b.inFlight === 0 && now - b.usedAt > IDLE_MS) budgets.delete(k);
	const budget = budgets.get(key) ?? new Budget();
	budgets.delete(key);
	budget.usedAt = now;
	budgets.set(key, budget);
	if (budgets.size > MAX_BUDGETS) budgets.delete(budgets.keys().next().value!);
	return budget;
}

/** Forgets every budget, as a new process would start. */
export function forgetBudgets(): void {
	budgets.clear();
}
