import { Budget, type Run, type Sent, type Signal, budgetFor } from './budget';
import { type Stopper, stopperOf } from './stop';
import { type Quota, wait } from './timing';

export type { Signal };

type Refusal = { ok: false; pauseMs: number; announced?: boolean };
export type Turn = { ok: true; ticket: Sent; announcedMs: number } | Refusal;

const STOPPED: Refusal = { ok: false, pauseMs: 0 };

/**
 * One node run's way to a service: its own Concurrency cap and Stop over the service's budget (budget.ts), which
 * every run in the process shares. A stopped run's waiting requests leave at once; the other runs go on.
 */
export class Gate implements Run {
	static readonly START = Budget.START;
	inFlight = 0;
	readonly queue: Array<(level: number) => void> = [];
	private shared?: Budget;
	private readonly cancel?: Stopper;

	constructor(
		readonly max: number,
		stop?: AbortSignal | Stopper,
		/** The budget, or the key of the shared one (asked for when the first request goes); none: the run's own */
		private readonly of: Budget | (() => string) = new Budget(),
	) {
		this.cancel = stopperOf(stop);
		this.cancel?.subscribe(() => {
			for (const waiter of this.queue.splice(0)) waiter(0);
			this.shared?.leave(this);
		});
	}

	private get budget(): Budget {
		this.shared ??= typeof this.of === 'function' ? budgetFor(this.of()) : this.of;
		return this.shared;
	}

	/** In flight now, and the current allowance and pace (for logs and tests). */
	get state() {
		const { inFlight, allowance, pace } = this.budget;
		return { inFlight, limit: Math.min(this.max, allowance), rate: pace.rate, burst: pace.burst };
	}

	/**
	 * Waits for a turn. Resolves `ok` with a slot taken (call `release` exactly once, with the ticket), or not `ok`
	 * when the shared pause would last longer than `budgetMs`, the service's announced quota reset longer than
	 * `announcedMs` (nothing taken), or the execution was stopped.
	 */
	async acquire(
		budgetMs: number,
		announcedMs = budgetMs,
		log: (text: string) => void = () => undefined,
	): Promise<Turn> {
		if (this.cancel?.aborted) return STOPPED;
		const budget = this.budget;
		const level =
			budget.take(this) ||
			(await new Promise<number>((resolve) => {
				this.queue.push(resolve);
				budget.enlist(this);
			}));
		if (!level) return STOPPED;
		// the slot is ours from here; the pause, the quota and the pace are waited for holding it
		const waited = await this.paced(budget, budgetMs, announcedMs, log);
		if (typeof waited !== 'number') {
			this.inFlight--;
			budget.inFlight--;
			budget.wake();
			return waited;
		}
		return { ok: true, ticket: budget.record(Date.now(), level), announcedMs: waited };
	}

	/**
	 * Waits out the shared pause, then the quota or the pace; returns how long it waited for an announced reset.
	 * Requests waiting for the quota or the pace line up: only the first waits for its moment, as things are then.
	 */
	private async paced(
		budget: Budget,
		budgetMs: number,
		announcedMs: number,
		log: (text: string) => void,
	) {
		let announced = 0;
		for (;;) {
			if (this.cancel?.aborted) return STOPPED;
			const now = Date.now();
			if (budget.pausedUntil > now) {
				const pauseMs = budget.pausedUntil - now;
				if (pauseMs > budgetMs) return { ok: false, pauseMs } as Refusal;
				await wait(pauseMs, this.cancel);
				continue;
			}
			if (!budget.plan.known && !budget.pace.active) return announced;
			if (!(await budget.enterLine(this))) continue;
			try {
				for (;;) {
					const at = Date.now();
					if (this.cancel?.aborted || budget.pausedUntil > at) break;
					const planned = budget.plan.known;
					const delay = planned ? budget.plan.delay(at) : budget.pace.delay(at);
					if (delay <= 0) {
						if (!planned) budget.pace.take(at);
						return announced;
					}
					if (delay === Infinity) {
						// the new window's size is used up before any of its answers said when it ends, or the pace
						// waits for its probe's answer
						await new Promise<void>((resolve) => {
							const off = this.cancel?.subscribe(resolve);
							void budget.nextAnswer().then(() => (off?.(), resolve()));
						});
						continue;
					}
					if (planned) {
						if (announced + delay > announcedMs)
							return { ok: false, pauseMs: delay, announced: true } as Refusal;
						log(
							`waiting ${Math.ceil(delay / 1000)} s for the service's quota to reset, as its rate-limit headers announced (not a retry)`,
						);
						announced += delay;
					}
					await wait(delay, this.cancel);
				}
			} finally {
				budget.leaveLine();
			}
		}
	}

	/** Gives the slot back and learns from how the answer went; `pauseMs` pauses every request to the service. */
	release(signal: Signal, pauseMs?: number, rateLimited = false, ticket?: Sent, quota?: Quota) {
		this.inFlight = Math.max(0, this.inFlight - 1);
		this.budget.release(signal, pauseMs, rateLimited, ticket, quota);
	}
}
