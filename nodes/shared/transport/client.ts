import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	INode,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { checkJson, interpret } from './answer';
import type { AttemptSpec, Sender } from './attempt';
import { attempt } from './attempt';
import { Deadlines } from './deadlines';
import { apiError, failureError, redactAll, redactKey } from './errors';
import { Gate } from './gate';
import { Stopper } from './stop';
import { baseOf, baseUrlProblem, keyRule, originOf, resolveLink } from './origin';
import type { Outcome } from './retry';
import { withRetries } from './retry';
import type { Service, Style } from './services';
import { CREDENTIALS_TYPE, SERVICES, sendsKey, styleOf } from './services';
import type { ApiRequest, ApiResponse, RequestSettings } from './types';

/** Images downloaded at once at most: each may be up to Max Image Size in memory. */
const MAX_IMAGE_DOWNLOADS = 8;

const DEFAULT_NO_RETRY_ADVICE =
	'It was not retried: the service may have acted on it already, and sending it again could repeat that.';

/** Limits of one image download (never authenticated). */
export interface DownloadSettings extends Omit<RequestSettings, 'maxResponseBytes'> {
	maxBytes: number;
}

/**
 * The one way the three nodes talk to their services. One client serves one node execution: it reads the
 * credentials once, keeps one gate per service over the budget every run in the process shares (per origin
 * and credential), and sends through n8n's request helpers (so proxies and n8n's settings apply), with the
 * API key only on requests to the service's own origin.
 */
export class TriptychClient {
	private credentials?: Promise<IDataObject>;
	private apiKey = '';
	private readonly gates = new Map<string, Gate>();
	private execution?: Stopper;
	private stopSignal?: Stopper;
	/** Per service: the checked base address and its origin, and how requests are sent */
	private readonly bases = new Map<Service, { url: string; origin: string }>();
	private readonly senders = new Map<Service, Sender>();
	private theNode?: INode;
	/** One timer for the time limits of every attempt of the run */
	private readonly deadlines = new Deadlines();

	constructor(
		private readonly ctx: IExecuteFunctions,
		private readonly concurrency: number,
	) {}

	/** n8n's Stop for this execution (never fires on n8n versions without a cancel signal). */
	get cancel(): Stopper {
		if (!this.execution) {
			const ctx = this.ctx as { getExecutionCancelSignal?: () => AbortSignal | undefined };
			const signal =
				typeof ctx.getExecutionCancelSignal === 'function'
					? ctx.getExecutionCancelSignal()
					: undefined;
			this.execution = new Stopper(signal);
		}
		return this.execution;
	}

	/** The node (n8n's `getNode()` copies it deeply on every call). */
	private get node(): INode {
		this.theNode ??= this.ctx.getNode();
		return this.theNode;
	}

	/** The end of the node run: ends the run's timer. */
	close(): void {
		this.deadlines.close();
	}

	/** Stop or halt: nothing more is started (requests already on the wire are left to finish). */
	private get stopping(): Stopper {
		this.stopSignal ??= new Stopper(this.cancel);
		return this.stopSignal;
	}

	/** After an item failed and the node stops: requests waiting for their turn are not sent. */
	halt(): void {
		this.stopping.stop('not sent: an earlier item failed and the node stopped');
	}

	/** A service's gate over its shared budget; the image host's at most MAX_IMAGE_DOWNLOADS at once. */
	gate(name: Service | 'images'): Gate {
		let gate = this.gates.get(name);
		if (!gate) {
			const max = Math.min(this.concurrency, name === 'images' ? MAX_IMAGE_DOWNLOADS : Infinity);
			const key = () =>
				`${this.bases.get(name as Service)?.origin} ${this.node.credentials?.[CREDENTIALS_TYPE]?.id}`;
			gate = new Gate(max, this.stopping, name === 'images' ? undefined : key);
			this.gates.set(name, gate);
		}
		return gate;
	}

	/** The service's base address, validated, without trailing slashes, and its origin. */
	private async base(
		service: Service,
		itemIndex: number,
	): Promise<{ url: string; origin: string }> {
		const known = this.bases.get(service);
		if (known) return known;
		const credentials = await this.getCredentials();
		const checked = baseOf(credentials, service);
		const fail = ([message, description]: [string, string]) =>
			new NodeOperationError(this.node, `${message} [item ${itemIndex}]`, {
				itemIndex,
				description,
			});
		if (!('url' in checked)) throw fail(baseUrlProblem(checked, credentials, service));
		const base = { url: checked.url, origin: originOf(checked.url) };
		const { problem } = keyRule(credentials, base.origin);
		if (problem) throw fail([`The API key cannot be sent to ${base.origin}`, problem]);
		this.bases.set(service, base);
		return base;
	}

	/** How the credential says the service takes the key. */
	async style(service: Service): Promise<Style> {
		return styleOf(await this.getCredentials(), service);
	}

	/** Sends one request with retries and returns the unwrapped answer, or throws a NodeApiError. */
	async request(
		req: ApiRequest,
		settings: RequestSettings,
		itemIndex: number,
	): Promise<ApiResponse> {
		const base = await this.base(req.service, itemIndex);
		const url = req.url
			? this.sameOrigin(req.url, base, req.service, itemIndex)
			: base.url + (req.path ?? '');
		const send = await this.sender(req.service);
		const spec: AttemptSpec = {
			url,
			method: req.method,
			qs: req.qs,
			body: req.body,
			headers: { Accept: 'application/json', ...req.headers },
			redirects: { follow: 'origin', origin: base.origin },
			timeout: settings.timeout,
			maxBytes: settings.maxResponseBytes,
			cutOff: req.acceptText,
			cancel: this.cancel,
			deadlines: this.deadlines,
		};
		const outcome = await this.withRetries(
			req.service,
			async () => {
				const answer = await attempt(send, spec);
				return 'kind' in answer ? answer : checkJson(answer);
			},
			settings,
			req.repeatable,
			req.noRetryAdvice ?? DEFAULT_NO_RETRY_ADVICE,
			itemIndex,
		);
		const { node, redact } = this;
		const { attempts, stop } = outcome;
		if ('failure' in outcome)
			throw failureError(node, req.service, itemIndex, outcome.failure, stop, settings, redact);
		return interpret(
			outcome.res,
			node,
			req.service,
			itemIndex,
			attempts,
			stop,
			redact,
			req.acceptText,
		);
	}

	/**
	 * GET for files (museum images): never authenticated, so the API key cannot reach the image host or a CDN it
	 * redirects to; redirects are followed wherever they go. Same time and size bounds and retries as API requests.
	 */
	async download(url: string, settings: DownloadSettings, itemIndex: number): Promise<Outcome> {
		const spec: AttemptSpec = {
			url,
			method: 'GET',
			redirects: { follow: 'any' },
			timeout: settings.timeout,
			maxBytes: settings.maxBytes,
			cancel: this.cancel,
			deadlines: this.deadlines,
		};
		return await this.withRetries(
			'images',
			async () => await attempt(this.plain, spec),
			{ ...settings, maxResponseBytes: settings.maxBytes },
			true,
			DEFAULT_NO_RETRY_ADVICE,
			itemIndex,
		);
	}

	/** Requests that never carry the key */
	private readonly plain: Sender = async (options) => await this.ctx.helpers.httpRequest(options);

	readonly redact = (text: string): string => redactKey(text, this.apiKey);

	private async withRetries(
		gate: Service | 'images',
		run: () => ReturnType<Parameters<typeof withRetries>[0]>,
		settings: RequestSettings,
		repeatable: boolean,
		noRetryAdvice: string,
		itemIndex: number,
	): Promise<Outcome> {
		return await withRetries(run, {
			settings,
			repeatable,
			noRetryAdvice,
			gate: this.gate(gate),
			cancel: this.stopping,
			log: (text, meta) =>
				this.ctx.logger.debug(
					`Triptych: ${gate}: ${this.redact(text)}`,
					redactAll({ ...meta, itemIndex }, this.redact),
				),
		});
	}

	private async getCredentials(): Promise<IDataObject> {
		this.credentials ??= this.ctx.getCredentials(CREDENTIALS_TYPE) as Promise<IDataObject>;
		const credentials = await this.credentials;
		this.apiKey = String(credentials.apiKey ?? '');
		return credentials;
	}

	private async sender(service: Service): Promise<Sender> {
		const known = this.senders.get(service);
		if (known) return known;
		const credentials = await this.getCredentials();
		if (!sendsKey(credentials, service)) return this.plain;
		// n8n gets the credentials read once, so it does not load and decrypt them again for every request
		const reference = this.node.credentials?.[CREDENTIALS_TYPE];
		const credentialsDecrypted = {
			id: reference?.id ?? '',
			name: reference?.name ?? '',
			type: CREDENTIALS_TYPE,
			data: credentials as ICredentialDataDecryptedObject,
		};
		const send: Sender = async (options) =>
			await this.ctx.helpers.httpRequestWithAuthentication.call(
				this.ctx,
				CREDENTIALS_TYPE,
				options,
				{
					credentialsDecrypted,
				},
			);
		this.senders.set(service, send);
		return send;
	}

	/** A next-page link is followed only on the service's own origin, so the key never goes anywhere else. */
	private sameOrigin(
		link: string,
		base: { url: string; origin: string },
		service: Service,
		itemIndex: number,
	): string {
		const target = resolveLink(link, base.url);
		const { label, name } = SERVICES[service];
		const fail = (message: string, description: string) =>
			apiError({
				node: this.node,
				service,
				itemIndex,
				message,
				description,
				details: { message },
				redact: this.redact,
			});
		if (!target) {
			throw fail(`The ${name} sent a next-page link that is not an address`, link.slice(0, 200));
		}
		if (target.origin !== base.origin) {
			throw fail(
				`The ${name} sent a next-page link to another origin (${target.origin}); it was not followed`,
				`The API key is only sent to the ${label}'s own origin. Use Limit or Page instead of Return All.`,
			);
		}
		return target.toString();
	}
}
