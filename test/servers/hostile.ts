/**
 * Hostile answers for every test server (queued with `fail(...)`, or the persistent `redirectAlways` mode) and a
 * key catcher: a server on another port (another origin) that records whether the API key ever reached it.
 * The `Fault` type (common.ts) describes each. None is processed by the service (no trigger delivery); the request
 * records `fault` and, when the client hung up before a streamed answer ended, `clientGoneAt`.
 */
import type * as http from 'http';
import { Readable } from 'stream';
import * as zlib from 'zlib';

import type { BaseMode, Fault, RecordedRequest, RequestContext, TestServer } from './common';
import {
	DEFAULT_API_KEY,
	createTestServer,
	decode,
	failEnvelope,
	headerLines,
	sampleAnswer,
	send,
	success,
} from './common';

export type RedirectStatus = 301 | 302 | 303 | 307 | 308;

export interface RedirectFault {
	kind: 'redirect';
	status: RedirectStatus;
	/** Absolute URL, or a path on the same server */
	location: string;
	/** Append the request's query string (when the location has none), e.g. to move /object?q=x to /moved/object?q=x */
	keepQuery?: boolean;
}

const HOSTILE_KINDS = ['redirect', 'trickle', 'gzipBomb', 'oversized', 'halfBody'] as const;
export type HostileFault = Extract<Fault, { kind: (typeof HOSTILE_KINDS)[number] }>;

export function isHostileFault(fault: Fault): fault is HostileFault {
	return (HOSTILE_KINDS as readonly string[]).includes(fault.kind);
}

/** The fault of the `redirectAlways` mode for the n-th redirected request (`{n}` in the location becomes n). */
export function redirectFault(mode: Omit<RedirectFault, 'kind'>, n: number): RedirectFault {
	return { kind: 'redirect', ...mode, location: mode.location.split('{n}').join(String(n)) };
}

const JSON_TYPE = 'application/json; charset=utf-8';
export const GIB = 1024 * 1024 * 1024;
export const MIB = 1024 * 1024;
/** A success envelope whose one record's title goes on (trickle, gzip bomb) between these two. */
const ENDLESS_HEAD = '{"status":"success","data":{"info":{"pages":1},"records":[{"title":"';
const ENDLESS_TAIL = '"}]},"message":"OK"}';
export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Answers a request with a hostile fault; resolves when the answer is over (sent, or the client went away). */
export async function hostileFault(
	fault: HostileFault,
	ctx: Pick<RequestContext<BaseMode>, 'url' | 'recorded'> & { res: http.ServerResponse },
): Promise<void> {
	const { res, recorded } = ctx;
	let selfDestroyed = false;
	const over = new Promise<void>((resolve) => {
		res.on('close', () => {
			if (!res.writableFinished && !selfDestroyed) recorded.clientGoneAt ??= Date.now();
			resolve();
		});
	});
	switch (fault.kind) {
		case 'redirect': {
			let location = fault.location;
			if (fault.keepQuery && !location.includes('?')) location += ctx.url.search;
			send(res, failEnvelope(fault.status, `Moved to ${location}`, { location }));
			break;
		}
		case 'trickle': {
			res.writeHead(200, { 'content-type': JSON_TYPE, 'cache-control': 'no-store' });
			res.flushHeaders();
			res.write(ENDLESS_HEAD);
			const started = Date.now();
			const cap = fault.maxMs ?? 120_000;
			const timer = setInterval(() => {
				if (Date.now() - started < cap) return void res.write('abcd');
				clearInterval(timer);
				res.end(ENDLESS_TAIL);
			}, fault.intervalMs);
			res.on('close', () => clearInterval(timer));
			break;
		}
		case 'gzipBomb': {
			const type = fault.contentType ?? JSON_TYPE;
			const body = await gzipBomb(
				fault.inflatedBytes ?? GIB,
				type.startsWith('image/') ? 'png' : 'json',
			);
			send(res, {
				status: 200,
				headers: { 'content-type': type, 'content-encoding': 'gzip' },
				body,
			});
			break;
		}
		case 'oversized': {
			const body = oversizedBody(fault.bytes, fault.data);
			res.writeHead(200, {
				'content-type': fault.contentType ?? JSON_TYPE,
				// headers sent without a content-length: Node sends the body chunked
				...(fault.chunked ? {} : { 'content-length': String(body.length) }),
			});
			res.end(body);
			break;
		}
		case 'halfBody': {
			const whole = Buffer.from(sampleAnswer);
			res.writeHead(200, { 'content-type': JSON_TYPE, 'content-length': String(whole.length) });
			res.write(whole.subarray(0, Math.floor(whole.length / 2)), () => {
				selfDestroyed = true;
				setTimeout(() => res.socket?.destroy(), 10);
			});
			break;
		}
	}
	await over;
}

const oversizedCache = new Map<string, Buffer>();
/** `{"status":"success","data":DATA,"message":"OK","padding":"xxx…"}` of `bytes` bytes (at least the envelope). */
export function oversizedBody(bytes: number, data?: unknown): Buffer {
	const value = data ?? { info: { totalrecords: 0, pages: 0, page: 1 }, records: [] };
	const key = `${bytes}:${JSON.stringify(value)}`;
	let body = oversizedCache.get(key);
	if (!body) {
		const head = `{"status":"success","data":${JSON.stringify(value)},"message":"OK","padding":"`;
		const tail = '"}';
		const pad = Math.max(0, bytes - Buffer.byteLength(head) - tail.length);
		body = Buffer.alloc(Buffer.byteLength(head) + pad + tail.length, 'x');
		body.write(head, 0);
		body.write(tail, body.length - tail.length);
		if (oversizedCache.size > 8) oversizedCache.clear();
		oversizedCache.set(key, body);
	}
	return body;
}

const bombCache = new Map<string, Promise<Buffer>>();
/**
 * Gzip bytes that inflate to `inflatedBytes`: a JSON success envelope (or a PNG signature) whose string goes on
 * and on. Built by streaming one reused 1 MiB buffer through zlib.createGzip (the inflated data is never held), once
 * per size and kind; 1 GiB gzips to about 1 MiB.
 */
export function gzipBomb(inflatedBytes: number, kind: 'json' | 'png' = 'json'): Promise<Buffer> {
	const key = `${kind}:${inflatedBytes}`;
	let built = bombCache.get(key);
	if (!built) {
		built = buildBomb(inflatedBytes, kind);
		bombCache.set(key, built);
		built.catch(() => bombCache.delete(key));
	}
	return built;
}

async function buildBomb(inflatedBytes: number, kind: 'json' | 'png'): Promise<Buffer> {
	const head = kind === 'json' ? Buffer.from(ENDLESS_HEAD) : PNG_SIGNATURE;
	const tail = Buffer.from(kind === 'json' ? ENDLESS_TAIL : '');
	const filler = Buffer.alloc(MIB, kind === 'json' ? 'a' : 0);
	function* inflated() {
		yield head;
		for (let left = inflatedBytes - head.length - tail.length; left > 0; left -= MIB)
			yield left >= MIB ? filler : filler.subarray(0, left);
		yield tail;
	}
	const out: Buffer[] = [];
	for await (const chunk of Readable.from(inflated()).pipe(
		zlib.createGzip({ level: 9, memLevel: 9 }),
	))
		out.push(chunk as Buffer);
	return Buffer.concat(out);
}

// ---------------------------------------------------------------------------------------------------------------
// Key catcher

/** A 1x1 PNG (what the key catcher serves for image paths). */
export const TINY_PNG = Buffer.from(
	'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC',
	'base64',
);

export interface CaughtRequest extends RecordedRequest {
	/** It carried an Authorization header, or the key text somewhere (headers, URL, body). */
	hadKey: boolean;
}

export interface KeyCatcher extends TestServer {
	requests: CaughtRequest[];
	/** Requests that carried the key (see CaughtRequest.hadKey). */
	readonly sawKey: number;
}

/**
 * A server on its own port (another origin than every service) that records every request and whether it carried
 * the API key. It answers 200 with `{"status":"success","data":{"info":{"pages":0},"records":[]},"message":"OK"}`,
 * or a PNG for paths ending in .png/.jpg/.jpeg (or with ?image). `apiKey`: the key text to look for.
 */
export async function startKeyCatcher(options: { apiKey?: string } = {}): Promise<KeyCatcher> {
	const apiKey = options.apiKey ?? DEFAULT_API_KEY;
	const server = await createTestServer<BaseMode>({
		requireKey: false,
		handle({ req, url, recorded }) {
			const raw = req.url ?? '';
			const seen = [...headerLines(recorded.headers), raw, decode(raw), recorded.body].join('\n');
			(recorded as CaughtRequest).hadKey =
				recorded.headers.authorization !== undefined || seen.includes(apiKey);
			return /\.(png|jpe?g)$/i.test(url.pathname) || url.searchParams.has('image')
				? { status: 200, headers: { 'content-type': 'image/png' }, body: TINY_PNG }
				: success({ info: { pages: 0 }, records: [] });
		},
	});
	return Object.defineProperty(server, 'sawKey', {
		get: () => server.requests.filter((r) => (r as CaughtRequest).hadKey).length,
		enumerable: true,
	}) as KeyCatcher;
}
