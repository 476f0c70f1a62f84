import { wait } from './attempt';
import type { Quota, Stop, Verdict } from './types';

/** A reset rounded up to a second costs a second a window: one resetting sooner is asked if it refills as it goes */
const PROBE_WITHIN_MS = 5000;

type Answer = { seq: number; sent: number; now: number };
type Told = { left: number; seq: number; at: number };
/** The quota a service announces, counted forward: with none left, a request waits for the reset or the refill */
export class Quotas {
	/** The quota the last answer told, counted forward; `resetAt` undefined: a new window not told yet */
	private told?: Omit<Quota, 'resetAt'> & { resetAt?: number } & Told;
	private kind: 'unknown' | 'probing' | 'window' | 'bucket' = 'unknown';
	/** Requests per ms a token bucket gives back (0: not known), counted from the answer `base` */
	private refill = 0;
	private base?: { at: number; remaining: number; seq: number };
	private probe = 0;

	/** The answer to request `seq` of `sent` and its quota; a 429 to the probe: windows; else the refill is too high */
	answered(verdict: Verdict, quota: Quota | undefined, { seq, sent, now }: Answer): void {
		if (verdict === 'rateLimited') [this.refill, this.base] = [0, undefined];
		if (seq === this.probe && this.kind === 'probing')
			this.kind = verdict === 'rateLimited' ? 'window' : verdict === 'ok' ? 'bucket' : 'unknown';
		if (this.told && seq < this.told.seq) return;
		this.told = quota && { ...quota, left: quota.remaining - (sent - seq), seq, at: now };
		if (!quota?.limit || this.kind !== 'bucket') return;
		// each answer bounds the refill from below: since the base, one less than the requests it gave back
		this.base ??= { at: now, remaining: quota.remaining, seq };
		const given = quota.remaining - this.base.remaining + (seq - this.base.seq) - 1;
		const full =
			quota.resetAt > now ? (quota.limit - quota.remaining - 1) / (quota.resetAt - now) : 0;
		const counted = now > this.base.at ? given / (now - this.base.at) : 0;
		this.refill = Math.max(this.refill, full, counted);
	}

	/** A request goes as request `seq`. */
	take(seq: number): void {
		if (this.told) this.told.left--;
		if (this.kind === 'probing' && !this.probe) this.probe = seq;
	}

	/** How long the quota holds a request (Infinity: until an answer tells the new window; none on the way: one goes) */
	delay(now: number, onWire: number): number {
		const quota = this.told;
		if (!quota) return 0;
		if (this.refill > 0 && quota.limit) {
			quota.left = Math.min(quota.limit, quota.left + this.refill * (now - quota.at));
			quota.at = now;
		}
		if (quota.left >= 1) return 0;
		if (quota.resetAt === undefined) {
			if (onWire > 0) return Infinity;
			quota.left = 1;
			return 0;
		}
		if (now >= quota.resetAt) {
			quota.left = Math.max(1, (quota.limit ?? 1) - onWire);
			quota.resetAt = undefined;
			return 0;
		}
		const untilReset = quota.resetAt - now;
		if (this.kind === 'bucket') return Math.min(untilReset, (1 - quota.left) / this.refill);
		if (this.kind !== 'unknown' || onWire > 0 || !quota.limit || untilReset > PROBE_WITHIN_MS)
			return untilReset;
		// a bucket would have given one back by now if it were full again at the reset
		const probeIn = quota.at + (quota.resetAt - quota.at) / quota.limit - now;
		if (probeIn > 0) return probeIn;
		[this.kind, this.probe, quota.left] = ['probing', 0, 1];
		return 0;
	}
}

/** CUBIC's cut (AWS: 0.7; our plateau is what was accepted) and scale per s³: the plateau in 2 s, +2.5% a second on */
const [BETA, SCALE] = [0.8, 0.025];
/** The lowest pace (per second): a request refused ten times by a service that accepts nothing ends in seconds. */
const MIN_RATE = 2;
/** A burst: under a small bucket's bank (often half a second's rate); idle: unused past two intervals at `MIN_RATE` */
const [BURST_MS, IDLE_MS] = [250, 1000];

/**
 * The pace after a 429 from a service that announces no quota: a token bucket whose rate follows CUBIC (as the AWS
 * SDKs' adaptive mode). Requests wait in one line, each let go at the rate of its moment.
 */
export class Pace {
	/** When the next request is due at the pace (GCRA's theoretical arrival time); a burst may go before it. */
	private due: number;
	rate: number;
	private readonly line: Array<() => void> = [];
	private ticking = false;
	private ran = 0; // the curve's time before `from`, the end of its last idle spell

	/** A 429 at `refusedAt`: the curve's plateau is `refusedRate`; it starts at BETA of it `from` the pause's end. */
	constructor(
		readonly refusedAt: number,
		private readonly refusedRate: number,
		public from = refusedAt,
	) {
		this.refusedRate = Math.max(MIN_RATE, refusedRate);
		this.rate = Math.max(MIN_RATE, this.refusedRate * BETA);
		this.due = from + BURST_MS;
	}

	/** Waits in line for the request's moment at the pace; ends at Stop too, or when a new pace replaces this one. */
	async turn(stop: Stop): Promise<void> {
		await new Promise<void>((resolve) => {
			const go = () => (off(), resolve());
			const off = stop.subscribe(
				() => (this.line.splice(this.line.indexOf(go) >>> 0, 1), resolve()),
			);
			this.line.push(go);
			this.tick();
		});
	}

	/** Hands out the moments due, first in line first; the next is an interval later, at the rate of then. */
	private tick(): void {
		const now = Date.now();
		while (this.line.length && this.due - BURST_MS <= now) {
			// unused for a while: the curve stood still (CUBIC does not grow for a sender with nothing to send)
			if (this.due < now - IDLE_MS) [this.ran, this.from] = [this.ran + this.due - this.from, now];
			this.due = Math.max(this.due, now) + 1000 / this.rate;
			this.line.shift()!();
		}
		if (this.ticking || !this.line.length) return;
		this.ticking = true;
		void wait(Math.ceil(this.due - BURST_MS - now)).then(
			() => ((this.ticking = false), this.tick()),
		);
	}

	/** Replaced by a new pace: its line leaves at once. */
	end = () => this.line.splice(0).forEach((go) => go());

	/** A healthy answer: the rate follows the cubic curve from the end of the pause, idle spells left out. */
	grow(now: number): void {
		const k = Math.cbrt((1 - BETA) / SCALE);
		const t = (this.ran + Math.max(0, now - this.from)) / 1000;
		this.rate = Math.max(MIN_RATE, this.refusedRate * (1 + SCALE * (t - k) ** 3));
	}
}
