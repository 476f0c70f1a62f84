import type { IDataObject, IHttpRequestMethods } from 'n8n-workflow';

import type { Service } from './services';
import type { Stopper } from './stop';

/** How one node call talks to a service: time limit, size limit and retry budget. */
export interface RequestSettings {
	/** Time limit of one whole attempt (connecting, headers and the full body), in milliseconds */
	timeout: number;
	/** Attempts in all, the first one included (1 = never retry) */
	maxAttempts: number;
	/** First backoff delay in milliseconds; doubled on each retry, with jitter */
	retryDelay: number;
	/** Most time spent waiting between attempts, in milliseconds */
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
	 * Whether sending the request twice is harmless. GETs are; a POST that fires an automation is only when it
	 * carries an idempotency key. A request that is not repeatable is retried only when it certainly did not
	 * reach the service (connection refused, DNS failure, 429).
	 */
	repeatable: boolean;
	/** For a request that is not repeatable: why it was not retried and how to make retries safe (shown to the user). */
	noRetryAdvice?: string;
	/** Whether a 2xx answer that is not JSON is a success (its text in `ApiResponse.text`) rather than an error */
	acceptText?: boolean;
}

export interface ApiResponse {
	/** The envelope's `data`, or the whole body when the service sent no envelope */
	data: unknown;
	/** The envelope's `message`, when there was one */
	message?: string;
	/** A 2xx answer that is not JSON, for a request with `acceptText`; `cut` when only its beginning is here */
	text?: string;
	cut?: boolean;
	statusCode: number;
	headers: IDataObject;
	/** Attempts it took */
	attempts: number;
}

/** One answer as it came off the wire: the body is the decoded bytes, read in full and within the size limit. */
export interface RawResponse {
	statusCode: number;
	headers: IDataObject;
	body: Buffer;
	/** The address that answered (after same-origin redirects) */
	url: string;
	/** The body parsed as JSON, when it was JSON (parsed once, where the transfer is checked for completeness) */
	json?: { value: unknown };
	/** The body is the first `maxBytes` of a larger 2xx answer (see AttemptSpec.cutOff) */
	cut?: boolean;
}

/** Why a redirect was not followed. */
export type RedirectProblem = 'otherOrigin' | 'notAddress' | 'dropsBody' | 'loop' | 'tooMany';

/**
 * What went wrong, as data: one function words it (errors.ts), for the nodes, image downloads and the credential
 * Test alike. `sent` tells whether the request may have reached the service.
 * - `network`: no usable answer (refused, reset, DNS…), `detail` as the network library said it.
 * - `timeout`: the whole attempt did not finish within `timeoutMs`.
 * - `broken`: the answer stopped halfway (connection dropped mid-body, or a 2xx whose JSON is cut off).
 * - `tooLarge`: the decoded answer passed `limit` bytes. Never retried.
 * - `redirect`: a redirect to `location` not followed, for `redirect`'s reason. Never retried.
 * - `canceled`: Stop, or (`halted`) the node stopping after another item failed. Never retried.
 * - `paused`: the service asked every request to wait `waitMs` (`quota`: its quota resets then), longer than allowed.
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
