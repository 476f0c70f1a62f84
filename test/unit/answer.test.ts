/** Reading an answer (nodes/shared/transport/answer and retry), from source. */
import { judge } from '../../nodes/shared/transport/answer';
import { checkJson } from '../../nodes/shared/transport/retry';
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

/** What `judge` makes of a JSON body with this status */
const judged = (statusCode: number, body: unknown) =>
	judge(checkJson(res(statusCode, JSON.stringify(body))) as RawResponse, same);

describe('envelopes and messages', () => {
	test('an envelope is an object whose status is success, fail or error', () => {
		expect(judged(200, { status: 'success', data: [] })).toEqual({ kind: 'data', data: [] });
		expect(judged(200, { status: 'fail', message: 'x' })).toEqual({
			kind: 'refused',
			envelope: 'fail',
			said: 'x',
		});
		expect(judged(200, { status: 'ok' })).toMatchObject({ data: { status: 'ok' } });
		expect(judged(200, [{ status: 'success' }])).toMatchObject({ data: [{ status: 'success' }] });
		expect(judged(200, null)).toMatchObject({ kind: 'data', data: null });
	});

	test('the message of an error body is looked for in the usual places', () => {
		expect(judged(400, { message: 'a' })).toMatchObject({ said: 'a' });
		expect(judged(400, { error: { message: 'b' } })).toMatchObject({ said: 'b' });
		expect(judged(400, { detail: 'c' })).toMatchObject({ said: 'c' });
		expect(judged(400, { errors: [{ title: 'd' }] })).toMatchObject({ said: 'd' });
		expect(judged(400, { nothing: 1 })).toMatchObject({ kind: 'refused', said: '' });
	});
});
