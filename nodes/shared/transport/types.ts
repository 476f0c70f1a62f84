import type { IDataObject, IHttpRequestMethods } from 'n8n-workflow';

import type { Service } from './services';
import type { Stopper } from './stop';

/** How one node call talks to a service; times in milliseconds. */
export interface RequestSettings {
	/** Time limit of one whole attempt: connecting, headers and the full body */
	timeout: number;
	/** Attempts in all, the first one included (1 = never retry) */
	maxAttempts: number;
	/** First backoff delay; doubled on each retry, with jitter */
	retryDelay: number;
	maxRetryWait: number;
	/** Largest decoded answer accepted, in bytes */
	maxResponseBytes: number;
}

export interface ApiRequest {
	service: Service;
	method: IHttpRequestMethods;
	/** Path below the service's base address, e.g. `/tags` */
	path?: string;
	/** Absolute address on the service's own origin (a next-page link it handed out) */
	url?: string;
	qs?: IDataObject;
	body?: IDataObject | IDataObject[] | string;
	headers?: IDataObject;
	/**
	 * Whether sending the request twice is harmless (a POST only with an idempotency key). One that is not is
	 * retried only when it certainly did not reach the service (connection refused, DNS failure, 429).
	 */
	repeatable: boolean;
	/** Shown when a request that is not repeatable was not retried: why, and how to make retries safe */
	noRetryAdvice?: string;
	/** Whether a 2xx answer that is not JSON is a success (in `ApiResponse.text`) rather than an error */
	acceptText?: boolean;
}

export interface ApiResponse {
	/** The envelope's `data`, or the whole body when the service sent no envelope */
	data: unknown;
	message?: string;
	/** A 2xx answer that is not JSON, for `acceptText`; `cut` when only its beginning is here */
	text?: string;
	cut?: boolean;
	statusCode: number;
	headers: IDataObject;
	attempts: number;
}

/** One answer as it came off the wire: the decoded body, read in full and within the size limit. */
export interface RawResponse {
	statusCode: number;
	headers: IDataObject;
	body: Buffer;
	/** The address that answered (after same-origin redirects) */
	url: string;
	/** The body parsed as JSON, when it was JSON (parsed once, where the transfer is checked for completeness) */
	json?: { value: unknown };
	/** The body is the first `maxBytes` of a larger 2xx answer (AttemptSpec.cutOff) */
	cut?: boolean;
}

/** Why a redirect was not followed. */
export type RedirectProblem = 'otherOrigin' | 'notAddress' | 'dropsBody' | 'loop' | 'tooMany';

/**
 * What went wrong, as data, worded by errors.ts. `sent`: the request may have reached the service.
 * - `network`: no usable answer (refused, reset, DNS…); `timeout`: the attempt passed `timeoutMs`;
 * - `broken`: the answer stopped halfway (dropped mid-body, or a 2xx whose JSON is cut off);
 * - never retried: `tooLarge` (past `limit` bytes), `redirect` (to `location`, not followed for `redirect`'s reason),
 *   `canceled` (Stop, or `halted`: the node stopping after another item failed), `paused` (the service asked every
 *   request to wait `waitMs`, longer than allowed; `quota`: its quota resets then).
 */
export interface Failure {
	kind: 'network' | 'timeout' | 'broken' | 'tooLarge' | 'redirect' | 'canceled' | 'paused';
	code: string;
	sent: boolean;
	detail?: string;
	timeoutMs?: number;
	limit?: number;
	location?: string;
	redirect?: RedirectProblem;
	/** For `redirect`: the method of the request redirected */
	method?: string;
	halted?: string;
	waitMs?: number;
	quota?: boolean;
}

export class WireFailure extends Error {
	constructor(readonly failure: Failure) {
		super(failure.kind);
	}
}

/** How an answer bears on the service's capacity. */
export type Verdict = 'ok' | 'rateLimited' | 'overloaded' | 'neutral';

/** A request let through: when, at what level in flight, and its place in the order of sends. */
export interface Ticket {
	sentAt: number;
	level: number;
	seq: number;
}

/** One node run's side: its Concurrency cap, its requests in flight and waiting, and its Stop. */
export interface Run {
	readonly max: number;
	readonly stop: Stopper;
	inFlight: number;
	/** Requests waiting for a slot: called with true when given one, false when the run stopped */
	readonly queue: Array<(granted: boolean) => void>;
}

export type Turn =
	| { ok: true; ticket: Ticket; announcedMs: number }
	| { ok: false; why: 'stopped' | 'paused' | 'quota'; waitMs: number };
