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
 *   the first 429, and its sustained rate from the next one: after a pause a token bucket is full again, so
 *   successes S in T seconds before a 429 mean rate ≈ (S − burst) / T. Until then the pace grows quickly from a
 *   careful start; afterwards it stays just under the learned rate and creeps up, in case the limit was raised.
 */
export class Gate {
	static readonly START = 8;

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
	private learned = false;
	private lastRateUpdate = Date.now();

	constructor(
		readonly max: number,
		private readonly cancel?: AbortSignal,
	) {
		this.limit = Math.min(max, Gate.START);
		cancel?.addEventListener('abort', () => this.wakeAll(), { once: true });
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
		if (rateLimited) this.learn(now);
		if (pauseMs !== undefined && pauseMs > 0 && now + pauseMs > this.pausedUntil) {
			this.pausedUntil = now + pauseMs;
			this.sinceResume = { at: this.pausedUntil, successes: 0 };
			this.nextSlot = this.pausedUntil;
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
		} else if (!this.learned && seconds > 0.5 && successes > (this.burst ?? 0)) {
			this.rate = Math.max(1, (0.98 * (successes - (this.burst ?? 0))) / seconds);
			this.learned = true;
		} else {
			this.rate = Math.max(1, this.rate * 0.8);
		}
		this.lastRateUpdate = Math.max(now, this.pausedUntil);
	}

	/** While pacing: ×2 per second until a rate is learned, then +2% per second. */
	private growRate(now: number): void {
		const seconds = (now - this.lastRateUpdate) / 1000;
		if (seconds <= 0 || this.rate === undefined) return;
		this.rate *= (this.learned ? 1.02 : 2) ** seconds;
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
