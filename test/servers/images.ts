/**
 * Image host: GET /images/<id>.png|.jpg -> a small valid generated image coloured by id;
 * /images/missing-*.<ext> -> 404; /images/huge-*.png -> a valid PNG of about `hugeBytes`;
 * /images/bomb-*.png -> a gzip bomb (content-encoding gzip, image/png) inflating to `bombBytes`.
 */
import * as zlib from 'zlib';
import { BaseMode, TestServer, createTestServer, failEnvelope } from './common';
import { hash32, parseHex, rng, synthesizeColors } from './data';
import { GIB, gzipBomb } from './hostile';

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
	let c = n;
	for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
	return c >>> 0;
});
export function crc32(buf: Uint8Array): number {
	const bytes = new Uint8Array(buf); // a same-realm copy: indexing a Buffer from jest's vm context is very slow
	let c = 0xffffffff;
	for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
	return (c ^ 0xffffffff) >>> 0;
}

function pngChunk(type: string, data: Buffer): Buffer {
	const head = Buffer.alloc(8);
	head.writeUInt32BE(data.length, 0);
	head.write(type, 4, 'ascii');
	const crc = Buffer.alloc(4);
	crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
	return Buffer.concat([head, data, crc]);
}

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** A valid 8-bit RGB PNG; `pixel(x, y)` gives [r, g, b]. level 0 = stored deflate blocks (file size ~ raw size). */
export function makePng(
	width: number,
	height: number,
	pixel: (x: number, y: number) => [number, number, number],
	level = 9,
): Buffer {
	const raw = new Uint8Array((width * 3 + 1) * height); // not Buffer: see crc32
	for (let y = 0, o = 0; y < height; y++) {
		raw[o++] = 0; // filter: none
		for (let x = 0; x < width; x++) {
			const [r, g, b] = pixel(x, y);
			raw[o++] = r;
			raw[o++] = g;
			raw[o++] = b;
		}
	}
	const ihdr = Buffer.alloc(13);
	ihdr.writeUInt32BE(width, 0);
	ihdr.writeUInt32BE(height, 4);
	ihdr.set([8, 2, 0, 0, 0], 8); // bit depth 8, colour type RGB, deflate, no filter method, no interlace
	return Buffer.concat([
		PNG_SIGNATURE,
		pngChunk('IHDR', ihdr),
		pngChunk('IDAT', zlib.deflateSync(raw, { level })),
		pngChunk('IEND', Buffer.alloc(0)),
	]);
}

/**
 * A valid baseline JPEG of one solid colour (8x8 px, YCbCr 4:4:4, one MCU of DC-only blocks),
 * using the standard DC luminance Huffman table and a one-symbol (EOB) AC table.
 */
export function makeJpeg(r: number, g: number, b: number): Buffer {
	const seg = (marker: number, data: number[]) => [
		0xff,
		marker,
		(data.length + 2) >> 8,
		(data.length + 2) & 255,
		...data,
	];
	const ycc = [
		0.299 * r + 0.587 * g + 0.114 * b,
		128 - 0.168736 * r - 0.331264 * g + 0.5 * b,
		128 + 0.5 * r - 0.418688 * g - 0.081312 * b,
	].map((v) => Math.max(0, Math.min(255, Math.round(v))));
	// Standard DC luminance table (ITU T.81 K.3): code lengths per category 0..11.
	const dcBits = [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0];
	const dcCodes: Array<[number, number]> = []; // [code, length] for category i
	for (let len = 1, code = 0; len <= 16; len++, code <<= 1)
		for (let k = 0; k < dcBits[len - 1]; k++) dcCodes.push([code++, len]);
	let acc = 0;
	let nbits = 0;
	const entropy: number[] = [];
	const put = (value: number, length: number) => {
		for (let i = length - 1; i >= 0; i--) {
			acc = (acc << 1) | ((value >> i) & 1);
			if (++nbits === 8) {
				entropy.push(acc);
				if (acc === 0xff) entropy.push(0); // byte stuffing
				acc = 0;
				nbits = 0;
			}
		}
	};
	for (const v of ycc) {
		const dc = 8 * (v - 128); // FDCT DC of a flat block, quantiser 1
		const cat = dc === 0 ? 0 : Math.floor(Math.log2(Math.abs(dc))) + 1;
		put(...dcCodes[cat]);
		if (cat) put(dc > 0 ? dc : dc + (1 << cat) - 1, cat);
		put(0, 1); // EOB
	}
	if (nbits) put((1 << (8 - nbits)) - 1, 8 - nbits); // pad with 1 bits
	return Buffer.from([
		...[0xff, 0xd8], // SOI
		...seg(0xe0, [0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0]), // APP0 JFIF 1.1
		...seg(0xdb, [0x00, ...new Array<number>(64).fill(1)]), // DQT table 0, all ones
		...seg(0xc0, [8, 0, 8, 0, 8, 3, 1, 0x11, 0, 2, 0x11, 0, 3, 0x11, 0]), // SOF0 8x8, 3 components
		...seg(0xc4, [0x00, ...dcBits, ...Array.from({ length: 12 }, (_, i) => i)]), // DHT DC 0
		...seg(0xc4, [0x10, 1, ...new Array<number>(15).fill(0), 0x00]), // DHT AC 0: EOB only, code "0"
		...seg(0xda, [3, 1, 0x00, 2, 0x00, 3, 0x00, 0, 63, 0]), // SOS
		...entropy,
		...[0xff, 0xd9], // EOI
	]);
}

/** The colour an image id is painted with: the record's first synthetic palette colour for numeric ids. */
export function imageColor(id: string): [number, number, number] {
	const m = /^(\d+)(?:-\d+)?$/.exec(id);
	const fromPalette = m ? parseHex(synthesizeColors(Number(m[1]))[0]?.color ?? '') : undefined;
	if (fromPalette) return fromPalette;
	const h = hash32(id);
	return [(h >> 16) & 255, (h >> 8) & 255, h & 255];
}

export interface ImageHostOptions {
	/** Approximate size of /images/huge-*.png. Default 8 MiB. */
	hugeBytes?: number;
	/** Inflated size of /images/bomb-*.png. Default 1 GiB. */
	bombBytes?: number;
}

export interface ImageHost extends TestServer<BaseMode> {
	/** True if any request carried an Authorization header or an apikey/key query parameter. */
	readonly authorizationSeen: boolean;
}

const hugeCache = new Map<number, Buffer>();
function hugePng(bytes: number): Buffer {
	let png = hugeCache.get(bytes);
	if (!png) {
		const width = 1024;
		const height = Math.max(1, Math.ceil(bytes / (width * 3 + 1)));
		const rand = rng(bytes);
		png = makePng(
			width,
			height,
			() => [(rand() * 256) | 0, (rand() * 256) | 0, (rand() * 256) | 0],
			0,
		);
		hugeCache.set(bytes, png);
	}
	return png;
}

export async function startImageHost(options: ImageHostOptions = {}): Promise<ImageHost> {
	const hugeBytes = options.hugeBytes ?? 8 * 1024 * 1024;
	const server = await createTestServer<BaseMode>({
		requireKey: false,
		async handle({ req, url }) {
			const m = /^\/images\/([A-Za-z0-9_-]+)\.(png|jpe?g)$/.exec(url.pathname);
			if (!m || (req.method !== 'GET' && req.method !== 'HEAD'))
				return failEnvelope(404, `No such image: ${url.pathname}`);
			const [, id, ext] = m;
			if (id.startsWith('missing-')) return failEnvelope(404, `No such image: ${url.pathname}`);
			const headers = (type: string) => ({
				'content-type': type,
				'cache-control': 'public, max-age=3600',
			});
			if (ext === 'png' && id.startsWith('bomb-')) {
				const body = await gzipBomb(options.bombBytes ?? GIB, 'png');
				return {
					status: 200,
					headers: { ...headers('image/png'), 'content-encoding': 'gzip' },
					body,
				};
			}
			if (ext === 'png') {
				const body = id.startsWith('huge-')
					? hugePng(hugeBytes)
					: makePng(8, 8, () => imageColor(id));
				return { status: 200, headers: headers('image/png'), body };
			}
			return { status: 200, headers: headers('image/jpeg'), body: makeJpeg(...imageColor(id)) };
		},
	});
	return Object.defineProperty(server, 'authorizationSeen', {
		get: () =>
			server.requests.some(
				(r) =>
					r.headers.authorization !== undefined ||
					['apikey', 'key', 'api_key'].some((k) => k in r.query),
			),
		enumerable: true,
	}) as ImageHost;
}
