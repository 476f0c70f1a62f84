import { sleep } from 'n8n-workflow';

import { Stopper } from './stop';

/** Retry-After as milliseconds: delta-seconds or an HTTP date; `undefined` when absent or unreadable. */
export function parseRetryAfter(value: unknown, now = Date.now()): number | undefined {
	if (value === undefined || value === null || value === '') return undefined;
	const text = String(Array.isArray(value) ? value[0] : value).trim();
	if (/^\d+(\.\d+)?$/.test(text)) return Math.round(parseFloat(text) * 1000);
	if (/^[-+]?[\d.]+$/.test(text)) return undefined; // a negative or malformed number, not a date
	const date = Date.parse(text);
	if (Number.isNaN(date)) return undefined;
	return Math.max(0, date - now);
}

/** Exponential backoff with jitter: base·2^(n-1), scaled by a factor in [0.5, 1) (`random` for tests). */
export function backoff(base: number, attempt: number, random = Math.random()): number {
	return Math.round(base * 2 ** (attempt - 1) * (0.5 + random / 2));
}

/**
 * Waits `ms`, or less when `stop` comes first (it never rejects). n8n's own `sleep` is the timer (nodes may not use
 * timers themselves): n8n 2.x's `sleep(ms, signal)` also clears its timer when the wait ends early; on n8n 1.x,
 * whose `sleep` takes no signal, the wait still ends at once and the idle timer runs out by itself.
 */
/**
 * The reason given when a wait or an attempt ends early. One shared Error: without a reason, every abort would build
 * a DOMException (and n8n's sleep an Error) with a stack trace, which costs more than the request itself.
 */
export const ENDED = new Error('ended');

export async function wait(ms: number, stop?: AbortSignal | Stopper): Promise<void> {
	if (ms <= 0) return;
	if (!stop) return await sleep(ms);
	if (stop.aborted) return;
	const stopper = stop instanceof Stopper ? stop : new Stopper(stop);
	const controller = new AbortController();
	let unsubscribe: () => void = () => undefined;
	const stopped = new Promise<void>((resolve) => {
		unsubscribe = stopper.subscribe(() => {
			controller.abort(ENDED);
			resolve();
		});
	});
	const sleepWithSignal = sleep as (ms: number, signal?: AbortSignal) => Promise<void>;
	try {
		await Promise.race([sleepWithSignal(ms, controller.signal).catch(() => undefined), stopped]);
	} finally {
		unsubscribe();
		// ends n8n 2.x's timer when the wait ended early
		if (!controller.signal.aborted) controller.abort(ENDED);
	}
}
