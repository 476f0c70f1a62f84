/**
 * The pace of a service that refused with a 429 and announces no quota: a client-side token bucket whose rate follows
 * CUBIC, as the AWS SDKs' adaptive retry mode paces. A 429 cuts the rate to `BETA` of the rate it came at; healthy
 * answers then bring it back along a cubic curve that flattens at the refused rate and then probes past it.
 */

/** CUBIC's multiplicative decrease, as in the AWS SDKs' adaptive retry mode. */
const BETA = 0.7;
/**
 * CUBIC's scale, in requests/s³. The AWS SDKs use 0.4 for a client's own calls; a node's run is a crowd that must
 * get back to a service's rate within a few seconds, not a minute, so the curve here is ten times steeper.
 */
const SCALE = 4;
/** The lowest pace, in requests per second. */
const MIN_RATE = 0.5;
/**
 * The bucket holds this many seconds of the pace: after a pause, most services take half a second of their rate at
 * once; more would be refused by a small bucket.
 */
const BURST_SECONDS = 0.5;

export class Pace {
	private tokens = 0;
	private filledAt: number;
	rate: number;

	/**
	 * A 429 at `now` when sending at `refusedRate`. The first 429 of a service has no pace to cut: it starts from what
	 * the service accepted in the last second, taken as the rate after the cut.
	 */
	constructor(
		readonly refusedAt: number,
		private readonly refusedRate: number,
	) {
		this.refusedRate = Math.max(MIN_RATE, refusedRate);
		this.rate = Math.max(MIN_RATE, this.refusedRate * BETA);
		this.filledAt = refusedAt;
	}

	/** The first pace of a service, from what it accepted per second before its first 429. */
	static first(now: number, acceptedRate: number): Pace {
		return new Pace(now, acceptedRate / BETA);
	}

	/** The pace after a 429 at `now`: cut from the rate sent at. */
	cut(now: number): Pace {
		return new Pace(now, this.rate);
	}

	/**
	 * Takes a token, going into debt when the bucket is empty (requests line up for their moments instead of all
	 * waking for each token); returns how long until this request's moment.
	 */
	reserve(now: number): number {
		const capacity = Math.max(1, this.rate * BURST_SECONDS);
		this.tokens = Math.min(capacity, this.tokens + ((now - this.filledAt) * this.rate) / 1000) - 1;
		this.filledAt = now;
		return this.tokens >= 0 ? 0 : (-this.tokens * 1000) / this.rate;
	}

	/** A healthy answer: the rate follows the cubic curve from the last 429. */
	grow(now: number): void {
		const k = Math.cbrt((this.refusedRate * (1 - BETA)) / SCALE);
		const t = (now - this.refusedAt) / 1000;
		this.rate = Math.max(MIN_RATE, SCALE * (t - k) ** 3 + this.refusedRate);
	}
}
