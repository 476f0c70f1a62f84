import type { Gate, Signal } from './gate';
import { header } from './attempt';
import type { Stopper } from './stop';
import { backoff, parseRetryAfter, readQuota, wait } from './timing';
import type { Failure, RawResponse, RequestSettings, Stop } from './types';

const RETRY_STATUS = new Set([429, 502, 503, 504]);
/** Answers that say the service is overloaded: the gate halves its concurrency. */
const PUSHBACK_STATUS = new Set([429, 503, 504]);
/** Failures that no retry can mend. */
const FINAL_KINDS = new Set<Failure['kind']>(['tooLarge', 'redirect', 'canceled', 'paused']);
/**
 * Waits for a quota reset the service announced are not retries: they may last this long in all for one request (or
 * Max Retry Wait, when that is longer), enough for a window of a minute.
 */
export const ANNOUNCED_WAIT_MS = 120_000;

export interface RetryPolicy {
	settings: RequestSettings;
	/** Whether sending the request again is harmless (see ApiRequest.repeatable) */
	repeatable: boolean;
	/** Shown when a request that may have been acted on is not sent again */
	noRetryAdvice: string;
	gate: Gate;
	/** Stop, or the node stopping after a failed item: nothing more is sent */
	cancel?: Stopper;
	log(text: string, meta: Record<string, unknown>): void;
}

/** The last answer or failure, the attempts it took, and why retrying ended (when it did for a reason). */
export type Outcome =
	| { res: RawResponse; attempts: number; stop?: Stop }
	| { failure: Failure; attempts: number; stop?: Stop };

/**
 * The one attempt/retry loop, shared by API requests and image downloads. Every attempt passes the service's gate.
 * Retried, with exponential backoff and jitter or as long as Retry-After asks: 429 (always: the service did not act
 * on it), 502/503/504 and failures on the wire (only when the request is repeatable or surely was not received).
 * Never retried: an answer too large, a redirect that is not followed, a Stop. Bounded by Max Attempts (429s do not
 * count, unless Max Attempts is 1: the service did not act on them) and by Max Retry Wait (the time spent waiting
 * between attempts); a wait longer than what is left ends the retries at once.
 */
export async function withRetries(
	run: () => Promise<RawResponse | Failure>,
	policy: RetryPolicy,
): Promise<Outcome> {
	const { settings, gate } = policy;
	let waited = 0;
	/** Attempts that count toward Max Attempts: all but those refused with a 429 (unless Max Attempts is 1) */
	let counted = 0;
	let announced = Math.max(settings.maxRetryWait, ANNOUNCED_WAIT_MS);
	let replanned = false;
	for (let attempt = 1; ; attempt++) {
		const turn = await gate.acquire(settings.maxRetryWait - waited, announced, (text) =>
			policy.log(text, { attempt }),
		);
		if (!turn.ok) {
			const failure: Failure = policy.cancel?.aborted
				? {
						kind: 'canceled',
						code: 'ECANCELED',
						message:
							typeof policy.cancel.reason === 'string'
								? policy.cancel.reason
								: 'the execution was stopped',
						sent: false,
					}
				: {
						kind: 'paused',
						code: 'HTTP 429',
						message: turn.announced
							? `its rate-limit headers announce a reset in ${Math.ceil(turn.pauseMs / 1000)} s: longer than ${ANNOUNCED_WAIT_MS / 60_000} minutes`
							: `the service asked every request to wait ${Math.ceil(turn.pauseMs / 1000)} s more`,
						sent: false,
					};
			return { failure, attempts: attempt - 1 };
		}
		announced -= turn.announcedMs;
		const outcome = await run();
		const failure = 'kind' in outcome ? outcome : undefined;
		const res = failure ? undefined : (outcome as RawResponse);
		const quota = res && readQuota((name) => header(res.headers, name));

		let retryable: boolean;
		let retryAfter: number | undefined;
		let signal: Signal = 'neutral';
		if (failure) {
			if (FINAL_KINDS.has(failure.kind)) {
				gate.release('neutral', undefined, false, turn.ticket, quota);
				return { failure, attempts: attempt };
			}
			retryable = !failure.sent || policy.repeatable;
			if (failure.kind === 'timeout') signal = 'pushback';
		} else if (RETRY_STATUS.has(res!.statusCode)) {
			retryable = res!.statusCode === 429 || policy.repeatable;
			retryAfter = parseRetryAfter(header(res!.headers, 'retry-after'));
			if (PUSHBACK_STATUS.has(res!.statusCode)) signal = 'pushback';
		} else {
			gate.release(res!.statusCode < 400 ? 'ok' : 'neutral', undefined, false, turn.ticket, quota);
			return { res: res!, attempts: attempt };
		}

		const rateLimited = res?.statusCode === 429;
		// a refusal that announces when the quota resets is waited for as the quota's wait, in the next turn (once)
		const planned: boolean =
			!replanned && rateLimited && quota?.remaining === 0 && quota.resetAt > Date.now();
		replanned ||= planned;
		const delay = planned ? 0 : (retryAfter ?? backoff(settings.retryDelay, attempt));
		// the service did not act on a 429: it waits its turn (bounded by Max Retry Wait) instead of using up attempts
		if (!rateLimited || settings.maxAttempts <= 1) counted++;
		// A 429, or a Retry-After on any answer, pauses every request of the run, not only this one.
		gate.release(
			signal,
			!planned && (rateLimited || retryAfter !== undefined) ? delay : undefined,
			rateLimited,
			turn.ticket,
			quota,
		);

		const left = settings.maxRetryWait - waited;
		const tries = `gave up after ${attempt} attempt${attempt === 1 ? '' : 's'}`;
		let stop: Stop | undefined;
		if (!retryable) {
			stop = { unsafe: true, text: policy.noRetryAdvice };
		} else if (counted >= settings.maxAttempts) {
			stop = { unsafe: false, text: tries };
		} else if (delay > left) {
			const asked = retryAfter !== undefined ? ' (as Retry-After asked)' : '';
			stop = {
				unsafe: false,
				text: `${tries}: waiting ${Math.ceil(delay / 1000)} s more${asked} would pass the Max Retry Wait of ${Math.round(settings.maxRetryWait / 1000)} s`,
			};
		}
		if (stop)
			return failure
				? { failure, attempts: attempt, stop }
				: { res: res!, attempts: attempt, stop };

		const what = failure ? `${failure.code} (${failure.message})` : `HTTP ${res!.statusCode}`;
		const which =
			rateLimited && settings.maxAttempts > 1
				? `retry (attempt ${attempt + 1}; 429s do not count toward Max Attempts)`
				: `retry ${counted} of ${settings.maxAttempts - 1}`;
		policy.log(`${which} in ${delay} ms after ${what}`, {
			attempt,
			delay,
		});
		await wait(delay, policy.cancel);
		waited += delay;
	}
}
