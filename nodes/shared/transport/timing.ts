import { sleep } from 'n8n-workflow';

import { cut } from './redaction';

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

const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const LONG_DAY = '(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)';
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTH = `(?<mon>${MONTHS.join('|')})`;
const TIME = '(?<h>\\d{2}):(?<mi>\\d{2}):(?<s>\\d{2})';
/** The three HTTP date forms (RFC 9110): IMF-fixdate, RFC 850 and asctime. */
const HTTP_DATES = [
	new RegExp(`^${DAY}, (?<d>\\d{2}) ${MONTH} (?<y>\\d{4}) ${TIME} GMT$`),
	new RegExp(`^${LONG_DAY}, (?<d>\\d{2})-${MONTH}-(?<y>\\d{2}) ${TIME} GMT$`),
	new RegExp(`^${DAY} ${MONTH} (?<d> \\d|\\d{2}) ${TIME} (?<y>\\d{4})$`),
];

function httpDate(text: string): number | undefined {
	const g = HTTP_DATES.map((pattern) => pattern.exec(text)?.groups).find(Boolean);
	if (!g) return undefined;
	const year = Number(g.y) + (g.y.length > 2 ? 0 : Number(g.y) < 70 ? 2000 : 1900);
	return Date.UTC(year, MONTHS.indexOf(g.mon), Number(g.d), Number(g.h), Number(g.mi), Number(g.s));
}

/** Retry-After in ms: delta-seconds or an HTTP date (past: 0); else undefined. Cut before any pattern runs. */
export function parseRetryAfter(value: unknown, now = Date.now()): number | undefined {
	if (value === undefined || value === null) return undefined;
	const text = cut(String(Array.isArray(value) ? value[0] : value), 64).trim();
	if (/^\d{1,10}(\.\d{1,3})?$/.test(text)) return Math.round(parseFloat(text) * 1000);
	const date = httpDate(text);
	return date === undefined || Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** What a service's rate-limit headers say: requests left in its window, when that resets, and its size. */
export type Quota = { remaining: number; resetAt: number; limit?: number };

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
 * The quota a service announces: the IETF draft's `RateLimit` with `RateLimit-Policy`, `RateLimit-*` or `X-RateLimit-*`
 * (a reset of 1e9 or more is in epoch seconds). Malformed or contradictory values are ignored, as the draft asks.
 */
export function readQuota(get: (name: string) => string | undefined, now = Date.now()) {
	// values are cut before the patterns run; numbers past what a quota or a time can be are not believed
	const number = (pattern: RegExp, v?: string) =>
		v !== undefined && v.length <= 32 && pattern.test(v) && Number(v) < 1e13
			? Number(v)
			: undefined;
	const count = (v?: string) => number(/^\s*\d+\s*$/, v);
	const seconds = (v?: string) => number(/^\s*\d+(\.\d+)?\s*$/, v);
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

/** The reason given when a wait or an attempt ends early: one shared Error, not a stack trace built per abort. */
export const ENDED = new Error('ended');

/** The longest a Node.js timer waits; a longer one fires at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Waits `wanted` ms, or less when `stop` comes first; never rejects. The timer is n8n's `sleep` (nodes may not use
 * timers): n8n 2.x's `sleep(ms, signal)` clears it when the wait ends early; on 1.x the idle timer runs out alone.
 */
export async function wait(wanted: number, stop?: AbortSignal | Stopper): Promise<void> {
	if (!(wanted > 0)) return;
	const ms = Math.min(wanted, MAX_TIMER_MS);
	if (!stop) return await sleep(ms);
	if (stop.aborted) return;
	const stopper = stop instanceof Stopper ? stop : new Stopper(stop);
	const controller = new AbortController();
	let unsubscribe: () => void = () => undefined;
	const stopped = new Promise<void>((resolve) => {
		unsubscribe = stopper.subscribe(resolve);
	});
	const sleepWithSignal = sleep as (ms: number, signal?: AbortSignal) => Promise<void>;
	// neither rejects
	await Promise.race([sleepWithSignal(ms, controller.signal).catch(() => undefined), stopped]);
	unsubscribe();
	controller.abort(ENDED);
}
