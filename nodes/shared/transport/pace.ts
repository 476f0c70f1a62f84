/**
 * The pace of a service that refused with a 429 and announces no quota: a client-side token bucket whose rate follows
 * CUBIC, as the AWS SDKs' adaptive retry mode paces. A 429 sets the curve's plateau and cuts the rate to `BETA` of it;
 * healthy answers then bring it back along a cubic curve that flattens at the plateau and then probes past it.
 */

/** CUBIC's cut (the AWS SDKs' is 0.7): the plateau is what the service accepted, not what was sent, so less will do */
const BETA = 0.8;
/**
 * CUBIC's scale, as a share of the plateau per s³ (the AWS SDKs use 0.4 requests/s³; a share finds a service of 100/s
 * as quickly as one of 10): past the plateau the pace probes 5% higher after a second, 40% after two.
 */
const SCALE = 0.05;
/** The lowest pace (per second): a request refused ten times by a service that accepts nothing ends in seconds. */
const MIN_RATE = 2;
/** The bucket holds this many seconds of the pace: more at once would be refused by a small bucket. */
const BURST_SECONDS = 0.5;

export class Pace {
	private tokens = 0;
	private filledAt: number;
	rate: number;

	/** A 429 at `now`: the curve's plateau is `refusedRate`, and the pace starts at BETA of it. */
	constructor(
		readonly refusedAt: number,
		private readonly refusedRate: number,
	) {
		this.refusedRate = Math.max(MIN_RATE, refusedRate);
		this.rate = Math.max(MIN_RATE, this.refusedRate * BETA);
		this.filledAt = refusedAt;
	}

	/** Takes a token, in debt when none is left (requests line up for their moments); how long until this one's. */
	reserve(now: number): number {
		const capacity = Math.max(1, this.rate * BURST_SECONDS);
		this.tokens = Math.min(capacity, this.tokens + ((now - this.filledAt) * this.rate) / 1000) - 1;
		this.filledAt = now;
		return this.tokens >= 0 ? 0 : (-this.tokens * 1000) / this.rate;
	}

	/** A healthy answer: the rate follows the cubic curve from the last 429. */
	grow(now: number): void {
		const k = Math.cbrt((1 - BETA) / SCALE);
		const t = (now - this.refusedAt) / 1000;
		this.rate = Math.max(MIN_RATE, this.refusedRate * (1 + SCALE * (t - k) ** 3));
	}
}
