import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

export const CREDENTIALS_TYPE = 'triptychApi';

export type Service = 'trigger' | 'museum' | 'quotes';

export const SERVICES: Record<Service, { field: string; label: string; name: string }> = {
	trigger: { field: 'triggerUrl', label: 'Trigger URL', name: 'trigger service' },
	museum: { field: 'museumUrl', label: 'Museum URL', name: 'museum service' },
	quotes: { field: 'quotesUrl', label: 'Quotes URL', name: 'quotes service' },
};

/** How one node call talks to a service: its time limit and its retry budget. */
export interface RequestSettings {
	/** Time limit of one attempt, in milliseconds */
	timeout: number;
	/** Attempts in all, the first one included (1 = never retry) */
	maxAttempts: number;
	/** First backoff delay in milliseconds; doubled on each retry, with jitter */
	retryDelay: number;
	/** Most time spent waiting between attempts, in milliseconds */
	maxRetryWait: number;
}

export interface ApiRequest {
	service: Service;
	method: IHttpRequestMethods;
	/** Path below the service's base address, e.g. `/tags` */
	path?: string;
	/** Absolute address on the service's own origin (a next-page link it handed out) */
	url?: string;
	qs?: IDataObject;
	body?: IDataObject | IDataObject[];
	headers?: IDataObject;
	/**
	 * Whether sending the request twice is harmless. GETs are; a POST that fires an automation is only when it
	 * carries an idempotency key. A request that is not repeatable is retried only when it certainly did not
	 * reach the service (connection refused, DNS failure, 429).
	 */
	repeatable: boolean;
	/** For a request that is not repeatable: why it was not retried and how to make retries safe (shown to the user). */
	noRetryAdvice?: string;
}

/** Why the retries ended: `unsafe` when the request may have been acted on and could not be sent again. */
interface Stop {
	unsafe: boolean;
	text: string;
}

const DEFAULT_NO_RETRY_ADVICE =
	'It was not retried: the service may have acted on it already, and sending it again could repeat that.';

export interface ApiResponse {
	/** The envelope's `data`, or the whole body when the service sent no envelope */
	data: unknown;
	/** The envelope's `message`, when there was one */
	message?: string;
	statusCode: number;
	headers: IDataObject;
	/** Attempts it took */
	attempts: number;
}

interface RawResponse {
	body: unknown;
	headers: IDataObject;
	statusCode: number;
}

const RETRY_STATUS = new Set([429, 502, 503, 504]);
/** Network failures that happen before a request is on the wire: always safe to repeat. */
const NOT_SENT_CODES = new Set([
	'ECONNREFUSED',
	'ENOTFOUND',
	'EAI_AGAIN',
	'EHOSTUNREACH',
	'ENETUNREACH',
]);

const STATUS_HINTS: Record<string, string> = {
	'400': 'The service refused the parameters. Check the node fields this request was built from.',
	'401': 'Check the API Key in the Triptych API credentials.',
	'403': 'The API key is not allowed to do this. Check its permissions with the service.',
	'404':
		'Check the {label} in the Triptych API credentials: it is the base address, without the path.',
	'405': 'Check the {label} in the Triptych API credentials: it does not point at this API.',
	'429':
		'The service is rate-limiting these calls. Lower the batch size or concurrency, or raise "Max Retry Wait" in the options.',
	'5xx': 'The service failed. Try again later, or raise "Max Attempts" in the node options.',
};

/**
 * The one way the three nodes talk to their services: base address from the credentials, Bearer key through
 * n8n's own `httpRequestWithAuthentication` (so proxies and n8n's settings apply), explicit timeout, bounded
 * retries with backoff, envelope unwrapping and error mapping. One client serves one node execution.
 */
export class TriptychClient {
	private credentials?: Promise<IDataObject>;

	constructor(private readonly ctx: IExecuteFunctions) {}

	/** The service's base address, validated, without trailing slashes. */
	async baseUrl(service: Service, itemIndex: number): Promise<string> {
		const credentials = await this.getCredentials();
		const { field, label } = SERVICES[service];
		const raw = String(credentials[field] ?? '').trim();
		if (!raw) {
			throw new NodeOperationError(
				this.ctx.getNode(),
				`The ${label} is empty [item ${itemIndex}]`,
				{
					itemIndex,
					description: `Set the ${label} in the Triptych API credentials to the base address of the ${SERVICES[service].name}.`,
				},
			);
		}
		let parsed: URL;
		try {
			parsed = new URL(raw);
		} catch (error) {
			throw new NodeOperationError(
				this.ctx.getNode(),
				`The ${label} "${raw}" is not a valid address [item ${itemIndex}]`,
				{
					itemIndex,
					description: `Use a full address such as https://api.example.com (${(error as Error).message}).`,
				},
			);
		}
		if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
			throw new NodeOperationError(
				this.ctx.getNode(),
				`The ${label} must start with http:// or https:// [item ${itemIndex}]`,
				{ itemIndex, description: `It is "${raw}".` },
			);
		}
		return raw.replace(/\/+$/, '');
	}

	/** Sends one request with retries and returns the unwrapped answer, or throws a NodeApiError. */
	async request(
		req: ApiRequest,
		settings: RequestSettings,
		itemIndex: number,
	): Promise<ApiResponse> {
		const base = await this.baseUrl(req.service, itemIndex);
		const url = req.url
			? this.sameOrigin(req.url, base, req.service, itemIndex)
			: base + (req.path ?? '');
		const options: IHttpRequestOptions = {
			method: req.method,
			url,
			qs: req.qs,
			body: req.body,
			headers: req.headers,
			json: true,
			timeout: settings.timeout,
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
		};
		const { name } = SERVICES[req.service];
		let waited = 0;
		for (let attempt = 1; ; attempt++) {
			let response: RawResponse | undefined;
			let failure: { code: string; message: string; sent: boolean } | undefined;
			try {
				response = (await this.send(req.service, { ...options })) as RawResponse;
			} catch (error) {
				failure = networkFailure(error);
			}

			let retryable = false;
			let retryAfter: number | undefined;
			if (failure) {
				retryable = !failure.sent || req.repeatable;
			} else if (response && RETRY_STATUS.has(response.statusCode)) {
				retryable = response.statusCode === 429 || req.repeatable;
				retryAfter = parseRetryAfter(response.headers['retry-after']);
			} else if (response) {
				return await this.interpret(response, req.service, itemIndex, attempt);
			}

			const what = failure
				? `${failure.code} (${failure.message})`
				: `HTTP ${response!.statusCode}`;
			const delay = retryAfter ?? backoff(settings.retryDelay, attempt);
			const budgetLeft = settings.maxRetryWait - waited;
			const tries = `gave up after ${attempt} attempt${attempt === 1 ? '' : 's'}`;
			let stop: Stop | undefined;
			if (!retryable) {
				stop = { unsafe: true, text: req.noRetryAdvice ?? DEFAULT_NO_RETRY_ADVICE };
			} else if (attempt >= settings.maxAttempts) {
				stop = { unsafe: false, text: tries };
			} else if (delay > budgetLeft) {
				stop = {
					unsafe: false,
					text: `${tries}: waiting ${Math.ceil(delay / 1000)} s more${retryAfter !== undefined ? ' (as Retry-After asked)' : ''} would pass the Max Retry Wait of ${Math.round(settings.maxRetryWait / 1000)} s`,
				};
			}
			if (stop) {
				if (failure) throw this.networkError(failure, req.service, itemIndex, stop);
				return await this.interpret(response!, req.service, itemIndex, attempt, stop);
			}
			this.ctx.logger.debug(
				`Triptych: the ${name} answered ${what}; retry ${attempt} of ${settings.maxAttempts - 1} in ${delay} ms`,
				{ service: req.service, attempt, delay, itemIndex },
			);
			await sleep(delay);
			waited += delay;
		}
	}

	/** Unauthenticated GET for files (museum images): the API key must never reach another host. */
	async download(
		url: string,
		settings: RequestSettings,
		itemIndex: number,
	): Promise<{ body: Buffer; headers: IDataObject; statusCode: number }> {
		let waited = 0;
		for (let attempt = 1; ; attempt++) {
			let res: RawResponse | undefined;
			let failure: { code: string; message: string; sent: boolean } | undefined;
			try {
				res = (await this.ctx.helpers.httpRequest({
					method: 'GET',
					url,
					encoding: 'arraybuffer',
					json: false,
					timeout: settings.timeout,
					returnFullResponse: true,
					ignoreHttpStatusErrors: true,
				})) as RawResponse;
			} catch (error) {
				failure = networkFailure(error);
			}
			const transient = failure !== undefined || RETRY_STATUS.has(res!.statusCode);
			const delay =
				(res && parseRetryAfter(res.headers['retry-after'])) ??
				backoff(settings.retryDelay, attempt);
			if (!transient || attempt >= settings.maxAttempts || delay > settings.maxRetryWait - waited) {
				if (failure) {
					throw new NodeApiError(
						this.ctx.getNode(),
						{ message: failure.message, networkCode: failure.code } as JsonObject,
						{
							message: `Could not download the image ${url} [item ${itemIndex}]`,
							description: `${failure.code}: ${failure.message}`,
							itemIndex,
						},
					);
				}
				return {
					body: Buffer.from(res!.body as ArrayBuffer),
					headers: res!.headers,
					statusCode: res!.statusCode,
				};
			}
			await sleep(delay);
			waited += delay;
		}
	}

	/** Removes the API key (and any Bearer token) from text that came back from a service. */
	async redact(text: string): Promise<string> {
		const key = String((await this.getCredentials()).apiKey ?? '');
		let out = text;
		if (key.length >= 4) out = out.split(key).join('***');
		return out.replace(/(Bearer\s+)[^\s"',;}]+/gi, '$1***');
	}

	private getCredentials(): Promise<IDataObject> {
		this.credentials ??= this.ctx.getCredentials(CREDENTIALS_TYPE) as Promise<IDataObject>;
		return this.credentials;
	}

	private async send(service: Service, options: IHttpRequestOptions): Promise<unknown> {
		if (service === 'quotes' && !(await this.getCredentials()).sendKeyToQuotes) {
			return await this.ctx.helpers.httpRequest(options);
		}
		// The credentials this client already read are handed to n8n, which applies their `authenticate` block as
		// usual: n8n does not load and decrypt them again for every request of the run.
		const reference = this.ctx.getNode().credentials?.[CREDENTIALS_TYPE];
		return await this.ctx.helpers.httpRequestWithAuthentication.call(
			this.ctx,
			CREDENTIALS_TYPE,
			options,
			{
				credentialsDecrypted: {
					id: reference?.id ?? '',
					name: reference?.name ?? '',
					type: CREDENTIALS_TYPE,
					data: (await this.getCredentials()) as ICredentialDataDecryptedObject,
				},
			},
		);
	}

	/** A next-page link is followed only on the service's own origin, so the key never goes anywhere else. */
	private sameOrigin(link: string, base: string, service: Service, itemIndex: number): string {
		let target: URL;
		try {
			target = new URL(link, base + '/');
		} catch {
			throw new NodeApiError(
				this.ctx.getNode(),
				{ message: 'invalid next-page link' } as JsonObject,
				{
					message: `The ${SERVICES[service].name} sent a next-page link that is not an address [item ${itemIndex}]`,
					description: link,
					itemIndex,
				},
			);
		}
		if (target.origin !== new URL(base).origin) {
			throw new NodeApiError(
				this.ctx.getNode(),
				{ message: 'foreign next-page link' } as JsonObject,
				{
					message: `The ${SERVICES[service].name} sent a next-page link to another host (${target.origin}); it was not followed [item ${itemIndex}]`,
					description: `The API key is only sent to the ${SERVICES[service].label}. Use Limit or Page instead of Return All.`,
					itemIndex,
				},
			);
		}
		return target.toString();
	}

	/** Turns an answer into data, or into a clear error that never shows the key. */
	private async interpret(
		res: RawResponse,
		service: Service,
		itemIndex: number,
		attempts: number,
		stop?: Stop,
	): Promise<ApiResponse> {
		const { label, name } = SERVICES[service];
		const status = res.statusCode;
		const contentType = String(res.headers['content-type'] ?? '');
		let body = res.body;
		if (Buffer.isBuffer(body)) body = body.toString('utf8');
		if (typeof body === 'string') {
			const text = body.trim();
			if (text === '') {
				body = undefined;
			} else {
				try {
					body = JSON.parse(text);
				} catch (error) {
					const html =
						/^<(!doctype|html|head|body|\?xml)/i.test(text) || contentType.includes('html');
					const excerpt = await this.redact(
						text
							.replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, ' ')
							.replace(/<[^>]+>/g, ' ')
							.replace(/\s+/g, ' ')
							.trim()
							.slice(0, 200),
					);
					const kind = html
						? 'an HTML page'
						: contentType.includes('json')
							? `JSON that is cut off or malformed (${(error as Error).message})`
							: `a body that is not JSON (${contentType || 'no content type'})`;
					throw new NodeApiError(
						this.ctx.getNode(),
						{ message: kind, httpCode: String(status) } as JsonObject,
						{
							message: `The ${name} answered HTTP ${status} with ${kind} instead of JSON [item ${itemIndex}]`,
							description: [
								excerpt ? `It said: "${excerpt}".` : '',
								status >= 200 && status < 300
									? `Check the ${label} in the Triptych API credentials: it must point at the API itself.`
									: hint(String(status), label),
								stop ? `(${stop.text})` : '',
							]
								.filter(Boolean)
								.join(' '),
							httpCode: String(status),
							itemIndex,
						},
					);
				}
			}
		}

		const envelope = isEnvelope(body) ? body : undefined;
		const ok = status >= 200 && status < 300;
		if (ok && (!envelope || envelope.status === 'success')) {
			return {
				data: envelope ? envelope.data : body,
				message: envelope && typeof envelope.message === 'string' ? envelope.message : undefined,
				statusCode: status,
				headers: res.headers,
				attempts,
			};
		}

		const serviceMessage = await this.redact(extractMessage(body) ?? '');
		const envStatus = envelope?.status;
		const code = ok ? undefined : String(status);
		const summary =
			envStatus && envStatus !== 'success'
				? `The ${name} answered status "${envStatus}"${serviceMessage ? `: ${serviceMessage}` : ''}`
				: `The ${name} answered HTTP ${status}${serviceMessage ? `: ${serviceMessage}` : ''}`;
		let description = code
			? hint(code, label)
			: `The service reported a failure with HTTP ${status}. Check the node fields and the ${label}.`;
		if (code === '401' && service === 'quotes') {
			description =
				'The quotes service asks for a key: turn on "Send API Key to Quotes Service" in the Triptych API credentials, and check the API Key.';
		}
		if (stop?.unsafe) {
			description = `The ${name} answered HTTP ${status} after receiving the request, so it may have acted on it already. ${stop.text}`;
		} else if (stop) {
			description += ` (${stop.text})`;
		}
		throw new NodeApiError(
			this.ctx.getNode(),
			{ message: serviceMessage || summary, httpCode: code ?? String(status) } as JsonObject,
			{
				message: `${summary}${ok ? ` (HTTP ${status})` : ''} [item ${itemIndex}]`,
				description,
				httpCode: code ?? String(status),
				itemIndex,
			},
		);
	}

	private networkError(
		failure: { code: string; message: string; sent: boolean },
		service: Service,
		itemIndex: number,
		stop: Stop,
	): NodeApiError {
		const { label, name } = SERVICES[service];
		const timedOut = /timeout|ETIMEDOUT|ECONNABORTED/i.test(`${failure.code} ${failure.message}`);
		// The network code goes in the description: NodeApiError swaps messages that contain one for a generic text.
		const message = timedOut
			? `The ${name} did not answer in time [item ${itemIndex}]`
			: failure.sent
				? `The connection to the ${name} broke after the request was sent [item ${itemIndex}]`
				: `Could not reach the ${name} [item ${itemIndex}]`;
		let description = timedOut
			? `No answer within the time limit (${failure.code}). Raise "Timeout" in the node options if the service is slow.`
			: `The connection failed (${failure.code}: ${failure.message}). Check the ${label} in the Triptych API credentials and that the service is running.`;
		description += stop.unsafe
			? ` The request had been sent, so the service may have acted on it already. ${stop.text}`
			: ` It ${stop.text}.`;
		return new NodeApiError(
			this.ctx.getNode(),
			// `networkCode`, not `code`: NodeApiError would replace the message with a generic one for known codes
			{ message: failure.message, networkCode: failure.code } as JsonObject,
			{ message, description, itemIndex },
		);
	}
}

function hint(code: string, label: string): string {
	const text =
		STATUS_HINTS[code] ?? (code.startsWith('5') ? STATUS_HINTS['5xx'] : STATUS_HINTS['400']);
	return text.replace('{label}', label);
}

function isEnvelope(body: unknown): body is { status: string; data?: unknown; message?: unknown } {
	return (
		typeof body === 'object' &&
		body !== null &&
		!Array.isArray(body) &&
		typeof (body as IDataObject).status === 'string' &&
		['success', 'fail', 'error'].includes((body as IDataObject).status as string)
	);
}

function extractMessage(body: unknown): string | undefined {
	if (typeof body === 'string') return body.slice(0, 300);
	if (typeof body !== 'object' || body === null) return undefined;
	const b = body as IDataObject;
	for (const key of ['message', 'error', 'detail', 'title']) {
		const value = b[key];
		if (typeof value === 'string' && value) return value.slice(0, 500);
		if (
			typeof value === 'object' &&
			value !== null &&
			typeof (value as IDataObject).message === 'string'
		) {
			return ((value as IDataObject).message as string).slice(0, 500);
		}
	}
	if (Array.isArray(b.errors) && b.errors.length) return extractMessage(b.errors[0]);
	return undefined;
}

/** What went wrong on the wire, and whether the request may have reached the service. */
function networkFailure(error: unknown): { code: string; message: string; sent: boolean } {
	const e = error as IDataObject & { cause?: IDataObject & { code?: string; cause?: IDataObject } };
	const code = String(
		e?.cause?.code ?? (e?.cause?.cause as IDataObject | undefined)?.code ?? e?.code ?? 'EUNKNOWN',
	);
	const rawMessage = String(
		(e?.cause as IDataObject | undefined)?.message ??
			(e as unknown as Error)?.message ??
			'request failed',
	);
	const message = rawMessage.replace(/(Bearer\s+)[^\s"',;}]+/gi, '$1***');
	const timedOut = /timeout/i.test(message);
	// Anything but a failure to connect (reset, timeout, broken pipe, unknown) may have reached the service.
	const sent = !NOT_SENT_CODES.has(code);
	return { code: timedOut && code === 'EUNKNOWN' ? 'ETIMEDOUT' : code, message, sent };
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date. */
export function parseRetryAfter(value: unknown): number | undefined {
	if (value === undefined || value === null || value === '') return undefined;
	const text = String(Array.isArray(value) ? value[0] : value).trim();
	if (/^\d+(\.\d+)?$/.test(text)) return Math.round(parseFloat(text) * 1000);
	const date = Date.parse(text);
	if (Number.isNaN(date)) return undefined;
	return Math.max(0, date - Date.now());
}

/** Exponential backoff with jitter: base·2^(n-1), scaled by a random factor in [0.5, 1). */
export function backoff(base: number, attempt: number): number {
	return Math.round(base * 2 ** (attempt - 1) * (0.5 + Math.random() / 2));
}
