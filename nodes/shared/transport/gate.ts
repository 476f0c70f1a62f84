import { Pace, type Ticket } from './pace';
import { type Stopper, stopperOf } from './stop';
import { wait } from './timing';

/** How an answer went, as far as the service's capacity is concerned. */
export type Signal = 'ok' | 'pushback' | 'neutral';

export type Turn = { ok: true; ticket: Ticket } | { ok: false; pauseMs: number };

/**
 * One gate per service and node run: every request to the service passes it, so that all items and pages of the
 * run share one budget.
 *
 * - **Adaptive concurrency** (as TCP does it): starts at `START` requests in flight and grows fourfold per round
 *   (one allowance's worth of answers) while every answer of the round is healthy (slow start), then by one per
 *   round trip once a push-back (503, 504, a timeout, and a 429 before the requests are paced) has halved it.
 *   It never passes `max` (the node's Concurrency option; 1 = one request at a time).
 * - **Only as many in flight as pay off**: a growth step must bring answers faster (a service far away answers
 *   about fourfold faster with four times as many requests in flight). When it does not, the distance is not
 *   what limits the run (the service's or this machine's work is): the allowance goes back to the step before and
 *   stays at most there, since more requests in flight would only cost memory and CPU.
 * - **One pause for everybody**: a Retry-After (or the backoff after a 429) pauses every request of the run.
 * - **Learned pace**: after a 429 the gate paces requests as a token bucket learned from the service's refusals
 *   (`Pace`, in pace.ts).
 */
export class Gate {
	static readonly START = 16;
	/** Growth per healthy round in slow start */
	static readonly GROWTH = 4;
	/** The part of a growth step's possible speed-up it must bring (×4 in flight: at least ×1.75 the answers per second) */
	static readonly PAYOFF = 0.25;

	private limit: number;
	private threshold = Infinity;
	/** The allowance never grows past this: `max`, or the last step that brought answers faster */
	private ceiling: number;
	/**
	 * The answers of the current slow-start round, whether all were healthy, when it started, and whether requests
	 * waited for a slot during it (only then does its speed say what the allowance can do)
	 */
	private round: { answers: number; healthy: boolean; started: number; full: boolean };
	/** The last growth step: the allowance it left and the answers per millisecond of the round at that allowance */
	private lastStep?: { limit: number; speed: number };
	private inFlight = 0;
	private readonly queue: Array<() => void> = [];
	private pausedUntil = 0;
	private readonly pace = new Pace();
	/** The pace's waiting line: held by the request waiting for its moment, the others queue behind it */
	private lineHeld = false;
	private readonly line: Array<() => void> = [];

	private readonly cancel?: Stopper;

	constructor(
		readonly max: number,
		stop?: AbortSignal | Stopper,
		/** A clock in milliseconds, for the speed of rounds (tests give their own) */
		private readonly now: () => number = () => performance.now(),
	) {
		this.limit = Math.min(max, Gate.START);
		this.ceiling = max;
		this.round = { answers: 0, healthy: true, started: this.now(), full: false };
		this.cancel = stopperOf(stop);
		this.cancel?.subscribe(() => this.wakeAll());
	}

	/** In flight now, and the current allowance (for logs and tests). */
	get state() {
		return {
			inFlight: this.inFlight,
			limit: Math.floor(this.limit),
			rate: this.pace.rate,
			burst: this.pace.burst,
		};
	}

	/**
	 * Waits for a turn. Resolves `ok` with a slot taken (call `release` exactly once, with the ticket), or not `ok`
	 * when the shared pause would last longer than `budgetMs` (nothing taken) or the execution was stopped.
	 */
	async acquire(budgetMs: number): Promise<Turn> {
		for (;;) {
			if (this.cancel?.aborted) return { ok: false, pauseMs: 0 };
			if (this.inFlight >= Math.max(1, Math.floor(this.limit))) {
				this.round.full = true;
				await new Promise<void>((resolve) => this.queue.push(resolve));
				continue;
			}
			// the slot is ours from here; the pause and the pace are waited for holding it
			this.inFlight++;
			const refused = await this.paced(budgetMs);
			if (refused) {
				this.inFlight--;
				this.wake();
				return refused;
			}
			return { ok: true, ticket: this.pace.record(Date.now()) };
		}
	}

	/**
	 * Waits out the shared pause and our pace; a refusal when the pause is too long or the run was stopped. Requests
	 * waiting for the pace line up (first come, first served): only the first one waits for its moment, at the pace
	 * of that moment, so a pace that grows or shrinks meanwhile applies at once.
	 */
	private async paced(budgetMs: number): Promise<{ ok: false; pauseMs: number } | undefined> {
		for (;;) {
			if (this.cancel?.aborted) return { ok: false, pauseMs: 0 };
			const now = Date.now();
			if (this.pausedUntil > now) {
				const pauseMs = this.pausedUntil - now;
				if (pauseMs > budgetMs) return { ok: false, pauseMs };
				await wait(pauseMs, this.cancel);
				continue;
			}
			if (!this.pace.active) return undefined;
			await this.enterLine();
			try {
				for (;;) {
					const at = Date.now();
					if (this.cancel?.aborted || this.pausedUntil > at) break;
					const delay = this.pace.delay(at);
					if (delay <= 0) {
						this.pace.take(at);
						return undefined;
					}
					await wait(delay, this.cancel);
				}
			} finally {
				this.leaveLine();
			}
		}
	}

	private async enterLine(): Promise<void> {
		if (!this.lineHeld) {
			this.lineHeld = true;
			return;
		}
		await new Promise<void>((resolve) => this.line.push(resolve)); // handed over by leaveLine
	}

	private leaveLine(): void {
		const next = this.line.shift();
		if (next) next();
		else this.lineHeld = false;
	}

	/** Gives the slot back and learns from how the answer went; `pauseMs` pauses every request of the run. */
	release(signal: Signal, pauseMs?: number, rateLimited = false, ticket?: Ticket): void {
		this.inFlight = Math.max(0, this.inFlight - 1);
		const now = Date.now();
		if (ticket) ticket.outcome = signal === 'ok' ? 'ok' : rateLimited ? 'refused' : 'other';
		if (this.limit < this.threshold) {
			// slow start: a round is one allowance's worth of answers; when it ends healthy, the allowance grows
			// fourfold (answers that arrive together, such as a 429 among successes, are all seen before it grows)
			this.round.answers++;
			if (signal === 'pushback') this.round.healthy = false;
			if (this.round.answers >= Math.floor(this.limit)) {
				if (this.round.healthy && this.round.full) this.grow();
				this.round = {
					answers: 0,
					healthy: true,
					started: this.now(),
					full: this.queue.length > 0,
				};
			}
		} else if (signal === 'ok') this.limit = Math.min(this.ceiling, this.limit + 1 / this.limit);
		if (signal === 'pushback') {
			// one push-back per round trip: answers already under way when the first arrived do not halve it again;
			// once the requests are paced, a 429 is the pace's business (a rate), not a sign of too many in flight
			if (now >= this.pausedUntil && !(rateLimited && this.pace.active)) {
				this.threshold = Math.max(1, this.limit / 2);
				this.limit = this.threshold;
			}
		}
		const first = now >= this.pausedUntil; // the first answer of a wave of push-backs
		if (pauseMs !== undefined && pauseMs > 0 && now + pauseMs > this.pausedUntil)
			this.pausedUntil = now + pauseMs;
		if (rateLimited && first && ticket) this.pace.refused(ticket, now, this.pausedUntil);
		this.wake();
	}

	/**
	 * The end of a healthy slow-start round in which requests waited for a slot. The last growth step is judged
	 * first: when this round, at the grown allowance, brought answers hardly faster than the round before it, the
	 * step is taken back for good. Otherwise the allowance grows fourfold (up to the ceiling).
	 */
	private grow(): void {
		const speed = this.round.answers / Math.max(this.now() - this.round.started, 0.01);
		const last = this.lastStep;
		const step = last ? this.limit / last.limit : 1;
		if (last && step > 1 && speed < last.speed * (1 + Gate.PAYOFF * (step - 1))) {
			this.ceiling = last.limit;
			this.limit = last.limit;
			this.threshold = last.limit;
			return;
		}
		this.lastStep = { limit: this.limit, speed };
		if (this.limit < this.ceiling) this.limit = Math.min(this.ceiling, this.limit * Gate.GROWTH);
	}

	private wake(): void {
		let free = Math.max(1, Math.floor(this.limit)) - this.inFlight;
		while (free-- > 0 && this.queue.length) this.queue.shift()!();
	}

	private wakeAll(): void {
		while (this.queue.length) this.queue.shift()!();
	}
}
