/** Where a request may go (nodes/shared/transport/origin), from source. */
import {
	checkBaseUrl,
	applyKey,
	keyRule,
	originOf,
	redirectedMethod,
	resolveLink,
	resolveLocation,
} from '../../nodes/shared/transport/origin';

describe('checkBaseUrl', () => {
	test.each([
		['https://api.example.com', { url: 'https://api.example.com' }],
		['  https://api.example.com/v1///  ', { url: 'https://api.example.com/v1' }],
		['http://127.0.0.1:8080/', { url: 'http://127.0.0.1:8080' }],
		['', { problem: 'empty' }],
		['   ', { problem: 'empty' }],
		[undefined, { problem: 'empty' }],
		['ftp://example.com', { problem: 'protocol' }],
		['javascript:alert(1)', { problem: 'protocol' }],
	])('%p → %p', (raw, expected) => {
		expect(checkBaseUrl(raw)).toEqual(expected);
	});

	test('text that is not an address is invalid, with the parser’s reason', () => {
		const checked = checkBaseUrl('not a url');
		expect(checked).toMatchObject({ problem: 'invalid' });
		expect((checked as { detail?: string }).detail).toEqual(expect.any(String));
	});
});

describe('resolveLocation (as browsers resolve a Location header)', () => {
	test.each([
		['/other', 'http://a.example/api/object', 'http://a.example/other'],
		['next', 'http://a.example/api/object', 'http://a.example/api/next'],
		['?page=2', 'http://a.example/api/object?page=1', 'http://a.example/api/object?page=2'],
		['https://b.example/x', 'http://a.example/api', 'https://b.example/x'],
		['//c.example/y', 'https://a.example/api', 'https://c.example/y'],
	])('%s from %s → %s', (location, current, expected) => {
		expect(resolveLocation(location, current)?.href).toBe(expected);
	});

	test.each(['javascript:alert(1)', 'mailto:x@example.com', 'http://[bad'])(
		'%s is not an address to follow',
		(location) => {
			expect(resolveLocation(location, 'http://a.example/api')).toBeUndefined();
		},
	);
});

describe('resolveLink (a next-page link, relative to the base address)', () => {
	test('relative to the base as a folder; absolute links as they are', () => {
		expect(resolveLink('object?page=2', 'http://a.example/api')?.href).toBe(
			'http://a.example/api/object?page=2',
		);
		expect(resolveLink('http://a.example/object?page=3', 'http://a.example/api')?.href).toBe(
			'http://a.example/object?page=3',
		);
		expect(resolveLink('ftp://a.example/x', 'http://a.example/api')).toBeUndefined();
	});
});

describe('redirectedMethod', () => {
	test.each([
		[307, 'POST', 'POST'],
		[308, 'POST', 'POST'],
		[307, 'GET', 'GET'],
		[303, 'POST', 'GET'],
		[303, 'GET', 'GET'],
		[303, 'HEAD', 'HEAD'],
		[301, 'GET', 'GET'],
		[302, 'GET', 'GET'],
		[302, 'HEAD', 'HEAD'],
		[301, 'POST', undefined],
		[302, 'POST', undefined],
		[302, 'PUT', undefined],
	])('%i after %s → %p', (status, method, expected) => {
		expect(redirectedMethod(status, method)).toBe(expected);
	});
});

describe('originOf', () => {
	test('scheme, host and port; text that is not an address as it is', () => {
		expect(originOf('http://localhost:8080/a/b?c=1')).toBe('http://localhost:8080');
		expect(originOf('https://x.example/')).toBe('https://x.example');
		expect(originOf('nonsense')).toBe('nonsense');
	});
});

describe('applyKey (the credential’s authenticate), per style and origin', () => {
	const KEY = 'k/y+1&=';
	const credentials = {
		apiKey: KEY,
		triggerUrl: 'https://maker.example',
		triggerApi: 'iftttWebhooks',
		museumUrl: 'https://museum.example/api/',
		museumApi: 'harvard',
		quotesUrl: 'https://quotes.example',
	};
	const apply = (url: string, extra: object = {}) =>
		applyKey({ ...credentials, ...extra }, { url, qs: { q: 'x' }, headers: {} });

	test.each([
		// Harvard: the query parameter only; one already in the address (an info.next link) is replaced
		[
			'https://museum.example/api/object?page=2&apikey=old&size=10',
			{},
			'https://museum.example/api/object?page=2&size=10',
			{ q: 'x', apikey: KEY },
		],
		// IFTTT: after /with/key/ or /use/, URL-encoded; any other path gets nothing
		[
			'https://maker.example/trigger/door/json/with/key/',
			{},
			`https://maker.example/trigger/door/json/with/key/${encodeURIComponent(KEY)}`,
			{ q: 'x' },
		],
		[
			'https://maker.example/use/',
			{},
			`https://maker.example/use/${encodeURIComponent(KEY)}`,
			{ q: 'x' },
		],
		['https://maker.example/trigger/door', {}, 'https://maker.example/trigger/door', { q: 'x' }],
		// quotes: nothing unless the switch is on; another origin: nothing
		['https://quotes.example/tags', {}, 'https://quotes.example/tags', { q: 'x' }],
		['https://cdn.example/image.jpg', {}, 'https://cdn.example/image.jpg', { q: 'x' }],
	])('%s → %s', (url, extra, expectedUrl, expectedQs) => {
		const out = apply(url, extra);
		expect(out.url).toBe(expectedUrl);
		expect(out.qs).toEqual(expectedQs);
		expect(out.headers).toEqual({});
	});

	test('generic styles and the quotes switch: the Bearer header, nothing in the address', () => {
		const generic = { triggerApi: 'generic', museumApi: 'generic', sendKeyToQuotes: true };
		for (const url of [
			'https://maker.example/trigger/x',
			'https://museum.example/api/object',
			'https://quotes.example/tags',
		]) {
			const out = apply(url, generic);
			expect(out).toMatchObject({
				url,
				qs: { q: 'x' },
				headers: { Authorization: `Bearer ${KEY}` },
			});
		}
	});

	test('services on one origin that take the key differently: refused, with what to do', () => {
		expect(() =>
			apply('https://museum.example/x', { triggerUrl: 'https://museum.example/hooks' }),
		).toThrow(
			'The Trigger URL (IFTTT Webhooks) and the Museum URL (Harvard Art Museums API) share the origin https://museum.example but take the API key in different ways: use one Triptych API credential per service.',
		);
		expect(
			keyRule(
				{
					...credentials,
					museumApi: 'generic',
					triggerApi: 'generic',
					triggerUrl: 'https://museum.example',
				},
				'https://museum.example',
			),
		).toEqual({ key: { in: 'bearer' } });
	});

	test('an address that is not a web address names the field it came from', () => {
		expect(() =>
			applyKey(
				{ ...credentials, museumUrl: 'museum.example/' },
				{ url: '/object', baseURL: 'museum.example' },
			),
		).toThrow('The Museum URL "museum.example" is not a web address');
		expect(() =>
			applyKey({ ...credentials, quotesUrl: 'ftp://q.example/' }, { url: 'ftp://q.example/tags' }),
		).toThrow(/^The address "ftp:\/\/q\.example\/tags" is not a web address/);
	});
});
