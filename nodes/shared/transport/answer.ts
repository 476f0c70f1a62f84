import type { INode } from 'n8n-workflow';

import { header } from './attempt';
import { isPlainObject } from '../validation';
import { apiError, excerpt, gist, hint, isHtml } from './errors';
import type { Service } from './services';
import { SERVICES, styleChoices } from './services';
import type { ApiResponse, Failure, RawResponse, Stop } from './types';

/**
 * Parses a JSON answer once, where the transfer is still being judged: a 2xx whose JSON stops halfway is a broken
 * transfer (retried like a dropped connection), not a service that speaks something else.
 */
export function checkJson(res: RawResponse): RawResponse | Failure {
	if (res.cut) return res;
	const raw = res.body.toString('utf8');
	if (!/\S/.test(raw)) return res;
	try {
		return { ...res, json: { value: JSON.parse(raw) } };
	} catch (error) {
		const ok = res.statusCode >= 200 && res.statusCode < 300;
		const text = raw.trim();
		if (ok && /^[[{]/.test(text) && isCutOff(text, error as Error)) {
			return {
				kind: 'broken',
				code: 'ETRUNCATED',
				message: `the JSON ends after ${res.body.length} bytes, before it is complete`,
				sent: true,
			};
		}
		return res;
	}
}

/** Whether a JSON syntax error is the input ending early (rather than something that is not JSON). */
function isCutOff(text: string, error: Error): boolean {
	if (/end of (json )?input|unterminated/i.test(error.message)) return true;
	const position = /position (\d+)/.exec(error.message);
	return position !== null && Number(position[1]) >= text.length;
}

export function isEnvelope(
	body: unknown,
): body is { status: string; data?: unknown; message?: unknown } {
	return isPlainObject(body) && ['success', 'fail', 'error'].includes(body.status as string);
}

export function extractMessage(body: unknown): string | undefined {
	if (typeof body === 'string') return excerpt(body, 300);
	if (!isPlainObject(body)) return undefined;
	for (const key of ['message', 'error', 'detail', 'title', 'statusMessage']) {
		const value = body[key];
		if (typeof value === 'string' && value) return excerpt(value, 300);
		if (isPlainObject(value) && typeof value.message === 'string')
			return excerpt(value.message, 300);
	}
	if (Array.isArray(body.errors) && body.errors.length) return extractMessage(body.errors[0]);
	return undefined;
}

/**
 * Turns an answer into data, or into a clear error that never shows the key. With `acceptText` a 2xx that is not
 * JSON is a success: the service took the call (its text is in `text`).
 */
export function interpret(
	res: RawResponse,
	node: INode,
	service: Service,
	itemIndex: number,
	attempts: number,
	stop: Stop | undefined,
	redact: (text: string) => string,
	acceptText = false,
): ApiResponse {
	const { label, name } = SERVICES[service];
	const status = res.statusCode;
	const ok = status >= 200 && status < 300;
	// the text only when the answer is not JSON (checkJson parsed it already otherwise)
	const text = res.json ? '' : res.body.toString('utf8').trim();
	const body: unknown = res.json ? res.json.value : text === '' ? undefined : null;

	if (body === null && ok && acceptText) {
		const answer = { data: undefined, statusCode: status, headers: res.headers, attempts };
		return {
			...answer,
			text: redact(res.body.toString('utf8')),
			...(res.cut ? { cut: true } : {}),
		};
	}
	if (body === null) {
		const contentType = header(res.headers, 'content-type') ?? '';
		const html = isHtml(text, contentType);
		const said = redact(html ? gist(text) : excerpt(text));
		const kind = html
			? 'an HTML page'
			: /json/i.test(contentType)
				? 'malformed JSON'
				: `a body that is not JSON (${contentType || 'no content type'})`;
		const message = `The ${name} answered HTTP ${status} with ${kind}${said ? `: "${said}"` : ''}`;
		const description = [
			ok
				? `Check the ${label} in the Triptych API credentials: it must point at the API itself, not a web page.`
				: hint(String(status), label),
			stop ? (stop.unsafe ? stop.text : `(${stop.text})`) : '',
		]
			.filter(Boolean)
			.join(' ');
		throw apiError({
			node,
			service,
			itemIndex,
			message,
			description,
			httpCode: String(status),
			details: { message: `${message}.`, contentType, excerpt: said },
			redact,
		});
	}

	const envelope = isEnvelope(body) ? body : undefined;
	if (ok && (!envelope || envelope.status === 'success')) {
		return {
			data: envelope ? envelope.data : body,
			message: envelope && typeof envelope.message === 'string' ? envelope.message : undefined,
			statusCode: status,
			headers: res.headers,
			attempts,
		};
	}

	const serviceMessage = redact(extractMessage(body) ?? '');
	const envStatus = envelope?.status;
	const summary =
		envStatus && envStatus !== 'success'
			? `The ${name} answered status "${envStatus}"${serviceMessage ? `: ${serviceMessage}` : ''}`
			: `The ${name} answered HTTP ${status}${serviceMessage ? `: ${serviceMessage}` : ''}`;
	let description = ok
		? `The service reported a failure with HTTP ${status}. Check the node fields and the ${label}.`
		: hint(String(status), label);
	if (status === 401) description = keyAdvice(service);
	if (stop?.unsafe) {
		description = `The ${name} answered HTTP ${status} after receiving the request, so it may have acted on it already. ${stop.text}`;
	} else if (stop) {
		description += ` (${stop.text})`;
	}
	throw apiError({
		node,
		service,
		itemIndex,
		message: `${summary}${ok ? ` (HTTP ${status})` : ''}`,
		description,
		httpCode: String(status),
		details: { message: serviceMessage || summary },
		redact,
	});
}

/** What to check when a service refuses the key: the key, and how the credential sends it to this service. */
function keyAdvice(service: Service): string {
	const { keySwitch, label, name, styleField } = SERVICES[service];
	if (keySwitch)
		return `The ${name} asks for a key: turn on "${keySwitch.displayName}" in the Triptych API credentials, and check the API Key.`;
	if (!styleField) return hint('401', label);
	return `Check the API Key in the Triptych API credentials, and its ${styleChoices(service)}: how the service takes the key.`;
}
