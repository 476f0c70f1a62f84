import type { IDataObject, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { MAX_WAIT_MS } from './limiter';
import { webAddress } from './origin';
import type { GaveUp } from './retry';
import { SERVICES, type Service } from '../services';
import { redactAll } from './redaction';
import type { Failure, RequestSettings } from './types';

/** What a user is told of an error: the message, and what to do (n8n's description) */
type Told = [message: string, advice: string];

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

export const hint = (code: string, label: string): string =>
	(STATUS_HINTS[code] ?? STATUS_HINTS[code[0] === '5' ? '5xx' : '400']).replace('{label}', label);

/** Where an error happened; `redact` removes the key from its every text (they quote what the service said). */
export type ErrorSite = {
	node: INode;
	service: Service;
	itemIndex: number;
	redact: (text: string) => string;
	url?: string;
};

/** An item's error (the item runner adds its number to the message); `details`: n8n's "Error details" */
export function apiError(
	{ node, itemIndex, redact }: ErrorSite,
	[message, description]: Told,
	details: IDataObject,
	httpCode?: string,
): NodeApiError {
	const all = { ...details, ...(httpCode ? { httpCode } : {}) };
	return new NodeApiError(node, redactAll(all, redact) as JsonObject, {
		message: redact(message),
		description: redact(description),
		httpCode,
		itemIndex,
	});
}

/** `what`: the other side ("the image host"); `label`: the credential field to check; `sizeOption` sets maxBytes */
interface Wording {
	what: string;
	label?: string;
	/** The address asked, to name its host in what a failure to connect says */
	address?: string;
	timeout: number;
	maxBytes: number;
	sizeOption: string;
}

/** The one wording of failures (message, what to do) for nodes, images and the Test; the caller redacts them. */
export function describeFailure(failure: Failure, w: Wording): Told {
	const What = w.what.charAt(0).toUpperCase() + w.what.slice(1);
	const field = w.label ? `the ${w.label} in the Triptych API credentials` : 'the address';
	const check = `Check ${field}`;
	switch (failure.kind) {
		case 'redirect':
			return [
				`${What} redirected the request ${redirectProblem(failure)}; it was not followed`,
				failure.redirect === 'otherOrigin'
					? `The API key is only ever sent to the ${w.label ?? 'configured address'}'s own origin. If the service has moved, set ${field} to its new address (${failure.location}).`
					: `${check}: set it to the address the service really answers at.`,
			];
		case 'tooLarge':
			return [
				`${What}'s answer is larger than the ${w.sizeOption} (${megabytes(failure.limit ?? w.maxBytes)}); it was not read further`,
				`Narrow the request (a lower Limit, fewer Fields), or raise "${w.sizeOption}" in the node options. It was not retried: the same request would get the same answer.`,
			];
		case 'timeout':
			return [
				`${What} did not answer in full within the Timeout (${seconds(failure.timeoutMs ?? w.timeout)})`,
				'The whole answer (connecting, headers and body) must arrive within Timeout. Raise "Timeout" in the node options if the service is slow.',
			];
		case 'broken':
			return [
				`${What}'s answer was cut off: the transfer broke before the end`,
				`The connection dropped mid-answer (${failure.code}: ${failure.detail ?? ''}); this is a network or service fault, not a setting.`,
			];
		case 'canceled':
			return [
				`The request to ${w.what} was ${failure.halted || (failure.sent ? 'stopped with the execution' : 'not sent: the execution was stopped')}`,
				failure.sent && !failure.halted
					? 'The execution was stopped while the request was under way.'
					: 'Nothing was sent for this item.',
			];
		case 'paused':
			return [
				`${What} is rate-limiting this run: ${failure.quota ? `its rate-limit headers announce a reset in ${Math.ceil((failure.waitMs ?? 0) / 1000)} s, longer than ${MAX_WAIT_MS / 60_000} minutes` : `the service asked every request to wait ${Math.ceil((failure.waitMs ?? 0) / 1000)} s more`}, more than the Max Retry Wait`,
				hint('429', w.label ?? 'address'),
			];
		case 'blocked':
			return [
				`n8n's SSRF protection blocked the request to ${failure.detail}`,
				`This n8n instance does not let nodes reach private, loopback or other restricted addresses. If ${w.what} is meant to be reached there, an n8n administrator can allow it with N8N_SSRF_ALLOWED_HOSTNAMES or N8N_SSRF_ALLOWED_IP_RANGES. It was not retried.`,
			];
		default:
			return (
				connectionFailure(failure.code, field, w.address) ?? [
					failure.sent
						? `The connection to ${w.what} broke after the request was sent`
						: `Could not reach ${w.what}`,
					`The connection failed (${failure.code}: ${failure.detail ?? ''}). ${check}, and that the service is running.`,
				]
			);
	}
}

/** What the usual failures to connect mean, said in their terms: nothing listening, an unknown host, TLS. */
function connectionFailure(code: string, field: string, address = ''): Told | undefined {
	const url = webAddress(address);
	if (!url) return undefined;
	// the code goes in the description: n8n replaces a message that names one with a generic text
	if (code === 'ECONNREFUSED')
		return [
			`Nothing listens at ${url.origin} (connection refused)`,
			`Check ${field}: its host and port, and that the service runs (ECONNREFUSED).`,
		];
	if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
		return [
			`The host "${url.hostname}" was not found`,
			`Check ${field} for typos, and that the n8n host can resolve it (${code}).`,
		];
	if (/CERT|SSL|TLS|EPROTO|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code))
		return [
			`The TLS connection to ${url.host} failed`,
			`Fix the service's certificate, give n8n the CA that signed it, or check ${field}: http:// or https:// (${code}).`,
		];
	return undefined;
}

function redirectProblem(failure: Failure): string {
	const to = failure.location ?? '';
	const url = webAddress(to);
	const path = url ? url.pathname + url.search : to;
	const problems: Record<NonNullable<Failure['redirect']>, string> = {
		otherOrigin: `to another origin (${url?.origin ?? to})`,
		notAddress: `to "${to.slice(0, 200)}", which is not an http(s) address`,
		dropsBody: `with ${failure.code}, which would turn the ${failure.method ?? 'request'} into a GET without its body`,
		loop: `in a loop (back to ${path})`,
		tooMany: `more than ${failure.limit} times (last to ${path})`,
	};
	return problems[failure.redirect ?? 'tooMany'];
}

/** The error for a request that failed on the wire (or was refused before it: redirects, size, Stop, a pause). */
export function failureError(
	site: ErrorSite,
	failure: Failure,
	gaveUp: GaveUp | undefined,
	{ timeout, maxResponseBytes: maxBytes }: Pick<RequestSettings, 'timeout' | 'maxResponseBytes'>,
): NodeApiError {
	const { label, name } = SERVICES[site.service];
	const wording = { label, address: site.url, timeout, maxBytes, sizeOption: 'Max Response Size' };
	const [message, advice] = describeFailure(failure, { ...wording, what: `the ${name}` });
	let description = advice;
	if (gaveUp?.unsafe)
		description += ` The request had been sent, so the service may have acted on it already. ${gaveUp.text}`;
	else if (gaveUp) description += ` It ${gaveUp.text}.`;
	const httpCode = failure.code.startsWith('HTTP ') ? failure.code.slice(5) : undefined;
	// `networkCode`, not `code`: NodeApiError replaces the message with a generic one for known codes
	const details = {
		message: `${message}.`,
		networkCode: failure.code,
		reason: failure.detail ?? failure.kind,
	};
	return apiError(site, [message, description], details, httpCode);
}

function megabytes(bytes: number): string {
	const mb = bytes / 1024 / 1024;
	return `${Number.isInteger(mb) ? mb : mb.toFixed(1)} MB`;
}

const seconds = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`);
