/**
 * Stop, fanned out: one listener on each of n8n's signals, any number of waiters here. (An AbortSignal warns
 * "possible memory leak" past 10 listeners, and a node run may have hundreds of requests and waits at once.)
 */
export class Stopper {
	private readonly listeners = new Set<() => void>();
	private why?: string;
	aborted = false;

	constructor(...signals: Array<AbortSignal | Stopper | undefined>) {
		for (const signal of signals) {
			if (!signal) continue;
			if (signal instanceof Stopper) {
				signal.subscribe(() => this.stop(signal.reason));
			} else if (signal.aborted) {
				this.stop(typeof signal.reason === 'string' ? signal.reason : undefined);
			} else {
				signal.addEventListener(
					'abort',
					() => this.stop(typeof signal.reason === 'string' ? signal.reason : undefined),
					{ once: true },
				);
			}
		}
	}

	/** Why it stopped, when it was told (e.g. "not sent: an earlier item failed"). */
	get reason(): string | undefined {
		return this.why;
	}

	stop(reason?: string): void {
		if (this.aborted) return;
		this.aborted = true;
		this.why = reason;
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

/** A Stopper from whatever the caller has. */
export function stopperOf(signal?: AbortSignal | Stopper): Stopper | undefined {
	if (!signal) return undefined;
	return signal instanceof Stopper ? signal : new Stopper(signal);
}
