import type { Stopper } from './stop';
import type { Failure } from './types';

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
export function discard(body: unknown): void {
	if (!isBodyStream(body)) return;
	body.on('error', () => undefined);
	body.once('data', () => body.destroy());
	body.resume();
}

export function tooLarge(limit: number): Failure {
	return { kind: 'tooLarge', code: 'ETOOLARGE', sent: true, limit };
}

/**
 * Reads a body, counting decoded bytes (n8n inflates gzip/deflate/br first): past `limit` it stops at once (`tooLarge`,
 * or with `cutOff` the first `limit` bytes), so an answer that inflates to gigabytes takes at most `limit` of memory.
 */
export async function readBody(
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
