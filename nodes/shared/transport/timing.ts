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

/** What a service's rate-limit headers say: requests left in its window, when that resets, and its size. */
export interface Quota {
	remaining: number;
	resetAt: number;
	limit?: number;
}

const COUNT = /^\s*\d+\s*$/;
const SECONDS = /^\s*\d+(\.\d+)?\s*$/;

/** The parameters of a structured-field list's member named `name` (or of its first member). */
function member(value: string | undefined, name?: string): Record<string, string> | undefined {
	for (const item of (value ?? '').split(',')) {
		const [key, ...params] = item.split(';').map((part) => part.trim());
		if (!key || (name !== undefined && key !== name)) continue;
		return Object.fromEntries(params.map((p) => p.split('=', 2)).map(([k, v]) => [k, v ?? '']));
	}
	return undefined;
}

/**
 * The quota a service announces, in any of the shapes in use: the IETF draft's `RateLimit` (`r`, `t`) with
 * `RateLimit-Policy` (`q`), the older draft's `RateLimit-Limit/-Remaining/-Reset`, or `X-RateLimit-*` (a reset of
 * 1e9 or more is a time in epoch seconds, else seconds from now). Malformed or contradictory values are ignored, as
 * the draft asks: the caller then learns from refusals instead.
 */
export function readQuota(get: (name: string) => string | undefined, now = Date.now()) {
	const count = (v?: string) => (v !== undefined && COUNT.test(v) ? Number(v) : undefined);
	const seconds = (v?: string) => (v !== undefined && SECONDS.test(v) ? Number(v) : undefined);
	const check = (remaining?: number, reset?: number, limit?: number): Quota | undefined => {
		if (remaining === undefined || reset === undefined) return undefined;
		if (limit !== undefined && remaining > limit) return undefined;
		const resetAt = reset >= 1e9 ? reset * 1000 : now + reset * 1000;
		return { remaining, resetAt: Math.max(now, resetAt), limit };
	};
	const field = get('ratelimit');
	if (field !== undefined) {
		const name = field.split(/[;,]/)[0].trim();
		const [left, policy] = [member(field), member(get('ratelimit-policy'), name) ?? {}];
		return check(count(left?.r), count(left?.t), count(policy.q));
	}
	for (const prefix of ['ratelimit-', 'x-ratelimit-']) {
		const quota = check(
			count(get(`${prefix}remaining`)),
			seconds(get(`${prefix}reset`)),
			count(get(`${prefix}limit`)),
		);
		if (quota || get(`${prefix}remaining`) !== undefined) return quota;
	}
	return undefined;
}

/** Exponential backoff with jitter: base·2^(n-1), scaled by a factor in [0.5, 1) (`random` for tests). */
export function backoff(base: number, attempt: number, random = Math.random()): number {
	return Math.round(base * 2 ** (attempt - 1) * (0.5 + random / 2));
}

/**
 * The reason given when a wait or an attempt ends early. One shared Error: without a reason, every abort would build
 * a DOMException (and n8n's sleep an Error) with a stack trace, which costs more than the request itself.
 */
export const ENDED = new Error('ended');

/**
 * Waits `ms`, or less when `stop` comes first (it never rejects). n8n's own `sleep` is the timer (nodes may not use
 * timers themselves): n8n 2.x's `sleep(ms, signal)` also clears its timer when the wait ends early; on n8n 1.x,
 * whose `sleep` takes no signal, the wait still ends at once and the idle timer runs out by itself.
 */
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
