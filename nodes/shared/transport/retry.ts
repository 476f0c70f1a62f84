import { header } from './attempt';
import { type Limiter, MAX_WAIT_MS, type Run, type Verdict } from './limiter';
import { backoff, parseRetryAfter, readQuota, wait } from './timing';
import type { ApiRequest, Failure, RawResponse, RequestSettings } from './types';

/**
 * The retry policy, said once (option texts and the docs are built from or checked against these). Retried: 429 (the
 * service did not act on it); 502/503/504 and failures on the wire when repeatable or surely not sent. A 429 counts
 * apart from Max Attempts. Waits: backoff, or as long as `Retry-After` asks, within Max Retry Wait.
 */
const RETRY_STATUSES = [429, 502, 503, 504];
/** What answers teach the limiter, besides ok (< 400): 503/504 (and timeouts) say the service is overloaded. */
const VERDICTS: Record<number, Verdict> = {
	429: 'rateLimited',
	503: 'overloaded',
	504: 'overloaded',
};
/** 429s one request may get before it gives up: a service that keeps refusing is not asked forever. */
export const MAX_RATE_LIMITED = 10;
export const ANNOUNCED_WAIT_MS = MAX_WAIT_MS;
/** Failures no retry can mend. */
const FINAL: Array<Failure['kind']> = ['tooLarge', 'redirect', 'canceled', 'paused', 'blocked'];

const DEFAULT_NO_RETRY_ADVICE =
	'It was not retried: the service may have acted on it already, and sending it again could repeat that.';

/** Why retrying ended: `unsafe` when the request may have been acted on and could not be sent again. */
export type GaveUp = { unsafe: boolean; text: string };

export type Outcome = ({ res: RawResponse } | { failure: Failure }) & {
	attempts: number;
	announcedMs: number;
	gaveUp?: GaveUp;
};

export interface RetryPolicy extends Pick<ApiRequest, 'repeatable' | 'noRetryAdvice'> {
	settings: RequestSettings;
	limiter: Limiter;
	run: Run;
	log(text: string, meta: Record<string, unknown>): void;
}

/** The one attempt/retry loop: every attempt waits for its turn at the limiter, and tells it what the answer taught. */
export async function withRetries(
	send: () => Promise<RawResponse | Failure>,
	policy: RetryPolicy,
): Promise<Outcome> {
	const { settings, limiter, run } = policy;
	let waited = 0;
	let counted = 0;
	let rateLimited = 0;
	let announcedMs = 0;
	for (let attempt = 1; ; attempt++) {
		const announceLeft = Math.max(settings.maxRetryWait, ANNOUNCED_WAIT_MS) - announcedMs;
		const turn = await limiter.acquire(run, settings.maxRetryWait - waited, announceLeft);
		if (!turn.ok) {
			const { why, waitMs } = turn;
			const failure: Failure =
				why === 'stopped'
					? { kind: 'canceled', code: 'ECANCELED', sent: false, halted: run.stop.reason }
					: { kind: 'paused', code: 'HTTP 429', sent: false, waitMs, quota: why === 'quota' };
			return { failure, attempts: attempt - 1, announcedMs };
		}
		announcedMs += turn.announcedMs;
		const outcome = await send();
		const failure = 'kind' in outcome ? outcome : undefined;
		const res = failure ? undefined : (outcome as RawResponse);
		const quota = res && readQuota((name) => header(res.headers, name));
		const status = res?.statusCode ?? 0;
		const timedOut = failure?.kind === 'timeout';
		const verdict =
			VERDICTS[status] ?? (timedOut ? 'overloaded' : status && status < 400 ? 'ok' : 'neutral');
		const retryAfter = res && parseRetryAfter(header(res.headers, 'retry-after'));
		// a 429 whose quota headers say when the quota resets is waited for as an announced reset, at the next turn
		const announced = status === 429 && quota?.remaining === 0 && quota.resetAt > Date.now();
		const delay = announced ? 0 : Math.max(retryAfter ?? 0, backoff(settings.retryDelay, attempt));
		const done = failure ? FINAL.includes(failure.kind) : !RETRY_STATUSES.includes(status);
		// a 429, or a Retry-After on any answer, pauses every request to the service, not only this one
		const pauseMs = !done && (status === 429 || retryAfter !== undefined) ? delay : 0;
		limiter.release(run, turn.ticket, verdict, pauseMs, quota);
		const last = failure ? { failure } : { res: res! };
		if (done) return { ...last, attempts: attempt, announcedMs };

		if (status === 429 && settings.maxAttempts > 1) rateLimited++;
		else counted++;
		const tries = `gave up after ${attempt} attempt${attempt === 1 ? '' : 's'}`;
		const unsafe = status !== 429 && !(failure && !failure.sent) && !policy.repeatable;
		const text = unsafe
			? (policy.noRetryAdvice ?? DEFAULT_NO_RETRY_ADVICE)
			: counted >= settings.maxAttempts
				? tries
				: rateLimited >= MAX_RATE_LIMITED
					? `${tries}: refused ${rateLimited} times with HTTP 429`
					: delay > settings.maxRetryWait - waited
						? `${tries}: waiting ${Math.ceil(delay / 1000)} s more${retryAfter !== undefined ? ' (as Retry-After asked)' : ''} would pass the Max Retry Wait of ${Math.round(settings.maxRetryWait / 1000)} s`
						: undefined;
		if (text !== undefined)
			return { ...last, attempts: attempt, announcedMs, gaveUp: { unsafe, text } };

		const what = failure ? `${failure.code} (${failure.detail ?? failure.kind})` : `HTTP ${status}`;
		const which =
			status === 429 && settings.maxAttempts > 1
				? `retry (attempt ${attempt + 1}; 429s do not count toward Max Attempts)`
				: `retry ${counted} of ${settings.maxAttempts - 1}`;
		policy.log(`${which} in ${delay} ms after ${what}`, { attempt, delay });
		await wait(delay, run.stop);
		waited += delay;
	}
}
