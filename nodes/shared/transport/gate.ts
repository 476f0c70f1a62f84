import { type Stopper, stopperOf } from './stop';
import { wait } from './timing';

/** How an answer went, as far as the service's capacity is concerned. */
export type Signal = 'ok' | 'pushback' | 'neutral';

/**
 * One gate per service and node run: every request to the service passes it, so that all items and pages of the
 * run share one budget.
 *
 * - **Adaptive concurrency** (as TCP does it): starts at `START` requests in flight, doubles per round trip while
 *   answers are healthy (slow start), then grows by one per round trip; a push-back (429, 503, a timeout) halves it.
 *   It never passes `max` (the node's Concurrency option; 1 = one request at a time).
 * - **One pause for everybody**: a Retry-After (or the backoff after a 429) pauses every request of the run.
 * - **Learned pace**: after a 429 the gate paces requests. It learns the service's burst from the successes before
 *   the first 429, and its sustained rate from each later one: a bucket that refused a request was empty then, so
 *   the highest refill rate under which the requests sent since would still have met an empty bucket is what the
 *   service allows (at most). Until then the pace grows quickly (×4 per second) from a careful start; afterwards it
 *   stays just under the learned rate and creeps up (+1% per second), in case the limit was raised.
 */
export class Gate {
	static readonly START = 16;

	private limit: number;
	private threshold = Infinity;
	private inFlight = 0;
	private readonly queue: Array<() => void> = [];
	private pausedUntil = 0;
	/** Requests per second while pacing; undefined until the first 429 */
	private rate?: number;
	private nextSlot = 0;
	/** Successes since the gate opened, or since the last pause ended */
	private sinceResume = { at: Date.now(), successes: 0 };
	private burst?: number;
	/** When each request since the last pause was let through (while pacing), to learn the rate from */
	private sends: number[] = [];
	private learned = false;
	/** When the last 429 that paused the run came (the bucket was empty then) */
	private refusedAt = 0;
	private lastRateUpdate = Date.now();

	private readonly cancel?: Stopper;

	constructor(
		readonly max: number,
		stop?: AbortSignal | Stopper,
	) {
		this.limit = Math.min(max, Gate.START);
		this.cancel = stopperOf(stop);
		this.cancel?.subscribe(() => this.wakeAll());
	}

	/** In flight now, and the current allowance (for logs and tests). */
	get state() {
		return { inFlight: this.inFlight, limit: Math.floor(this.limit), rate: this.rate };
	}

	/**
	 * Waits for a turn. Resolves `true` with a slot taken (call `release` exactly once), or `false` when the shared
	 * pause would last longer than `budgetMs` (nothing taken) or the execution was stopped.
	 */
	async acquire(budgetMs: number): Promise<{ ok: true } | { ok: false; pauseMs: number }> {
		for (;;) {
			if (this.cancel?.aborted) return { ok: false, pauseMs: 0 };
			if (this.inFlight >= Math.max(1, Math.floor(this.limit))) {
				await new Promise<void>((resolve) => this.queue.push(resolve));
				continue;
			}
			const now = Date.now();
			if (this.pausedUntil > now) {
				const pauseMs = this.pausedUntil - now;
				if (pauseMs > budgetMs) return { ok: false, pauseMs };
				await wait(pauseMs, this.cancel);
				continue;
			}
			if (this.rate !== undefined) {
				if (this.nextSlot > now) {
					await wait(this.nextSlot - now, this.cancel);
					continue;
				}
				this.growRate(now);
				this.nextSlot = Math.max(now, this.nextSlot) + 1000 / this.rate;
				if (this.sends.length < 10000) this.sends.push(now);
			}
			this.inFlight++;
			return { ok: true };
		}
	}

	/** Gives the slot back and learns from how the answer went; `pauseMs` pauses every request of the run. */
	release(signal: Signal, pauseMs?: number, rateLimited = false): void {
		this.inFlight = Math.max(0, this.inFlight - 1);
		const now = Date.now();
		if (signal === 'ok') {
			this.sinceResume.successes++;
			this.limit = Math.min(
				this.max,
				this.limit + (this.limit < this.threshold ? 1 : 1 / this.limit),
			);
		} else if (signal === 'pushback') {
			// one push-back per round trip: answers already under way when the first arrived do not halve it again
			if (now >= this.pausedUntil) {
				this.threshold = Math.max(1, this.limit / 2);
				this.limit = this.threshold;
			}
		}
		if (rateLimited) {
			this.learn(now);
			if (now >= this.pausedUntil) this.refusedAt = now;
		}
		if (pauseMs !== undefined && pauseMs > 0 && now + pauseMs > this.pausedUntil) {
			this.pausedUntil = now + pauseMs;
			this.sinceResume = { at: this.pausedUntil, successes: 0 };
			this.sends = [];
			this.nextSlot = this.pausedUntil;
			// the pace does not grow while paused
			this.lastRateUpdate = Math.max(this.lastRateUpdate, this.pausedUntil);
		}
		this.wake();
	}

	private learn(now: number): void {
		if (now < this.pausedUntil) return; // already reacted to this burst of 429s
		const seconds = Math.max(0, (now - this.sinceResume.at) / 1000);
		const successes = this.sinceResume.successes;
		if (this.rate === undefined) {
			// first 429: what got through so far is (about) the service's burst
			this.burst = successes;
			this.rate = Math.max(1, successes / Math.max(1, seconds));
		} else if (this.sends.length > 1) {
			const rate = highestRateThatRefuses(this.sends, this.refusedAt, this.burst ?? 1);
			this.rate = Math.max(1, 0.92 * rate);
			this.learned = true;
		} else {
			this.rate = Math.max(1, this.rate * 0.8);
		}
		this.lastRateUpdate = now;
	}

	/** While pacing: ×4 per second until a rate is learned, then +5% per second. */
	private growRate(now: number): void {
		const seconds = (now - this.lastRateUpdate) / 1000;
		if (seconds <= 0 || this.rate === undefined) return;
		this.rate *= (this.learned ? 1.01 : 4) ** seconds;
		this.lastRateUpdate = now;
	}

	private wake(): void {
		let free = Math.max(1, Math.floor(this.limit)) - this.inFlight;
		while (free-- > 0 && this.queue.length) this.queue.shift()!();
	}

	private wakeAll(): void {
		while (this.queue.length) this.queue.shift()!();
	}
}

/**
 * The highest rate (per second) at which a token bucket of `burst` tokens, empty at `start`, would still have refused
 * one of the requests sent at `sends`: the service's sustained rate is at most this. Binary search on a
 * simulation of the bucket (more refill means fewer refusals, so "refuses" is monotone in the rate).
 */
export function highestRateThatRefuses(sends: number[], start: number, burst: number): number {
	const capacity = Math.max(1, burst);
	const refuses = (rate: number) => {
		let tokens = 0;
		let previous = start;
		for (const at of sends) {
			tokens = Math.min(capacity, tokens + (rate * Math.max(0, at - previous)) / 1000);
			previous = Math.max(previous, at);
			if (tokens < 1) return true;
			tokens -= 1;
		}
		return false;
	};
	let low = 0;
	let high = 1;
	while (refuses(high) && high < 1e6) high *= 2;
	for (let step = 0; step < 40; step++) {
		const middle = (low + high) / 2;
		if (refuses(middle)) low = middle;
		else high = middle;
	}
	return low;
}
