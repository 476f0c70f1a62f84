/**
 * Token bucket for the servers' `rateLimit` mode: `burst` tokens at most, refilled at `perSecond`.
 * A request takes one token; without a token the server answers 429 with Retry-After.
 */

export interface RateLimit {
	/** Tokens added per second (may be fractional, e.g. 0.5 = one every 2 s). */
	perSecond: number;
	/** Bucket size: how many requests may arrive at once after a quiet period. */
	burst: number;
}

export class TokenBucket {
	private tokens: number;
	private last: number;

	constructor(
		readonly limit: RateLimit,
		private readonly now: () => number = () => performance.now(),
	) {
		if (!(limit.perSecond > 0) || !(limit.burst >= 1))
			throw new Error(`rateLimit needs perSecond > 0 and burst >= 1, got ${JSON.stringify(limit)}`);
		this.tokens = limit.burst;
		this.last = this.now();
	}

	private refill(): void {
		const t = this.now();
		this.tokens = Math.min(
			this.limit.burst,
			this.tokens + ((t - this.last) / 1000) * this.limit.perSecond,
		);
		this.last = t;
	}

	/** Take a token. Returns 0 when taken, else the whole seconds (>= 1) until the next token. */
	take(): number {
		this.refill();
		if (this.tokens >= 1) {
			this.tokens -= 1;
			return 0;
		}
		const waitMs = ((1 - this.tokens) / this.limit.perSecond) * 1000;
		return Math.max(1, Math.ceil(waitMs / 1000));
	}

	/** Tokens available now (fractional). */
	get available(): number {
		this.refill();
		return this.tokens;
	}
}
