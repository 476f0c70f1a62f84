/** The hostile faults and the key catcher themselves, where node tests cannot tell. */
import * as http from 'http';
import * as zlib from 'zlib';

import { useServer } from '../harness/engine';
import {
	DEFAULT_API_KEY,
	MIB,
	TINY_PNG,
	gzipBomb,
	startKeyCatcher,
	startTriggerServer,
} from '../servers';

const KEY = DEFAULT_API_KEY;
const trigger = useServer(() => startTriggerServer());
const catcher = useServer(() => startKeyCatcher());

/** A raw GET/POST that does not follow redirects nor decompress: status, headers and the body bytes. */
function raw(
	url: string,
	method = 'POST',
	body = '{}',
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer; error?: Error }> {
	return new Promise((resolve, reject) => {
		const req = http.request(
			url,
			{ method, headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' } },
			(res) => {
				const chunks: Buffer[] = [];
				res.on('data', (c: Buffer) => chunks.push(c));
				const done = (error?: Error) =>
					resolve({
						status: res.statusCode!,
						headers: res.headers,
						body: Buffer.concat(chunks),
						error,
					});
				res.on('end', () => done());
				res.on('error', (e) => done(e));
				res.on('aborted', () => done(new Error('aborted')));
			},
		);
		req.on('error', reject);
		req.end(method === 'GET' ? undefined : body);
	});
}

test('redirect: a queued fault goes before redirectAlways, and neither is a delivery', async () => {
	trigger.setMode({ redirectAlways: { status: 308, location: '/hop/{n}' } });
	trigger.fail({ kind: 'status', status: 503 });
	expect((await raw(`${trigger.url}/trigger/a`)).status).toBe(503);
	expect((await raw(`${trigger.url}/trigger/a`)).headers.location).toBe('/hop/1');
	expect(trigger.deliveries).toHaveLength(0);
});

describe('trickle', () => {
	test('headers at once, a few bytes per interval, the client’s hang-up recorded', async () => {
		trigger.fail({ kind: 'trickle', intervalMs: 20 });
		const controller = new AbortController();
		const started = Date.now();
		const res = await fetch(`${trigger.url}/trigger/a`, {
			method: 'POST',
			signal: controller.signal,
		});
		expect(res.status).toBe(200);
		expect(res.headers.get('content-type')).toMatch(/^application\/json/);
		expect(Date.now() - started).toBeLessThan(4000); // headers do not wait for the trickle
		const reader = res.body!.getReader();
		let text = '';
		while (text.length < 80) text += Buffer.from((await reader.read()).value!).toString();
		expect(text).toMatch(/^\{"status":"success","data":\{.*"title":"(abcd)+/);
		controller.abort();
		const t = Date.now();
		while (trigger.requests[0].clientGoneAt === undefined && Date.now() - t < 4000)
			await new Promise((r) => setTimeout(r, 5));
		expect(trigger.requests[0].clientGoneAt! - t).toBeLessThan(4000);
		expect(trigger.deliveries).toHaveLength(0);
	});

	test('ends the JSON after maxMs', async () => {
		trigger.fail({ kind: 'trickle', intervalMs: 10, maxMs: 100 });
		const res = await raw(`${trigger.url}/trigger/a`);
		const json = JSON.parse(res.body.toString()) as { data: { records: Array<{ title: string }> } };
		expect(json.data.records[0].title).toMatch(/^(abcd)+$/);
		expect(trigger.requests[0].clientGoneAt).toBeUndefined();
	});
});

describe('gzipBomb', () => {
	test('small on the wire, inflates to exactly inflatedBytes of a success envelope', async () => {
		trigger.fail({ kind: 'gzipBomb', inflatedBytes: 8 * MIB });
		const res = await raw(`${trigger.url}/trigger/a`);
		expect(res.headers['content-encoding']).toBe('gzip');
		expect(res.headers['content-type']).toMatch(/^application\/json/);
		expect(res.body.length).toBeLessThan(64 * 1024);
		expect(Number(res.headers['content-length'])).toBe(res.body.length);
		const inflated = zlib.gunzipSync(res.body);
		expect(inflated.length).toBe(8 * MIB);
		const text = inflated.toString();
		expect(text.startsWith('{"status":"success","data":{')).toBe(true);
		expect(JSON.parse(text).status).toBe('success');
		expect(trigger.deliveries).toHaveLength(0);
	});

	test('built once per size (cached), an image kind starts like a PNG', async () => {
		expect(gzipBomb(2 * MIB)).toBe(gzipBomb(2 * MIB));
		const png = zlib.gunzipSync(await gzipBomb(2 * MIB, 'png'));
		expect(png.length).toBe(2 * MIB);
		expect(png.subarray(0, 4)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
	});
});

describe('key catcher', () => {
	test('counts requests carrying the key anywhere; answers a plausible empty page or a PNG', async () => {
		const plain = await fetch(`${catcher.url}/object?q=x`);
		expect(await plain.json()).toEqual({
			status: 'success',
			data: { info: { pages: 0 }, records: [] },
			message: 'OK',
		});
		expect(catcher.sawKey).toBe(0);
		await fetch(`${catcher.url}/a`, { headers: { authorization: 'Basic abc' } });
		await fetch(`${catcher.url}/b?apikey=${KEY}`);
		await fetch(`${catcher.url}/c`, { headers: { 'x-api-key': KEY } });
		await fetch(`${catcher.url}/d`, { method: 'POST', body: JSON.stringify({ key: KEY }) });
		await fetch(`${catcher.url}/e?note=${encodeURIComponent(`k ${KEY}`)}`);
		const image = await fetch(`${catcher.url}/cdn/1.png`);
		expect(image.headers.get('content-type')).toBe('image/png');
		expect(Buffer.from(await image.arrayBuffer())).toEqual(TINY_PNG);
		expect(catcher.requests).toHaveLength(7);
		expect(catcher.requests.map((r) => r.hadKey)).toEqual([
			false,
			true,
			true,
			true,
			true,
			true,
			false,
		]);
		expect(catcher.sawKey).toBe(5);
		expect(new URL(catcher.url).port).not.toBe(new URL(trigger.url).port);
	});
});
