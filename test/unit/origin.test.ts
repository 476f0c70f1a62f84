/** Where a request may go (nodes/shared/transport/origin), from source. */
import {
	checkBaseUrl,
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
