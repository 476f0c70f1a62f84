/** Reading an answer (nodes/shared/transport/answer), from source. */
import { checkJson, extractMessage, isEnvelope } from '../../nodes/shared/transport/answer';
import type { RawResponse } from '../../nodes/shared/transport/types';

function res(statusCode: number, body: string, contentType = 'application/json'): RawResponse {
	return {
		statusCode,
		headers: { 'content-type': contentType },
		body: Buffer.from(body, 'utf8'),
		url: 'http://127.0.0.1/tags',
	};
}

const WHOLE = JSON.stringify({
	status: 'success',
	data: { records: [{ objectid: 1 }, { objectid: 2 }] },
});

describe('checkJson', () => {
	test('whole JSON is parsed once', () => {
		const checked = checkJson(res(200, WHOLE));
		expect('kind' in checked).toBe(false);
		expect((checked as RawResponse).json).toEqual({ value: JSON.parse(WHOLE) });
	});

	test.each([WHOLE.slice(0, WHOLE.length / 2), '{"a": "unterminated', '[1, 2, ', '{'])(
		'cut-off JSON on a 200 is a broken transfer: %s',
		(body) => {
			const checked = checkJson(res(200, body));
			expect(checked).toMatchObject({ kind: 'broken', code: 'ETRUNCATED', sent: true });
			expect((checked as { detail: string }).detail).toContain(`${Buffer.byteLength(body)} bytes`);
		},
	);

	test('cut-off JSON on a 500 is not a broken transfer (the service failed; its answer is shown)', () => {
		const checked = checkJson(res(500, WHOLE.slice(0, 30)));
		expect('kind' in checked).toBe(false);
		expect((checked as RawResponse).json).toBeUndefined();
	});

	test('text that is not JSON, on a 200, is not a broken transfer', () => {
		for (const body of ['Congratulations!', '<html><title>x</title></html>']) {
			const checked = checkJson(res(200, body, 'text/plain'));
			expect('kind' in checked).toBe(false);
			expect((checked as RawResponse).json).toBeUndefined();
		}
	});

	test('an empty body is left as it is', () => {
		const checked = checkJson(res(204, ''));
		expect(checked).toEqual(res(204, ''));
	});
});

const same = (text: string) => text;

describe('envelopes and messages', () => {
	test('isEnvelope', () => {
		expect(isEnvelope({ status: 'success', data: [] })).toBe(true);
		expect(isEnvelope({ status: 'fail', message: 'x' })).toBe(true);
		expect(isEnvelope({ status: 'ok' })).toBe(false);
		expect(isEnvelope([{ status: 'success' }])).toBe(false);
		expect(isEnvelope(null)).toBe(false);
	});

	test('extractMessage looks in the usual places', () => {
		expect(extractMessage({ message: 'a' }, same)).toBe('a');
		expect(extractMessage({ error: { message: 'b' } }, same)).toBe('b');
		expect(extractMessage({ detail: 'c' }, same)).toBe('c');
		expect(extractMessage({ errors: [{ title: 'd' }] }, same)).toBe('d');
		expect(extractMessage({ nothing: 1 }, same)).toBeUndefined();
	});
});
