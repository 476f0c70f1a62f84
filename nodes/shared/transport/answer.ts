import { header } from './attempt';
import { type ErrorSite, apiError, hint } from './errors';
import type { GaveUp } from './retry';
import { SERVICES, type Service, styleChoices } from '../services';
import { isPlainObject } from '../values';
import { cut, pageSaid, shown } from './redaction';
import type { ApiResponse, RawResponse } from './types';

type Envelope = { status: string; data?: unknown; message?: unknown };
/** Only a JSON object can carry a `status`: a list, a string or null has none. */
const isEnvelope = (body: unknown): body is Envelope =>
	['success', 'fail', 'error'].includes((body as Partial<Envelope> | null)?.status as string);

/** What a service's error body says, cut and redacted before it is shortened. */
function extractMessage(body: unknown, redact: (text: string) => string): string | undefined {
	const say = (text: string) => shown(text, redact, 300);
	if (typeof body === 'string') return say(body);
	if (!isPlainObject(body)) return undefined;
	for (const key of ['message', 'error', 'detail', 'title', 'statusMessage']) {
		const value = body[key];
		if (typeof value === 'string' && value) return say(value);
		if (isPlainObject(value) && typeof value.message === 'string') return say(value.message);
	}
	return Array.isArray(body.errors) ? extractMessage(body.errors[0], redact) : undefined;
}

/** What an answer is, judged once for the nodes and the credential Test; `said`: cut, redacted and shortened. */
export type Judgement =
	| { kind: 'data'; data: unknown; message?: string }
	| { kind: 'text'; text: string }
	| { kind: 'page'; html: boolean; said: string }
	| { kind: 'refused'; envelope?: string; said: string };

export function judge(res: RawResponse, redact: (text: string) => string): Judgement {
	const ok = isOk(res.statusCode);
	if (!res.json) {
		const text = res.body.toString('utf8');
		if (ok) return text.trim() ? { kind: 'text', text } : { kind: 'data', data: undefined };
		return { kind: 'page', ...pageSaid(text, header(res.headers, 'content-type') ?? '', redact) };
	}
	const body = res.json.value;
	const envelope = isEnvelope(body) ? body : undefined;
	if (ok && (!envelope || envelope.status === 'success')) {
		const message = envelope && typeof envelope.message === 'string' ? envelope.message : undefined;
		return { kind: 'data', data: envelope ? envelope.data : body, message };
	}
	return { kind: 'refused', envelope: envelope?.status, said: extractMessage(body, redact) ?? '' };
}

type Reading = ErrorSite & { gaveUp?: GaveUp; acceptText?: boolean };

export function interpret(res: RawResponse, r: Reading): ApiResponse {
	const { label, name } = SERVICES[r.service];
	const status = res.statusCode;
	const judged = judge(res, r.redact);
	if (judged.kind === 'data')
		return { statusCode: status, data: judged.data, message: judged.message };
	if (judged.kind === 'text' && r.acceptText)
		return { statusCode: status, data: undefined, text: r.redact(judged.text), cut: res.cut };
	const { gaveUp } = r;
	const httpCode = String(status);
	const after = gaveUp ? (gaveUp.unsafe ? ` ${gaveUp.text}` : ` (${gaveUp.text})`) : '';
	if (judged.kind === 'refused') {
		const { envelope, said } = judged;
		const answered = envelope && envelope !== 'success' ? `status "${envelope}"` : `HTTP ${status}`;
		const summary = `The ${name} answered ${answered}${said ? `: ${said}` : ''}`;
		const advice =
			status === 401
				? keyAdvice(r.service)
				: isOk(status)
					? `The service reported a failure with HTTP ${status}. Check the node fields and the ${label}.`
					: hint(httpCode, label);
		const description = gaveUp?.unsafe
			? `The ${name} answered HTTP ${status} after receiving the request, so it may have acted on it already. ${gaveUp.text}`
			: advice + after;
		const message = `${summary}${isOk(status) ? ` (HTTP ${status})` : ''}`;
		throw apiError(r, [message, description], { message: said || summary }, httpCode);
	}
	const text = judged.kind === 'text' ? shown(judged.text, r.redact) : judged.said;
	const contentType = cut(header(res.headers, 'content-type') ?? '', 100);
	const kind =
		judged.kind === 'page' && judged.html
			? 'an HTML page'
			: /json/i.test(contentType)
				? 'malformed JSON'
				: `a body that is not JSON (${contentType || 'no content type'})`;
	const message = `The ${name} answered HTTP ${status} with ${kind}${text ? `: "${text}"` : ''}`;
	const fix = isOk(status)
		? `Check the ${label} in the Triptych API credentials: it must point at the API itself, not a web page.`
		: hint(httpCode, label);
	const details = { message: `${message}.`, contentType, excerpt: text };
	throw apiError(r, [message, fix + after], details, httpCode);
}

/** What to check when a service refuses the key: the key, and how the credential sends it to this service. */
function keyAdvice(service: Service): string {
	const { keySwitch, label, name, styleField } = SERVICES[service];
	if (keySwitch)
		return `The ${name} asks for a key: turn on "${keySwitch.displayName}" in the Triptych API credentials, and check the API Key.`;
	if (!styleField) return hint('401', label);
	return `Check the API Key in the Triptych API credentials, and its ${styleChoices(service)}: how the service takes the key.`;
}

const isOk = (status: number) => status >= 200 && status < 300;
