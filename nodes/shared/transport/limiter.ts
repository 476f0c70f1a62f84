import { Pace } from './pace';
import { Quotas } from './quota';
import type { Stopper } from './stop';
import { type Quota, wait } from './timing';
import type { Run, Ticket, Turn, Verdict } from './types';

/**
 * When a request to a service may go. One limiter per service (origin and credential) in the n8n process, shared by
 * every run that calls it, so a run starts where the last left off. A request meets, in order:
 *
 * 1. its run's own Concurrency cap and Stop, and **fair turns**: free slots go to the waiting runs one after another;
 * 2. the **in-flight allowance**: `START` at first, doubled per round of healthy answers while requests wait (TCP's
 *    slow start); a 503, 504 or timeout sets it one under the level the refused request went at (halved when that
 *    level was already the one a refusal set) and holds it there for `HOLD_MS`, after which it grows by one per round;
 * 3. the **shared pause** a 429 or a `Retry-After` asks for, capped at `MAX_WAIT_MS`;
 * 4. the **quota** the service announces in its headers (quota.ts): while none is left, requests wait for the reset,
 *    or for the refill of a token bucket;
 * 5. without quota headers, once the service refused with a 429, the **pace** (pace.ts): a token bucket whose rate
 *    follows CUBIC.
 */

/** A service refusal waited for, or a quota reset announced, is honoured for at most this long per request. */
export const MAX_WAIT_MS = 120_000;
/** The first wave: what any service takes at once. */
export const START = 4;
/** The most in flight to one service from the process: one run's Concurrency cap, so memory stays bounded. */
const MOST = 256;
/**
 * The allowance grows only while a round's answers take at most this many times as long as the fastest round's: more
 * in flight then is queueing somewhere (next door, in n8n's own work per request), not more answers, and a limit
 * met there refuses as many as are waiting in that queue.
 */
const QUEUEING = 2;
/** The fastest round is forgotten by this factor per round, so a service that became slower is learned anew. */
const DRIFT = 1.05;
/** After a refusal for too many in flight, the allowance stays under the refused level this long. */
const HOLD_MS = 10_000;
/**
 * A 429 sets the pace's plateau at what the service accepted over the last this long, counted from the first of
 * those answers (a pause that ended in the window counts: it held back what the service would have accepted), but
 * over at least `MIN_SPAN_MS`: a burst counted over less would pass for a rate.
 */
const RATE_WINDOW_MS = 1000;
const MIN_SPAN_MS = 500;
/** A limiter nobody used for this long is forgotten; at most this many are kept. */
const IDLE_MS = 15 * 60_000;
const MAX_LIMITERS = 256;

export type { Run, Ticket, Turn, Verdict } from './types';

export class Limiter {
	allowance = START;
	inFlight = 0;
	pausedUntil = 0;
	usedAt = Date.now();
	/** Slow start ends at the first refusal for too many in flight */
	private slowStart = true;
	private round = newRound();
	/** The mean time to an answer in the fastest round lately */
	private fastest = Infinity;
	private hold = { level: Infinity, until: 0, cutAt: 0 };
	private readonly quota = new Quotas();
	private announces = false;
	/** Requests sent and not answered yet, and those waiting for the next answer */
	private onWire = 0;
	private answers: Array<() => void> = [];
	private pace?: Pace;
	private sent = 0;
	/** When recent answers were accepted, for the pace's plateau */
	private readonly accepted: number[] = [];
	private readonly waiting: Run[] = [];

	/**
	 * A slot (give it back with `release`, once) at the moment the pause, the quota and the pace allow; not `ok` at Stop,
	 * or when the pause outlasts `budgetMs` or the quota's reset `announcedMs` (nothing is then taken).
	 */
	async acquire(run: Run, budgetMs: number, announcedMs: number): Promise<Turn> {
		const stopped: Turn = { ok: false, why: 'stopped', waitMs: 0 };
		if (run.stop.aborted) return stopped;
		const granted =
			this.take(run) ||
			(await new Promise<boolean>((resolve) => {
				run.queue.push(resolve);
				if (!this.waiting.includes(run)) this.waiting.push(run);
				this.round.full = true;
				// another run may be waiting only for its own Concurrency: free slots go to this one
				this.wake();
			}));
		if (!granted) return stopped;
		let announced = 0;
		let slot: { at: number; pace: Pace } | undefined;
		for (;;) {
			if (run.stop.aborted) return this.giveBack(run, stopped);
			const now = Date.now();
			const paused = this.pausedUntil - now;
			const quota = this.quota.delay(now, this.onWire);
			if (paused > budgetMs)
				return this.giveBack(run, { ok: false, why: 'paused', waitMs: paused });
			if (quota === Infinity && paused <= 0) {
				await this.nextAnswer(run.stop);
				continue;
			}
			if (paused <= 0 && quota > 0 && announced + quota > announcedMs)
				return this.giveBack(run, { ok: false, why: 'quota', waitMs: quota });
			if (paused > 0 || quota > 0) {
				if (paused <= 0) announced += quota;
				await wait(Math.min(Math.max(paused, quota), MAX_WAIT_MS), run.stop);
				continue;
			}
			if (this.pace && slot?.pace !== this.pace)
				slot = { at: this.pace.book(now), pace: this.pace };
			if (!slot || slot.at <= now) break;
			await wait(slot.at - now, run.stop);
		}
		const ticket = { sentAt: Date.now(), level: ++this.onWire, seq: ++this.sent };
		this.quota.take(ticket.seq);
		return { ok: true, ticket, announcedMs: announced };
	}

	/** Gives the slot back and learns from the answer; `pauseMs` pauses every request to the service. */
	release(run: Run, ticket: Ticket, verdict: Verdict, pauseMs = 0, quota?: Quota): void {
		const now = Date.now();
		run.inFlight = Math.max(0, run.inFlight - 1);
		this.inFlight = Math.max(0, this.inFlight - 1);
		this.onWire = Math.max(0, this.onWire - 1);
		this.usedAt = now;
		this.quota.answered(verdict, quota, { seq: ticket.seq, sent: this.sent, now });
		this.announces = !!quota;
		if (verdict === 'ok') this.accepted.push(now);
		if (this.accepted.length > MOST * 4) this.accepted.splice(0, MOST * 2);
		if (pauseMs > 0)
			this.pausedUntil = Math.max(this.pausedUntil, now + Math.min(pauseMs, MAX_WAIT_MS));
		if (verdict === 'rateLimited' && !this.announces) this.refused(ticket, now);
		if (verdict === 'overloaded') this.cut(ticket, now);
		if (verdict === 'ok') this.grow(ticket, now);
		for (const answered of this.answers.splice(0)) answered();
		this.wake();
	}

	/** Resolves at the next answer, or at Stop. */
	private async nextAnswer(stop: Stopper): Promise<void> {
		await new Promise<void>((resolve) => {
			const off = stop.subscribe(resolve);
			this.answers.push(() => (off(), resolve()));
		});
	}

	/** A run stopped: its waiting requests leave the line at once. */
	leave(run: Run): void {
		for (const resolve of run.queue.splice(0)) resolve(false);
		const at = this.waiting.indexOf(run);
		if (at >= 0) this.waiting.splice(at, 1);
		this.wake();
	}

	/** For logs and tests: the allowance, and the pace once there is one. */
	get state() {
		return { inFlight: this.inFlight, allowance: this.allowance, rate: this.pace?.rate };
	}

	private room(run: Run): boolean {
		return run.inFlight < run.max && this.inFlight < this.allowance;
	}

	/** A slot for `run` when there is room and no run waits before it. */
	private take(run: Run): boolean {
		if (this.waiting.length || !this.room(run)) return false;
		run.inFlight++;
		this.inFlight++;
		return true;
	}

	private giveBack(run: Run, turn: Turn): Turn {
		run.inFlight = Math.max(0, run.inFlight - 1);
		this.inFlight = Math.max(0, this.inFlight - 1);
		this.wake();
		return turn;
	}

	/** Hands free slots to waiting requests, one run after another. */
	private wake(): void {
		let skipped = 0;
		while (this.inFlight < this.allowance && skipped < this.waiting.length) {
			const run = this.waiting.shift()!;
			if (run.queue.length && this.room(run)) {
				run.inFlight++;
				this.inFlight++;
				run.queue.shift()!(true);
				skipped = 0;
			} else skipped++;
			if (run.queue.length) this.waiting.push(run);
		}
	}

	/**
	 * A 429 without quota headers, the first of its wave: the pace's plateau is the rate the service accepted lately
	 * (never above the pace it refused), and the pace starts below it.
	 */
	private refused(ticket: Ticket, now: number): void {
		if (this.pace && ticket.sentAt <= this.pace.refusedAt) return;
		const recent = this.accepted.filter((at) => at > now - RATE_WINDOW_MS);
		const since =
			this.pace && this.pace.from > now - RATE_WINDOW_MS ? now - RATE_WINDOW_MS : recent[0];
		const accepted = (recent.length * 1000) / Math.max(MIN_SPAN_MS, now - (since ?? now));
		const rate = this.pace ? Math.min(this.pace.rate, accepted) : accepted;
		this.pace = new Pace(now, rate, Math.max(now, this.pausedUntil));
	}

	/** A refusal for too many in flight: one under the refused level, halved if refused again at it; then held. */
	private cut(ticket: Ticket, now: number): void {
		// refusals of one wave come back in any order: the lowest level refused sets the allowance
		if (ticket.sentAt <= this.hold.cutAt) {
			if (ticket.level < this.hold.level)
				[this.allowance, this.hold.level] = [Math.max(1, ticket.level - 1), ticket.level];
			return;
		}
		// refused below the level the last refusal allowed: the service counts fewer of ours in flight than we do
		const again = this.hold.cutAt > 0 && ticket.level < this.hold.level;
		this.allowance = Math.max(1, again ? Math.floor(ticket.level / 2) : ticket.level - 1);
		this.hold = { level: this.allowance + 1, until: now + HOLD_MS, cutAt: now };
		this.slowStart = false;
		this.round = newRound();
	}

	/**
	 * A healthy answer: the pace follows its cubic curve; at the end of a round (an allowance's worth of answers) in
	 * which requests waited, the allowance grows unless the answers came slower than queueing allows.
	 */
	private grow(ticket: Ticket, now: number): void {
		this.pace?.grow(now);
		this.round.took += now - ticket.sentAt;
		if (++this.round.answers < this.allowance) return;
		const { full, took, answers } = this.round;
		this.round = newRound();
		const mean = took / answers;
		this.fastest = Math.min(this.fastest * DRIFT, mean);
		if (!(full || this.waiting.length > 0) || mean > QUEUEING * this.fastest) return;
		if (this.slowStart) this.allowance = Math.min(MOST, this.allowance * 2);
		else if (now > this.hold.until || this.allowance + 1 < this.hold.level)
			this.allowance = Math.min(MOST, this.allowance + 1);
	}
}

const newRound = () => ({ answers: 0, full: false, took: 0 });

const limiters = new Map<string, Limiter>();

/** The limiter of a service in this process; unused ones are forgotten (no timer), the least recently used first. */
export function limiterFor(key: string): Limiter {
	const now = Date.now();
	for (const [k, l] of limiters)
		if (l.inFlight === 0 && now - l.usedAt > IDLE_MS) limiters.delete(k);
	const limiter = limiters.get(key) ?? new Limiter();
	limiters.delete(key);
	limiter.usedAt = now;
	limiters.set(key, limiter);
	if (limiters.size > MAX_LIMITERS) limiters.delete(limiters.keys().next().value!);
	return limiter;
}

/** Forgets every limiter, as a new n8n process would start. */
export function forgetLimiters(): void {
	limiters.clear();
}
