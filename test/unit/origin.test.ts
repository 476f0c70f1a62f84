/** Where a request may go (nodes/shared/transport/origin), from source. */
import type { IHttpRequestMethods } from 'n8n-workflow';

import {
	applyKey,
	baseOf,
	keyRule,
	originOf,
	redirectTarget,
	webAddress,
} from '../../nodes/shared/transport/origin';

describe('baseOf (the base address as typed, checked)', () => {
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
		expect(baseOf({ museumUrl: raw }, 'museum')).toEqual(expected);
	});
});

const follow = (status: number, location: string, url: string, method = 'GET', origin?: string) =>
	redirectTarget(status, location, {
		url,
		method: method as IHttpRequestMethods,
		origin: origin ?? new URL(url).origin,
		hop: 0,
		seen: new Set([url]),
	});

describe('redirectTarget (a Location resolved as browsers do)', () => {
	test.each([
		['/other', 'http://a.example/api/object', 'http://a.example/other'],
		['next', 'http://a.example/api/object', 'http://a.example/api/next'],
		['?page=2', 'http://a.example/api/object?page=1', 'http://a.example/api/object?page=2'],
		['https://b.example/x', 'http://a.example/api', 'https://b.example/x'],
		['//c.example/y', 'https://a.example/api', 'https://c.example/y'],
	])('%s from %s → %s', (location, current, expected) => {
		expect(follow(301, location, current, 'GET', new URL(expected).origin)).toMatchObject({
			url: expected,
		});
	});

	test.each(['javascript:alert(1)', 'mailto:x@example.com', 'http://[bad'])(
		'%s is not an address to follow',
		(location) => {
			expect(follow(302, location, 'http://a.example/api')).toMatchObject({
				redirect: 'notAddress',
			});
		},
	);
});

describe('webAddress (a next-page link, relative to the base address as a folder)', () => {
	test('relative to the base as a folder; absolute links as they are', () => {
		expect(webAddress('object?page=2', 'http://a.example/api/')?.href).toBe(
			'http://a.example/api/object?page=2',
		);
		expect(webAddress('http://a.example/object?page=3', 'http://a.example/api/')?.href).toBe(
			'http://a.example/object?page=3',
		);
		expect(webAddress('ftp://a.example/x', 'http://a.example/api/')).toBeUndefined();
	});
});

describe('redirectTarget: the method after a redirect', () => {
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
		const next = follow(status, '/next', 'http://a.example/api', method);
		if (expected) expect(next).toMatchObject({ method: expected });
		else expect(next).toMatchObject({ kind: 'redirect', redirect: 'dropsBody' });
	});

	test('an answer that is no redirect, a loop and too many hops', () => {
		expect(follow(200, '/next', 'http://a.example/api')).toBeUndefined();
		expect(follow(302, '/api', 'http://a.example/api')).toMatchObject({ redirect: 'loop' });
		const at = { url: 'http://a.example/a', method: 'GET' as const, origin: 'http://a.example' };
		const seen = new Set(['http://a.example/a']);
		expect(redirectTarget(302, '/b', { ...at, hop: 5, seen })).toMatchObject({
			redirect: 'tooMany',
		});
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
