/** CUBIC's cut (the AWS SDKs' is 0.7): the plateau is what the service accepted, not what was sent, so less will do */
const BETA = 0.8;
/** CUBIC's scale, a share of the plateau per s³ (100/s is found as fast as 10/s): 1 s past it +5%, 2 s +40% */
const SCALE = 0.05;
/** The lowest pace (per second): a request refused ten times by a service that accepts nothing ends in seconds. */
const MIN_RATE = 2;
/** Up to this many seconds of the pace may go at once: more would be refused by a small bucket. */
const BURST_MS = 500;

/**
 * The pace of a service that refused with a 429 and announces no quota: a token bucket whose rate follows CUBIC (as
 * the AWS SDKs' adaptive mode): cut to `BETA` of the plateau a 429 sets, back along a cubic curve, then probing past.
 */
export class Pace {
	/** When the next request is due at the pace (GCRA's theoretical arrival time); a burst may go before it. */
	private due: number;
	rate: number;

	/** A 429 at `refusedAt`: the curve's plateau is `refusedRate`; it starts at BETA of it `from` the pause's end. */
	constructor(
		readonly refusedAt: number,
		private readonly refusedRate: number,
		readonly from = refusedAt,
	) {
		this.refusedRate = Math.max(MIN_RATE, refusedRate);
		this.rate = Math.max(MIN_RATE, this.refusedRate * BETA);
		this.due = from + BURST_MS;
	}

	/** Books the next moment at the pace (later bookings never go before it) and returns it. */
	book(now: number): number {
		const at = Math.max(now, this.due - BURST_MS);
		this.due = Math.max(this.due, now) + 1000 / this.rate;
		return at;
	}

	/** A healthy answer: the rate follows the cubic curve from the end of the pause. */
	grow(now: number): void {
		const k = Math.cbrt((1 - BETA) / SCALE);
		const t = Math.max(0, now - this.from) / 1000;
		this.rate = Math.max(MIN_RATE, this.refusedRate * (1 + SCALE * (t - k) ** 3));
	}
}
