import type { IDataObject, IHttpRequestMethods, IHttpRequestOptions } from 'n8n-workflow';

import type { Service } from '../services';

/** The node options of a call (times in ms); `maxAttempts` counts the first, `retryDelay` is the first backoff. */
export interface RequestSettings {
	timeout: number;
	maxAttempts: number;
	retryDelay: number;
	maxRetryWait: number;
	maxResponseBytes: number;
}

export interface ApiRequest {
	service: Service;
	method: IHttpRequestMethods;
	/** Below the service's base address, e.g. `/tags`; or `url`, a next-page link on its own origin */
	path?: string;
	url?: string;
	qs?: IDataObject;
	body?: IDataObject | IDataObject[] | string;
	headers?: IDataObject;
	/** Whether sending it twice is harmless; if not, it is retried only when it surely did not reach the service */
	repeatable: boolean;
	/** Shown when a request that is not repeatable was not retried: how to make retries safe */
	noRetryAdvice?: string;
	/** Whether a 2xx answer that is not JSON is a success (in `ApiResponse.text`) rather than an error */
	acceptText?: boolean;
}

export interface ApiResponse {
	/** The envelope's `data` (and `message`), or the whole body; `text`: a 2xx that is not JSON, maybe `cut` */
	data: unknown;
	message?: string;
	text?: string;
	cut?: boolean;
	statusCode: number;
}

/** One answer as it came off the wire: the decoded body, read in full and within the size limit. */
export interface RawResponse {
	statusCode: number;
	headers: IDataObject;
	body: Buffer;
	/** The body parsed as JSON, when it was JSON (by checkJson, which also checks the transfer is complete) */
	json?: { value: unknown };
	/** The body is the first `maxBytes` of a larger 2xx answer (AttemptSpec.cutOff) */
	cut?: boolean;
}

/**
 * What went wrong, as data, worded by errors.ts. `sent`: the request may have reached the service. `broken`: the
 * answer stopped halfway; never retried: `tooLarge`, `redirect`, `canceled` (Stop, or `halted`: the node stopping
 * after another item failed), `paused` (the service asked to wait `waitMs`; `quota`: its quota resets then),
 * `blocked` (n8n's SSRF protection refused the address, in `detail`).
 */
export interface Failure {
	kind:
		| 'network'
		| 'timeout'
		| 'broken'
		| 'tooLarge'
		| 'redirect'
		| 'canceled'
		| 'paused'
		| 'blocked';
	code: string;
	sent: boolean;
	detail?: string;
	timeoutMs?: number;
	/** The bound it met: the size limit (`tooLarge`), the most redirects followed (`redirect`) */
	limit?: number;
	location?: string;
	redirect?: 'otherOrigin' | 'notAddress' | 'dropsBody' | 'loop' | 'tooMany';
	method?: string;
	halted?: string;
	waitMs?: number;
	quota?: boolean;
}

/** Stop as its listeners see it (attempt.ts's Stopper): why, once told, and a way to hear of it. */
export interface Stop {
	readonly aborted: boolean;
	readonly reason?: string;
	subscribe(listener: () => void): () => void;
}

/** What a service's rate-limit headers say: requests left in its window, when that resets, and its size. */
export type Quota = { remaining: number; resetAt: number; limit?: number };

/** How an answer bears on the service's capacity. */
export type Verdict = 'ok' | 'rateLimited' | 'overloaded' | 'neutral';

/** A request let through: when, at what level in flight, and its place in the order of sends. */
export type Ticket = { sentAt: number; level: number; seq: number };

/** One node run's side: its Concurrency cap, its Stop, its requests in flight and those waiting for a slot. */
export interface Run {
	readonly max: number;
	readonly stop: Stop;
	inFlight: number;
	/** Called with true when given a slot, false when the run stopped */
	readonly queue: Array<(granted: boolean) => void>;
}

export type Turn =
	| { ok: true; ticket: Ticket; announcedMs: number }
	| { ok: false; why: 'stopped' | 'paused' | 'quota'; waitMs: number };

/** How a request is put on the wire: one of n8n's request helpers, with the key applied where it belongs. */
export type Sender = (options: IHttpRequestOptions) => Promise<unknown>;

export interface AttemptSpec extends Pick<ApiRequest, 'method' | 'qs' | 'body' | 'headers'> {
	url: string;
	/** `origin`: followed here, only to that origin (the key goes along); `any`: n8n follows them (images) */
	redirects: { follow: 'origin'; origin: string } | { follow: 'any' };
	/** Time limit of the whole attempt: connecting, every redirect hop, the headers and the full body */
	timeout: number;
	maxBytes: number;
	/** A larger 2xx answer is kept cut at `maxBytes` instead of refused: the service took the call (`acceptText`) */
	cutOff?: boolean;
	cancel?: Stop;
}
