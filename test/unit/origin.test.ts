/** Where a request may go (nodes/shared/transport/origin), from source. */
import type { IHttpRequestMethods } from 'n8n-workflow';

import { styleOf } from '../../nodes/shared/services';
import {
	applyKey,
	redirectTarget,
	targetOf,
	webAddress,
} from '../../nodes/shared/transport/origin';

describe('targetOf (the base address as typed, checked)', () => {
	const [EMPTY, NOT_WEB] = [/^The Museum URL is empty$/, /is not a web address$/];
	const [QUERY, LOGIN] = [/has a query string or fragment/, /holds a user name or password/];
	test.each([
		['https://api.example.com', 'https://api.example.com'],
		['  https://api.example.com/v1///  ', 'https://api.example.com/v1'],
		['http://127.0.0.1:8080/', 'http://127.0.0.1:8080'],
		['', EMPTY],
		['   ', EMPTY],
		[undefined, EMPTY],
		['ftp://example.com', NOT_WEB],
		['javascript:alert(1)', NOT_WEB],
		['not a url', NOT_WEB],
		['https://api.example.com/#', QUERY],
		['https://api.example.com/hooks?token=abc', QUERY],
		['https://api.example.com?', QUERY],
		['http://user:pass@api.example.com', LOGIN],
		['http://user@api.example.com', LOGIN],
	])('%p → %p', (raw, expected) => {
		const checked = targetOf({ museumUrl: raw }, 'museum');
		if (typeof expected === 'string')
			expect(checked).toEqual({ url: expected, origin: new URL(expected).origin, keyed: true });
		else expect(Array.isArray(checked) && checked[0]).toMatch(expected);
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

	test('services on one origin share it when they take the key the same way, else get none', () => {
		const shared = { ...credentials, triggerUrl: 'https://museum.example', triggerApi: 'generic' };
		const url = 'https://museum.example/trigger/door';
		const same = applyKey({ ...shared, museumApi: 'generic' }, { url });
		expect(same.headers).toEqual({ Authorization: `Bearer ${KEY}` });
		expect(targetOf(shared, 'trigger')).toEqual([
			'The Trigger URL (Generic) and the Museum URL (Harvard Art Museums API) share the origin https://museum.example but take the API key in different ways: use one Triptych API credential per service.',
			'',
		]);
		expect(() => applyKey(shared, { url })).toThrow('share the origin https://museum.example');
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

test('a style the service table does not hold, even a name every object has, is the generic one', () => {
	for (const museumApi of ['constructor', '__proto__', 'toString', 'nope'])
		expect(styleOf({ museumApi }, 'museum')).toBe('generic');
	expect(styleOf({ museumApi: 'artic' }, 'museum')).toBe('artic');
});
