/**
 * Trigger service: POST /trigger/ or POST /trigger/<event> with q/limit (query or JSON body; body wins).
 * Answers {status:"success", data:{event, id, received, q, limit, idempotencyKey?, duplicate}, message:"Fired <event>"}.
 * A repeated Idempotency-Key is not a new delivery and gets the first answer again with data.duplicate = true.
 */
import { randomUUID } from 'crypto';
import {
	BaseMode,
	HttpError,
	Reply,
	TestServer,
	createTestServer,
	decode,
	failEnvelope,
	one,
	positiveInt,
	success,
} from './common';

export interface Delivery {
	id: string;
	event: string;
	q: string | null;
	limit: number | null;
	query: Record<string, string | string[]>;
	/** Parsed JSON body, or null when there was none. */
	body: unknown;
	idempotencyKey?: string;
	at: number;
}

export interface TriggerServerOptions {
	apiKey?: string;
	/** Default true. */
	requireKey?: boolean;
}

export interface TriggerServer extends TestServer<BaseMode> {
	/** One entry per new delivery (also for `reset`/`slow` faults: the automation fired even though the client saw a failure). */
	deliveries: Delivery[];
}

const EVENT_RE = /^[A-Za-z0-9_.-]+$/;

export async function startTriggerServer(
	options: TriggerServerOptions = {},
): Promise<TriggerServer> {
	const deliveries: Delivery[] = [];
	const answered = new Map<string, Record<string, unknown>>(); // Idempotency-Key -> first answer's data

	const server = await createTestServer<BaseMode>({
		apiKey: options.apiKey,
		requireKey: options.requireKey ?? true,
		onReset: () => {
			deliveries.length = 0;
			answered.clear();
		},
		handle({ req, url, recorded }): Reply {
			const m = /^\/trigger(?:\/([^/]*))?\/?$/.exec(url.pathname);
			if (!m) return failEnvelope(404, `Not found: ${url.pathname}`);
			if (req.method !== 'POST')
				return failEnvelope(405, 'Method not allowed: use POST', { allow: 'POST' });
			const event = decode(m[1] ?? '');
			if (event === undefined) throw new HttpError(400, 'event is not valid URL encoding');
			if (event && !EVENT_RE.test(event))
				throw new HttpError(400, 'event may only contain letters, digits, "_", "-" and "."');
			if (recorded.body.trim() && recorded.json === undefined)
				throw new HttpError(400, 'body must be JSON');

			const key = req.headers['idempotency-key'];
			const idempotencyKey = Array.isArray(key) ? key[0] : key;
			const first = idempotencyKey !== undefined ? answered.get(idempotencyKey) : undefined;
			if (first) return success({ ...first, duplicate: true }, `Fired ${first.event}`);

			const body = recorded.json ?? null;
			const fromBody =
				body && typeof body === 'object' && !Array.isArray(body)
					? (body as Record<string, unknown>)
					: {};
			const q = fromBody.q ?? one(recorded.query, 'q') ?? null;
			if (q !== null && typeof q !== 'string') throw new HttpError(400, 'q must be a string');
			const limit = positiveInt(fromBody.limit ?? one(recorded.query, 'limit'), 'limit') ?? null;

			const id = randomUUID();
			deliveries.push({
				id,
				event,
				q,
				limit,
				query: recorded.query,
				body,
				...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
				at: Date.now(),
			});
			const data = {
				event,
				id,
				received: body,
				q,
				limit,
				...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
			};
			if (idempotencyKey !== undefined) answered.set(idempotencyKey, data);
			return success({ ...data, duplicate: false }, `Fired ${event}`);
		},
	});
	return Object.assign(server, { deliveries });
}
