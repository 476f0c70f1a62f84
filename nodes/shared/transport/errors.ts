import type { IDataObject, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { isPlainObject } from '../validation';
import type { Service } from './services';
import { KEY_PARAMETER, SERVICES } from './services';
import { MAX_REDIRECTS, originOf } from './origin';
import { MAX_WAIT_MS } from './limiter';
import type { GaveUp } from './retry';
import type { Failure, RedirectProblem } from './types';

const ANNOUNCED_MINUTES = MAX_WAIT_MS / 60_000;

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
/** Service text is cut to this many characters before any pattern runs on it: bounded time on any answer. */
export const MAX_TEXT = 4096;
/** The shortest piece of the key that is removed where it stands alone: what a cut could leave of it. */
const KEY_PIECE = 8;

/** Text from a service, cut to `MAX_TEXT` (or `length`) characters. */
export function cut(text: string, length = MAX_TEXT): string {
	return text.length > length ? text.slice(0, length) : text;
}

/** The forms the key takes in text: as it is, URL-encoded, form-encoded. */
function keyForms(apiKey: string): string[] {
	const forms = [
		apiKey,
		encodeURIComponent(apiKey),
		new URLSearchParams({ k: apiKey }).toString().slice(2),
	];
	return [...new Set(forms)];
}

/**
 * Removes the API key from text that came from elsewhere: in each of its forms, and any piece of it of
 * `KEY_PIECE` characters or more (a cut made by the service, or by a limit, may have left part of it); keys shorter
 * than 4 characters are left, they would mangle the text. Also any `apikey=` query value and any Bearer token.
 */
export function redactKey(text: string, apiKey: string): string {
	let out = text;
	if (apiKey.length >= 4) {
		for (const form of keyForms(apiKey)) {
			out = out.split(form).join('***');
			for (let at = 0; at + KEY_PIECE <= form.length; at++) {
				const piece = form.slice(at, at + KEY_PIECE);
				if (out.includes(piece)) out = removePieces(out, form, piece);
			}
		}
	}
	return out
		.replace(/(Bearer\s+)[^\s"',;}]{1,4096}/gi, '$1***')
		.replace(new RegExp(`(\\b${KEY_PARAMETER}=)[^&#\\s"',;}]{1,4096}`, 'gi'), '$1***');
}

/** Replaces every run of text around `piece` that is a piece of `form` with "***". */
function removePieces(text: string, form: string, piece: string): string {
	let out = '';
	let from = 0;
	for (let at = text.indexOf(piece); at >= 0; at = text.indexOf(piece, from)) {
		let [start, end] = [at, at + piece.length];
		// widen the match while it is still a piece of the key
		while (start > from && form.includes(text.slice(start - 1, end))) start--;
		while (end < text.length && form.includes(text.slice(start, end + 1))) end++;
		out += `${text.slice(from, start)}***`;
		from = end;
	}
	return out + text.slice(from);
}

/** Every text in a value (an error's details, an output item) with the key removed, keys of objects too. */
export function redactAll<T>(value: T, redact: (text: string) => string): T {
	if (typeof value === 'string') return redact(value) as T;
	if (Array.isArray(value)) return value.map((inner) => redactAll(inner, redact)) as T;
	if (!isPlainObject(value)) return value;
	const out: IDataObject = {};
	for (const [name, inner] of Object.entries(value))
		Object.defineProperty(out, redact(name), {
			value: redactAll(inner, redact),
			enumerable: true,
			writable: true,
			configurable: true,
		});
	return out as T;
}

/** What a service said, made safe to show: cut, the key removed, then cut to what is shown. */
export function shown(text: string, redact: (text: string) => string, length = EXCERPT_LENGTH) {
	return excerpt(redact(cut(text, MAX_TEXT * 2)), length);
}

/**
 * A short excerpt of what a service said, fit for n8n's error panel: tags, scripts and styles dropped, a phrase
 * repeated back to back said once (error pages repeat their title as a heading), no word longer than 40
 * characters (so the panel can wrap it) and cut at a word boundary. The text is cut to `MAX_TEXT` first.
 */
export function excerpt(text: string, length = EXCERPT_LENGTH): string {
	let plain = cut(text)
		.replace(/<(script|style)[^>]{0,200}>[^]{0,4096}?<\/\1>/gi, ' ')
		.replace(/<[^<>]{0,200}>/g, ' ')
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
	return /^\s*<(!doctype|html|head|body|\?xml)/i.test(cut(text, 200)) || /html/i.test(contentType);
}

/** What a service said, in short: a page's title when it has one (what an error page says best), else an excerpt. */
export function gist(text: string): string {
	return htmlTitle(text) ?? excerpt(text);
}

export function htmlTitle(text: string): string | undefined {
	const title = /<title[^<>]{0,200}>([^<]{0,400})<\/title>/i.exec(cut(text))?.[1];
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

/** What a failure is said as: `what` names the other side ("the museum service", "the image host"). */
export interface Wording {
	what: string;
	/** The credential field to check, when there is one */
	label?: string;
	timeout: number;
	maxBytes: number;
}

/**
 * The one wording of failures, for the nodes, image downloads and the credential Test: a message and what to do.
 * Every text a service or a network library gave is cut and redacted by the caller's `redact` afterwards.
 */
export function describeFailure(failure: Failure, w: Wording): [string, string] {
	const check = w.label
		? `Check the ${w.label} in the Triptych API credentials`
		: 'Check the address';
	switch (failure.kind) {
		case 'redirect':
			return failure.redirect === 'otherOrigin'
				? [
						`${cap(w.what)} redirected the request to another origin (${originOf(failure.location ?? '')}); it was not followed`,
						`The API key is only ever sent to the configured address's own origin. If the service has moved, set ${w.label ? `the ${w.label}` : 'the address'} to its new address (${failure.location}).`,
					]
				: [
						`${cap(w.what)} redirected the request ${REDIRECTS[failure.redirect ?? 'tooMany']} (${failure.code}); it was not followed`,
						`${check}: set it to the address the service really answers at.`,
					];
		case 'tooLarge':
			return [
				`${cap(w.what)}'s answer is larger than the limit (${megabytes(failure.limit ?? w.maxBytes)}); it was not read further`,
				'Narrow the request (a lower Limit, fewer Fields), or raise the size limit in the node options. It was not retried: the same request would get the same answer.',
			];
		case 'timeout':
			return [
				`${cap(w.what)} did not answer in full within the Timeout (${seconds(failure.timeoutMs ?? w.timeout)})`,
				'The whole answer (connecting, headers and body) must arrive within Timeout. Raise "Timeout" in the node options if the service is slow.',
			];
		case 'broken':
			return [
				`${cap(w.what)}'s answer was cut off: the transfer broke before the end`,
				`The connection dropped mid-answer (${failure.code}: ${failure.detail ?? ''}); this is a network or service fault, not a setting.`,
			];
		case 'canceled':
			if (failure.halted)
				return [
					`The request to ${w.what} was ${failure.halted}`,
					'Nothing was sent for this item.',
				];
			return failure.sent
				? [
						`The request to ${w.what} was stopped with the execution`,
						'The execution was stopped while the request was under way.',
					]
				: [
						`The request to ${w.what} was not sent: the execution was stopped`,
						'Nothing was sent for this item.',
					];
		case 'paused':
			return [
				`${cap(w.what)} is rate-limiting this run: ${failure.quota ? `its rate-limit headers announce a reset in ${Math.ceil((failure.waitMs ?? 0) / 1000)} s, longer than ${ANNOUNCED_MINUTES} minutes` : `it asked every request to wait ${Math.ceil((failure.waitMs ?? 0) / 1000)} s more`}, more than the Max Retry Wait`,
				hint('429', w.label ?? 'address'),
			];
		default:
			return [
				failure.sent
					? `The connection to ${w.what} broke after the request was sent`
					: `Could not reach ${w.what}`,
				`The connection failed (${failure.code}: ${failure.detail ?? ''}). ${check}, and that the service is running.`,
			];
	}
}

const REDIRECTS: Record<RedirectProblem, string> = {
	otherOrigin: 'to another origin',
	notAddress: 'to something that is not a web address',
	dropsBody: 'in a way that would turn it into a GET without its body',
	loop: 'in a loop',
	tooMany: `more than ${MAX_REDIRECTS} times`,
};

/** The error for a request that failed on the wire (or was refused before it: redirects, size, Stop, a pause). */
export function failureError(
	parts: Omit<ErrorParts, 'message' | 'description' | 'details'>,
	failure: Failure,
	gaveUp: GaveUp | undefined,
	limits: { timeout: number; maxResponseBytes: number },
): NodeApiError {
	const { label, name } = SERVICES[parts.service];
	const [message, advice] = describeFailure(failure, {
		what: `the ${name}`,
		label,
		timeout: limits.timeout,
		maxBytes: limits.maxResponseBytes,
	});
	let description = advice;
	if (gaveUp?.unsafe)
		description += ` The request had been sent, so the service may have acted on it already. ${gaveUp.text}`;
	else if (gaveUp) description += ` It ${gaveUp.text}.`;
	return apiError({
		...parts,
		message,
		description,
		httpCode: failure.code.startsWith('HTTP ') ? failure.code.slice(5) : undefined,
		// `networkCode`, not `code`: NodeApiError replaces the message with a generic one for known codes
		details: {
			message: `${message}.`,
			networkCode: failure.code,
			reason: failure.detail ?? failure.kind,
		},
	});
}

const cap = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

function megabytes(bytes: number): string {
	const mb = bytes / 1024 / 1024;
	return `${Number.isInteger(mb) ? mb : mb.toFixed(1)} MB`;
}

function seconds(ms: number): string {
	return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
