/** The hostile faults and the key catcher themselves, where node tests cannot tell. */
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

/** POST /trigger/a with the key; redirects are not followed (fetch still inflates gzip). */
const post = () =>
	fetch(`${trigger.url}/trigger/a`, {
		method: 'POST',
		headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
		body: '{}',
		redirect: 'manual',
	});

test('redirect: a queued fault goes before redirectAlways, and neither is a delivery', async () => {
	trigger.setMode({ redirectAlways: { status: 308, location: '/hop/{n}' } });
	trigger.fail({ kind: 'status', status: 503 });
	expect((await post()).status).toBe(503);
	const redirected = await post();
	expect([redirected.status, redirected.headers.get('location')]).toEqual([308, '/hop/1']);
	expect(trigger.deliveries).toHaveLength(0);
});

describe('trickle', () => {
	test('headers at once, then a JSON string a few bytes per interval', async () => {
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
		controller.abort(); // the hang-up is recorded (clientGoneAt): test/hostile/bodies.test.ts
	});

	test('ends the JSON after maxMs', async () => {
		trigger.fail({ kind: 'trickle', intervalMs: 10, maxMs: 100 });
		const json = (await (await post()).json()) as { data: { records: Array<{ title: string }> } };
		expect(json.data.records[0].title).toMatch(/^(abcd)+$/);
		expect(trigger.requests[0].clientGoneAt).toBeUndefined();
		expect(trigger.deliveries).toHaveLength(0);
	});
});

describe('gzipBomb', () => {
	test('small on the wire, inflates to exactly inflatedBytes of a success envelope', async () => {
		trigger.fail({ kind: 'gzipBomb', inflatedBytes: 8 * MIB });
		const res = await post();
		expect(res.headers.get('content-encoding')).toBe('gzip');
		expect(res.headers.get('content-type')).toMatch(/^application\/json/);
		expect(Number(res.headers.get('content-length'))).toBeLessThan(64 * 1024);
		const text = await res.text();
		expect(Buffer.byteLength(text)).toBe(8 * MIB);
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

test('key catcher: counts requests carrying the key anywhere; answers an empty page or a PNG', async () => {
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
	const hadKey = catcher.requests.map((r) => r.hadKey);
	expect(hadKey).toEqual([false, true, true, true, true, true, false]);
	expect(catcher.sawKey).toBe(5);
	expect(new URL(catcher.url).port).not.toBe(new URL(trigger.url).port);
});
