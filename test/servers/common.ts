/**
 * Shared machinery for the loopback HTTP test servers: request recording, queued faults,
 * persistent modes, Bearer auth, JSON helpers and clean shutdown.
 */
import * as fs from 'fs';
import * as http from 'http';
import * as path from 'path';
import type { AddressInfo } from 'net';
import { Limiter, RateLimit, Verdict } from './ratelimit';
import { RedirectFault, hostileFault, isHostileFault, redirectFault } from './hostile';

export interface RecordedRequest {
	method: string;
	path: string;
	query: Record<string, string | string[]>;
	headers: Record<string, string | string[] | undefined>;
	body: string;
	json?: unknown;
	at: number;
	/** Refused by the `rateLimit` mode (answered 429, not processed). */
	rateLimited?: true;
	/** The queued fault (or persistent `redirectAlways`) this request got, if any. */
	fault?: Fault['kind'];
	/** When the client closed the connection before a streamed hostile answer (trickle, oversized...) ended. */
	clientGoneAt?: number;
}

export type Fault =
	| {
			kind: 'status';
			status: number;
			retryAfter?: string;
			body?: string | object;
			contentType?: string;
	  }
	| { kind: 'html'; status: number }
	| { kind: 'truncated' }
	| { kind: 'notJson' }
	| { kind: 'envelope'; status?: number; envStatus: 'fail' | 'error'; message: string }
	| { kind: 'slow'; ms: number }
	| { kind: 'reset' }
	| { kind: 'echoHeaders'; status?: number }
	// Hostile answers (test/servers/hostile.ts); none of them is processed (no trigger delivery).
	/** A redirect to `location` (absolute, or a path on this server); `keepQuery` appends the request's query. */
	| RedirectFault
	/** 200 + JSON headers at once, then a never-ending JSON string, a few bytes every intervalMs (cap maxMs, default 120 s). */
	| { kind: 'trickle'; intervalMs: number; maxMs?: number }
	/** content-encoding gzip: a small body that inflates to inflatedBytes (default 1 GiB), starting like a success envelope. */
	| { kind: 'gzipBomb'; inflatedBytes?: number; contentType?: string }
	/** A valid JSON 200 answer of about `bytes` (`data` default {info, records: []}), with content-length or chunked. */
	| { kind: 'oversized'; bytes: number; chunked?: boolean; data?: unknown; contentType?: string }
	/** content-length of a whole valid JSON answer, half of it sent, then the socket destroyed. */
	| { kind: 'halfBody' };

export interface BaseMode {
	/** Every request gets 401, whatever key it carries. */
	unauthorizedAlways: boolean;
	/** Hold every answer this long (after the request has been processed). */
	delayMs: number;
	/**
	 * Vary the hold as real services' latency varies: log-normal with `delayMs` as its median and σ `sigma` (0.7: a
	 * tenth of the answers under 0.4 × `delayMs`, a tenth over 2.5 ×). Set again, the same seed gives the same series.
	 */
	delaySpread?: { sigma: number; seed: number };
	/** Every request gets the `echoHeaders` error envelope. */
	echoHeaders: boolean;
	/** Hold each request (delayMs, or 50 ms when delayMs is 0) so `maxInFlight` shows client concurrency. */
	concurrencyProbe: boolean;
	/**
	 * A limiter (ratelimit.ts), checked before anything else: a refused request is answered 429 with Retry-After (503
	 * for the in-flight cap) and not processed; its quota headers go on every answer. A new object restarts it.
	 */
	rateLimit?: RateLimit;
	/**
	 * Every request (without a queued fault) is redirected: `{n}` in the location is replaced by a running number
	 * (endless distinct hops); a fixed location to the same path makes a loop.
	 */
	redirectAlways?: Omit<RedirectFault, 'kind'>;
}

export interface TestServer<M extends BaseMode = BaseMode> {
	/** http://127.0.0.1:<port>, no trailing slash */
	url: string;
	requests: RecordedRequest[];
	faults: Fault[];
	/** Queue faults for the next requests, one per request. */
	fail(...f: Fault[]): void;
	setMode(m: Partial<M>): void;
	readonly mode: Readonly<M>;
	/** Highest number of requests that were being handled at the same time. */
	readonly maxInFlight: number;
	/** Requests refused by the `rateLimit` mode (they are also in `requests`, flagged `rateLimited`). */
	readonly rateLimited: number;
	/** Clear requests, faults, modes (and service state such as deliveries). */
	reset(): void;
	close(): Promise<void>;
}

export interface Reply {
	status: number;
	headers?: Record<string, string>;
	body: string | Buffer;
}

/** Throw from a handler to answer `{status:'fail', data:null, message}` with this status. */
export class HttpError extends Error {
	constructor(
		readonly status: number,
		message: string,
		readonly headers?: Record<string, string>,
	) {
		super(message);
	}
}

export interface RequestContext<M extends BaseMode> {
	req: http.IncomingMessage;
	url: URL;
	recorded: RecordedRequest;
	mode: M;
	/** Base URL of this server (for absolute links). */
	baseUrl: string;
}

export interface ServerSetup<M extends BaseMode> {
	apiKey?: string;
	/** Is a valid `Authorization: Bearer <apiKey>` needed? */
	requireKey: boolean;
	/** Service-specific mode defaults (merged over the base defaults). */
	modeDefaults?: Omit<M, keyof BaseMode>;
	handle(ctx: RequestContext<M>): Reply | Promise<Reply>;
	/** Clear service state on reset(). */
	onReset?(): void;
}

export const DEFAULT_API_KEY = 'test-key-123';

export function json(status: number, value: unknown, headers: Record<string, string> = {}): Reply {
	return {
		status,
		headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
		body: JSON.stringify(value),
	};
}

export function text(
	status: number,
	body: string,
	contentType = 'text/plain; charset=utf-8',
): Reply {
	return { status, headers: { 'content-type': contentType }, body };
}

export const success = (data: unknown, message = 'OK'): Reply =>
	json(200, { status: 'success', data, message });

export const failEnvelope = (
	status: number,
	message: string,
	headers?: Record<string, string>,
): Reply =>
	json(status, { status: status >= 500 ? 'error' : 'fail', data: null, message }, headers);

/** A two-record success envelope, for answers that are cut short. */
export const sampleAnswer = JSON.stringify({
	status: 'success',
	data: {
		info: { totalrecords: 2, pages: 1, page: 1 },
		records: [
			{ objectid: 1, title: 'Landscape with a River at Dusk' },
			{ objectid: 2, title: 'Portrait of a Woman Reading' },
		],
	},
	message: 'OK',
});

/** decodeURIComponent, or undefined for text that is not valid URL encoding. */
export function decode(text: string): string | undefined {
	try {
		return decodeURIComponent(text);
	} catch {
		return undefined;
	}
}

/** The headers as "name: value" lines. */
export const headerLines = (headers: RecordedRequest['headers']) =>
	Object.entries(headers).map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(', ') : v}`);

/** First value of a query parameter. */
export function one(query: Record<string, string | string[]>, name: string): string | undefined {
	const v = query[name];
	return Array.isArray(v) ? v[0] : v;
}

/** Parse an optional positive integer (string from a query or number from a JSON body). Throws 400 when invalid. */
export function positiveInt(value: unknown, name: string): number | undefined {
	if (value === undefined || value === null || value === '') return undefined;
	const n =
		typeof value === 'number'
			? value
			: typeof value === 'string' && /^\s*\d+\s*$/.test(value)
				? Number(value)
				: NaN;
	if (!Number.isSafeInteger(n) || n < 1)
		throw new HttpError(400, `${name} must be a positive integer`);
	return n;
}

export function parseQuery(params: URLSearchParams): Record<string, string | string[]> {
	const out: Record<string, string | string[]> = {};
	for (const [k, v] of params) {
		const prev = out[k];
		out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
	}
	return out;
}

export function readBody(req: http.IncomingMessage): Promise<string> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
		req.on('error', reject);
	});
}

export function hasValidBearer(headers: http.IncomingHttpHeaders, apiKey: string): boolean {
	const m = /^Bearer\s+(.+)$/i.exec(headers.authorization ?? '');
	return !!m && m[1].trim() === apiKey;
}

function faultReply(fault: Fault | undefined, recorded: RecordedRequest): Reply | undefined {
	switch (fault?.kind) {
		case 'status': {
			const headers: Record<string, string> =
				fault.retryAfter !== undefined ? { 'retry-after': fault.retryAfter } : {};
			if (fault.body === undefined) {
				const message =
					fault.status === 429 ? 'Too many requests' : (http.STATUS_CODES[fault.status] ?? 'Error');
				return failEnvelope(fault.status, message, headers);
			}
			const body = typeof fault.body === 'string' ? fault.body : JSON.stringify(fault.body);
			const type =
				fault.contentType ??
				(typeof fault.body === 'string' && parseJson(body) === undefined
					? 'text/plain; charset=utf-8'
					: 'application/json; charset=utf-8');
			return { status: fault.status, headers: { ...headers, 'content-type': type }, body };
		}
		case 'html': {
			const title = `${fault.status} ${http.STATUS_CODES[fault.status] ?? 'Error'}`;
			return text(
				fault.status,
				`<!DOCTYPE html>\n<html><head><title>${title}</title></head><body>\n<center><h1>${title}</h1></center>\n<hr><center>nginx</center>\n</body></html>\n`,
				'text/html; charset=utf-8',
			);
		}
		case 'truncated':
			return {
				status: 200,
				headers: { 'content-type': 'application/json; charset=utf-8' },
				body: sampleAnswer.slice(0, Math.floor(sampleAnswer.length / 2)),
			};
		case 'notJson':
			return text(200, "Congratulations! You've fired the event");
		case 'envelope':
			return json(fault.status ?? 200, {
				status: fault.envStatus,
				data: null,
				message: fault.message,
			});
		case 'echoHeaders':
			return echoHeaders(fault.status ?? 400, recorded);
		default:
			return undefined; // none, slow, reset: processed normally
	}
}

function echoHeaders(status: number, recorded: RecordedRequest): Reply {
	return json(status, {
		status: status >= 500 ? 'error' : 'fail',
		data: null,
		message: `Request rejected; received headers: ${headerLines(recorded.headers).join('; ')}`,
		debug: { method: recorded.method, path: recorded.path, headers: recorded.headers },
	});
}

/** The JSON value of a text, or undefined when it is not JSON. */
function parseJson(text: string): unknown {
	try {
		return JSON.parse(text) as unknown;
	} catch {
		return undefined;
	}
}

/** Start a server on 127.0.0.1:0 that records every request and applies faults/modes before `setup.handle`. */
export async function createTestServer<M extends BaseMode>(
	setup: ServerSetup<M>,
): Promise<TestServer<M>> {
	const apiKey = setup.apiKey ?? DEFAULT_API_KEY;
	const defaults = {
		unauthorizedAlways: false,
		delayMs: 0,
		echoHeaders: false,
		concurrencyProbe: false,
		...setup.modeDefaults,
	} as M;
	const mode = { ...defaults };
	const requests: RecordedRequest[] = [];
	const faults: Fault[] = [];
	const timers = new Map<NodeJS.Timeout, () => void>();
	let inFlight = 0; // requests of the current epoch (reset() starts a new one) being handled
	let maxInFlight = 0;
	let rateLimited = 0;
	let redirects = 0;
	let limiter: Limiter | undefined;
	let epoch = 0;
	let baseUrl = '';

	const sleep = (ms: number) =>
		new Promise<void>((resolve) => {
			const t = setTimeout(() => {
				timers.delete(t);
				resolve();
			}, ms);
			timers.set(t, resolve);
		});

	let seed = 1;
	/** The network's latency for one answer: `delayMs`, or around it (`delaySpread`) */
	function latency(): number {
		if (!mode.delaySpread) return mode.delayMs;
		const uniform = () => {
			seed = (seed * 48271) % 2147483647; // Park-Miller
			return seed / 2147483647;
		};
		const normal = Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
		return mode.delayMs * Math.exp(mode.delaySpread.sigma * normal);
	}

	function admit(): Verdict | undefined {
		if (!mode.rateLimit) return undefined;
		if (limiter?.spec !== mode.rateLimit) limiter = new Limiter(mode.rateLimit);
		return limiter.admit();
	}

	async function answer(req: http.IncomingMessage, res: http.ServerResponse, verdict?: Verdict) {
		const body = await readBody(req);
		const url = new URL(req.url ?? '/', baseUrl);
		const parsed = body.trim() ? parseJson(body) : undefined;
		const recorded: RecordedRequest = {
			method: req.method ?? 'GET',
			path: url.pathname,
			query: parseQuery(url.searchParams),
			headers: { ...req.headers },
			body,
			...(parsed !== undefined ? { json: parsed } : {}),
			at: Date.now(),
		};
		if (verdict?.status) {
			rateLimited++;
			requests.push({ ...recorded, rateLimited: true });
			// refused at arrival, answered as late as any answer (latency is the network's, not the handler's)
			if (mode.delayMs > 0) await sleep(latency());
			const message = verdict.status === 429 ? 'Too many requests' : 'Service unavailable';
			send(res, failEnvelope(verdict.status, message, verdict.headers));
			return;
		}
		requests.push(recorded);
		const fault = faults.shift();
		if (fault) recorded.fault = fault.kind;

		const hostile =
			fault && isHostileFault(fault)
				? fault
				: !fault && mode.redirectAlways
					? redirectFault(mode.redirectAlways, ++redirects)
					: undefined;
		if (hostile) {
			recorded.fault = hostile.kind;
			await hostileFault(hostile, { res, url, recorded });
			return;
		}

		let reply = faultReply(fault, recorded);
		if (!reply) {
			if (mode.echoHeaders) reply = echoHeaders(400, recorded);
			else if (
				mode.unauthorizedAlways ||
				(setup.requireKey && !hasValidBearer(req.headers, apiKey))
			)
				reply = failEnvelope(401, 'Invalid API key');
			else {
				try {
					reply = await setup.handle({ req, url, recorded, mode, baseUrl });
				} catch (err) {
					if (!(err instanceof HttpError)) throw err;
					reply = failEnvelope(err.status, err.message, err.headers);
				}
			}
		}
		// The request has been processed (side effects done); only now hold/drop the answer.
		const hold =
			(mode.delayMs ? latency() : mode.concurrencyProbe ? 50 : 0) +
			(fault?.kind === 'slow' ? fault.ms : 0);
		if (hold > 0) await sleep(hold);
		if (fault?.kind === 'reset') {
			if (!req.socket.destroyed) req.socket.resetAndDestroy(); // TCP RST: ECONNRESET at the client
			return;
		}
		send(res, verdict ? { ...reply, headers: { ...reply.headers, ...verdict.headers } } : reply);
	}

	const server = http.createServer((req, res) => {
		const started = epoch;
		maxInFlight = Math.max(maxInFlight, ++inFlight);
		const verdict = admit(); // at arrival, before anything else
		answer(req, res, verdict)
			.catch((err: unknown) => {
				if (!res.headersSent && !res.destroyed)
					send(res, failEnvelope(500, `test server error: ${String(err)}`));
				else res.destroy();
			})
			.finally(() => {
				verdict?.done();
				if (started === epoch) inFlight--;
			});
	});

	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => resolve());
	});
	baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

	return {
		url: baseUrl,
		requests,
		faults,
		fail: (...f: Fault[]) => void faults.push(...f),
		setMode: (m: Partial<M>) => {
			Object.assign(mode, m);
			if (m.delaySpread) seed = Math.max(1, Math.floor(m.delaySpread.seed) % 2147483647);
		},
		get mode() {
			return mode;
		},
		get maxInFlight() {
			return maxInFlight;
		},
		get rateLimited() {
			return rateLimited;
		},
		reset() {
			requests.length = 0;
			faults.length = 0;
			for (const k of Object.keys(mode)) delete (mode as Record<string, unknown>)[k];
			Object.assign(mode, defaults);
			epoch++;
			inFlight = 0;
			maxInFlight = 0;
			rateLimited = 0;
			redirects = 0;
			limiter = undefined;
			forgetBudgets();
			setup.onReset?.();
		},
		close: () =>
			new Promise<void>((resolve) => {
				for (const [t, wake] of timers) {
					clearTimeout(t);
					wake();
				}
				timers.clear();
				server.close(() => resolve());
				server.closeAllConnections();
			}),
	};
}

const LIMITERS = path.resolve(__dirname, '../../dist/nodes/shared/transport/limiter.js');

/**
 * A reset service meets clients that know nothing of it: the budgets the nodes keep in this process (the same
 * module n8n loaded from dist/) are forgotten, as in a new n8n process.
 */
function forgetBudgets(): void {
	if (fs.existsSync(LIMITERS)) (require(LIMITERS) as { forgetLimiters(): void }).forgetLimiters();
}

export function send(res: http.ServerResponse, reply: Reply): void {
	if (res.destroyed || res.writableEnded) return;
	const body = typeof reply.body === 'string' ? Buffer.from(reply.body, 'utf8') : reply.body;
	res.writeHead(reply.status, { ...reply.headers, 'content-length': String(body.length) });
	res.end(body);
}
