/**
 * Image host: GET /images/<id>.png -> a small valid PNG coloured by id, /images/<id>.jpg|.jpeg -> a small JPEG;
 * `?width=W` (as nrs.harvard.edu takes it) -> a PNG W pixels wide, or the JPEG marked with its width;
 * IIIF /iiif/<id>/full/<W,|full>/0/default.jpg -> the JPEG marked with its size;
 * /images/missing-*.<ext> -> 404; /images/huge-*.png -> a valid PNG of about `hugeBytes`;
 * /images/bomb-*.png -> a gzip bomb (content-encoding gzip, image/png) inflating to `bombBytes`.
 */
import * as zlib from 'zlib';
import { BaseMode, TestServer, createTestServer, failEnvelope } from './common';
import { hash32, parseHex, rng, synthesizeColors } from './data';
import { GIB, PNG_SIGNATURE, gzipBomb } from './hostile';

function pngChunk(type: string, data: Buffer): Buffer {
	const head = Buffer.alloc(8);
	head.writeUInt32BE(data.length, 0);
	head.write(type, 4, 'ascii');
	const crc = Buffer.alloc(4);
	crc.writeUInt32BE(zlib.crc32(data, zlib.crc32(head.subarray(4))), 0);
	return Buffer.concat([head, data, crc]);
}

/** A valid 8-bit RGB PNG; `pixel(x, y)` gives [r, g, b]. level 0 = stored deflate blocks (file size ~ raw size). */
export function makePng(
	width: number,
	height: number,
	pixel: (x: number, y: number) => [number, number, number],
	level = 9,
): Buffer {
	// not a Buffer: indexing one from jest's vm context is very slow
	const raw = new Uint8Array((width * 3 + 1) * height);
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

/** A valid baseline JPEG, 8x8 grey (JFIF, one MCU of DC-only blocks). */
const JPEG = Buffer.from(
	'/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEB' +
		'AQEBAQEBAQEBAQEBAQEBAQH/wAARCAAIAAgDAREAAhEAAxEA/8QAHwAAAQUBAQEBAQEAAAAAAAAAAAECAwQFBgcICQoL/8QA' +
		'FBABAAAAAAAAAAAAAAAAAAAAAP/aAAwDAQACAAMAAD8AAH//2Q==',
	'base64',
);

/** That JPEG with the image id in a comment segment (COM), so each image's bytes are its own. */
function makeJpeg(id: string): Buffer {
	const comment = Buffer.from(id);
	const com = Buffer.from([0xff, 0xfe, (comment.length + 2) >> 8, (comment.length + 2) & 255]);
	return Buffer.concat([JPEG.subarray(0, 2), com, comment, JPEG.subarray(2)]);
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
			const iiif = /^\/iiif\/([A-Za-z0-9_-]+)\/full\/(full|\d+,)\/0\/default\.jpg$/.exec(
				url.pathname,
			);
			if (iiif && (req.method === 'GET' || req.method === 'HEAD')) {
				const size = iiif[2] === 'full' ? 'full' : iiif[2].slice(0, -1);
				if (size === '0') return failEnvelope(400, 'IIIF size must be at least 1 pixel wide');
				return {
					status: 200,
					headers: { 'content-type': 'image/jpeg' },
					body: makeJpeg(`${iiif[1]}@${size}`),
				};
			}
			const width = url.searchParams.get('width');
			if (width !== null && !/^[1-9]\d{0,4}$/.test(width))
				return failEnvelope(400, 'width must be a whole number of pixels');
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
				const w = width ? Math.min(Number(width), 2000) : 8;
				const body = id.startsWith('huge-')
					? hugePng(hugeBytes)
					: makePng(w, width ? Math.max(1, w >> 2) : 8, () => imageColor(id));
				return { status: 200, headers: headers('image/png'), body };
			}
			const body = makeJpeg(width ? `${id}@${width}` : id);
			return { status: 200, headers: headers('image/jpeg'), body };
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
