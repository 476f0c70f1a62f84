import type { Quota } from './timing';

/**
 * What the service's quota headers said, counted forward: the sends it allows before `resetAt`. The answer to
 * request `seq` left `left` of the quota; every request sent after it is counted against that (it may have been
 * counted by the service already or not), so the quota lasts to its reset.
 */
export class Plan {
	private left?: number;
	private resetAt = 0;
	private limit?: number;
	private seq = -1;
	/** Requests sent so far: those after `seq` are on their way, and a new window may have counted them already */
	private sent = 0;

	get known(): boolean {
		return this.left !== undefined;
	}

	/** An answer to request `seq`; no quota on it: the service stopped saying. */
	observe(quota: Quota | undefined, seq: number): void {
		if (seq < this.seq) return;
		this.seq = seq;
		this.left = quota && quota.remaining - (this.sent - seq);
		this.resetAt = quota?.resetAt ?? 0;
		this.limit = quota?.limit;
	}

	/**
	 * How long until the quota allows a send (0: now; Infinity: when the next answer tells). A new window starts full,
	 * when its size is known, less the requests whose answers are still out (a bucket's reset is when it would be
	 * full had nothing been sent since).
	 */
	delay(now: number): number {
		if (this.left === undefined || this.left > 0) return 0;
		if (now < this.resetAt) return this.resetAt - now;
		this.left = this.limit === undefined ? undefined : this.limit - (this.sent - this.seq);
		this.resetAt = Infinity; // until an answer of the new window says when it ends
		return this.left === undefined || this.left > 0 ? 0 : Infinity;
	}

	take(): void {
		this.sent++;
		if (this.left !== undefined) this.left--;
	}
}
