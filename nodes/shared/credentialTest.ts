import type {
	ICredentialDataDecryptedObject,
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	INodeCredentialTestResult,
} from 'n8n-workflow';

import { type Service, SERVICES, SERVICE_NAMES, styleOf } from './services';
import type { Failure, Judgement } from './transport';
import { TriptychClient, describeFailure, excerpt, judge, redactKey, targetOf } from './transport';
import { listed } from './values';

// one attempt, and no wait (the editor's user is waiting); 1 MB is enough for any answer to a one-record search
const SETTINGS = {
	timeout: 15_000,
	maxAttempts: 1,
	retryDelay: 0,
	maxRetryWait: 0,
	maxResponseBytes: 1024 * 1024,
};

type Target = Exclude<ReturnType<typeof testTarget>, string>;

/** The order of the services in the Test's report */
const BY_RANK: Service[] = ['museum', 'quotes', 'trigger'];

/** The paths the nodes add to a base address, e.g. "/object or /tags" */
const PATHS = SERVICE_NAMES.map((s) => SERVICES[s].styles.generic.test.path)
	.filter((path) => path !== '/')
	.join(' or ');

const LABELS = BY_RANK.map((s) => `the ${SERVICES[s].label}`);
const NOTHING_FILLED = `No address to test: fill in ${listed(LABELS, 'or')} (those of the services you use).`;

const fail = (message: string): INodeCredentialTestResult => ({ status: 'Error', message });
const passed = (message: string): INodeCredentialTestResult => ({
	status: 'OK',
	message: `Connection successful: the ${message}`,
});

/** The request that tests one service (never one that fires an automation), or why its address cannot be tested. */
export function testTarget(data: ICredentialDataDecryptedObject, service: Service) {
	const checked = targetOf(data, service);
	// a wrong base address, or a key that may not go there as the credential is set (services sharing an origin)
	if (Array.isArray(checked)) return checked.filter(Boolean).join('. ');
	const style = styleOf(data, service);
	const { path, qs } = SERVICES[service].styles[style]!.test;
	const url = new URL(checked.url + path);
	for (const [name, value] of Object.entries(qs ?? {})) url.searchParams.set(name, String(value));
	return { service, style, base: checked.url, path, qs, url };
}

/** A redirect is never followed off the service's origin (it would take the key along), whoever saw it. */
function redirects({ service, base }: Target, code: string, to = '') {
	const { label } = SERVICES[service];
	return `The ${label} (${base}) redirects (${code})${to}: set the ${label} to the address the service answers at.`;
}

export function judgeAnswer(target: Target, status: number, judged: Judgement) {
	const verdict = answerVerdict(target, status, judged);
	return typeof verdict === 'string' ? fail(verdict) : verdict;
}

/** A passed test, or the message of the failure. */
function answerVerdict(target: Target, status: number, judged: Judgement) {
	const { service, base, url } = target;
	const { label, name, styles } = SERVICES[service];
	const at = `${name} at ${base}`;
	const text = 'said' in judged ? judged.said : judged.kind === 'text' ? excerpt(judged.text) : '';
	const said = text && `: "${text}"`;
	if (status === 401)
		return `The ${name} rejected the API key (HTTP 401). Check the API Key. Tested: ${label} (${base}).`;
	if (status === 403)
		return `The ${name} refused the API key (HTTP 403). Check that the key may read from it. Tested: ${label} (${base}).`;
	if (status >= 300 && status < 400) return redirects(target, `HTTP ${status}`);
	const { verdict } = styles[target.style]!.test;
	const ok = status >= 200 && status < 300;
	// the key's page says that the address is IFTTT's and knows the key; only firing an event would prove more
	if (verdict === 'keyPage' && ok)
		return passed(
			`${at} answered the key's page (HTTP ${status}). The test fires no event, so the key is fully checked on the first run.`,
		);
	if (verdict === 'keyPage' && status === 404)
		return `The ${at} has no page for this key (HTTP 404): check the API Key (from IFTTT's Webhooks settings) and the ${label} (https://maker.ifttt.com).`;
	// the trigger service's root may answer anything: reaching it is what can be checked without firing
	if (verdict === 'reachable' && status < 500) return passed(`${at} answered (HTTP ${status}).`);
	if (status === 404)
		return `Nothing answers at ${url.origin}${url.pathname} (HTTP 404): use the service's base address in the ${label}, without ${PATHS}.`;
	if (!ok)
		return `The ${at} answered HTTP ${status}${said}. Check the ${label}, or try again later.`;
	if (judged.kind === 'refused')
		return `The ${at} answered status "${judged.envelope}"${said}. Check the API Key and the ${label}.`;
	if (judged.kind !== 'data' || typeof judged.data !== 'object' || judged.data === null)
		return `The ${at} did not answer with JSON${said}: the ${label} may point at a website or a proxy, not at the API.`;
	return passed(`${at} answered.`);
}

/** The verdict on a request that got no usable answer: the failures a wrong address gives are said in its terms. */
function judgeFailure(target: Target, failure: Failure): string {
	const { service, base, url } = target;
	const { label, name } = SERVICES[service];
	const { code, kind } = failure;
	const { timeout, maxResponseBytes: maxBytes } = SETTINGS;
	if (kind === 'redirect')
		return redirects(target, code, failure.location ? ` to ${excerpt(failure.location)}` : '');
	if (kind === 'tooLarge')
		return `The ${name} at ${base} answered with more than ${maxBytes / 1024 / 1024} MB for a one-item request: check the ${label}; it may not point at the API.`;
	if (kind === 'timeout')
		return `The ${name} at ${base} did not send its answer in full within ${timeout / 1000} s: check the ${label}, and any proxy.`;
	const limits = { timeout, maxBytes, sizeOption: 'size limit' };
	const wording = { ...limits, what: `the ${name}`, label, address: url.href };
	const [message, advice] = describeFailure(failure, wording);
	return `${message}. ${excerpt(advice, 300)} Tested: ${label} (${base}).`;
}

/** The credential's Test (`testedBy`): one safe GET to each filled-in service at once, on the nodes' road. */
export async function triptychApiTest(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const data = credential.data ?? {};
	const isFilled = (s: Service) => String(data[SERVICES[s].field] ?? '').trim() !== '';
	const tested = BY_RANK.filter(isFilled);
	if (!tested.length) return fail(NOTHING_FILLED);
	const client = TriptychClient.forTest(this, credential);
	const verdicts = await Promise.all(
		tested.map(async (service) => {
			const target = testTarget(data, service);
			if (typeof target === 'string') return fail(target);
			const { path, qs } = target;
			const request = { service, method: 'GET', path, qs, repeatable: true } as const;
			const outcome = await client.exchange(request, SETTINGS, 0);
			if ('failure' in outcome) return fail(judgeFailure(target, outcome.failure));
			return judgeAnswer(target, outcome.res.statusCode, judge(outcome.res, client.redact));
		}),
	);
	const lines = verdicts.map((v, n) =>
		tested.length === 1 ? v.message : `${SERVICES[tested[n]].label}: ${v.message}`,
	);
	// a credential for one service is tested as that; the others' emptiness is news only beside another verdict
	if (tested.length > 1)
		for (const s of BY_RANK) if (!isFilled(s)) lines.push(`${SERVICES[s].label} empty: skipped.`);
	return {
		status: verdicts.every((v) => v.status === 'OK') ? 'OK' : 'Error',
		// a service may echo the key back (in a message, a page, a redirect address): it is not shown
		message: redactKey(lines.join(' '), String(data.apiKey ?? '')),
	};
}
