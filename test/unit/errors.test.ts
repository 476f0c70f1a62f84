/** Error texts (nodes/shared/transport/errors), from source. */
import type { INode } from 'n8n-workflow';

import { failureError, hint } from '../../nodes/shared/transport/errors';
import { excerpt, pageSaid, redactData, redactKey } from '../../nodes/shared/transport/redaction';

const node: INode = {
	id: 'n1',
	name: 'Museum',
	type: 'n8n-nodes-triptych.museumObjectSearch',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

describe('excerpt', () => {
	test('a phrase repeated back to back is said once', () => {
		expect(excerpt('502 Bad Gateway 502 Bad Gateway nginx')).toBe('502 Bad Gateway nginx');
	});

	test('an nginx error page becomes its words, tags, scripts and styles dropped', () => {
		const page =
			'<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title><style>body { color: red }</style>' +
			'<script>var secret = 1;</script></head><body>\n<center><h1>502 Bad Gateway</h1></center>\n' +
			'<hr><center>nginx</center>\n</body></html>\n';
		expect(excerpt(page)).toBe('502 Bad Gateway nginx');
	});

	test('entities are decoded and white space collapsed', () => {
		expect(excerpt('Fish&nbsp;&amp;\n\n  Chips &lt;b&gt;')).toBe('Fish & Chips <b>');
	});

	test('a word longer than 40 characters is broken, so the error panel can wrap it', () => {
		const out = excerpt(`token ${'x'.repeat(100)} end`);
		const words = out.split(' ');
		expect(words[0]).toBe('token');
		expect(words[1]).toBe(`${'x'.repeat(39)}…`);
		expect(words[2]).toBe('end');
		expect(Math.max(...words.map((w) => w.length))).toBeLessThanOrEqual(40);
	});

	test('cut at a word boundary, with an ellipsis', () => {
		expect(excerpt('one two three four', 10)).toBe('one two…');
		const long = Array.from({ length: 100 }, (_, i) => `word${i}`).join(' ');
		const out = excerpt(long);
		expect(out.length).toBeLessThanOrEqual(161);
		expect(out.endsWith('…')).toBe(true);
		// every word but the ellipsis is whole
		for (const word of out.slice(0, -1).split(' ')) expect(word).toMatch(/^word\d+$/);
	});

	test('short text stays as it is', () => {
		expect(excerpt('Invalid API key')).toBe('Invalid API key');
		expect(excerpt('')).toBe('');
	});
});

const same = (text: string) => text;

describe('HTML pages', () => {
	const isHtml = (text: string, contentType: string) => pageSaid(text, contentType, same).html;
	test('an HTML page: by the start of the body or by the content type', () => {
		expect(isHtml('<!DOCTYPE html><html></html>', '')).toBe(true);
		expect(isHtml('  <html>', 'application/octet-stream')).toBe(true);
		expect(isHtml('Oops', 'text/html; charset=utf-8')).toBe(true);
		expect(isHtml('{"a": 1}', 'application/json')).toBe(false);
		expect(isHtml('plain words', 'text/plain')).toBe(false);
	});

	test("a page's title, short; else an excerpt", () => {
		const page = '<html><head><title> 503 Service Temporarily Unavailable </title></head></html>';
		expect(pageSaid(page, 'text/html', same).said).toBe('503 Service Temporarily Unavailable');
		expect(pageSaid('<html><body>no title</body></html>', '', same).said).toBe('no title');
	});
});

describe('hint', () => {
	test('by status, with the credentials field named', () => {
		expect(hint('401', 'Museum URL')).toMatch(/API Key/);
		expect(hint('404', 'Museum URL')).toMatch(
			/Check the Museum URL in the Triptych API credentials/,
		);
		expect(hint('429', 'Quotes URL')).toMatch(/Concurrency|Max Retry Wait/);
		expect(hint('502', 'Quotes URL')).toMatch(/Max Attempts/);
		expect(hint('418', 'Quotes URL')).toMatch(/refused the parameters/);
	});
});

describe('failureError', () => {
	const limits = { timeout: 200, maxResponseBytes: 16 * 1024 * 1024 };

	test('a Timeout of whole seconds is given in seconds', () => {
		const error = failureError(
			{ node, service: 'quotes', itemIndex: 2, redact: (t: string) => t },
			{ kind: 'timeout', code: 'ETIMEDOUT', sent: true },
			undefined,
			{ ...limits, timeout: 30000 },
		);
		expect(error.message).toBe(
			'The quotes service did not answer in full within the Timeout (30 s)',
		);
	});
});

describe('redactKey', () => {
	const KEY = 'k3y/with+odd&chars=';
	test.each([
		[`key ${KEY} refused`, 'key *** refused'],
		[`/with/key/${encodeURIComponent(KEY)}`, '/with/key/***'],
		[`?${new URLSearchParams({ apikey: KEY })}`, '?apikey=***'],
		['next: /object?page=2&apikey=someone-else&size=10', 'next: /object?page=2&apikey=***&size=10'],
		['{"authorization":"Bearer abc.def"}', '{"authorization":"Bearer ***"}'],
		['nothing secret here', 'nothing secret here'],
	])('%s → %s', (text, expected) => {
		expect(redactKey(text, KEY)).toBe(expected);
	});

	test('a key shorter than 4 characters is left (it would mangle the text)', () => {
		expect(redactKey('a b c', 'a')).toBe('a b c');
	});

	test('keys taken in turn (two credentials in one process): each is removed, none is mistaken for the other', () => {
		const other = 'another-key-0123456789';
		for (let i = 0; i < 3; i++) {
			expect(redactKey(`a ${KEY} b`, KEY)).toBe('a *** b');
			expect(redactKey(`a ${other.slice(3, 15)} b`, other)).toBe('a *** b');
			expect(redactKey(`a ${KEY} b`, other)).toBe(`a ${KEY} b`);
		}
	});

	test('a key with characters outside the Basic Multilingual Plane: every piece of it is found', () => {
		const key = `${'🔑'.repeat(10)}-tail`;
		expect(redactKey(`x ${key.slice(-9)} y`, key)).toBe('x *** y');
		expect(redactKey(`x ${key.slice(2, 12)} y`, key)).toBe('x *** y');
	});
});

describe('redactData', () => {
	const KEY = 'abcdef0123456789';
	const clean = { records: [{ title: 'Wave', people: [{ name: 'Hokusai' }] }], info: { page: 1 } };

	test('data without the key or a credential is returned as it is, not copied', () => {
		expect(redactData(clean, KEY, JSON.stringify(clean))).toBe(clean);
	});

	test.each([
		['a value', { records: [{ note: `echo ${KEY}` }] }, { records: [{ note: 'echo ***' }] }],
		['a piece in an array', { list: ['x', `cut ${KEY.slice(5)}`] }, { list: ['x', 'cut ***'] }],
		['an object key', { [KEY]: 1 }, { '***': 1 }],
		['a URL-encoded form', { next: `?apikey=${KEY}` }, { next: '?apikey=***' }],
		['a Bearer token of another key', { auth: 'Bearer other.token' }, { auth: 'Bearer ***' }],
	])('the key in %s is removed', (_, data, expected) => {
		expect(redactData(data, KEY, JSON.stringify(data))).toEqual(expected);
	});

	test('a key the service wrote with JSON escapes (\\u0061 for "a") is found once parsed', () => {
		const body = `{"echo":"x \\u0061bcdef\\u00301234 y","\\u0061bcdef0123456789":2}`;
		expect(redactData(JSON.parse(body), KEY, body)).toEqual({ echo: 'x *** y', '***': 2 });
	});

	test('data nested deeper than the call stack is walked all the same', () => {
		let deep: unknown = `echo ${KEY}`;
		for (let n = 0; n < 50_000; n++) deep = n % 2 ? { d: deep } : [deep];
		let out = redactData(deep, KEY, 'apikey=');
		for (let n = 0; n < 50_000; n++)
			out = (Array.isArray(out) ? out[0] : (out as { d: unknown }).d) as typeof out;
		expect(out).toBe('echo ***');
	});

	test('a key with characters JSON escapes (a quote, a backslash, a newline) is still found', () => {
		for (const key of ['ab"cd\\ef\n0123456', 'quote"in-the-middle-of-it']) {
			const whole = { a: [{ b: `x ${key} y` }] };
			const piece = { a: `x ${key.slice(1, 11)} y` };
			expect(redactData(whole, key, JSON.stringify(whole))).toEqual({ a: [{ b: 'x *** y' }] });
			expect(redactData(piece, key, JSON.stringify(piece))).toEqual({ a: 'x *** y' });
		}
	});
});
