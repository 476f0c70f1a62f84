import { Stopper } from './stop';
import { wait } from './timing';

interface Entry {
	at: number;
	fire: () => void;
}

/**
 * The time limits of every attempt of a node run, on one timer: a wait per attempt would cost more than a request
 * to a service next door. An attempt only adds an entry; one wait (n8n's `sleep`) wakes at the earliest time limit
 * still pending and sets the next. `close()` at the end of the run ends that wait (where n8n's `sleep` takes no
 * signal, the one timer left runs out by itself).
 */
export class Deadlines {
	private readonly live = new Set<Entry>();
	/** When the waits under way wake (usually one) */
	private readonly wakes: number[] = [];
	private ended = new Stopper();

	constructor(private readonly now: () => number = () => performance.now()) {}

	/** Calls `fire` once `ms` have passed, unless the returned function is called first. */
	add(ms: number, fire: () => void): () => void {
		const entry: Entry = { at: this.now() + ms, fire };
		this.live.add(entry);
		if (!this.wakes.some((at) => at <= entry.at)) this.wakeAt(entry.at);
		return () => {
			this.live.delete(entry);
		};
	}

	/** Time limits pending (for tests). */
	get pending(): number {
		return this.live.size;
	}

	/** Ends the waits under way when no time limit is pending (the end of the node run). */
	close(): void {
		if (this.live.size > 0) return;
		this.ended.stop();
		this.ended = new Stopper();
		this.wakes.length = 0;
	}

	private wakeAt(at: number): void {
		this.wakes.push(at);
		const ended = this.ended;
		void wait(Math.max(1, Math.ceil(at - this.now())), ended).then(() => {
			if (ended.aborted) return;
			this.wakes.splice(this.wakes.indexOf(at), 1);
			this.check();
		});
	}

	private check(): void {
		const now = this.now();
		let next = Infinity;
		for (const entry of this.live) {
			if (entry.at <= now) {
				this.live.delete(entry);
				entry.fire();
			} else if (entry.at < next) {
				next = entry.at;
			}
		}
		if (next < Infinity && !this.wakes.some((at) => at <= next)) this.wakeAt(next);
	}
}
