import type { IDataObject, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { isPlainObject } from '../validation';
import type { Service } from './services';
import { KEY_PARAMETER, SERVICES } from './services';
import type { Failure, Stop } from './types';

const STATUS_HINTS: Record<string, string> = {
	'400': 'The service refused the parameters. Check the node fields this request was built from.',
	'401': 'Check the API Key in the Triptych API credentials.',
	'403': 'The API key is not allowed to do this. Check its permissions with the service.',
	'404':
		'Check the {label} in the Triptych API credentials: it is the base address, without the path.',
	'405': 'Check the {label} in the Triptych API credentials: it does not point at this API.',
	'429':
		'The service is rate-limiting these calls. Lower Concurrency, or raise "Max Retry Wait" in the options.',
	'5xx': 'The service failed. Try again later, or raise "Max Attempts" in the node options.',
};

export function hint(code: string, label: string): string {
	const text =
		STATUS_HINTS[code] ?? (code.startsWith('5') ? STATUS_HINTS['5xx'] : STATUS_HINTS['400']);
	return text.replace('{label}', label);
}

const EXCERPT_LENGTH = 160;
const LONGEST_WORD = 40;

/**
 * Removes the API key from text that came from elsewhere: as it is, URL-encoded (the forms a path or a query string
 * carries; keys shorter than 4 characters are left, they would mangle the text), any `apikey=` query value and any
 * Bearer token.
 */
export function redactKey(text: string, apiKey: string): string {
	let out = text;
	if (apiKey.length >= 4) {
		const forms = [
			apiKey,
			encodeURIComponent(apiKey),
			new URLSearchParams({ k: apiKey }).toString().slice(2),
		];
		for (const form of new Set(forms)) out = out.split(form).join('***');
	}
	return out
		.replace(/(Bearer\s+)[^\s"',;}]+/gi, '$1***')
		.replace(new RegExp(`(\\b${KEY_PARAMETER}=)[^&#\\s"',;}]+`, 'gi'), '$1***');
}

/** Every text in a value (an error's details) with the key removed. */
export function redactAll<T>(value: T, redact: (text: string) => string): T {
	if (typeof value === 'string') return redact(value) as T;
	if (Array.isArray(value)) return value.map((inner) => redactAll(inner, redact)) as T;
	if (!isPlainObject(value)) return value;
	return Object.fromEntries(
		Object.entries(value).map(([name, inner]) => [name, redactAll(inner, redact)]),
	) as T;
}

/**
 * A short excerpt of what a service said, fit for n8n's error panel: tags, scripts and styles dropped, a phrase
 * repeated back to back said once (error pages repeat their title as a heading), no word longer than 40
 * characters (so the panel can wrap it) and cut at a word boundary.
 */
export function excerpt(text: string, length = EXCERPT_LENGTH): string {
	let plain = text
		.replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, ' ')
		.replace(/<[^>]+>/g, ' ')
		.replace(/&nbsp;/g, ' ')
		.replace(/&amp;/g, '&')
		.replace(/&lt;/g, '<')
		.replace(/&gt;/g, '>')
		.replace(/\s+/g, ' ')
		.trim();
	// "502 Bad Gateway 502 Bad Gateway nginx" → "502 Bad Gateway nginx"
	plain = plain.replace(/(\b.{3,80}?)(?: \1\b)+/g, '$1');
	const words = plain
		.split(' ')
		.map((word) => (word.length > LONGEST_WORD ? `${word.slice(0, LONGEST_WORD - 1)}…` : word));
	let out = '';
	for (const word of words) {
		if (out.length + word.length + 1 > length) return `${out}…`;
		out = out ? `${out} ${word}` : word;
	}
	return out;
}

export function isHtml(text: string, contentType: string): boolean {
	return /^\s*<(!doctype|html|head|body|\?xml)/i.test(text) || /html/i.test(contentType);
}

/** What a service said, in short: a page's title when it has one (what an error page says best), else an excerpt. */
export function gist(text: string): string {
	return htmlTitle(text) ?? excerpt(text);
}

export function htmlTitle(text: string): string | undefined {
	const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(text)?.[1];
	return title ? excerpt(title, 80) : undefined;
}

interface ErrorParts {
	node: INode;
	service: Service;
	itemIndex: number;
	/** The item-free message (the item number is added here) */
	message: string;
	description: string;
	httpCode?: string;
	/** What n8n's error panel shows under "Error details" */
	details: IDataObject;
	/** Removes the key from every text of the error (they quote addresses and what the service said) */
	redact: (text: string) => string;
}

export function apiError(parts: ErrorParts): NodeApiError {
	const { redact } = parts;
	return new NodeApiError(
		parts.node,
		redactAll(
			{ ...parts.details, ...(parts.httpCode ? { httpCode: parts.httpCode } : {}) },
			redact,
		) as JsonObject,
		{
			message: redact(`${parts.message} [item ${parts.itemIndex}]`),
			description: redact(parts.description),
			httpCode: parts.httpCode,
			itemIndex: parts.itemIndex,
		},
	);
}

/** The error for a request that failed on the wire (or was refused before it: redirects, size, Stop). */
export function failureError(
	node: INode,
	service: Service,
	itemIndex: number,
	failure: Failure,
	stop: Stop | undefined,
	limits: { timeout: number; maxResponseBytes: number },
	redact: (text: string) => string,
): NodeApiError {
	const { label, name } = SERVICES[service];
	let message: string;
	let description: string;
	switch (failure.kind) {
		case 'redirect': {
			const other = failure.message.startsWith('to another origin');
			message = `The ${name} redirected the request ${failure.message}; it was not followed`;
			description = other
				? `The API key is only ever sent to the ${label}'s own origin. If the service has moved, set the ${label} in the Triptych API credentials to its new address (${failure.location}).`
				: `Check the ${label} in the Triptych API credentials: set it to the address the service really answers at.`;
			break;
		}
		case 'tooLarge':
			message = `The ${name}'s answer is larger than the Max Response Size (${megabytes(failure.limit ?? limits.maxResponseBytes)}); it was not read further`;
			description =
				'Narrow the request (a lower Limit, fewer Fields), or raise "Max Response Size" in the node options. It was not retried: the same request would get the same answer.';
			break;
		case 'timeout':
			message = `The ${name} did not answer in full within the Timeout (${seconds(limits.timeout)})`;
			description = `The whole answer (connecting, headers and body) must arrive within Timeout. Raise "Timeout" in the node options if the service is slow.`;
			break;
		case 'broken':
			message = `The ${name}'s answer was cut off: the transfer broke before the end`;
			description = `The connection dropped mid-answer (${failure.code}: ${failure.message}); this is a network or service fault, not a setting.`;
			break;
		case 'canceled':
			message = failure.sent
				? `The request to the ${name} was stopped with the execution`
				: `The request to the ${name} was ${failure.message.startsWith('not sent') ? failure.message : `not sent: ${failure.message}`}`;
			description = failure.sent
				? 'The execution was stopped while the request was under way.'
				: 'Nothing was sent for this item.';
			break;
		case 'paused':
			message = `The ${name} is rate-limiting this run: ${failure.message}, more than the Max Retry Wait`;
			description = hint('429', label);
			break;
		default:
			message = failure.sent
				? `The connection to the ${name} broke after the request was sent`
				: `Could not reach the ${name}`;
			description = `The connection failed (${failure.code}: ${failure.message}). Check the ${label} in the Triptych API credentials and that the service is running.`;
	}
	if (stop?.unsafe) {
		description += ` The request had been sent, so the service may have acted on it already. ${stop.text}`;
	} else if (stop) {
		description += ` It ${stop.text}.`;
	}
	return apiError({
		node,
		service,
		itemIndex,
		message,
		description,
		httpCode: failure.code.startsWith('HTTP ') ? failure.code.slice(5) : undefined,
		// `networkCode`, not `code`: NodeApiError replaces the message with a generic one for known codes
		details: { message: `${message}.`, networkCode: failure.code, reason: failure.message },
		redact,
	});
}

function megabytes(bytes: number): string {
	const mb = bytes / 1024 / 1024;
	return `${Number.isInteger(mb) ? mb : mb.toFixed(1)} MB`;
}

function seconds(ms: number): string {
	return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
