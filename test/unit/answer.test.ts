/** Reading an answer (nodes/shared/transport/answer), from source. */
import type { INode } from 'n8n-workflow';

import {
	checkJson,
	extractMessage,
	interpret,
	isEnvelope,
} from '../../nodes/shared/transport/answer';
import type { RawResponse } from '../../nodes/shared/transport/types';

const node: INode = {
	id: 'n1',
	name: 'Quote Tags',
	type: 'n8n-nodes-triptych.quoteTags',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

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
			expect((checked as { message: string }).message).toContain(
				`${Buffer.byteLength(body)} bytes`,
			);
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

describe('envelopes and messages', () => {
	test('isEnvelope', () => {
		expect(isEnvelope({ status: 'success', data: [] })).toBe(true);
		expect(isEnvelope({ status: 'fail', message: 'x' })).toBe(true);
		expect(isEnvelope({ status: 'ok' })).toBe(false);
		expect(isEnvelope([{ status: 'success' }])).toBe(false);
		expect(isEnvelope(null)).toBe(false);
	});

	test('extractMessage looks in the usual places', () => {
		expect(extractMessage({ message: 'a' })).toBe('a');
		expect(extractMessage({ error: { message: 'b' } })).toBe('b');
		expect(extractMessage({ detail: 'c' })).toBe('c');
		expect(extractMessage({ errors: [{ title: 'd' }] })).toBe('d');
		expect(extractMessage({ nothing: 1 })).toBeUndefined();
	});
});

describe('interpret', () => {
	const read = (r: RawResponse) =>
		interpret(checkJson(r) as RawResponse, node, 'quotes', 0, 1, undefined, (t) => t);

	test('success: the envelope is unwrapped; a bare body is the data', () => {
		expect(read(res(200, WHOLE))).toMatchObject({
			data: { records: [{ objectid: 1 }, { objectid: 2 }] },
			statusCode: 200,
		});
		expect(read(res(200, '[1,2]')).data).toEqual([1, 2]);
	});

	test('an HTML page: its title, said once', () => {
		const page =
			'<!DOCTYPE html><html><head><title>500 Internal Server Error</title></head><body><h1>500 Internal Server Error</h1><hr>nginx</body></html>';
		expect(() => read(res(500, page, 'text/html'))).toThrow(
			'The quotes service answered HTTP 500 with an HTML page: "500 Internal Server Error" [item 0]',
		);
	});

	test('malformed JSON and a body that is not JSON are told apart', () => {
		expect(() => read(res(500, '{"a": oops}'))).toThrow(
			'The quotes service answered HTTP 500 with malformed JSON: "{"a": oops}" [item 0]',
		);
		expect(() => read(res(200, 'Hello there', 'text/plain'))).toThrow(
			'The quotes service answered HTTP 200 with a body that is not JSON (text/plain): "Hello there" [item 0]',
		);
	});

	test('a failure envelope with HTTP 200 is an error with the service’s message', () => {
		expect(() => read(res(200, '{"status":"fail","message":"Query too short"}'))).toThrow(
			'The quotes service answered status "fail": Query too short (HTTP 200) [item 0]',
		);
	});

	test('the key is redacted from what the service said', () => {
		const redact = (t: string) => t.split('secret-key').join('***');
		expect(() =>
			interpret(
				checkJson(res(400, '{"message":"bad key secret-key"}')) as RawResponse,
				node,
				'quotes',
				3,
				1,
				undefined,
				redact,
			),
		).toThrow('The quotes service answered HTTP 400: bad key *** [item 3]');
	});

	test('acceptText: a 2xx that is not JSON is the service taking the call, its text kept; errors stay errors', () => {
		const accept = (r: RawResponse) =>
			interpret(checkJson(r) as RawResponse, node, 'trigger', 0, 1, undefined, (t) => t, true);
		const text = "Congratulations! You've fired the door event";
		expect(accept(res(200, text, 'text/plain'))).toMatchObject({
			data: undefined,
			text,
			statusCode: 200,
		});
		expect(accept(res(200, '{"ok":true}')).data).toEqual({ ok: true });
		expect(() => accept(res(404, '<title>Error</title>', 'text/html'))).toThrow(
			/answered HTTP 404/,
		);
	});
});
