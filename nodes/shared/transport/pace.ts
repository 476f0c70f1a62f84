import type { Stopper } from './stop';
import { wait } from './timing';

/**
 * The pace of a service that refused with a 429 and announces no quota: a client-side token bucket whose rate follows
 * CUBIC, as the AWS SDKs' adaptive retry mode paces. A 429 sets the curve's plateau and cuts the rate to `BETA` of it;
 * healthy answers then bring it back along a cubic curve that flattens at the plateau and then probes past it.
 */

/** CUBIC's cut (the AWS SDKs' is 0.7): the plateau is what the service accepted, not what was sent, so less will do */
const BETA = 0.8;
/**
 * CUBIC's scale, as a share of the plateau per s³ (the AWS SDKs use 0.4 requests/s³ for a client's own calls; a share
 * keeps a service of 100 requests/s as quick to find again as one of 10): past the plateau the pace probes 5% higher
 * after a second, 40% after two.
 */
const SCALE = 0.05;
/**
 * Refused again before the pace went this far past its plateau: the plateau was over the service's limit (a bucket's
 * tokens make a refusal come later than the rate that caused it), so the next one goes under the refused rate.
 */
const PROBED = 1.05;
/** The lowest pace (per second): a request refused ten times by a service that accepts nothing ends in seconds. */
const MIN_RATE = 2;
/** The bucket holds this many seconds of the pace: more at once would be refused by a small bucket. */
const BURST_SECONDS = 0.5;

export class Pace {
	private tokens = 0;
	/** The request whose turn is last in line has gone */
	private last: Promise<void> = Promise.resolve();
	rate: number;

	/**
	 * A 429 at `refusedAt`: the curve's plateau is `refusedRate`, and the pace starts at BETA of it, with no tokens
	 * before `filledAt` (the end of the pause the service asked for: the refused request's own wait comes first).
	 */
	constructor(
		readonly refusedAt: number,
		private readonly refusedRate: number,
		private filledAt = refusedAt,
	) {
		this.refusedRate = Math.max(MIN_RATE, refusedRate);
		this.rate = Math.max(MIN_RATE, this.refusedRate * BETA);
	}

	/**
	 * The pace after another 429, the service having accepted `accepted` per second lately. Refused before it probed
	 * past the plateau, the next plateau is lower still: CUBIC's fast convergence (RFC 8312).
	 */
	next(now: number, accepted: number, filledAt: number): Pace {
		const rate = Math.min(this.rate, accepted);
		const plateau = this.rate < this.refusedRate * PROBED ? (rate * (1 + BETA)) / 2 : rate;
		return new Pace(now, plateau, filledAt);
	}

	/**
	 * Waits for this request's token. Requests take turns, one waiting at a time at the pace of that moment, so a pace
	 * that grows is felt at once (a moment booked ahead keeps the rate it was booked at). Ends at Stop.
	 */
	async turn(stop: Stopper): Promise<void> {
		const before = this.last;
		let gone!: () => void;
		this.last = new Promise((resolve) => (gone = resolve));
		let off: () => void = () => undefined;
		try {
			const stopped = new Promise<void>((resolve) => (off = stop.subscribe(() => resolve())));
			await Promise.race([before, stopped]);
			off();
			if (!stop.aborted) await wait(this.take(Date.now()), stop);
		} finally {
			// a request that leaves the line at Stop hands its turn on once the one before it has gone
			void before.then(gone);
		}
	}

	/** Takes a token; returns how long until it is there. */
	private take(now: number): number {
		const capacity = Math.max(1, this.rate * BURST_SECONDS);
		const since = Math.max(0, now - this.filledAt);
		this.tokens = Math.min(capacity, this.tokens + (since * this.rate) / 1000) - 1;
		this.filledAt = Math.max(now, this.filledAt);
		return this.tokens >= 0 ? 0 : (-this.tokens * 1000) / this.rate;
	}

	/** A healthy answer: the rate follows the cubic curve from the last 429. */
	grow(now: number): void {
		const k = Math.cbrt((1 - BETA) / SCALE);
		const t = (now - this.refusedAt) / 1000;
		this.rate = Math.max(MIN_RATE, this.refusedRate * (1 + SCALE * (t - k) ** 3));
	}
}
