/** Museum Object Search, Download Images: bytes as served, the key kept from the image host. */
import * as http from 'http';
import type { AddressInfo } from 'net';
import type { IBinaryData, IDataObject, INodeExecutionData } from 'n8n-workflow';

import { fileNameFor } from '../../nodes/MuseumObjectSearch/images';
import { logs, useServer } from '../harness/engine';
import {
	type MuseumRecord,
	PNG_SIGNATURE,
	loadMuseumRecords,
	makePng,
	startImageHost,
	startMuseumServer,
} from '../servers';
import { dump, FAST, KEY, NODE, hintsOf, pairedTo, runSearch } from './setup';

const HUGE_BYTES = 4 * 1024 * 1024;
const fixtures = loadMuseumRecords({ source: 'fixture' });
const withImage = fixtures.filter((r) => r.imagecount > 0);
const images = useServer(() => startImageHost({ hugeBytes: HUGE_BYTES }));
const museum = useServer(() => startMuseumServer({ records: fixtures, imageBaseUrl: images.url }));

const run = (params: IDataObject, opts: { items?: IDataObject[]; extra?: IDataObject } = {}) =>
	runSearch({ downloadImages: true, ...params }, { museumUrl: museum.url, ...opts });
const bytesOf = (binary: IBinaryData) => Buffer.from(binary.data, 'base64');
const imageUrl = (r: MuseumRecord) =>
	`${images.url}/images/${r.objectid}.${r.objectid % 2 ? 'png' : 'jpg'}`;

/** One page whose records link the given image addresses (objectids 1, 2, ...). */
function pageLinking(urls: string[]) {
	const records = urls.map((url, n) => ({
		objectid: n + 1,
		title: `Object ${n + 1}`,
		primaryimageurl: url,
	}));
	return {
		kind: 'status' as const,
		status: 200,
		body: { status: 'success', data: { info: {}, records }, message: 'OK' },
	};
}

describe('binary data', () => {
	test('each object’s primary image is the item’s binary data, byte for byte, with name and type from the answer', async () => {
		const result = await run({ limit: 8, filters: { hasImage: true } });
		expect(result.workflowError).toBeUndefined();
		const out = result.output(NODE);
		expect(out).toHaveLength(8);
		expect(images.requests).toHaveLength(8);
		const records = withImage.slice(0, 8);
		expect(new Set(records.map((r) => r.objectid % 2)).size).toBe(2); // both PNG and JPEG
		for (const [n, item] of out.entries()) {
			const record = records[n];
			const png = record.objectid % 2 === 1;
			const binary = item.binary!.data;
			expect(item.json.imageUrl).toBe(imageUrl(record));
			expect(binary.mimeType).toBe(png ? 'image/png' : 'image/jpeg');
			expect(binary.fileName).toBe(`${record.objectid}.${png ? 'png' : 'jpg'}`);
			expect(binary.fileExtension).toBe(png ? 'png' : 'jpg');
			const served = Buffer.from(await (await fetch(imageUrl(record))).arrayBuffer());
			const bytes = bytesOf(binary);
			expect(bytes.equals(served)).toBe(true);
			expect(binary.bytes).toBe(served.length);
			if (png) expect(bytes.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
			else
				expect([bytes[0], bytes[1], bytes[bytes.length - 2], bytes[bytes.length - 1]]).toEqual([
					0xff, 0xd8, 0xff, 0xd9,
				]);
		}
	});

	test('the API key never reaches the image host (it does reach the museum service)', async () => {
		const result = await run({ limit: 5, output: 'raw' });
		expect(result.workflowError).toBeUndefined();
		expect(images.requests.length).toBeGreaterThan(0);
		expect(images.authorizationSeen).toBe(false);
		expect(images.requests.every((r) => r.headers.authorization === undefined)).toBe(true);
		expect(museum.requests.every((r) => r.headers.authorization === `Bearer ${KEY}`)).toBe(true);
		expect(dump(result)).not.toContain(KEY);
	});

	test('Put Output File in Field names the binary property', async () => {
		const result = await run({ limit: 1, binaryPropertyName: 'image' });
		const [item] = result.output(NODE);
		expect(Object.keys(item.binary!)).toEqual(['image']);
	});

	test('objects without an image get no binary data and no error', async () => {
		const result = await run({ limit: 10, filters: { hasImage: false } });
		expect(result.workflowError).toBeUndefined();
		const out = result.output(NODE);
		expect(out).toHaveLength(fixtures.length - withImage.length);
		expect(out.every((i) => i.binary === undefined && i.json.imageUrl === null)).toBe(true);
		expect(images.requests).toHaveLength(0);
	});

	test('off by default: only the image URL', async () => {
		const result = await runSearch({ limit: 3 }, { museumUrl: museum.url });
		expect(
			result
				.output(NODE)
				.every((i) => i.binary === undefined && typeof i.json.imageUrl === 'string'),
		).toBe(true);
		expect(images.requests).toHaveLength(0);
	});

	test('a file name from Content-Disposition, and the MIME type without its parameters', async () => {
		const png = makePng(4, 4, () => [10, 200, 30]);
		const host = http.createServer((req, res) => {
			res.writeHead(200, {
				'content-type': 'image/png; charset=binary',
				'content-disposition': `attachment; filename="plain.png"; filename*=UTF-8''Gro%C3%9Fe%20Welle.png`,
				'content-length': String(png.length),
			});
			res.end(png);
		});
		await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
		try {
			const url = `http://127.0.0.1:${(host.address() as AddressInfo).port}/download?id=7`;
			museum.fail(pageLinking([url]));
			const result = await run({ limit: 5 });
			const binary = result.output(NODE)[0].binary!.data;
			expect(binary.fileName).toBe('Große Welle.png');
			expect(binary.mimeType).toBe('image/png');
			expect(bytesOf(binary).equals(png)).toBe(true);
		} finally {
			await new Promise((resolve) => host.close(resolve));
		}
	});

	test('a huge image arrives whole', async () => {
		museum.fail(pageLinking([`${images.url}/images/huge-1.png`]));
		const result = await run({ limit: 5 });
		expect(result.workflowError).toBeUndefined();
		const binary = result.output(NODE)[0].binary!.data;
		const bytes = bytesOf(binary);
		expect(bytes.length).toBeGreaterThan(HUGE_BYTES);
		expect(bytes.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
		expect(bytes.subarray(bytes.length - 8, bytes.length - 4).toString('ascii')).toBe('IEND');
		expect(binary.fileName).toBe('huge-1.png');
	});
});

describe('Max Images', () => {
	test('past the cap objects keep their data and get no binary; one hint says how many', async () => {
		const result = await run({ limit: 6, maxImages: 2, filters: { hasImage: true } });
		const out = result.output(NODE);
		expect(out.map((i) => i.binary !== undefined)).toEqual([
			true,
			true,
			false,
			false,
			false,
			false,
		]);
		for (const item of out.slice(2)) {
			expect(item.json).not.toHaveProperty('binaryOmitted');
			expect(item.json.title).toEqual(expect.any(String));
		}
		expect(images.requests).toHaveLength(2);
		expect(hintsOf(result)).toEqual([
			{
				message:
					'Max Images (2) was reached: 4 objects got no image. Raise "Max Images" to download more.',
				location: 'outputPane',
			},
		]);
	});

	test('the cap holds for the whole run, across input items (Concurrency 1: first come, first served)', async () => {
		const result = await run(
			{
				q: '={{ $json.q }}',
				limit: 2,
				maxImages: 3,
				filters: { hasImage: true },
				options: { concurrency: 1 },
			},
			{ items: [{ q: 'turner' }, { q: 'monet' }] },
		);
		const out = result.output(NODE);
		expect(pairedTo(out, 0).map((i) => i.binary !== undefined)).toEqual([true, true]);
		expect(pairedTo(out, 1).map((i) => i.binary !== undefined)).toEqual([true, false]);
		expect(images.requests).toHaveLength(3);
	});

	test('the cap holds for the whole run when the items run concurrently', async () => {
		const result = await run(
			{ q: '={{ $json.q }}', limit: 2, maxImages: 3, filters: { hasImage: true } },
			{ items: [{ q: 'turner' }, { q: 'monet' }, { q: 'rodin' }] },
		);
		expect(result.workflowError).toBeUndefined();
		const out = result.output(NODE);
		// 2 + 2 + 1 objects with an image: 3 downloaded, whichever items' searches came back first
		expect(out).toHaveLength(5);
		expect(out.filter((i) => i.binary !== undefined)).toHaveLength(3);
		expect(out.filter((i) => i.binary === undefined)).toHaveLength(2);
		expect(images.requests).toHaveLength(3);
		expect(hintsOf(result).map((h) => h.message)).toEqual([
			expect.stringMatching(/^Max Images \(3\) was reached: 2 objects got no image/),
		]);
	});

	test('0 downloads nothing', async () => {
		const result = await run({ limit: 3, maxImages: 0, filters: { hasImage: true } });
		expect(result.output(NODE).every((i) => i.binary === undefined)).toBe(true);
		expect(hintsOf(result)).toHaveLength(1);
		expect(images.requests).toHaveLength(0);
	});
});

describe('failed downloads', () => {
	const urls = () => [
		`${images.url}/images/1.png`,
		`${images.url}/images/missing-2.png`,
		`${images.url}/images/3.png`,
	];

	test('an image the host does not have (404) leaves that object without binary data; a hint counts it', async () => {
		museum.fail(pageLinking(urls()));
		const result = await run({ limit: 5, options: FAST });
		expect(result.error(NODE)).toBeUndefined();
		const out: INodeExecutionData[] = result.output(NODE);
		expect(out.map((i) => i.binary?.data?.fileName)).toEqual(['1.png', undefined, '3.png']);
		expect(hintsOf(result).map((h) => h.message)).toEqual([
			'The image host had no image at 1 address (HTTP 404 or 410): that object has no binary data; the other objects are complete.',
		]);
	});

	test('with Continue On Fail a failed download becomes an error item; the others keep their images', async () => {
		// an address the image host answers 401 for (the museum itself, asked without the key)
		const refusing = `${museum.url}/object?limit=1`;
		museum.fail(pageLinking([urls()[0], refusing, urls()[2]]));
		const result = await run({ limit: 5, options: FAST }, { extra: { continueOnFail: true } });
		expect(result.workflowError).toBeUndefined();
		const out: INodeExecutionData[] = result.output(NODE);
		expect(out).toHaveLength(3);
		expect(out.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 0 }, { item: 0 }]);
		expect(out[0].binary?.data.fileName).toBe('1.png');
		expect(out[2].binary?.data.fileName).toBe('3.png');
		expect(out[1].binary).toBeUndefined();
		expect(out[1].json).toMatchObject({
			error: expect.stringMatching(/^Could not download the image of object 2 .* HTTP 401$/),
			httpCode: '401',
			objectId: 2,
			imageUrl: refusing,
		});
	});

	test('an address that serves something else than an image is refused, and gets no key either', async () => {
		const other = await startMuseumServer({ records: fixtures, requireKey: false });
		try {
			museum.fail(pageLinking([`${other.url}/object?limit=1`]));
			const result = await run({ limit: 5 });
			expect(result.error(NODE)!.message).toMatch(
				/Could not download the image of object 1 from .*: the image host sent application\/json instead of an image \[item 0\]/,
			);
			expect(other.requests).toHaveLength(1);
			expect(other.requests[0].headers.authorization).toBeUndefined();
		} finally {
			await other.close();
		}
	});

	test('an image host that does not answer fails with the network code', async () => {
		const gone = await startImageHost();
		const url = `${gone.url}/images/1.png`;
		await gone.close();
		museum.fail(pageLinking([url]));
		const result = await run({ limit: 5, options: { ...FAST, maxAttempts: 2 } });
		const error = result.error(NODE)!;
		expect(error.message).toBe(
			`Could not download the image of object 1 from ${url}: could not reach the image host [item 0]`,
		);
		expect(error.description).toMatch(/ECONNREFUSED/);
	});

	test('an image larger than Max Image Size (MB) is refused, not retried', async () => {
		museum.fail(pageLinking([`${images.url}/images/huge-1.png`]));
		const result = await run({ limit: 5, maxImageSize: 1, options: FAST });
		const error = result.error(NODE)!;
		expect(error.message).toBe(
			`Could not download the image of object 1 from ${images.url}/images/huge-1.png: the image host's answer is larger than the Max Image Size (1 MB); it was not read further [item 0]`,
		);
		expect(error.description).toMatch(/raise "Max Image Size"/);
		expect(images.requests).toHaveLength(1);
	});

	test('an address that is not http(s) is refused without a request', async () => {
		museum.fail(pageLinking(['ftp://images.example.org/1.png']));
		const result = await run({ limit: 5 });
		expect(result.error(NODE)!.message).toMatch(
			/Could not download the image of object 1 from ftp:\/\/images\.example\.org\/1\.png: the address uses ftp:/,
		);
	});
});

describe('file names', () => {
	test.each([
		[`attachment; filename="a b.png"`, 'http://x/y/z.jpg', 'image/png', 'a b.png'],
		[`inline; filename=plain.jpg`, 'http://x/y/z.png', 'image/jpeg', 'plain.jpg'],
		[`attachment; filename="../../etc/passwd"`, 'http://x/z.png', 'image/png', 'passwd.png'],
		[undefined, 'http://x/iiif/abc%20def', 'image/jpeg', 'abc def.jpg'],
		[undefined, 'http://x/', 'image/webp', 'object-42.webp'],
		[undefined, 'http://x/a/photo.tiff', 'image/tiff', 'photo.tiff'],
	])('%s %s %s → %s', (disposition, url, mime, name) => {
		expect(fileNameFor(disposition, url, mime, 42)).toBe(name);
	});
});
