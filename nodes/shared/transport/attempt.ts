import type { IDataObject, IHttpRequestMethods, IHttpRequestOptions } from 'n8n-workflow';

import { cut, redactKey } from './redaction';
import { MAX_REDIRECTS, REDIRECT_STATUS, redirectedMethod, resolveLocation } from './origin';
import { ENDED, Stopper, wait } from './timing';
import type { ApiRequest, Failure, RawResponse, RedirectProblem } from './types';

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
	cancel?: Stopper;
}

const ABORTED = Symbol('aborted');

/** What n8n's helper returns with returnFullResponse and a stream body. */
type WireAnswer = { statusCode: number; headers?: IDataObject; body?: unknown };

/**
 * One attempt, bounded in time and size: resolves to the answer or to what went wrong, never rejects. Its deadline
 * reaches n8n's HTTP client through `abortSignal` where n8n passes it on; else a late answer is thrown away.
 */
export async function attempt(send: Sender, spec: AttemptSpec): Promise<RawResponse | Failure> {
	const controller = new AbortController();
	// the attempt's end as seen here (lighter than listening on the signal, which is for n8n's client)
	const ending = new Stopper();
	const aborted = new Promise<typeof ABORTED>((done) => ending.subscribe(() => done(ABORTED)));
	let reason: Failure | undefined;
	const abortReason = () => reason ?? canceled();
	const end = (failure: Failure) => {
		if (ending.aborted) return;
		reason = failure;
		ending.stop();
		controller.abort(ENDED);
	};
	let answered = false;
	const unsubscribe = spec.cancel?.subscribe(() => end(canceled()));
	const timer = new Stopper();
	void wait(spec.timeout, timer).then(() => {
		if (!timer.aborted)
			end({ kind: 'timeout', code: 'ETIMEDOUT', sent: true, timeoutMs: spec.timeout });
	});

	try {
		let { url, method, qs, body } = spec;
		let seen: Set<string> | undefined; // addresses visited, once redirected
		for (let hop = 0; ; hop++) {
			const pending = send({
				url,
				method,
				qs,
				body,
				headers: spec.headers,
				encoding: 'stream',
				json: false,
				returnFullResponse: true,
				ignoreHttpStatusErrors: true,
				disableFollowRedirect: spec.redirects.follow === 'origin',
				timeout: spec.timeout,
				abortSignal: controller.signal,
			});
			const answer = await Promise.race([aborted, pending as Promise<WireAnswer>]).catch(
				(error: unknown) => reason ?? (spec.cancel?.aborted ? canceled() : networkFailure(error)),
			);
			if (answer === ABORTED) {
				pending.then(
					(late) => discard((late as WireAnswer)?.body),
					() => undefined,
				);
				return abortReason();
			}
			if ('kind' in answer) return answer;
			const status = answer.statusCode;
			const headers = answer.headers ?? {};
			const location = header(headers, 'location');
			if (spec.redirects.follow === 'origin' && REDIRECT_STATUS.has(status) && location) {
				discard(answer.body);
				const next = resolveLocation(location, url);
				const nextMethod = next && (redirectedMethod(status, method) as IHttpRequestMethods);
				const problems: Array<[RedirectProblem, unknown]> = [
					['notAddress', !next],
					['otherOrigin', next?.origin !== spec.redirects.origin],
					['dropsBody', !nextMethod],
					['loop', next?.href === spec.url || seen?.has(next?.href ?? '')],
					['tooMany', hop >= MAX_REDIRECTS],
				];
				const redirect = problems.find(([, found]) => found)?.[0];
				if (redirect)
					return {
						kind: 'redirect',
						code: `HTTP ${status}`,
						sent: true,
						location: next?.href ?? location.slice(0, 2000),
						redirect,
						method,
					};
				(seen ??= new Set()).add(next!.href);
				if (nextMethod !== method) body = undefined;
				method = nextMethod!;
				url = next!.href;
				qs = undefined;
				continue;
			}
			const declared = Number(header(headers, 'content-length'));
			const cutOff = spec.cutOff === true && status >= 200 && status < 300;
			if (!cutOff && !header(headers, 'content-encoding') && declared > spec.maxBytes) {
				discard(answer.body);
				return tooLarge(spec.maxBytes);
			}
			try {
				const read = await readBody(answer.body, spec.maxBytes, ending, abortReason, cutOff);
				if ('kind' in read) return read;
				answered = true;
				return { statusCode: status, headers, url, ...read };
			} catch (error) {
				return networkFailure(error);
			}
		}
	} finally {
		unsubscribe?.();
		timer.stop();
		// an attempt that did not end with a whole answer also ends whatever n8n's client still does for it
		if (!answered) controller.abort(ENDED);
	}
}

export function header(headers: IDataObject, name: string): string | undefined {
	const value = headers[name] ?? headers[name.toLowerCase()] ?? undefined;
	return value === undefined ? undefined : String(Array.isArray(value) ? value[0] : value);
}

const canceled = (): Failure => ({ kind: 'canceled', code: 'ECANCELED', sent: true });

/** Network failures that happen before a request is on the wire: always safe to repeat. */
const NOT_SENT_CODES = new Set(
	'ECONNREFUSED ENOTFOUND EAI_AGAIN EHOSTUNREACH ENETUNREACH'.split(' '),
);

function networkFailure(error: unknown): Failure {
	const blocked = ssrfBlock(error);
	if (blocked) return { kind: 'blocked', code: 'SSRF', sent: false, detail: blocked };
	const e = error as IDataObject & { cause?: IDataObject & { cause?: IDataObject } };
	const code = String(e?.cause?.code ?? e?.cause?.cause?.code ?? e?.code ?? 'EUNKNOWN');
	const raw = String(e?.cause?.message ?? (e as unknown as Error)?.message ?? 'request failed');
	const detail = redactKey(cut(raw), '');
	const timeout = /timeout/i.test(detail) || code === 'ETIMEDOUT' || code === 'ECONNABORTED';
	return {
		kind: timeout ? 'timeout' : 'network',
		code: timeout && code === 'EUNKNOWN' ? 'ETIMEDOUT' : code.slice(0, 40),
		detail,
		// anything but a failure to connect (reset, timeout, broken pipe, unknown) may have reached the service
		sent: !NOT_SENT_CODES.has(code),
	};
}

/** The address n8n's SSRF protection refused, when that is what ended the request (it wraps its error in others) */
function ssrfBlock(error: unknown): string | undefined {
	let e = error as (IDataObject & { cause?: unknown }) | undefined;
	for (let depth = 0; e && typeof e === 'object' && depth < 5; depth++, e = e.cause as typeof e) {
		if (!/^Ssrf/.test(String(e.name ?? ''))) continue;
		const { hostname, ip } = e as { hostname?: string; ip?: string };
		const where = hostname && ip && hostname !== ip ? `${hostname} (${ip})` : (hostname ?? ip);
		return cut(where || 'that address', 300);
	}
	return undefined;
}

type Listener = (...args: unknown[]) => void;
/** n8n hands over axios' response stream */
type BodyStream = NodeJS.ReadableStream & { destroy(): unknown; readableEnded?: boolean };

const isBodyStream = (value: unknown): value is BodyStream =>
	typeof (value as BodyStream | null)?.on === 'function' &&
	typeof (value as BodyStream).destroy === 'function';

/**
 * Throws away an answer's body. n8n's client hands over a wrapper that reads the response only once it is read:
 * destroyed unread, the response would stay paused and keep its socket open, so one chunk is read first.
 */
function discard(body: unknown): void {
	if (!isBodyStream(body)) return;
	body.on('error', () => undefined);
	body.once('data', () => body.destroy());
	body.resume();
}

function tooLarge(limit: number): Failure {
	return { kind: 'tooLarge', code: 'ETOOLARGE', sent: true, limit };
}

/**
 * Reads a body, counting decoded bytes (n8n inflates gzip/deflate/br first): past `limit` it stops at once (`tooLarge`,
 * or with `cutOff` the first `limit` bytes), so an answer that inflates to gigabytes takes at most `limit` of memory.
 */
async function readBody(
	body: unknown,
	limit: number,
	stop: Stopper,
	abortReason: () => Failure,
	cutOff?: boolean,
): Promise<{ body: Buffer; cut?: true } | Failure> {
	if (Buffer.isBuffer(body)) return { body };
	if (typeof body === 'string') return { body: Buffer.from(body, 'utf8') };
	if (body === undefined || body === null) return { body: Buffer.alloc(0) };
	if (!isBodyStream(body)) return { body: Buffer.from(JSON.stringify(body), 'utf8') };
	const stream = body;
	return await new Promise((resolve) => {
		const chunks: Buffer[] = [];
		let size = 0;
		let settled = false;
		let unsubscribe: () => void = () => undefined;
		const finish = (failure?: Failure, cut?: true) => {
			if (settled) return;
			settled = true;
			for (const [event, listener] of listeners) stream.removeListener(event, listener);
			unsubscribe();
			if (failure || cut) stream.destroy();
			if (failure) return resolve(failure);
			resolve({ body: Buffer.concat(chunks, Math.min(size, limit)), ...(cut && { cut }) });
		};
		const onData = (chunk: unknown) => {
			const piece = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk), 'utf8');
			size += piece.length;
			if (size > limit && !cutOff) return finish(tooLarge(limit));
			chunks.push(piece.subarray(0, piece.length - Math.max(0, size - limit)));
			if (size > limit) finish(undefined, true);
		};
		// n8n may hand the attempt's signal to its HTTP client, which then destroys the stream first: the reason is
		// the deadline or Stop, not a broken transfer
		const fail = (error?: unknown) => finish(stop.aborted ? abortReason() : broken(error));
		const listeners: Array<[string, Listener]> = [
			['data', onData],
			['end', () => finish()],
			['error', fail],
			// 'close' without 'end': the connection went away mid-body
			['close', () => stream.readableEnded || fail()],
		];
		for (const [event, listener] of listeners) stream.on(event, listener);
		unsubscribe = stop.subscribe(() => finish(abortReason()));
	});
}

function broken(error: unknown): Failure {
	const e = error as { code?: unknown; message?: unknown } | undefined;
	const code = typeof e?.code === 'string' ? e.code.slice(0, 40) : 'ECONNRESET';
	const said = typeof e?.message === 'string' && e.message ? e.message.slice(0, 300) : '';
	return { kind: 'broken', code, sent: true, detail: said || 'the connection closed mid-answer' };
}
