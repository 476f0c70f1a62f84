import { sleep } from 'n8n-workflow';

import { Stopper } from './stop';

const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const LONG_DAY = '(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)';
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTH = `(${MONTHS.join('|')})`;
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';
/** The three HTTP date forms (RFC 9110), each with the order of its day, month, year and time fields. */
const HTTP_DATES: Array<{ pattern: RegExp; order: number[] }> = [
	// IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT
	{ pattern: new RegExp(`^${DAY}, (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`), order: [1, 2, 3] },
	// RFC 850: Sunday, 06-Nov-94 08:49:37 GMT
	{
		pattern: new RegExp(`^${LONG_DAY}, (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`),
		order: [1, 2, 3],
	},
	// asctime: Sun Nov  6 08:49:37 1994
	{ pattern: new RegExp(`^${DAY} ${MONTH} ( \\d|\\d{2}) ${TIME} (\\d{4})$`), order: [2, 1, 6] },
];

/** The time an HTTP date names, or undefined when it is none of the three forms. */
function httpDate(text: string): number | undefined {
	for (const { pattern, order } of HTTP_DATES) {
		const m = pattern.exec(text);
		if (!m) continue;
		const [day, month, year] = order.map((n) => m[n].trim());
		const time = order[2] === 6 ? m.slice(3, 6) : m.slice(4, 7);
		const full =
			year.length === 2 ? Number(year) + (Number(year) < 70 ? 2000 : 1900) : Number(year);
		const [h, min, sec] = time.map(Number);
		return Date.UTC(full, MONTHS.indexOf(month), Number(day), h, min, sec);
	}
	return undefined;
}

/**
 * Retry-After as milliseconds: delta-seconds or one of the three HTTP date forms (a date in the past is 0);
 * `undefined` when absent or anything else. The value is cut before any pattern runs on it.
 */
export function parseRetryAfter(value: unknown, now = Date.now()): number | undefined {
	if (value === undefined || value === null) return undefined;
	const text = String(Array.isArray(value) ? value[0] : value)
		.slice(0, 64)
		.trim();
	if (/^\d{1,10}(\.\d{1,3})?$/.test(text)) return Math.round(parseFloat(text) * 1000);
	const date = httpDate(text);
	return date === undefined || Number.isNaN(date) ? undefined : Math.max(0, date - now);
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
	// values are cut before the patterns run; numbers past what a quota or a time can be are not believed
	const number = (pattern: RegExp, v?: string) =>
		v !== undefined && v.length <= 32 && pattern.test(v) && Number(v) < 1e13
			? Number(v)
			: undefined;
	const count = (v?: string) => number(COUNT, v);
	const seconds = (v?: string) => number(SECONDS, v);
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

/** The longest a Node.js timer waits; a longer one fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Waits `wanted` ms (at most MAX_TIMER_MS), or less when `stop` comes first (it never rejects). n8n's own `sleep` is the timer (nodes may not use
 * timers themselves): n8n 2.x's `sleep(ms, signal)` also clears its timer when the wait ends early; on n8n 1.x,
 * whose `sleep` takes no signal, the wait still ends at once and the idle timer runs out by itself.
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
