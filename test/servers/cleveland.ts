/**
 * The Cleveland Museum of Art Open Access API (https://openaccess-api.clevelandart.org/api) as
 * ../shared/reference/cleveland-api.md describes it, under /api of this server, with the image CDN
 * (openaccess-cdn.clevelandart.org) at this server's root: /{accession}/{accession}_{web|print}.jpg and _full.tif.
 *
 * - GET /api/artworks/ (and without the slash): `q`, `skip`, `limit` (default and cap 1,000), `fields`, `indent`,
 *   exact `type` / `department`, `created_after` / `created_before` (years, negative = BCE), `has_image=1`, text
 *   filters `artists` `title` `medium` `credit`, presence flags `cc0` `copyrighted` `currently_on_view`;
 *   {info: {total, parameters}, data: [full records]}; past the end `data: []` with the real total; `sort` is
 *   ignored, `orderby=id` finds nothing.
 * - Paging is unstable, deterministically: the answer for `skip` = s > 0 sees the order with the `unstablePaging`
 *   records before s and as many from s traded places, so a walk gets those works twice and misses as many.
 * - GET /api/artworks/{id}: `{data}` (no info) by numeric id or accession number (`1953.424`).
 * - Records keep CC0 image links only; others have `images: {}` (or `null`, the 2020 form) and a `copyright` text.
 *   Image sizes are strings. Error bodies are not documented: 404 and 400 here answer a small JSON `{detail}`.
 */
import * as fs from 'fs';
import * as path from 'path';
import {
	type BaseMode,
	type RecordedRequest,
	type Reply,
	type TestServer,
	createTestServer,
	json,
	text,
} from './common';
import { type LoadOwnOptions, loadOwnRecords, type MuseumRecord, SHARED_DATA_DIR } from './data';
import { flatJpeg } from './aic';

type Rendition = {
	url: string;
	width: string;
	height: string;
	filesize?: string;
	filename?: string;
};

/** One artwork record as the API answers it (the stand-in keeps whatever fields a record has). */
export type ClevelandArtwork = {
	id: number;
	accession_number: string;
	share_license_status: 'CC0' | 'Copyrighted' | 'Other';
	title: string;
	creation_date: string | null;
	creation_date_earliest: number | null;
	creation_date_latest: number | null;
	type: string;
	department: string;
	images: { web?: Rendition; print?: Rendition; full?: Rendition; annotation?: null } | null;
	creators: Array<{ description: string; role: string | null; [field: string]: unknown }>;
	[field: string]: unknown;
};

export interface ClevelandMode extends BaseMode {
	/** Records traded across each page boundary (see above). 0: stable paging. */
	unstablePaging: number;
	/** 'current': skip and limit always, as integers, flags as sent (2024); 'legacy': only what was sent, as strings. */
	parameterEcho: 'current' | 'legacy';
	/** How records without images carry it: `{}` (2024) or `null` (2020). */
	noImages: 'empty' | 'null';
	/** Accession numbers whose image files the CDN answers 404 (the API still lists them). */
	missingImages: string[];
}

export interface ClevelandServerOptions {
	/** Default: the 1,000 real records of ../shared/data/cleveland-artworks.json when present, else test/fixtures/cleveland-records.json. */
	artworks?: ClevelandArtwork[];
	/** Where image URLs point; default this server's root (it serves them). */
	cdnUrl?: string;
}

export interface ClevelandServer extends TestServer<ClevelandMode> {
	/** What a client takes as the API's base: `${url}/api`. */
	apiUrl: string;
	cdnUrl: string;
	artworks: readonly ClevelandArtwork[];
	/** Requests to the image CDN. */
	readonly imageRequests: RecordedRequest[];
	/** Requests to the JSON API. */
	readonly apiRequests: RecordedRequest[];
}

// ---------------------------------------------------------------- data

const SHARED_FILE = 'cleveland-artworks.json';
const REAL_CDN = 'https://openaccess-cdn.clevelandart.org';

/** True when ../shared/data/cleveland-artworks.json is there. */
export const hasClevelandData = () => fs.existsSync(path.join(SHARED_DATA_DIR, SHARED_FILE));

export type LoadClevelandOptions = LoadOwnOptions;

export const loadClevelandArtworks = (options: LoadClevelandOptions): ClevelandArtwork[] =>
	loadOwnRecords<ClevelandArtwork>(
		{ shared: SHARED_FILE, fixture: 'cleveland-records.json' },
		options,
		clevelandArtworksFrom,
	);

const CMA_TYPES: Record<string, string> = {
	Paintings: 'Painting',
	Prints: 'Print',
	Drawings: 'Drawing',
	Photographs: 'Photograph',
	Sculpture: 'Sculpture',
	Vessels: 'Vessels',
	Textiles: 'Textile',
	Installations: 'Mixed Media',
	'Printing Blocks': 'Woodblock',
};
const CMA_DEPARTMENTS: Record<string, string> = {
	Paintings: 'European Painting and Sculpture',
	Sculpture: 'European Painting and Sculpture',
	Prints: 'Prints',
	Drawings: 'Drawings',
	Photographs: 'Photography',
	Vessels: 'Decorative Art and Design',
	Textiles: 'Textiles',
};

function renditions(acc: string, w: number, h: number): ClevelandArtwork['images'] {
	const scaled = (long: number, ext: string, kind: string): Rendition => {
		const k = long / Math.max(w, h);
		const [rw, rh] = [Math.max(1, Math.round(w * k)), Math.max(1, Math.round(h * k))];
		const filename = `${acc}_${kind}.${ext}`;
		const bytes = ext === 'tif' ? rw * rh * 3 : Math.round((rw * rh) / 3);
		return {
			url: `${REAL_CDN}/${acc}/${filename}`,
			width: String(rw),
			height: String(rh),
			filesize: String(bytes),
			filename,
		};
	};
	return {
		annotation: null,
		web: scaled(1263, 'jpg', 'web'),
		print: scaled(3400, 'jpg', 'print'),
		full: scaled(Math.max(w, h, 3400), 'tif', 'full'),
	};
}

/**
 * Harvard-style records (Tate, CMOA, generated) in Cleveland's shape: ids are objectid + 2,000,000, the accession
 * number is the record's own, works ending by 1925 are CC0 and keep their images, others are Copyrighted without.
 */
export function clevelandArtworksFrom(records: MuseumRecord[]): ClevelandArtwork[] {
	return records.map((r) => {
		const id = r.objectid + 2_000_000;
		const acc = r.objectnumber;
		const end = r.dateend ?? r.datebegin;
		const cc0 = end !== null && end <= 1925;
		const creators = r.people.map((p) => {
			const life = p.displaydate?.replace(/\s*-\s*/, '–') ?? null;
			const bits = [p.culture, life].filter(Boolean).join(', ');
			return {
				description: bits ? `${p.displayname} (${bits})` : p.displayname,
				role: p.role ? p.role.toLowerCase() : null,
			};
		});
		const who = creators[0]?.description ?? r.culture ?? 'Unknown';
		const copyright = cc0 ? null : `© ${r.people[0]?.displayname ?? 'the artist'}`;
		const first = r.images[0];
		const images = cc0 && first ? renditions(acc, first.width ?? 1000, first.height ?? 800) : {};
		return {
			id,
			accession_number: acc,
			share_license_status: cc0 ? 'CC0' : 'Copyrighted',
			tombstone:
				`${r.title ?? 'Untitled'}${r.dated ? `, ${r.dated}` : ''}. ${who}. ${r.medium ?? ''}. ` +
				`The Cleveland Museum of Art, ${r.creditline ?? 'Purchase'} ${acc}${copyright ? ` ${copyright}` : ''}`,
			current_location: null,
			title: r.title ?? 'Untitled',
			creation_date: r.dated,
			creation_date_earliest: r.datebegin,
			creation_date_latest: r.dateend,
			culture: r.culture ? [r.culture] : [],
			technique: r.medium,
			department: CMA_DEPARTMENTS[r.classification ?? ''] ?? 'Contemporary Art',
			collection: r.classification ?? 'Miscellaneous',
			type: CMA_TYPES[r.classification ?? ''] ?? 'Miscellaneous',
			copyright,
			url: `https://clevelandart.org/art/${acc}`,
			images,
			creditline: r.creditline,
			athena_id: id,
			creators,
			updated_at: '2024-05-09 11:01:26.612000',
		};
	});
}

// ---------------------------------------------------------------- images

/** A valid uncompressed-looking greyscale TIFF of width × height, PackBits rows of flat grey (small on the wire). */
export function flatTiff(width: number, height: number): Buffer {
	const row: number[] = [];
	for (let left = width; left > 0; left -= 128) {
		const run = Math.min(128, left);
		if (run === 1) row.push(0, 128);
		else row.push((257 - run) & 255, 128);
	}
	const rowBytes = Buffer.from(row);
	const data = Buffer.alloc(rowBytes.length * height);
	for (let y = 0; y < height; y++) rowBytes.copy(data, y * rowBytes.length);
	const entries: Array<[number, number, number]> = [
		// tag, type (3 SHORT, 4 LONG), value
		[256, 4, width],
		[257, 4, height],
		[258, 3, 8],
		[259, 3, 32773], // PackBits
		[262, 3, 1], // BlackIsZero
		[273, 4, 0], // strip offset, set below
		[277, 3, 1],
		[278, 4, height],
		[279, 4, data.length],
	];
	const ifd = Buffer.alloc(2 + entries.length * 12 + 4);
	const dataOffset = 8 + ifd.length;
	ifd.writeUInt16LE(entries.length, 0);
	entries.forEach(([tag, type, value], i) => {
		const o = 2 + i * 12;
		ifd.writeUInt16LE(tag, o);
		ifd.writeUInt16LE(type, o + 2);
		ifd.writeUInt32LE(1, o + 4);
		const v = tag === 273 ? dataOffset : value;
		if (type === 3) ifd.writeUInt16LE(v, o + 8);
		else ifd.writeUInt32LE(v, o + 8);
	});
	const head = Buffer.from([0x49, 0x49, 42, 0, 8, 0, 0, 0]);
	return Buffer.concat([head, ifd, data]);
}

// ---------------------------------------------------------------- server

export const CLEVELAND_LIMIT_MAX = 1000;
/** Presence flags the stand-in can decide from its records; the others are echoed and have no effect. */
const FLAGS = [
	'cc0',
	'copyrighted',
	'currently_on_view',
	'currently_on_loan',
	'african_american_artists',
	'cia_alumni_artists',
	'may_show_artists',
	'female_artists',
	'recently_acquired',
	'nazi_era_provenance',
];
/** The department's two spellings in use. */
const SAME_DEPARTMENT: Record<string, string> = {
	'Indian and South East Asian Art': 'Indian and Southeast Asian Art',
};

const fold = (s: string) =>
	s
		.normalize('NFKD')
		.replace(/[\u0300-\u036f]/g, '')
		.toLowerCase();

const detail = (status: number, message: string) => json(status, { detail: message });

export async function startClevelandServer(
	options: ClevelandServerOptions = {},
): Promise<ClevelandServer> {
	const source = options.artworks ?? loadClevelandArtworks({ source: 'auto' });
	let cdnUrl = '';
	const byId = new Map<number, ClevelandArtwork>();
	const byAccession = new Map<string, ClevelandArtwork>();
	/** CDN path → the rendition's size (from the record). */
	const files = new Map<string, { acc: string; width: number; height: number; tiff: boolean }>();
	const searchText = new Map<ClevelandArtwork, string>();

	const server = await createTestServer<ClevelandMode>({
		requireKey: false,
		modeDefaults: {
			unstablePaging: 1,
			parameterEcho: 'current',
			noImages: 'empty',
			missingImages: [],
		},
		handle({ req, url, recorded, mode }) {
			const method = req.method ?? 'GET';
			if (!url.pathname.startsWith('/api/')) return image(method, url.pathname, mode);
			if (method !== 'GET' && method !== 'HEAD') return detail(405, 'Method Not Allowed');
			const route = url.pathname.replace(/\/+$/, '');
			const indent = Number(url.searchParams.get('indent') ?? '') || undefined;
			const answer = (value: unknown): Reply => ({
				status: 200,
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify(value, null, indent),
			});
			const fields = url.searchParams
				.get('fields')
				?.split(',')
				.map((f) => f.trim())
				.filter(Boolean);
			const single = /^\/api\/artworks\/([^/]+)$/.exec(route);
			if (single) {
				const key = decodeURIComponent(single[1]);
				const found = /^\d+$/.test(key) ? byId.get(Number(key)) : byAccession.get(key);
				if (!found) return detail(404, 'Not Found');
				return answer({ data: present(found, fields, mode) });
			}
			if (route !== '/api/artworks') return detail(404, 'Not Found');
			return list(url.searchParams, recorded, mode, answer, fields);
		},
	});
	const apiUrl = `${server.url}/api`;
	cdnUrl = options.cdnUrl?.replace(/\/+$/, '') ?? server.url;
	for (const a of source) {
		byId.set(a.id, a);
		byAccession.set(a.accession_number, a);
		for (const kind of ['web', 'print', 'full'] as const) {
			const r = a.images?.[kind];
			if (!r) continue;
			const p = r.url.startsWith(REAL_CDN) ? r.url.slice(REAL_CDN.length) : new URL(r.url).pathname;
			files.set(p, {
				acc: a.accession_number,
				width: Number(r.width),
				height: Number(r.height),
				tiff: kind === 'full',
			});
		}
		searchText.set(
			a,
			fold(
				[
					a.title,
					...a.creators.map((c) => c.description),
					a.tombstone,
					...((a.culture as string[] | undefined) ?? []),
					a.technique,
					a.description,
					a.did_you_know,
				]
					.filter((v) => typeof v === 'string')
					.join('\n'),
			),
		);
	}

	/** The record as served: image URLs on the stand-in's CDN, the no-image form of the mode, `fields` picked. */
	function present(a: ClevelandArtwork, fields: string[] | undefined, mode: ClevelandMode) {
		const has = !!a.images && Object.keys(a.images).some((k) => k !== 'annotation');
		let images: ClevelandArtwork['images'] = mode.noImages === 'null' ? null : {};
		if (has) {
			images = { ...a.images };
			for (const kind of ['web', 'print', 'full'] as const) {
				const r = a.images?.[kind];
				if (r) images[kind] = { ...r, url: r.url.replace(REAL_CDN, cdnUrl) };
			}
		}
		const out: Record<string, unknown> = { ...a, images };
		return fields
			? Object.fromEntries(fields.filter((f) => f in out).map((f) => [f, out[f]]))
			: out;
	}

	function list(
		params: URLSearchParams,
		recorded: RecordedRequest,
		mode: ClevelandMode,
		answer: (value: unknown) => Reply,
		fields: string[] | undefined,
	): Reply {
		const get = (k: string) => params.get(k) ?? undefined;
		const int = (k: string, min: number): number | undefined | Reply => {
			const v = get(k);
			if (v === undefined || v === '') return undefined;
			if (!/^-?\d+$/.test(v.trim()) || Number(v) < min)
				return detail(400, `Invalid value for ${k}: ${v}`);
			return Number(v);
		};
		const skipIn = int('skip', 0);
		const limitIn = int('limit', 0);
		const after = int('created_after', -Infinity);
		const before = int('created_before', -Infinity);
		for (const v of [skipIn, limitIn, after, before]) if (typeof v === 'object') return v;
		const skip = (skipIn as number | undefined) ?? 0;
		const limit = Math.min(
			(limitIn as number | undefined) ?? CLEVELAND_LIMIT_MAX,
			CLEVELAND_LIMIT_MAX,
		);

		const tests: Array<(a: ClevelandArtwork) => boolean> = [];
		const q = get('q')?.trim();
		if (q) {
			const words = fold(q).split(/\s+/);
			tests.push((a) => words.every((w) => searchText.get(a)!.includes(w)));
		}
		const type = get('type');
		if (type !== undefined) tests.push((a) => a.type === type);
		const department = get('department');
		if (department !== undefined) {
			const same = SAME_DEPARTMENT[department] ?? department;
			tests.push((a) => (SAME_DEPARTMENT[a.department] ?? a.department) === same);
		}
		if (after !== undefined)
			tests.push(
				(a) => a.creation_date_earliest !== null && a.creation_date_earliest >= (after as number),
			);
		if (before !== undefined)
			tests.push(
				(a) => a.creation_date_latest !== null && a.creation_date_latest <= (before as number),
			);
		const hasImage = get('has_image');
		const withImage = (a: ClevelandArtwork) => !!a.images?.web;
		if (hasImage === '1') tests.push(withImage);
		else if (hasImage === '0') tests.push((a) => !withImage(a));
		const text = (k: string, of: (a: ClevelandArtwork) => unknown[]) => {
			const v = get(k);
			if (v)
				tests.push((a) => of(a).some((x) => typeof x === 'string' && fold(x).includes(fold(v))));
		};
		text('artists', (a) => a.creators.map((c) => c.description));
		text('title', (a) => [a.title]);
		text('medium', (a) => [a.technique]);
		text('credit', (a) => [a.creditline]);
		if (params.has('cc0')) tests.push((a) => a.share_license_status === 'CC0');
		if (params.has('copyrighted')) tests.push((a) => a.share_license_status === 'Copyrighted');
		if (params.has('currently_on_view')) tests.push((a) => typeof a.current_location === 'string');

		let found = source.filter((a) => tests.every((t) => t(a)));
		if (get('orderby') === 'id') found = [];
		const total = found.length;
		// Unstable paging: the k records before `skip` and the k from it trade places for this answer.
		const k = Math.min(mode.unstablePaging, skip, Math.max(0, total - skip));
		if (k > 0) {
			found = [...found];
			const before = found.slice(skip - k, skip);
			const from = found.slice(skip, skip + k);
			found.splice(skip - k, 2 * k, ...from, ...before);
		}
		const data = found.slice(skip, skip + limit).map((a) => present(a, fields, mode));

		const echoed: Record<string, unknown> = {};
		if (mode.parameterEcho === 'current') {
			echoed.skip = skip;
			echoed.limit = limit;
		}
		for (const [key, value] of Object.entries(recorded.query)) {
			if (mode.parameterEcho === 'current' && (key === 'skip' || key === 'limit')) continue;
			echoed[key] = Array.isArray(value) ? value[0] : value;
			if (key === 'african_american_artists' && mode.parameterEcho === 'current')
				echoed.black_american_artists = echoed[key];
		}
		return answer({ info: { total, parameters: echoed }, data });
	}

	/** The CDN: renditions the records list, at the sizes they state. */
	function image(method: string, pathname: string, mode: ClevelandMode): Reply {
		if (method !== 'GET' && method !== 'HEAD') return text(405, 'Method Not Allowed');
		const file = files.get(decodeURIComponent(pathname));
		if (!file || mode.missingImages.includes(file.acc)) return text(404, 'Not Found');
		return {
			status: 200,
			headers: {
				'content-type': file.tiff ? 'image/tiff' : 'image/jpeg',
				'cache-control': 'public, max-age=86400',
			},
			body: file.tiff
				? flatTiff(file.width, file.height)
				: flatJpeg(file.width, file.height, `${file.acc}@${file.width}`),
		};
	}

	return Object.defineProperties(server, {
		apiUrl: { value: apiUrl, enumerable: true },
		cdnUrl: { value: cdnUrl, enumerable: true },
		artworks: { value: source, enumerable: true },
		imageRequests: {
			get: () => server.requests.filter((r) => !r.path.startsWith('/api/')),
			enumerable: true,
		},
		apiRequests: {
			get: () => server.requests.filter((r) => r.path.startsWith('/api/')),
			enumerable: true,
		},
	}) as ClevelandServer;
}
