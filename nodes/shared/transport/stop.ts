/** Stop, fanned out: one listener on n8n's signal (which warns past 10), any number of waiters here. */
export class Stopper {
	private readonly listeners = new Set<() => void>();
	/** Why it stopped, when it was told (e.g. "not sent: an earlier item failed") */
	reason?: string;
	aborted = false;

	constructor(signal?: AbortSignal | Stopper) {
		const stop = () => this.stop(typeof signal?.reason === 'string' ? signal.reason : undefined);
		if (signal instanceof Stopper) signal.subscribe(stop);
		else if (signal?.aborted) stop();
		else signal?.addEventListener('abort', stop, { once: true });
	}

	stop(reason?: string): void {
		if (this.aborted) return;
		this.aborted = true;
		this.reason = reason;
		const listeners = [...this.listeners];
		this.listeners.clear();
		for (const listener of listeners) listener();
	}

	/** Calls `listener` once when stopped (at once if it is); returns the way to unsubscribe. */
	subscribe(listener: () => void): () => void {
		if (this.aborted) {
			listener();
			return () => undefined;
		}
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}
}
