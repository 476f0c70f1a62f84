import { wait } from '../shared/transport';

/**
 * Batching windows, as n8n's HTTP Request node has them ("Items per Batch", "Batch Interval"): items go out in
 * windows of `size` items, and window w+1 starts `interval` ms after every item of window w has finished (so
 * there are never more than `size` requests per interval). Within a window, Concurrency items run at once.
 * Items enter in index order (forEachItem hands them out in order), so no window waits on an unstarted one.
 * The windows end at once at Stop or when `end()` is called (a failed item stops the node): the items still
 * waiting go on at once, to be refused by the client, which stops sending then too.
 */
export class BatchWindows {
	private readonly left: number[] = [];
	private readonly finished: Array<() => void> = [];
	private readonly done: Array<Promise<void>> = [];
	private readonly gates = new Map<number, Promise<void>>();
	private readonly ended = new AbortController();
	private readonly over: Promise<void>;

	constructor(
		count: number,
		private readonly size: number,
		private readonly interval: number,
		stop: { subscribe(listener: () => void): unknown },
	) {
		this.over = new Promise<void>((resolve) =>
			this.ended.signal.addEventListener('abort', () => resolve(), { once: true }),
		);
		if (this.active) stop.subscribe(() => this.end());
		const windows = this.active ? Math.ceil(count / size) : 0;
		for (let w = 0; w < windows; w++) {
			this.left.push(Math.min(size, count - w * size));
			this.done.push(new Promise<void>((resolve) => this.finished.push(resolve)));
		}
	}

	get active(): boolean {
		return this.interval > 0;
	}

	/** Waits until the item's window is open. */
	async enter(itemIndex: number): Promise<void> {
		if (!this.active) return;
		const w = Math.floor(itemIndex / this.size);
		if (w === 0) return;
		let gate = this.gates.get(w);
		if (!gate) {
			gate = this.done[w - 1].then(async () => await wait(this.interval, this.ended.signal));
			this.gates.set(w, gate);
		}
		await Promise.race([gate, this.over]);
	}

	/** No more waiting: every window is open. */
	end(): void {
		if (!this.ended.signal.aborted) this.ended.abort();
	}

	/** Marks the item as finished (sent, failed or skipped). */
	leave(itemIndex: number): void {
		if (!this.active) return;
		const w = Math.floor(itemIndex / this.size);
		if (--this.left[w] === 0) this.finished[w]();
	}
}
