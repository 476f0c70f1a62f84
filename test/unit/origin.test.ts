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
		['ftp://example.com', { problem: 'notWeb' }],
		['javascript:alert(1)', { problem: 'notWeb' }],
		['not a url', { problem: 'notWeb' }],
		['https://api.example.com/#', { problem: 'query' }],
		['https://api.example.com/hooks?token=abc', { problem: 'query' }],
		['https://api.example.com?', { problem: 'query' }],
		['http://user:pass@api.example.com', { problem: 'login' }],
		['http://user@api.example.com', { problem: 'login' }],
	])('%p → %p', (raw, expected) => {
		expect(checkBaseUrl(raw)).toEqual(expected);
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
	const apply = (url: string) => applyKey(credentials, { url, qs: { q: 'x' }, headers: {} });

	// IFTTT style off /with/key/ and /use/, Quotes without the switch, another origin: nothing (the key paths and
	// the Bearer header are asserted through the nodes)
	test.each([
		'https://maker.example/trigger/door',
		'https://quotes.example/tags',
		'https://cdn.example/image.jpg',
	])('%s gets no key', (url) => {
		const out = apply(url);
		expect(out).toMatchObject({ url, qs: { q: 'x' } });
		expect(out.headers).toEqual({});
	});

	test('services on one origin that take the key the same way share it', () => {
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
