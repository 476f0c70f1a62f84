import type {
	ICredentialDataDecryptedObject,
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	IDataObject,
	IExecuteFunctions,
	ILoadOptionsFunctions,
	INode,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { interpret } from './answer';
import { Stopper, attempt, wait } from './attempt';
import { type ErrorSite, apiError, failureError } from './errors';
import { Limiter } from './limiter';
import { applyKey, targetOf, webAddress } from './origin';
import { checkJson, withRetries } from './retry';
import { SERVICES, type Service, type StyleEntry, styleOf } from '../services';
import { redactAll, redactData, redactKey } from './redaction';
import type { ApiRequest, AttemptSpec, RequestSettings, Run, Sender } from './types';

/** The credential's type (TriptychApi.credentials.ts spells it as a literal, for n8n's linter) */
const CREDENTIALS_TYPE = 'triptychApi';
/** Images downloaded at once at most: each may be up to Max Image Size in memory. */
const MAX_IMAGE_DOWNLOADS = 8;

type Target = { url: string; origin: string; keyed: boolean; send: Sender; style: StyleEntry };

/** What the client needs of n8n: a node's run, an editor's list and the credential Test each give it. */
interface Host {
	node: INode;
	credentials(): Promise<ICredentialDataDecryptedObject>;
	credentialId?: string;
	plain: Sender;
	/** Sends with the key, applied by the credential's `authenticate` */
	keyed(credentials: ICredentialDataDecryptedObject): Sender;
	signal?: AbortSignal;
	log(text: string, meta: Record<string, unknown>): void;
}

function contextHost(ctx: IExecuteFunctions | ILoadOptionsFunctions): Host {
	const node = ctx.getNode();
	const { id = '', name = '' } = node.credentials?.[CREDENTIALS_TYPE] ?? {};
	return {
		node,
		credentials: async () => await ctx.getCredentials(CREDENTIALS_TYPE),
		credentialId: id ?? undefined,
		plain: async (options) => await ctx.helpers.httpRequest(options),
		// n8n gets the credentials read once, so it does not load and decrypt them again for every request
		keyed: (data) => async (options) =>
			await ctx.helpers.httpRequestWithAuthentication.call(ctx, CREDENTIALS_TYPE, options, {
				credentialsDecrypted: { id: id ?? '', name, type: CREDENTIALS_TYPE, data },
			}),
		signal: 'getExecutionCancelSignal' in ctx ? ctx.getExecutionCancelSignal?.() : undefined,
		log: (text, meta) => ctx.logger.debug(text, meta),
	};
}

/** The credential Test's context: only the `request` helper, and the credential being edited. */
function testHost(ctx: ICredentialTestFunctions, credential: ICredentialsDecrypted): Host {
	// taken by name: the linter would ask for `httpRequest`, which a credential test does not get
	const { request } = ctx.helpers;
	const plain: Sender = async (options) => {
		const answer = request({
			method: options.method,
			uri: options.url,
			qs: options.qs,
			headers: options.headers,
			body: options.body,
			useStream: true,
			timeout: options.timeout,
			resolveWithFullResponse: true,
			simple: false,
			followRedirect: false,
			followAllRedirects: false,
			abortSignal: options.abortSignal,
		}) as Promise<unknown>;
		// some versions throw for an HTTP error even with `simple: false`: that is an answer too
		return await answer.catch((error: { statusCode?: number; response?: IDataObject }) => {
			const r = error?.response;
			const status = error?.statusCode ?? r?.statusCode ?? r?.status;
			if (typeof status !== 'number') return Promise.reject(error);
			return { statusCode: status, body: r?.body ?? r?.data, headers: r?.headers };
		});
	};
	return {
		node: { id: '', name: credential.name || 'Triptych API', type: CREDENTIALS_TYPE } as INode,
		credentials: async () => credential.data ?? {},
		credentialId: credential.id,
		plain,
		keyed: (credentials) => async (options) => await plain(applyKey(credentials, options)),
		log: (text, meta) => ctx.logger.debug(text, meta),
	};
}

/** The one road to the services for nodes, editor lists and the credential Test: every guard applies to all */
export class TriptychClient {
	private credentials?: Promise<ICredentialDataDecryptedObject>;
	private apiKey = '';
	/** n8n's Stop for this execution (absent from older n8n versions): it also ends the requests under way */
	private readonly stopped: Stopper;
	/** Stop, or the node stopping after a failed item: nothing more is started, waits end */
	readonly cancel: Stopper;
	private readonly runs = new Map<Service | 'images', { run: Run; limiter: Limiter }>();
	private readonly targets = new Map<Service, Target>();
	private readonly host: Host;
	/** Waits for quota resets the services announced, in all (for the run's execution hint) */
	announcedMs = 0;

	static forEditor(ctx: ILoadOptionsFunctions): TriptychClient {
		return new TriptychClient(contextHost(ctx), 1);
	}

	static forTest(ctx: ICredentialTestFunctions, credential: ICredentialsDecrypted) {
		return new TriptychClient(testHost(ctx, credential), 1);
	}

	constructor(
		host: IExecuteFunctions | Host,
		private readonly concurrency: number,
	) {
		this.host = 'getNode' in host ? contextHost(host) : host;
		this.stopped = new Stopper(this.host.signal);
		this.cancel = new Stopper(this.stopped);
	}

	/** After an item failed and the node stops: requests waiting for their turn are not sent (those under way finish). */
	halt(): void {
		this.cancel.stop('not sent: an earlier item failed and the node stopped');
	}

	/** Waits `ms`, or less when the client is cancelled: Stop, or the node stopping after a failed item. */
	async wait(ms: number): Promise<void> {
		await wait(ms, this.cancel);
	}

	maxInFlight(name: Service | 'images'): number {
		return Math.min(this.concurrency, name === 'images' ? MAX_IMAGE_DOWNLOADS : Infinity);
	}

	/** What the service's style implies (its entry in the service table): route, paging, lists. */
	async styleEntry(service: Service): Promise<StyleEntry> {
		return SERVICES[service].styles[styleOf(await this.getCredentials(), service)]!;
	}

	/** Sends one request with retries and returns the unwrapped answer, or throws a NodeApiError. */
	async request(req: ApiRequest, settings: RequestSettings, itemIndex: number) {
		const { where, keyed, gaveUp, ...outcome } = await this.exchange(req, settings, itemIndex);
		if ('failure' in outcome) throw failureError(where, outcome.failure, gaveUp, settings);
		const answer = interpret(outcome.res, { ...where, gaveUp, acceptText: req.acceptText });
		// a service may echo the key back (an echo service, a misconfigured proxy): it never reaches an output
		if (this.apiKey.length >= 4 && keyed)
			answer.data = redactData(answer.data, this.apiKey, outcome.res.body.toString('utf8'));
		return answer;
	}

	/** One request on the road: the answer as it came, or what went wrong, for a caller that judges it (the Test) */
	async exchange(req: ApiRequest, settings: RequestSettings, itemIndex: number) {
		const { service } = req;
		const where: ErrorSite = { node: this.host.node, service, itemIndex, redact: this.redact };
		const target = await this.target(service, itemIndex);
		where.url = req.url ? this.sameOrigin(req.url, target, where) : target.url + (req.path ?? '');
		const call = {
			url: where.url,
			method: req.method,
			qs: req.qs,
			body: req.body,
			headers: { Accept: 'application/json', ...target.style.headers, ...req.headers },
			redirects: { follow: 'origin', origin: target.origin } as const,
			cutOff: req.acceptText,
		};
		const outcome = await this.send(service, target.send, call, { ...req, settings });
		return { ...outcome, where, keyed: target.keyed };
	}

	/** GET for images: never authenticated, so redirects are followed wherever they go; same bounds and retries. */
	async download(url: string, settings: RequestSettings) {
		const call = { url, method: 'GET', redirects: { follow: 'any' } } as const;
		return await this.send('images', this.host.plain, call, { settings, repeatable: true });
	}

	readonly redact = (text: string): string => redactKey(text, this.apiKey);

	/** Sends with retries, each attempt at its turn at the limiter of `name` (images: a limiter of the run's own). */
	private async send(
		name: Service | 'images',
		sender: Sender,
		call: Omit<AttemptSpec, 'timeout' | 'maxBytes' | 'cancel'>,
		retries: Pick<ApiRequest, 'repeatable' | 'noRetryAdvice'> & { settings: RequestSettings },
	) {
		const { timeout, maxResponseBytes: maxBytes } = retries.settings;
		const spec = { ...call, timeout, maxBytes, cancel: this.stopped };
		const send = async () => {
			const answer = await attempt(sender, spec);
			// a service's answer is JSON, checked whole; an image is taken as it comes
			return 'kind' in answer || name === 'images' ? answer : checkJson(answer);
		};
		let entry = this.runs.get(name);
		if (!entry) {
			const run: Run = { max: this.maxInFlight(name), stop: this.cancel, inFlight: 0, queue: [] };
			const target = this.targets.get(name as Service);
			// a service that never gets the key tells callers apart by address only: one limiter for all credentials
			const key = `${target?.origin}${target?.keyed ? ` ${this.host.credentialId}` : ''}`;
			const limiter = name === 'images' ? new Limiter() : limiterFor(key, target?.style.perMinute);
			entry = { run, limiter };
			this.runs.set(name, entry);
			this.cancel.subscribe(() => limiter.leave(run));
		}
		const log = (text: string, meta: Record<string, unknown>) =>
			this.host.log(`Triptych: ${name}: ${this.redact(text)}`, redactAll(meta, this.redact));
		const outcome = await withRetries(send, { ...retries, ...entry, log });
		this.announcedMs += outcome.announcedMs;
		return outcome;
	}

	private async getCredentials() {
		this.credentials ??= this.host.credentials();
		const credentials = await this.credentials;
		this.apiKey = String(credentials.apiKey ?? '');
		return credentials;
	}

	private async target(service: Service, itemIndex: number): Promise<Target> {
		const known = this.targets.get(service);
		if (known) return known;
		const credentials = await this.getCredentials();
		const checked = targetOf(credentials, service);
		if (Array.isArray(checked)) {
			const [message, description] = checked;
			const options = { itemIndex, description };
			throw new NodeOperationError(this.host.node, this.redact(message), options);
		}
		const send = checked.keyed ? this.host.keyed(credentials) : this.host.plain;
		const target = { ...checked, send, style: await this.styleEntry(service) };
		this.targets.set(service, target);
		return target;
	}

	/** A next-page link (below the base address) is followed only on its own origin: the key goes nowhere else. */
	private sameOrigin(link: string, base: Target, where: ErrorSite): string {
		const target = webAddress(link, `${base.url}/`);
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

/** A limiter nobody used for this long is forgotten; at most this many are kept. */
const [IDLE_MS, MAX_LIMITERS] = [15 * 60_000, 256];

/** The limiter of a service in this process; unused ones are forgotten (no timer), the least recently used first. */
export function limiterFor(key: string, perMinute?: number): Limiter {
	const now = Date.now();
	for (const [k, l] of Limiter.all)
		if (l.inFlight === 0 && now - l.usedAt > IDLE_MS) Limiter.all.delete(k);
	const limiter = Limiter.all.get(key) ?? new Limiter(perMinute);
	Limiter.all.delete(key);
	limiter.usedAt = now;
	Limiter.all.set(key, limiter);
	if (Limiter.all.size > MAX_LIMITERS) Limiter.all.delete(Limiter.all.keys().next().value!);
	return limiter;
}
