import type { IDataObject } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { cut, redactKey } from './redaction';
import { redirectTarget } from './origin';
import type { AttemptSpec, Failure, RawResponse, Sender, Stop } from './types';

/** Stop, fanned out: one listener on n8n's signal (which warns past 10), any number of waiters here. */
export class Stopper {
	private readonly listeners = new Set<() => void>();
	/** Why it stopped, when it was told (e.g. "not sent: an earlier item failed") */
	reason?: string;
	aborted = false;

	constructor(signal?: AbortSignal | Stop) {
		const stop = () => this.stop(typeof signal?.reason === 'string' ? signal.reason : undefined);
		if (signal && 'subscribe' in signal) signal.subscribe(stop);
		else if (signal?.aborted) stop();
		else signal?.addEventListener('abort', stop, { once: true });
	}

	stop(reason?: string): void {
		if (this.aborted) return;
		[this.aborted, this.reason] = [true, reason];
		const listeners = [...this.listeners];
		this.listeners.clear();
		for (const listener of listeners) listener();
	}

	subscribe(listener: () => void): () => void {
		if (this.aborted) listener();
		else this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}
}

/** The reason given when a wait or an attempt ends early: one shared Error, not a stack trace built per abort. */
const ENDED = new Error('ended');

/** Waits `wanted` ms or until `stop`, never rejects; n8n's `sleep` (no timers in nodes), on 2.x cleared at `stop` */
export async function wait(wanted: number, stop?: Stop): Promise<void> {
	if (!(wanted > 0)) return;
	const ms = Math.min(wanted, 2 ** 31 - 1); // a longer Node.js timer fires at once
	if (!stop) return await sleep(ms);
	if (stop.aborted) return;
	const controller = new AbortController();
	let unsubscribe: () => void = () => undefined;
	const stopped = new Promise<void>((resolve) => (unsubscribe = stop.subscribe(resolve)));
	const sleepWithSignal = sleep as (ms: number, signal?: AbortSignal) => Promise<void>;
	await Promise.race([sleepWithSignal(ms, controller.signal).catch(() => undefined), stopped]);
	unsubscribe();
	controller.abort(ENDED);
}

/** The deadlines of the attempts under way, watched by one timer at the earliest: one each costs more than a request */
const deadlines = new Map<() => void, number>();
let armed: { at: number; stop: Stopper } | undefined;

/** Calls `end` at `at` unless the function returned is called first. */
function deadline(at: number, end: () => void): () => void {
	deadlines.set(end, at);
	if (!armed || at < armed.at) arm(at);
	return () => {
		if (deadlines.delete(end) && !deadlines.size) arm(Infinity);
	};
}

/** Sets the one timer to `at` (Infinity: none); when it fires, the attempts past their deadline end. */
function arm(at: number): void {
	armed?.stop.stop();
	const mine = (armed = at < Infinity ? { at, stop: new Stopper() } : undefined);
	if (!mine) return;
	void wait(at - Date.now(), mine.stop).then(() => {
		if (armed !== mine) return;
		const now = Date.now();
		const due = [...deadlines].filter(([, when]) => when <= now);
		for (const [end] of due) deadlines.delete(end);
		arm([...deadlines.values()].reduce((a, b) => Math.min(a, b), Infinity));
		for (const [end] of due) end();
	});
}

const ABORTED = Symbol('aborted');

/** What n8n's helper returns with returnFullResponse and a stream body. */
type WireAnswer = { statusCode: number; headers?: IDataObject; body?: unknown };

/** One attempt, bounded in time and size: the answer or what went wrong, never a rejection; a late answer is dropped */
export async function attempt(send: Sender, spec: AttemptSpec): Promise<RawResponse | Failure> {
	const controller = new AbortController();
	// the attempt's end as seen here (lighter than listening on the signal, which is for n8n's client)
	const ending = new Stopper();
	const aborted = new Promise<typeof ABORTED>((done) => ending.subscribe(() => done(ABORTED)));
	let reason: Failure | undefined;
	const abortReason = () => reason ?? canceled();
	const end = (failure: Failure) => {
		reason ??= failure;
		ending.stop();
		controller.abort(ENDED);
	};
	let answered = false;
	const unsubscribe = spec.cancel?.subscribe(() => end(canceled()));
	const timedOut = () =>
		end({ kind: 'timeout', code: 'ETIMEDOUT', sent: true, timeoutMs: spec.timeout });
	const intime = deadline(Date.now() + spec.timeout, timedOut);

	try {
		let { url, method, qs, body } = spec;
		const seen = new Set([url]); // addresses visited
		const origin = spec.redirects.follow === 'origin' ? spec.redirects.origin : undefined;
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
			}) as Promise<WireAnswer>;
			const answer = await Promise.race([aborted, pending]).catch(
				(error: unknown) => reason ?? (spec.cancel?.aborted ? canceled() : networkFailure(error)),
			);
			if (answer === ABORTED) {
				pending.then((late) => discard(late?.body)).catch(() => undefined);
				return abortReason();
			}
			if ('kind' in answer) return answer;
			const { statusCode: status, headers = {} } = answer;
			const location = header(headers, 'location');
			const next =
				location && origin && redirectTarget(status, location, { url, method, hop, seen, origin });
			if (next) {
				discard(answer.body);
				if ('kind' in next) return next;
				if (next.method !== method) body = undefined;
				({ url, method } = next);
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
				return { statusCode: status, headers, ...read };
			} catch (error) {
				return networkFailure(error);
			}
		}
	} finally {
		unsubscribe?.();
		intime();
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
	const detail = redactKey(cut(String(e?.cause?.message ?? e?.message ?? 'request failed')), '');
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

/** n8n hands over axios' response stream */
type BodyStream = NodeJS.ReadableStream & { destroy(): unknown; readableEnded?: boolean };

const isBodyStream = (value: unknown): value is BodyStream =>
	typeof (value as BodyStream | null)?.on === 'function' &&
	typeof (value as BodyStream).destroy === 'function';

/** Throws away a body. Destroyed unread, n8n's wrapper would keep the socket open: one chunk is read first. */
function discard(body: unknown): void {
	if (!isBodyStream(body)) return;
	body.on('error', () => undefined);
	body.once('data', () => body.destroy());
	body.resume();
}

function tooLarge(limit: number): Failure {
	return { kind: 'tooLarge', code: 'ETOOLARGE', sent: true, limit };
}

/** Reads a body by decoded bytes; past `limit` it stops at once (`tooLarge`, or with `cutOff` the first `limit`) */
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
	return await new Promise((resolve) => {
		const chunks: Buffer[] = [];
		let size = 0;
		let unsubscribe: () => void = () => undefined;
		// called once: it takes away every way of being called again
		const finish = (failure?: Failure, cut?: true) => {
			for (const [event, listener] of listeners) body.removeListener(event, listener);
			unsubscribe();
			if (failure || cut) body.destroy();
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
		// n8n's client may destroy the stream first at the deadline or Stop: then that is the reason, not a broken transfer
		const fail = (error?: unknown) => finish(stop.aborted ? abortReason() : broken(error));
		const listeners: Array<[string, (...args: unknown[]) => void]> = [
			['data', onData],
			['end', () => finish()],
			['error', fail],
			// 'close' without 'end': the connection went away mid-body
			['close', () => body.readableEnded || fail()],
		];
		for (const [event, listener] of listeners) body.on(event, listener);
		unsubscribe = stop.subscribe(() => finish(abortReason()));
	});
}

function broken(error: unknown): Failure {
	const e = error as { code?: unknown; message?: unknown } | undefined;
	const code = typeof e?.code === 'string' ? e.code.slice(0, 40) : 'ECONNRESET';
	const said = typeof e?.message === 'string' && e.message ? e.message.slice(0, 300) : '';
	return { kind: 'broken', code, sent: true, detail: said || 'the connection closed mid-answer' };
}
