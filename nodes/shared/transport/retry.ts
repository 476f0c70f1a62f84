import { header, wait } from './attempt';
import { type Heard, type Limiter, MAX_WAIT_MS } from './limiter';
import { cut } from './redaction';
import type { ApiRequest, Failure, Quota, RawResponse, RequestSettings, Run, Turn } from './types';

/**
 * The retry policy, said once (option texts and docs are checked against it): 429s, apart from Max Attempts; 502,
 * 503, 504 and wire failures when repeatable or surely not sent; after backoff or `Retry-After`, within Max Retry Wait.
 */
const RETRY_STATUSES = [429, 502, 503, 504];
/** 429s one request may get before it gives up: a service that keeps refusing is not asked forever. */
export const MAX_RATE_LIMITED = 10;
/** Failures no retry can mend. */
const FINAL: Array<Failure['kind']> = ['tooLarge', 'redirect', 'canceled', 'paused', 'blocked'];

const DEFAULT_NO_RETRY_ADVICE =
	'It was not retried: the service may have acted on it already, and sending it again could repeat that.';

/** Why retrying ended: `unsafe` when the request may have been acted on and could not be sent again. */
export type GaveUp = { unsafe: boolean; text: string };

type Outcome = ({ res: RawResponse } | { failure: Failure }) & {
	announcedMs: number;
	gaveUp?: GaveUp;
};

interface RetryPolicy extends Pick<ApiRequest, 'repeatable' | 'noRetryAdvice'> {
	settings: RequestSettings;
	limiter: Limiter;
	run: Run;
	log(text: string, meta: Record<string, unknown>): void;
}

/** What one attempt brought: the answer or the failure, its headers read once. */
type Said = Heard & { res?: RawResponse; failure?: Failure; retryAfter?: number; quota?: Quota };

type Tally = { waited: number; counted: number; rateLimited: number; announcedMs: number };

/** After an attempt: a retry after `delay`, or none (`gaveUp`: why, if any); `pauseMs` pauses the whole service. */
type Next = { pauseMs: number; delay?: number; gaveUp?: GaveUp };

/** The one attempt/retry loop: every attempt waits for its turn at the limiter, and tells it what the answer said. */
export async function withRetries(
	send: () => Promise<RawResponse | Failure>,
	policy: RetryPolicy,
): Promise<Outcome> {
	const { settings, limiter, run } = policy;
	const tally: Tally = { waited: 0, counted: 0, rateLimited: 0, announcedMs: 0 };
	for (let attempt = 1; ; attempt++) {
		const announceLeft = Math.max(settings.maxRetryWait, MAX_WAIT_MS) - tally.announcedMs;
		const turn = await limiter.acquire(run, settings.maxRetryWait - tally.waited, announceLeft);
		if (!turn.ok) return { failure: notSent(turn, run), announcedMs: tally.announcedMs };
		tally.announcedMs += turn.announcedMs;
		const said = hear(await send());
		const next = decide(said, attempt, policy, tally);
		const overshot = limiter.release(run, turn.ticket, { ...said, pauseMs: next.pauseMs });
		const { status, failure } = said;
		if (next.delay === undefined) {
			const last = failure ? { failure } : { res: said.res! };
			return { ...last, announcedMs: tally.announcedMs, gaveUp: next.gaveUp };
		}
		const what = failure ? `${failure.code} (${failure.detail ?? failure.kind})` : `HTTP ${status}`;
		const which =
			status === 429 && settings.maxAttempts > 1
				? `retry (attempt ${attempt + 1}; 429s do not count toward Max Attempts)`
				: `retry ${tally.counted} of ${settings.maxAttempts - 1}`;
		// refused only for going past the cap on requests in flight: the retry waits for a slot, not a backoff
		const delay = overshot && said.retryAfter === undefined ? 0 : next.delay;
		policy.log(`${which} in ${delay} ms after ${what}`, { attempt, delay });
		await wait(delay, run.stop);
		tally.waited += delay;
	}
}

/** A turn not given: Stop, or a wait longer than the request may wait. */
function notSent({ why, waitMs }: Extract<Turn, { ok: false }>, run: Run): Failure {
	if (why === 'stopped')
		return { kind: 'canceled', code: 'ECANCELED', sent: false, halted: run.stop.reason };
	return { kind: 'paused', code: 'HTTP 429', sent: false, waitMs, quota: why === 'quota' };
}

/** Parses a JSON answer once: a 2xx whose JSON stops halfway is a broken transfer (retried), not a wrong API. */
export function checkJson(res: RawResponse): RawResponse | Failure {
	if (res.cut) return res;
	const raw = res.body.toString('utf8');
	if (!/\S/.test(raw)) return res;
	try {
		return { ...res, json: { value: JSON.parse(raw) } };
	} catch (error) {
		const text = raw.trim();
		const ok = res.statusCode >= 200 && res.statusCode < 300;
		if (!ok || !/^[[{]/.test(text) || !isCutOff(text, error as Error)) return res;
		const detail = `the JSON ends after ${res.body.length} bytes, before it is complete`;
		return { kind: 'broken', code: 'ETRUNCATED', detail, sent: true };
	}
}

/** Whether a JSON syntax error is the input ending early (rather than something that is not JSON). */
function isCutOff(text: string, error: Error): boolean {
	if (/end of (json )?input|unterminated/i.test(error.message)) return true;
	const position = /position (\d+)/.exec(error.message);
	return position !== null && Number(position[1]) >= text.length;
}

function hear(outcome: RawResponse | Failure): Said {
	if ('kind' in outcome)
		return { status: 0, timedOut: outcome.kind === 'timeout', failure: outcome };
	const get = (name: string) => header(outcome.headers, name);
	const retryAfter = parseRetryAfter(get('retry-after'));
	return { status: outcome.statusCode, res: outcome, retryAfter, quota: readQuota(get) };
}

/** Whether to try again, and when: each rule that ends the retries returns; what passes them all is retried. */
function decide(said: Said, attempt: number, policy: RetryPolicy, tally: Tally): Next {
	const { settings } = policy;
	const { status, failure, retryAfter, quota } = said;
	if (failure && FINAL.includes(failure.kind)) return { pauseMs: 0 };
	if (!failure && !RETRY_STATUSES.includes(status)) return { pauseMs: 0 };
	const refused = status === 429;
	// a 429 whose quota headers say when the quota resets is waited for as an announced reset, at the next turn
	const announced = refused && quota?.remaining === 0 && quota.resetAt > Date.now();
	// exponential backoff: the Initial Retry Delay doubled per attempt, with a jitter factor in [0.5, 1)
	const backoff = settings.retryDelay * 2 ** (attempt - 1) * (0.5 + Math.random() / 2);
	const delay = announced ? 0 : Math.max(retryAfter ?? 0, Math.round(backoff));
	// a 429, or a Retry-After on any answer, pauses every request to the service, not only this one
	const pauseMs = refused || retryAfter !== undefined ? delay : 0;
	if (refused && settings.maxAttempts > 1) tally.rateLimited++;
	else tally.counted++;
	const stop = (text: string, unsafe = false): Next => ({ pauseMs, gaveUp: { unsafe, text } });
	const tries = `gave up after ${attempt} attempt${attempt === 1 ? '' : 's'}`;
	if (!refused && !(failure && !failure.sent) && !policy.repeatable)
		return stop(policy.noRetryAdvice ?? DEFAULT_NO_RETRY_ADVICE, true);
	if (tally.counted >= settings.maxAttempts) return stop(tries);
	if (tally.rateLimited >= MAX_RATE_LIMITED)
		return stop(`${tries}: refused ${tally.rateLimited} times with HTTP 429`);
	if (delay > settings.maxRetryWait - tally.waited) {
		const asked = retryAfter !== undefined ? ' (as Retry-After asked)' : '';
		const limit = `the Max Retry Wait of ${Math.round(settings.maxRetryWait / 1000)} s`;
		return stop(`${tries}: waiting ${Math.ceil(delay / 1000)} s more${asked} would pass ${limit}`);
	}
	return { pauseMs, delay };
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

/** The parameters of a structured-field list's member named `name` (or of its first member). */
function member(value: string | undefined, name?: string): Record<string, string> | undefined {
	for (const item of (value ?? '').split(',')) {
		const [key, ...params] = item.split(';').map((part) => part.trim());
		if (!key || (name !== undefined && key !== name)) continue;
		return Object.fromEntries(params.map((p) => p.split('=', 2)).map(([k, v]) => [k, v ?? '']));
	}
	return undefined;
}

/** The quota announced in the draft's `RateLimit` (+ `-Policy`), `RateLimit-*` or `X-RateLimit-*`; bad ones ignored */
export function readQuota(get: (name: string) => string | undefined, now = Date.now()) {
	// values are cut before the patterns run; numbers past what a quota or a time can be are not believed
	const number = (pattern: RegExp, v = '') =>
		v.length <= 32 && pattern.test(v) && Number(v) < 1e13 ? Number(v) : undefined;
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
		const [remaining, reset, limit] = ['remaining', 'reset', 'limit'].map((n) => get(prefix + n));
		const quota = check(count(remaining), seconds(reset), count(limit));
		if (quota || remaining !== undefined) return quota;
	}
	return undefined;
}
