import type { ICredentialDataDecryptedObject, IExecuteFunctions, INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { checkJson, interpret } from './answer';
import { type AttemptSpec, type Sender, attempt } from './attempt';
import { type ErrorSite, apiError, failureError } from './errors';
import { Limiter, type Run, limiterFor } from './limiter';
import { baseOf, baseUrlProblem, keyRule, originOf, resolveLink } from './origin';
import { type Outcome, type RetryPolicy, withRetries } from './retry';
import type { Service, StyleEntry } from './services';
import { CREDENTIALS_TYPE, SERVICES, sendsKey, styleOf } from './services';
import { Stopper } from './stop';
import { redactAll, redactData, redactKey } from './text';
import type { ApiRequest, RequestSettings } from './types';

/** Images downloaded at once at most: each may be up to Max Image Size in memory. */
const MAX_IMAGE_DOWNLOADS = 8;

export type DownloadSettings = Omit<RequestSettings, 'maxResponseBytes'> & { maxBytes: number };

type Target = { url: string; origin: string; send: Sender };

/** The one way the nodes talk to their services, one per node execution, through n8n's request helpers. */
export class TriptychClient {
	private credentials?: Promise<ICredentialDataDecryptedObject>;
	private apiKey = '';
	/** n8n's Stop for this execution (absent from older n8n versions): it also ends the requests under way */
	private readonly stopped: Stopper;
	/** Stop, or the node stopping after a failed item: nothing more is started, waits end */
	readonly cancel: Stopper;
	private readonly runs = new Map<Service | 'images', { run: Run; limiter: Limiter }>();
	private readonly targets = new Map<Service, Target>();
	/** Read once: n8n's `getNode()` copies the node deeply on every call */
	private readonly node: INode;
	/** Waits for quota resets the services announced, in all (for the run's execution hint) */
	announcedMs = 0;

	constructor(
		private readonly ctx: IExecuteFunctions,
		private readonly concurrency: number,
	) {
		this.stopped = new Stopper(ctx.getExecutionCancelSignal?.());
		this.cancel = new Stopper(this.stopped);
		this.node = ctx.getNode();
	}

	/** After an item failed and the node stops: requests waiting for their turn are not sent (those under way finish). */
	halt(): void {
		this.cancel.stop('not sent: an earlier item failed and the node stopped');
	}

	/** Requests of this run to a service at once at most: its Concurrency (images: at most 8). */
	maxInFlight(name: Service | 'images'): number {
		return Math.min(this.concurrency, name === 'images' ? MAX_IMAGE_DOWNLOADS : Infinity);
	}

	/** What the service's style implies (its entry in the service table): route, paging, lists. */
	async styleEntry(service: Service): Promise<StyleEntry> {
		return SERVICES[service].styles[styleOf(await this.getCredentials(), service)]!;
	}

	/** Sends one request with retries and returns the unwrapped answer, or throws a NodeApiError. */
	async request(req: ApiRequest, settings: RequestSettings, itemIndex: number) {
		const { service } = req;
		const where: ErrorSite = { node: this.node, service, itemIndex, redact: this.redact };
		const target = await this.target(service, itemIndex);
		const spec: AttemptSpec = {
			url: req.url ? this.sameOrigin(req.url, target, where) : target.url + (req.path ?? ''),
			method: req.method,
			qs: req.qs,
			body: req.body,
			headers: { Accept: 'application/json', ...req.headers },
			redirects: { follow: 'origin', origin: target.origin },
			timeout: settings.timeout,
			maxBytes: settings.maxResponseBytes,
			cutOff: req.acceptText,
			cancel: this.stopped,
		};
		const { repeatable, noRetryAdvice, acceptText } = req;
		const send = async () => {
			const answer = await attempt(target.send, spec);
			return 'kind' in answer ? answer : checkJson(answer);
		};
		const outcome = await this.withRetries(service, send, { settings, repeatable, noRetryAdvice });
		const { attempts, gaveUp } = outcome;
		if ('failure' in outcome) throw failureError(where, outcome.failure, gaveUp, settings);
		const answer = interpret(outcome.res, { ...where, attempts, gaveUp, acceptText });
		// a service may echo the key back (an echo service, a misconfigured proxy): it never reaches an output
		if (this.apiKey.length >= 4 && target.send !== this.plain)
			answer.data = redactData(answer.data, this.apiKey);
		return answer;
	}

	/** GET for images: never authenticated, so redirects are followed wherever they go; same bounds and retries. */
	async download(url: string, settings: DownloadSettings): Promise<Outcome> {
		const spec: AttemptSpec = {
			url,
			method: 'GET',
			redirects: { follow: 'any' },
			timeout: settings.timeout,
			maxBytes: settings.maxBytes,
			cancel: this.stopped,
		};
		return await this.withRetries('images', async () => await attempt(this.plain, spec), {
			settings: { ...settings, maxResponseBytes: settings.maxBytes },
			repeatable: true,
		});
	}

	/** Requests that never carry the key */
	private readonly plain: Sender = async (options) => await this.ctx.helpers.httpRequest(options);

	readonly redact = (text: string): string => redactKey(text, this.apiKey);

	/** Sends with retries, each attempt at its turn at the limiter of `name` (images: a limiter of the run's own). */
	private async withRetries(
		name: Service | 'images',
		send: Parameters<typeof withRetries>[0],
		retries: Omit<RetryPolicy, 'limiter' | 'run' | 'log'>,
	): Promise<Outcome> {
		let entry = this.runs.get(name);
		if (!entry) {
			const run: Run = { max: this.maxInFlight(name), stop: this.cancel, inFlight: 0, queue: [] };
			const key = `${this.targets.get(name as Service)?.origin} ${this.node.credentials?.[CREDENTIALS_TYPE]?.id}`;
			const limiter = name === 'images' ? new Limiter() : limiterFor(key);
			entry = { run, limiter };
			this.runs.set(name, entry);
			this.cancel.subscribe(() => limiter.leave(run));
		}
		const log = (text: string, meta: Record<string, unknown>) =>
			this.ctx.logger.debug(
				`Triptych: ${name}: ${this.redact(text)}`,
				redactAll(meta, this.redact),
			);
		const outcome = await withRetries(send, { ...retries, ...entry, log });
		this.announcedMs += outcome.announcedMs;
		return outcome;
	}

	private async getCredentials() {
		this.credentials ??= this.ctx.getCredentials(CREDENTIALS_TYPE);
		const credentials = await this.credentials;
		this.apiKey = String(credentials.apiKey ?? '');
		return credentials;
	}

	private async target(service: Service, itemIndex: number): Promise<Target> {
		const known = this.targets.get(service);
		if (known) return known;
		const credentials = await this.getCredentials();
		const checked = baseOf(credentials, service);
		const fail = ([message, description]: [string, string]) =>
			new NodeOperationError(this.node, `${message} [item ${itemIndex}]`, {
				itemIndex,
				description,
			});
		if (!('url' in checked)) throw fail(baseUrlProblem(checked, credentials, service));
		const origin = originOf(checked.url);
		const { problem } = keyRule(credentials, origin);
		if (problem) throw fail([`The API key cannot be sent to ${origin}`, problem]);
		// n8n gets the credentials read once, so it does not load and decrypt them again for every request
		const { id, name = '' } = this.node.credentials?.[CREDENTIALS_TYPE] ?? {};
		const credentialsDecrypted = { id: id ?? '', name, type: CREDENTIALS_TYPE, data: credentials };
		const authenticated: Sender = async (options) =>
			await this.ctx.helpers.httpRequestWithAuthentication.call(
				this.ctx,
				CREDENTIALS_TYPE,
				options,
				{ credentialsDecrypted },
			);
		const send = sendsKey(credentials, service) ? authenticated : this.plain;
		const target = { url: checked.url, origin, send };
		this.targets.set(service, target);
		return target;
	}

	/** A next-page link is followed only on the service's own origin, so the key never goes anywhere else. */
	private sameOrigin(link: string, base: Target, where: ErrorSite): string {
		const target = resolveLink(link, base.url);
		if (target?.origin === base.origin) return target.toString();
		const { label, name } = SERVICES[where.service];
		const said: [string, string] = target
			? [
					`The ${name} sent a next-page link to another origin (${target.origin}); it was not followed`,
					`The API key is only sent to the ${label}'s own origin. Use Limit or Page instead of Return All.`,
				]
			: [`The ${name} sent a next-page link that is not an address`, link.slice(0, 200)];
		throw apiError(where, said, { message: said[0] });
	}
}
