/**
 * The one rule for where a request may go: the API key goes only to the origin of the address configured for the
 * service. Next-page links and redirects to the same origin are followed; anything else is refused.
 */

/** A base address as typed in the credentials, checked: `{ url }` without trailing slashes, or `{ problem }`. */
export function checkBaseUrl(
	raw: unknown,
): { url: string } | { problem: 'empty' | 'invalid' | 'protocol'; detail?: string } {
	const text = String(raw ?? '').trim();
	if (!text) return { problem: 'empty' };
	let parsed: URL;
	try {
		parsed = new URL(text);
	} catch (error) {
		return { problem: 'invalid', detail: (error as Error).message };
	}
	if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return { problem: 'protocol' };
	return { url: text.replace(/\/+$/, '') };
}

/** What is wrong with a base address, for the node's error: its message and what to do. */
export function baseUrlProblem(
	checked: { problem: 'empty' | 'invalid' | 'protocol'; detail?: string },
	raw: string,
	label: string,
	name: string,
): [string, string] {
	if (checked.problem === 'empty') {
		return [
			`The ${label} is empty`,
			`Set the ${label} in the Triptych API credentials to the base address of the ${name}.`,
		];
	}
	if (checked.problem === 'invalid') {
		return [
			`The ${label} "${raw}" is not a valid address`,
			`Use a full address such as https://api.example.com (${checked.detail}).`,
		];
	}
	return [`The ${label} must start with http:// or https://`, `It is "${raw}".`];
}

/** `link` resolved against `current`; `undefined` when it is not an address. */
export function resolveLink(link: string, current: string): URL | undefined {
	try {
		const url = new URL(link, current.endsWith('/') ? current : current + '/');
		return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
	} catch {
		return undefined;
	}
}

/** A Location header resolved as browsers do (relative to the address that answered). */
export function resolveLocation(location: string, current: string): URL | undefined {
	try {
		const url = new URL(location, current);
		return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
	} catch {
		return undefined;
	}
}

export function originOf(url: string): string {
	try {
		return new URL(url).origin;
	} catch {
		return url;
	}
}

export const REDIRECT_STATUS = new Set([301, 302, 303, 307, 308]);
/** Most same-origin redirects followed in one attempt. */
export const MAX_REDIRECTS = 5;

/**
 * What a redirect turns the request into: 307/308 keep method and body; 303 turns it into a GET without body;
 * 301/302 keep a GET, but turn a POST into nothing (`undefined`): following it as a GET, as browsers do, would
 * drop the payload and fire nothing, so the node says where the service moved instead.
 */
export function redirectedMethod(status: number, method: string): string | undefined {
	if (status === 307 || status === 308) return method;
	if (status === 303) return method === 'HEAD' ? 'HEAD' : 'GET';
	return method === 'GET' || method === 'HEAD' ? method : undefined;
}
