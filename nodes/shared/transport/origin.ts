import type { IDataObject, IHttpRequestMethods, IHttpRequestOptions } from 'n8n-workflow';

import type { Service, StyleEntry } from '../services';
import type { AttemptSpec, Failure } from './types';
import {
	KEY_PARAMETER,
	SERVICES,
	SERVICE_NAMES,
	sendsKey,
	styleOf,
	unknownStyle,
} from '../services';

/* The one rule for where a request may go: the API key goes only to the origin of the service's configured address;
 * next-page links and redirects to the same origin are followed, anything else is refused. */

type Base = { url: string; origin: string };
type KeyRule = { key?: StyleEntry['key']; problem?: string };
const KEY_IN_ADDRESS = new RegExp(`^${KEY_PARAMETER}(=|$)`, 'i');

export function webAddress(text: string, base?: string): URL | undefined {
	const url = URL.canParse(text, base) ? new URL(text, base) : undefined;
	return url && /^https?:$/.test(url.protocol) ? url : undefined;
}

const bare = (raw: unknown) => `${raw ?? ''}`.trim().replace(/\/+$/, '');

/** A service as the credential sets it (base address, origin, whether the key goes there), or what is wrong */
export function targetOf(
	credentials: IDataObject,
	service: Service,
): (Base & { keyed: boolean }) | [string, string] {
	const base = baseOf(credentials, service);
	if (Array.isArray(base)) return base;
	const keyed = sendsKey(credentials, service);
	const { problem } = keyed ? keyRule(credentials, base.origin) : {};
	return problem ? [problem, ''] : { ...base, keyed };
}

/** The base address, checked: a login would replace the key with Basic auth; ? or # would swallow added paths */
function baseOf(credentials: IDataObject, service: Service): Base | [string, string] {
	const { field, label } = SERVICES[service];
	const text = String(credentials[field] ?? '').trim();
	const typed = bare(text).slice(0, 200);
	const url = webAddress(text);
	if (!text)
		return [
			`The ${label} is empty`,
			`Set the ${label} in the Triptych API credentials to the base address of the service.`,
		];
	if (!url) return notWeb(label, typed);
	if (url.username || url.password)
		return [
			`The ${label} holds a user name or password (user:password@)`,
			'Remove it: the service gets the API Key as the credential says; a login in the address would be sent instead.',
		];
	if (/[?#]/.test(text))
		return [
			`The ${label} "${typed.replace(/[?#].*/, '')}…" has a query string or fragment (? or #)`,
			'Use the base address alone: the nodes add paths and parameters to it, which anything after ? or # would swallow.',
		];
	return { url: bare(text), origin: url.origin };
}

const notWeb = (label: string, typed: string): [string, string] => [
	`The ${label} "${typed}" is not a web address`,
	'Use the base address of the service, starting with https:// or http://, e.g. https://api.example.com.',
];

/** Where one credential's key goes, by origin: worked out once per credential, not for every request. */
const rules = new WeakMap<IDataObject, Map<string, KeyRule>>();

/** How the key goes to an origin, as its services take it; services sharing one must take it alike, else `problem` */
function keyRule(credentials: IDataObject, origin: string): KeyRule {
	let known = rules.get(credentials);
	if (!known || known.size > 16) rules.set(credentials, (known = new Map()));
	const rule = known.get(origin) ?? workOutKeyRule(credentials, origin);
	known.set(origin, rule);
	return rule;
}

function workOutKeyRule(credentials: IDataObject, origin: string): KeyRule {
	const there = SERVICE_NAMES.filter((service) => {
		const base = baseOf(credentials, service);
		return sendsKey(credentials, service) && !Array.isArray(base) && base.origin === origin;
	});
	const unknown = there.map((service) => unknownStyle(credentials, service)).find(Boolean);
	if (unknown) return { problem: unknown };
	const styles = there.map((service) => SERVICES[service].styles[styleOf(credentials, service)]!);
	if (styles.some((style) => style.key !== styles[0].key)) {
		const fields = there.map((service, n) => `the ${SERVICES[service].label} (${styles[n].name})`);
		const text = `${fields.join(' and ')} share the origin ${origin} but take the API key in different ways: use one Triptych API credential per service.`;
		return { problem: text.charAt(0).toUpperCase() + text.slice(1) };
	}
	return { key: styles[0]?.key };
}

/** The credential's `authenticate`: the key as the origin's service takes it (an `apikey` in a next-page link replaced) */
export function applyKey(credentials: IDataObject, options: IHttpRequestOptions) {
	const { baseURL, ...rest } = options;
	const raw = String(options.url ?? '');
	const url = baseURL
		? webAddress(raw.replace(/^\/+/, ''), String(baseURL).replace(/\/*$/, '/'))
		: webAddress(raw);
	if (!url) {
		const address = bare(baseURL ?? raw);
		const entry = Object.values(SERVICES).find(({ field }) => bare(credentials[field]) === address);
		throw new Error(notWeb(entry?.label ?? 'address', address.slice(0, 200)).join('. '));
	}
	const rule = keyRule(credentials, url.origin);
	if (rule.problem) throw new Error(rule.problem);
	const key = String(credentials.apiKey ?? '');
	const moved = (): IHttpRequestOptions => ({ ...rest, url: url.href });
	switch (rule.key?.in) {
		case 'bearer':
			return { ...options, headers: { ...options.headers, Authorization: `Bearer ${key}` } };
		case 'query': {
			const parts = url.search.slice(1).split('&');
			url.search = parts.filter((part) => part && !KEY_IN_ADDRESS.test(part)).join('&');
			return { ...moved(), qs: { ...options.qs, [KEY_PARAMETER]: key } };
		}
		case 'path':
			if (!rule.key.after.some((end) => url.pathname.endsWith(end))) return options;
			url.pathname += encodeURIComponent(key);
			return moved();
		default:
			return options;
	}
}

const REDIRECT_STATUS = new Set([301, 302, 303, 307, 308]);
/** Most same-origin redirects followed in one attempt. */
const MAX_REDIRECTS = 5;

type Hop = Pick<AttemptSpec, 'url' | 'method'> & { origin: string; hop: number; seen: Set<string> };

/** Where a redirect goes (`undefined`: none): only on `origin`, resolved against the address that answered */
export function redirectTarget(status: number, to: string, at: Hop): Hop | Failure | undefined {
	if (!REDIRECT_STATUS.has(status)) return undefined;
	const next = webAddress(to, at.url);
	const method = next && redirectedMethod(status, at.method);
	const problems: Array<[Failure['redirect'], unknown]> = [
		['notAddress', !next],
		['otherOrigin', next?.origin !== at.origin],
		['dropsBody', !method],
		['loop', at.seen.has(next?.href ?? '')],
		['tooMany', at.hop >= MAX_REDIRECTS],
	];
	const redirect = problems.find(([, found]) => found)?.[0];
	const location = next?.href ?? to.slice(0, 2000);
	const failure: Failure = { kind: 'redirect', code: `HTTP ${status}`, sent: true, location };
	if (redirect) return { ...failure, redirect, method: at.method, limit: MAX_REDIRECTS };
	at.seen.add(location);
	return { ...at, url: location, method: method! };
}

/** The method after a redirect; none for a POST on 301/302: as a GET it would drop the payload and fire nothing */
function redirectedMethod(status: number, method: IHttpRequestMethods) {
	if (status === 307 || status === 308) return method;
	if (status === 303) return method === 'HEAD' ? 'HEAD' : 'GET';
	return method === 'GET' || method === 'HEAD' ? method : undefined;
}
