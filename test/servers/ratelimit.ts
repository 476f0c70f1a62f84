/**
 * The limiters of the servers' `rateLimit` mode, in the shapes real services use, and the quota headers they may
 * send on every answer. A refused request gets 429 with Retry-After (503 for the in-flight cap) and is not processed.
 */

/** Quota headers: the older IETF draft (`RateLimit-*`, delta seconds), GitHub/Discord (`X-RateLimit-*`, epoch
 * seconds) or the current draft (`RateLimit` and `RateLimit-Policy` structured fields). */
export type HeaderShape = 'draft6' | 'xRateLimit' | 'draft11';

export type RateLimit = (
	| /** token bucket: `burst` at once, `perSecond` after that */ {
			perSecond: number;
			burst: number;
	  }
	| /** fixed window: `fixed` per window, counted from the limiter's start */ {
			fixed: number;
			windowMs: number;
	  }
	| /** sliding log: at most `sliding` in any `windowMs` */ { sliding: number; windowMs: number }
	| /** at most `inFlight` being handled at once, 503 beyond */ { inFlight: number }
) & {
	/** A shape, or these headers as they are on every answer (to send malformed ones) */
	headers?: HeaderShape | Record<string, string>;
	/** Retry-After is the whole window, as express-rate-limit sends it (else: until a request would pass) */
	retryAfterWindow?: boolean;
	/** The limit changes `ms` after the start (a limit lowered mid-run) */
	then?: { ms: number; limit: RateLimit };
};

/** What the limiter says about one request at its arrival. */
export interface Verdict {
	/** 429 or 503 when refused */
	status?: number;
	headers: Record<string, string>;
	/** Call when the answer has gone (the in-flight cap counts it until then) */
	done(): void;
}

export class TokenBucket {
	private tokens: number;
	private last: number;

	constructor(
		readonly limit: { perSecond: number; burst: number },
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

/** The state of a limiter after counting a request: its size, what is left, ms until the reset, window length. */
interface State {
	ok: boolean;
	limit: number;
	remaining: number;
	resetMs: number;
	retryMs: number;
	windowMs: number;
}

/** A limiter of any shape; `now` in milliseconds since the epoch. */
export class Limiter {
	private readonly started: number;
	private bucket?: TokenBucket;
	private log: number[] = [];
	private inFlight = 0;

	constructor(
		readonly spec: RateLimit,
		private readonly now: () => number = () => Date.now(),
	) {
		this.started = now();
	}

	private get current(): RateLimit {
		const then = this.spec.then;
		return then && this.now() - this.started >= then.ms ? then.limit : this.spec;
	}

	admit(): Verdict {
		const spec = this.current;
		if ('inFlight' in spec) {
			if (this.inFlight >= spec.inFlight) return { status: 503, headers: {}, done: () => {} };
			this.inFlight++;
			let open = true;
			const done = () => {
				if (open) this.inFlight--;
				open = false;
			};
			return { headers: {}, done };
		}
		const state = this.count(spec);
		const headers = this.headers(spec.headers, state);
		if (!state.ok) {
			const retryMs = this.spec.retryAfterWindow ? state.windowMs : state.retryMs;
			headers['retry-after'] = String(Math.max(1, Math.ceil(retryMs / 1000)));
		}
		return { status: state.ok ? undefined : 429, headers, done: () => {} };
	}

	private count(spec: RateLimit): State {
		const now = this.now();
		if ('perSecond' in spec) {
			if (this.bucket?.limit !== spec) this.bucket = new TokenBucket(spec, () => this.now());
			const ok = this.bucket.take() === 0;
			const tokens = this.bucket.available;
			return {
				ok,
				limit: spec.burst,
				remaining: Math.floor(tokens),
				resetMs: ((spec.burst - tokens) / spec.perSecond) * 1000,
				retryMs: ((1 - tokens) / spec.perSecond) * 1000,
				windowMs: (spec.burst / spec.perSecond) * 1000,
			};
		}
		if ('fixed' in spec) {
			const start = now - ((now - this.started) % spec.windowMs);
			this.log = this.log.filter((t) => t >= start);
			const ok = this.log.length < spec.fixed;
			if (ok) this.log.push(now);
			const resetMs = start + spec.windowMs - now;
			const remaining = spec.fixed - this.log.length;
			return {
				ok,
				limit: spec.fixed,
				remaining,
				resetMs,
				retryMs: resetMs,
				windowMs: spec.windowMs,
			};
		}
		const { sliding: limit, windowMs } = spec as { sliding: number; windowMs: number };
		this.log = this.log.filter((t) => t > now - windowMs);
		const ok = this.log.length < limit;
		if (ok) this.log.push(now);
		const resetMs = this.log.length ? this.log[0] + windowMs - now : 0;
		return { ok, limit, remaining: limit - this.log.length, resetMs, retryMs: resetMs, windowMs };
	}

	private headers(shape: RateLimit['headers'], s: State): Record<string, string> {
		if (typeof shape === 'object') return { ...shape };
		const seconds = String(Math.ceil(s.resetMs / 1000));
		switch (shape) {
			case 'draft6':
				return {
					'ratelimit-limit': String(s.limit),
					'ratelimit-remaining': String(s.remaining),
					'ratelimit-reset': seconds,
				};
			case 'xRateLimit':
				return {
					'x-ratelimit-limit': String(s.limit),
					'x-ratelimit-remaining': String(s.remaining),
					// GitHub's form: whole epoch seconds (rounded up: an upper bound, not a schedule)
					'x-ratelimit-reset': String(Math.ceil((this.now() + s.resetMs) / 1000)),
				};
			case 'draft11':
				return {
					ratelimit: `"default";r=${s.remaining};t=${seconds}`,
					'ratelimit-policy': `"default";q=${s.limit};w=${Math.ceil(s.windowMs / 1000)}`,
				};
			default:
				return {};
		}
	}
}
