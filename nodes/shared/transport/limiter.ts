import { wait } from './attempt';
import { Pace, Quotas } from './quota';
import type { Quota, Run, Ticket, Turn, Verdict } from './types';

/**
 * When a request to a service may go. One limiter per service (origin, and credential when it gets the key) in the
 * n8n process, shared by every run that calls it. A request meets, in order:
 * 1. its run's Concurrency and Stop, with **fair turns**: free slots go to the waiting runs one after another;
 * 2. the **in-flight allowance**: ramped up while the process waits idle for the first answer, grown per round of
 *    healthy answers that kept it waiting (`grow`), set under the level a 503, 504 or timeout refused (`cut`);
 * 3. the **shared pause** a 429 or a `Retry-After` asks for, capped at `MAX_WAIT_MS`;
 * 4. the **quota** its headers announce (quota.ts), or the requests a minute its style states;
 * 5. without quota headers, after a 429, the **pace** (quota.ts).
 */

/** A service refusal waited for, or a quota reset announced, is honoured for at most this long per request. */
export const MAX_WAIT_MS = 120_000;
/** At least this many after the first answer: two clients that meet a small burst at once both get a share of it */
export const START = 4;
/** The most in flight to one service from the process: one run's Concurrency cap, so memory stays bounded. */
const MOST = 512;
/** The ramp (2.): a near service's answer, and a quota it announces, come first; a distant one has hundreds on the way */
const [RAMP_AFTER_MS, RAMP_MS] = [10, 2];
/** The allowance doubles per this long a round's answers kept the process idle; next door, one more per round. */
const DOUBLING_MS = 10;
/** Answers over QUEUEING times the fastest round's are queueing: no growth; the fastest drifts by DRIFT per round */
const [QUEUEING, DRIFT] = [2, 1.05];
/** After a refusal for too many in flight, the allowance stays under the refused level this long. */
const HOLD_MS = 10_000;
/** A 429's plateau: accepted since the pace's pause (≥ MIN_SPAN_MS); first: the last 2 s, + a bank's ½ s (often) */
const [RATE_WINDOW_MS, MIN_SPAN_MS] = [2000, 500];

export class Limiter {
	/** Every service's limiter in this process, by key (the client picks one per service) */
	static readonly all = new Map<string, Limiter>();
	allowance = 1;
	private answered = false;
	private ramping = false;
	inFlight = 0;
	pausedUntil = 0;
	usedAt = Date.now();
	private round = newRound();
	private fastest = Infinity; // the mean time to an answer in the fastest round lately
	private hold = { level: Infinity, until: 0, cutAt: 0 };
	private readonly quota = new Quotas();
	/** Requests sent and not answered yet, and those waiting for the next answer; requests sent in all */
	private onWire = 0;
	private answers: Array<() => void> = [];
	private sent = 0;
	pace?: Pace;
	private readonly accepted: number[] = []; // when recently accepted requests were sent (the pace's plateau)
	private readonly waiting: Run[] = [];
	private readonly minute: number[] = []; // the times of the last `perMinute` requests, oldest first

	constructor(private readonly perMinute = 0) {} // the requests a minute the service states (0: none)

	/** A slot (`release` it once) when pause, quota and pace allow; none at Stop, or past `budgetMs`/`announcedMs` */
	async acquire(run: Run, budgetMs: number, announcedMs: number): Promise<Turn> {
		const stopped: Turn = { ok: false, why: 'stopped', waitMs: 0 };
		if (run.stop.aborted) return stopped;
		const granted =
			(!this.waiting.length && this.room(run) && this.seat(run, 1)) ||
			(await new Promise<boolean>((resolve) => {
				run.queue.push(resolve);
				if (!this.waiting.includes(run)) this.waiting.push(run);
				this.round.full = true;
				// another run may be waiting only for its own Concurrency: free slots go to this one
				this.wake();
				this.ramp();
			}));
		if (!granted) return stopped;
		let announced = 0;
		let paced: Pace | undefined;
		for (;;) {
			if (run.stop.aborted) return this.giveBack(run, stopped);
			const now = Date.now();
			const paused = this.pausedUntil - now;
			const full = this.perMinute && this.minute.length >= this.perMinute;
			const stated = full ? this.minute[0] + 60_000 - now : 0;
			const quota = Math.max(this.quota.delay(now, this.onWire), stated);
			if (paused > budgetMs)
				return this.giveBack(run, { ok: false, why: 'paused', waitMs: paused });
			if (quota === Infinity && paused <= 0) {
				await new Promise<void>((resolve) => {
					const off = run.stop.subscribe(resolve);
					this.answers.push(() => (off(), resolve()));
				});
				continue;
			}
			if (paused <= 0 && quota > 0 && announced + quota > announcedMs)
				return this.giveBack(run, { ok: false, why: 'quota', waitMs: quota });
			if (paused > 0 || quota > 0) {
				if (paused <= 0) announced += quota;
				await wait(Math.min(Math.max(paused, quota), MAX_WAIT_MS), run.stop);
				continue;
			}
			if (!this.pace || paced === this.pace) break;
			paced = this.pace;
			await paced.turn(run.stop);
		}
		const ticket = { sentAt: Date.now(), level: ++this.onWire, seq: ++this.sent };
		if (this.minute.push(ticket.sentAt) > this.perMinute) this.minute.shift();
		this.quota.take(ticket.seq);
		return { ok: true, ticket, announcedMs: announced };
	}

	/** Gives the slot back and learns from the answer; true: it refused a request sent past the cap it shows. */
	release(run: Run, ticket: Ticket, heard: Heard): boolean {
		const now = Date.now();
		const verdict = verdictOf(heard);
		const ramped = this.limit(); // the first answer ends the ramp: a healthy one grows from what it reached
		this.answered = true;
		this.seat(run, -1);
		this.onWire = Math.max(0, this.onWire - 1);
		this.usedAt = now;
		this.quota.answered(verdict, heard.quota, { seq: ticket.seq, sent: this.sent, now });
		if (heard.pauseMs)
			this.pausedUntil = Math.max(this.pausedUntil, now + Math.min(heard.pauseMs, MAX_WAIT_MS));
		if (verdict === 'rateLimited' && !heard.quota) this.refused(ticket, now);
		const overshot = verdict === 'overloaded' && this.cut(ticket, now);
		if (verdict === 'ok') this.grow(ticket, now, ramped);
		for (const answered of this.answers.splice(0)) answered();
		this.wake();
		return overshot;
	}

	/** A run stopped: its waiting requests leave the line at once. */
	leave(run: Run): void {
		for (const resolve of run.queue.splice(0)) resolve(false);
		this.waiting.splice(this.waiting.indexOf(run) >>> 0, 1);
		this.wake();
	}

	private room = (run: Run) => run.inFlight < run.max && this.inFlight < this.limit();

	/** The allowance, or before the first answer what the ramp has reached */
	private limit(): number {
		const ramp = Math.floor(2 ** ((this.idle() - RAMP_AFTER_MS) / RAMP_MS));
		return Math.min(MOST, Math.max(this.allowance, ramp));
	}

	/** How long the process waited idle since the first request (the first round's start), until the first answer */
	private idle(): number {
		const { at, loop: from } = this.round;
		if (!this.sent || this.answered || !from) return 0;
		return Math.min(Date.now() - at, clock.eventLoopUtilization!(from).idle);
	}

	/** Before the first answer, lets in what the ramp allows, and wakes again when it allows one more. */
	private ramp(): void {
		if (this.answered || this.ramping) return;
		this.wake();
		const held = this.waiting.some((run) => run.queue.length && run.inFlight < run.max);
		if (!held || this.inFlight >= MOST) return;
		this.ramping = true;
		const due = RAMP_AFTER_MS + RAMP_MS * Math.log2(this.inFlight + 1) - this.idle();
		void wait(Math.max(1, due)).then(() => {
			this.ramping = false;
			this.ramp();
		});
	}

	/** Takes (1) or gives back (-1) a slot of `run`. */
	private seat(run: Run, by: 1 | -1): true {
		run.inFlight = Math.max(0, run.inFlight + by);
		this.inFlight = Math.max(0, this.inFlight + by);
		return true;
	}

	private giveBack(run: Run, turn: Turn): Turn {
		this.seat(run, -1);
		this.wake();
		return turn;
	}

	/** Hands free slots to waiting requests, one run after another. */
	private wake(): void {
		let skipped = 0;
		while (this.inFlight < this.limit() && skipped < this.waiting.length) {
			const run = this.waiting.shift()!;
			if (run.queue.length && this.room(run) && this.seat(run, 1)) {
				run.queue.shift()!(true);
				skipped = 0;
			} else skipped++;
			if (run.queue.length) this.waiting.push(run);
		}
	}

	/** A wave's first 429, no quota headers: a new pace (2 s back: a bank drained slowly meets its 429 late) */
	private refused(ticket: Ticket, now: number): void {
		if (this.pace && ticket.sentAt <= this.pace.refusedAt) return;
		const recent = this.accepted.filter((at) => at >= (this.pace?.from ?? now - RATE_WINDOW_MS));
		const span = this.pace
			? Math.max(MIN_SPAN_MS, now - this.pace.from)
			: Math.max(0, ticket.sentAt - Math.min(...recent)) + MIN_SPAN_MS;
		const rate = Math.min(this.pace?.rate ?? Infinity, (recent.length * 1000) / span);
		this.pace?.end();
		this.pace = new Pace(now, rate, Math.max(now, this.pausedUntil));
	}

	/** Refused for too many in flight: one under its level, halved if under the last cut; true: we sent too many */
	private cut(ticket: Ticket, now: number): boolean {
		// refusals of one wave come back in any order: the lowest level refused sets the allowance
		if (ticket.sentAt <= this.hold.cutAt) {
			if (ticket.level < this.hold.level)
				[this.allowance, this.hold.level] = [Math.max(1, ticket.level - 1), ticket.level];
			return true;
		}
		// refused below the level the last refusal allowed: the service counts fewer of ours in flight than we do
		const again = this.hold.cutAt > 0 && ticket.level < this.hold.level;
		this.allowance = Math.max(1, again ? Math.floor(ticket.level / 2) : ticket.level - 1);
		this.hold = { level: this.allowance + 1, until: now + HOLD_MS, cutAt: now };
		this.round = newRound();
		return !again && ticket.level > 1;
	}

	/** A healthy answer: the pace grows; a round (an allowance of answers) in which requests waited grows the allowance */
	private grow(ticket: Ticket, now: number, ramped: number): void {
		this.pace?.grow(now);
		if (this.accepted.push(ticket.sentAt) > MOST * 4) this.accepted.splice(0, MOST * 2);
		const took = now - ticket.sentAt;
		this.round.took += took;
		this.round.quickest = Math.min(this.round.quickest, took);
		if (++this.round.answers < this.allowance) return;
		const { full, answers, quickest, loop: before } = this.round;
		const mean = this.round.took / answers;
		this.round = newRound();
		// a lone request's answer says how far the service is, not what queueing costs
		if (answers > 1) this.fastest = Math.min(this.fastest * DRIFT, mean);
		if (!(full || this.waiting.length > 0) || mean > QUEUEING * this.fastest) return;
		// after a refusal for too many in flight: one more per round, past the refused level once the hold is over
		if (this.hold.cutAt) {
			if (now > this.hold.until || this.allowance + 1 < this.hold.level)
				this.allowance = Math.min(MOST, this.allowance + 1);
			return;
		}
		// the time the service kept the round waiting: the quickest answer, less what n8n's own work took of it
		const waited = Math.min(quickest, before ? clock.eventLoopUtilization!(before).idle : 0);
		const grown = Math.ceil(Math.max(this.allowance, ramped) * 2 ** (waited / DOUBLING_MS));
		this.allowance = Math.min(MOST, Math.max(START, this.allowance + 1, grown));
	}
}

/** How busy the process has been, where Node.js tells it */
type Loop = { idle: number; active: number; utilization: number };
const clock = performance as unknown as { eventLoopUtilization?: (since?: Loop) => Loop };
const newRound = () => ({ answers: 0, full: false, took: 0, quickest: Infinity, ...started() });
const started = () => ({ at: Date.now(), loop: clock.eventLoopUtilization?.() });

/** What an answer said: status (0: none came), the pause it asks of every request, the quota announced. */
export type Heard = { status: number; timedOut?: boolean; pauseMs?: number; quota?: Quota };

function verdictOf({ status, timedOut }: Heard): Verdict {
	if (status === 429) return 'rateLimited';
	if (status === 503 || status === 504 || timedOut) return 'overloaded';
	return status > 0 && status < 400 ? 'ok' : 'neutral';
}

/** Forgets every limiter, as a new n8n process would start. */
export const forgetLimiters = (): void => Limiter.all.clear();
