/**
 * IFTTT Maker Webhooks, its two applet triggers: "Receive a web request", GET|POST /trigger/{event}/with/key/{key}
 * (value1..value3 from a JSON body, a form body or the query; any other field is ignored), and "Receive a web request
 * with a JSON payload", /trigger/{event}/json/with/key/{key} (the whole body, as the JsonPayload text). A
 * JSON-payload applet fired on the classic route gets an empty JsonPayload, as IFTTT's help says. 200 text/plain "Congratulations! You've fired
 * the {event} event" ("… the {event} JSON event"); 401 {"errors":[{"message":"You sent an invalid key."}]} for a
 * wrong key; 400 JSON for a body that is not valid JSON; Express's 404 page for any other path or method;
 * GET /use/{key} is the per-key page. Idempotency-Key is ignored: every accepted call is a delivery.
 */
import {
	type BaseMode,
	DEFAULT_API_KEY,
	type Reply,
	type TestServer,
	createTestServer,
	decode,
	json,
	text,
} from './common';

export interface IftttDelivery {
	event: string;
	route: 'classic' | 'json';
	/** Classic route: the value1..value3 it got (what a "Receive a web request" applet receives) */
	values?: { value1?: string; value2?: string; value3?: string };
	/** Classic route: the body fields it ignored (an applet never sees them) */
	ignored?: string[];
	/** JSON route: the parsed body (null when there was none) */
	payload?: unknown;
	/** What a "Receive a web request with a JSON payload" applet receives: the body as sent; empty on the classic route */
	jsonPayload: string;
	at: number;
}

export interface IftttServer extends TestServer<BaseMode> {
	/** One entry per fired event. */
	deliveries: IftttDelivery[];
}

const TRIGGER = /^\/trigger\/([^/]+)\/(json\/)?with\/key\/([^/]+)$/;
const USE = /^\/use\/([^/]+)$/;
const VALUE = /^value[123]$/;
const INVALID_KEY = { errors: [{ message: 'You sent an invalid key.' }] };

/** Express's answer to a route it does not have. */
const cannot = (method: string, path: string): Reply =>
	text(
		404,
		`<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>Error</title>\n</head>\n<body>\n<pre>Cannot ${method} ${path}</pre>\n</body>\n</html>\n`,
		'text/html; charset=utf-8',
	);

export async function startIftttServer(options: { apiKey?: string } = {}): Promise<IftttServer> {
	const deliveries: IftttDelivery[] = [];
	const apiKey = options.apiKey ?? DEFAULT_API_KEY;
	const server = await createTestServer<BaseMode>({
		apiKey,
		requireKey: false,
		onReset: () => void (deliveries.length = 0),
		handle({ req, url, recorded }): Reply {
			const method = req.method ?? 'GET';
			const trigger = TRIGGER.exec(url.pathname);
			const use = USE.exec(url.pathname);
			if (use && method === 'GET') {
				if (decode(use[1]) !== apiKey) return json(401, INVALID_KEY);
				return text(
					200,
					`<html><body><h1>Webhooks settings</h1><p>To trigger an Event, make a POST or GET web request to: /trigger/{event}/with/key/${apiKey}</p></body></html>`,
					'text/html; charset=utf-8',
				);
			}
			if (!trigger || !['GET', 'POST'].includes(method)) return cannot(method, url.pathname);
			if (decode(trigger[3]) !== apiKey) return json(401, INVALID_KEY);
			const event = decode(trigger[1]) ?? trigger[1];
			const type = String(req.headers['content-type'] ?? '');
			let body: unknown = null;
			if (/urlencoded/i.test(type)) body = Object.fromEntries(new URLSearchParams(recorded.body));
			else if (recorded.body.trim() && /json/i.test(type)) {
				if (recorded.json === undefined)
					return json(400, { errors: [{ message: 'Unexpected token in JSON body' }] });
				body = recorded.json;
			}
			if (trigger[2]) {
				deliveries.push({
					event,
					route: 'json',
					payload: body,
					jsonPayload: recorded.body,
					at: Date.now(),
				});
				return text(200, `Congratulations! You've fired the ${event} JSON event`);
			}
			const from = { ...recorded.query, ...(body && typeof body === 'object' ? body : {}) };
			const values = Object.fromEntries(
				(['value1', 'value2', 'value3'] as const)
					.filter((k) => k in from)
					.map((k) => [k, String((from as Record<string, unknown>)[k])]),
			);
			const ignored =
				body && typeof body === 'object' ? Object.keys(body).filter((k) => !VALUE.test(k)) : [];
			deliveries.push({
				event,
				route: 'classic',
				values,
				ignored,
				jsonPayload: '',
				at: Date.now(),
			});
			return text(200, `Congratulations! You've fired the ${event} event`);
		},
	});
	return Object.assign(server, { deliveries });
}
