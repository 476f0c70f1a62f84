/**
 * The Art Institute of Chicago API (https://api.artic.edu/api/v1) as ../shared/reference/aic-api.md describes it,
 * under /api/v1 of this server, with its IIIF image service under /iiif/2 (config.iiif_url points there).
 *
 * - GET|POST /api/v1/artworks/search: `q`, `query` (Elasticsearch DSL in PHP bracket notation, a JSON body or
 *   `params=<JSON>`), `sort`, `fields` (default id,api_model,api_link,is_boosted,title,thumbnail,timestamp; `_score`
 *   first), `limit`/`size` (default 10, over 100 → 403 "Invalid limit"), `page`/`from` (from + size over 1,000 →
 *   403 "Invalid number of results", checked only when one of them is sent), `limit=0` counts only;
 *   {preference, pagination{total, limit, offset, total_pages, current_page}, data, info, config}.
 * - GET /api/v1/artworks: `page`, `limit` (default 12, `0` is 12, over 100 → 403), `ids` (≤ 100, no pagination block),
 *   `fields`; ordered by updated_at desc then id desc; prev_url/next_url carry every other parameter.
 * - GET /api/v1/artworks/{id}: {data, info, config}; 400 "Invalid syntax" unless a positive integer, 404 "Not found".
 * - GET /api/v1/artwork-types and /api/v1/departments (the pickers' lists, §8): listings as /artworks is (`page`,
 *   `limit`, prev_url/next_url, the same envelope), of the types and top-level departments the reference names.
 * - GET|POST /api/v1/category-terms/search (§8): a search as /artworks/search is (the same parameters, envelope and
 *   403s), of the departments and the styles (subtype `style`); `q` matches a term's title.
 * - GET /iiif/2/{image_id}/full/{W,|!W,H}/0/default.jpg: a JPEG of that size; no upscaling past the master image and
 *   nothing wider than 843 px for works that are not public domain (403); unknown images 404.
 * - Laravel's habits: `\/` and `\uXXXX` escapes, a trailing newline, ETag/304, 301 on a trailing slash, 405 off
 *   GET/POST, CORS `*`. No key, no quota headers (the app's throttle is off); modes add a 60/min throttle and
 *   Cloudflare's challenge page.
 */
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import {
	type BaseMode,
	type RecordedRequest,
	type Reply,
	type TestServer,
	createTestServer,
	text,
} from './common';
import {
	type LoadOwnOptions,
	loadOwnRecords,
	type MuseumRecord,
	SHARED_DATA_DIR,
	hash32,
	parseHex,
} from './data';

/** One artwork as GET /artworks/{id} answers its `data` (the stand-in keeps whatever fields a record has). */
export type AicArtwork = {
	id: number;
	title: string;
	image_id: string | null;
	is_public_domain: boolean;
	thumbnail: { lqip: string | null; width: number; height: number; alt_text: string | null } | null;
	[field: string]: unknown;
};

export interface AicMode extends BaseMode {
	/**
	 * Cloudflare's bot challenge (403 text/html "Just a moment...", `cf-mitigated: challenge`): on the IIIF images (as
	 * non-browser clients meet it since 2025-12), on every route, or off.
	 */
	challenge: 'off' | 'images' | 'all';
	/** Anonymous API requests allowed per 60 s before 429s. 0: no limit, as the live app (its throttle is commented out). */
	throttlePerMinute: number;
}

export interface AicServerOptions {
	/** Default: the 10 real records of ../shared/data/aic-artworks.json when present, else test/fixtures/aic-records.json. */
	artworks?: AicArtwork[];
	/** Bearer tokens of signed-in callers: no 100-per-page limit, and 10,000 results deep instead of 1,000. */
	tokens?: string[];
	/** config.iiif_url; default this server's /iiif/2. */
	iiifUrl?: string;
	/** info.version (opaque; 1.13 to 1.16 have been seen). */
	version?: string;
	/** GET /artwork-types; default: the types the reference names (AIC_ARTWORK_TYPES). */
	artworkTypes?: AicTerm[];
	/** GET /departments; default: the top-level departments the reference names (AIC_DEPARTMENT_TERMS). */
	departments?: AicTerm[];
	/** Category terms of subtype style (/category-terms/search); default: AIC_STYLE_TERMS. */
	styles?: AicTerm[];
}

/** An artwork type or category term as the listings answer it (api_link is set to this server). */
export type AicTerm = { id: number | string; title: string; [field: string]: unknown };

export interface AicServer extends TestServer<AicMode> {
	/** What a client takes as the API's base: `${url}/api/v1`. */
	apiUrl: string;
	/** This server's IIIF image service, `${url}/iiif/2`. */
	iiifUrl: string;
	artworks: readonly AicArtwork[];
	/** Requests to the IIIF image service. */
	readonly imageRequests: RecordedRequest[];
	/** Requests to the JSON API. */
	readonly apiRequests: RecordedRequest[];
	/** True if any request carried `secret` (raw or URL-encoded) in its path, query, headers or body. */
	keySeen(secret: string): boolean;
}

// ---------------------------------------------------------------- data

const SHARED_FILE = 'aic-artworks.json';

/** True when ../shared/data/aic-artworks.json is there. */
export const hasAicData = () => fs.existsSync(path.join(SHARED_DATA_DIR, SHARED_FILE));

export type LoadAicOptions = LoadOwnOptions;

export const loadAicArtworks = (options: LoadAicOptions): AicArtwork[] =>
	loadOwnRecords<AicArtwork>(
		{ shared: SHARED_FILE, fixture: 'aic-records.json' },
		options,
		aicArtworksFrom,
	);

/** AIC's artwork types and departments as the reference lists them, for records mapped from other collections. */
const AIC_TYPES: Record<string, [string, number]> = {
	Paintings: ['Painting', 1],
	Photographs: ['Photograph', 2],
	Sculpture: ['Sculpture', 3],
	Textiles: ['Textile', 5],
	Drawings: ['Drawing and Watercolor', 14],
	Prints: ['Print', 18],
	Vessels: ['Vessel', 23],
};
const AIC_DEPARTMENTS: Record<string, string> = {
	'Arts of Africa': 'PC-1',
	'Arts of the Americas': 'PC-3',
	'Arts of Asia': 'PC-7',
	'Painting and Sculpture of Europe': 'PC-10',
	'Prints and Drawings': 'PC-13',
};
/** The artwork types the reference names (§8; the other ~31 of the 44 were not seen), as GET /artwork-types lists them. */
export const AIC_ARTWORK_TYPES: AicTerm[] = (
	[
		[1, 'Painting', 300033618],
		[2, 'Photograph', 300046300],
		[3, 'Sculpture', 300301253],
		[4, 'Icon', null],
		[5, 'Textile', 300014063],
		[6, 'Furniture', null],
		[7, 'Mask', null],
		[8, 'Decorative Arts', null],
		[10, 'Audio-Video', null],
		[11, 'Book', null],
		[14, 'Drawing and Watercolor', null],
		[18, 'Print', null],
		[23, 'Vessel', null],
	] as const
).map(([id, title, aat]) => ({
	id,
	api_model: 'artwork-types',
	api_link: '',
	title,
	aat_id: aat,
	source_updated_at: '2019-05-08T19:03:58-05:00',
	updated_at: timestampOf(`type:${id}`),
	timestamp: '2025-02-09T02:09:10-06:00',
}));

/** The top-level departments (category terms of subtype department, no parent) the reference names with their IDs. */
export const AIC_DEPARTMENT_TERMS: AicTerm[] = Object.entries(AIC_DEPARTMENTS).map(
	([title, id]) => ({
		id,
		api_model: 'category-terms',
		api_link: '',
		title,
		subtype: 'department',
		parent_id: null,
		aat_id: null,
		source_updated_at: '2020-09-15T12:08:47-05:00',
		updated_at: timestampOf(`department:${id}`),
		timestamp: '2025-02-09T02:09:10-06:00',
	}),
);

/** Category terms of subtype style, named as AIC's records' `style_title` names them (IDs: the stand-in's own). */
export const AIC_STYLE_TERMS: AicTerm[] = (
	[
		[14720, '19th century'],
		[14721, 'Abstract Expressionism'],
		[14722, 'Baroque'],
		[14723, 'Edo period (1615-1868)'],
		[14724, 'Impressionism'],
		[14725, 'Modernism'],
		[14726, 'Romanticism'],
	] as const
).map(([n, title]) => ({
	id: `TM-${n}`,
	api_model: 'category-terms',
	api_link: '',
	title,
	subtype: 'style',
	parent_id: null,
	aat_id: null,
	source_updated_at: '2020-09-15T12:08:47-05:00',
	updated_at: timestampOf(`style:${n}`),
	timestamp: '2025-02-09T02:09:10-06:00',
}));

const DEPARTMENT_OF_CLASS: Record<string, string> = {
	Paintings: 'Painting and Sculpture of Europe',
	Sculpture: 'Painting and Sculpture of Europe',
	Prints: 'Prints and Drawings',
	Drawings: 'Prints and Drawings',
};

/** A deterministic version-4-looking UUID. */
function uuidOf(seed: string): string {
	const h = [0, 1, 2, 3].map((i) => hash32(`${seed}:${i}`).toString(16).padStart(8, '0')).join('');
	return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

/** A deterministic ISO 8601 time with AIC's -05:00/-06:00 offset, in 2024–2025. */
function timestampOf(seed: string): string {
	const t = Date.UTC(2024, 0, 1) + (hash32(`ts:${seed}`) % (730 * 86_400)) * 1000;
	return new Date(t - 5 * 3_600_000).toISOString().slice(0, 19) + '-05:00';
}

function hslOf([r, g, b]: [number, number, number]) {
	const [R, G, B] = [r / 255, g / 255, b / 255];
	const max = Math.max(R, G, B);
	const min = Math.min(R, G, B);
	const l = (max + min) / 2;
	const d = max - min;
	const s = d === 0 ? 0 : d / (1 - Math.abs(2 * l - 1));
	let h = 0;
	if (d) h = max === R ? ((G - B) / d) % 6 : max === G ? (B - R) / d + 2 : (R - G) / d + 4;
	return { h: Math.round((h * 60 + 360) % 360), l: Math.round(l * 100), s: Math.round(s * 100) };
}

/**
 * Harvard-style records (Tate, CMOA, generated) in AIC's shape. ids are objectid + 1,000,000 (AIC's own stay under
 * 300,000); works ending by 1925 are public domain; about one in twenty master images is narrower than 843 px.
 */
export function aicArtworksFrom(records: MuseumRecord[]): AicArtwork[] {
	return records.map((r) => {
		const id = r.objectid + 1_000_000;
		const person = r.people[0];
		const end = r.dateend ?? r.datebegin;
		const pd = end !== null && end <= 1925;
		const hasImage = r.images.length > 0;
		const width = 600 + (hash32(`w:${id}`) % 5400);
		const first = r.images[0];
		const height =
			first?.width && first.height
				? Math.max(1, Math.round((width * first.height) / first.width))
				: 600 + (hash32(`h:${id}`) % 5400);
		const type = AIC_TYPES[r.classification ?? ''];
		const department = DEPARTMENT_OF_CLASS[r.classification ?? ''] ?? null;
		const rgb = parseHex(r.colors[0]?.color ?? '');
		const updated = timestampOf(String(id));
		const names = r.people.map((p) => p.displayname);
		return {
			id,
			api_model: 'artworks',
			api_link: `https://api.artic.edu/api/v1/artworks/${id}`,
			is_boosted: hash32(`boost:${id}`) % 20 === 0,
			title: r.title ?? 'Untitled',
			alt_titles: null,
			thumbnail: hasImage
				? {
						lqip: null,
						width,
						height,
						alt_text: r.medium ? `A work made of ${r.medium.toLowerCase()}.` : null,
					}
				: null,
			main_reference_number: r.objectnumber,
			date_start: r.datebegin,
			date_end: r.dateend,
			date_display: r.dated,
			artist_display: person
				? [person.displayname, [person.culture, person.displaydate].filter(Boolean).join(', ')]
						.filter(Boolean)
						.join('\n')
				: null,
			place_of_origin: r.culture,
			medium_display: r.medium,
			credit_line: r.creditline,
			is_public_domain: pd,
			copyright_notice: pd ? null : `© ${person?.displayname ?? 'the artist'}`,
			color: rgb
				? { ...hslOf(rgb), percentage: r.colors[0].percent, population: 100 + (id % 900) }
				: null,
			artwork_type_title: type?.[0] ?? null,
			artwork_type_id: type?.[1] ?? null,
			department_title: department,
			department_id: department ? AIC_DEPARTMENTS[department] : null,
			artist_id: person?.personid ?? null,
			artist_title: person?.displayname ?? null,
			artist_ids: r.people.map((p) => p.personid),
			artist_titles: names,
			category_titles: department ? [department] : [],
			term_titles: r.period ? [r.period] : [],
			style_title: r.period,
			classification_title: r.classification?.toLowerCase() ?? null,
			classification_titles: r.classification ? [r.classification.toLowerCase()] : [],
			image_id: hasImage ? uuidOf(`image:${id}`) : null,
			alt_image_ids: [],
			updated_at: updated,
			timestamp: updated,
		};
	});
}

// ---------------------------------------------------------------- images

/** Standard JPEG luminance DC table, then an AC table whose only code (length 1) is end-of-block. */
const DHT = Buffer.from(
	'ffc4001f0000010501010101010100000000000000000102030405060708090a0bffc400141001' +
		'0000000000000000000000000000000000',
	'hex',
);

function segment(marker: number, data: Buffer): Buffer {
	const head = Buffer.from([0xff, marker, (data.length + 2) >> 8, (data.length + 2) & 255]);
	return Buffer.concat([head, data]);
}

/**
 * A valid baseline greyscale JPEG of exactly width × height pixels, flat mid-grey, `comment` in a COM segment:
 * every 8×8 block is "DC unchanged, end of block" (3 zero bits), so even 3400 px wide it stays a few tens of KB.
 */
export function flatJpeg(width: number, height: number, comment = ''): Buffer {
	const blocks = Math.ceil(width / 8) * Math.ceil(height / 8);
	const bits = blocks * 3;
	const scan = Buffer.alloc(Math.ceil(bits / 8));
	if (bits % 8) scan[scan.length - 1] = (1 << (8 - (bits % 8))) - 1; // pad the last byte with 1 bits
	return Buffer.concat([
		Buffer.from([0xff, 0xd8]),
		segment(0xe0, Buffer.from('4a46494600010100000100010000', 'hex')),
		comment ? segment(0xfe, Buffer.from(comment, 'utf8')) : Buffer.alloc(0),
		segment(0xdb, Buffer.from([0, ...new Array<number>(64).fill(1)])),
		segment(
			0xc0,
			Buffer.from([8, height >> 8, height & 255, width >> 8, width & 255, 1, 1, 0x11, 0]),
		),
		DHT,
		segment(0xda, Buffer.from([1, 1, 0x00, 0, 63, 0])),
		scan,
		Buffer.from([0xff, 0xd9]),
	]);
}

/** The width and height a JPEG's SOF0 segment declares. */
export function jpegSize(jpeg: Buffer): { width: number; height: number } | undefined {
	for (let i = 2; i + 9 < jpeg.length; ) {
		if (jpeg[i] !== 0xff) return undefined;
		const marker = jpeg[i + 1];
		if (marker === 0xc0)
			return { height: jpeg.readUInt16BE(i + 5), width: jpeg.readUInt16BE(i + 7) };
		i += 2 + jpeg.readUInt16BE(i + 2);
	}
	return undefined;
}

/** The website's own size: what non-public-domain works are limited to. */
export const AIC_WEBSITE_WIDTH = 843;

// ---------------------------------------------------------------- Laravel's answers

const INFO_LICENSE =
	'The `description` field in this response is licensed under a Creative Commons Attribution 4.0 Generic License (CC-By) and the Terms and Conditions of artic.edu. All other data in this response is licensed under a Creative Commons Zero (CC0) 1.0 designation and the Terms and Conditions of artic.edu.';

/** The {status, error, detail} bodies of the API's exception handler. */
export const AIC_ERRORS = {
	notFound: { status: 404, error: 'Not found', detail: 'The item you requested cannot be found.' },
	invalidSyntax: {
		status: 400,
		error: 'Invalid syntax',
		detail: 'The identifier syntax is invalid.',
	},
	invalidLimit: {
		status: 403,
		error: 'Invalid limit',
		detail: 'You have requested too many resources per page. Please set a smaller limit.',
	},
	tooManyIds: {
		status: 403,
		error: 'Invalid number of ids',
		detail: 'You have requested too many resources. Please set a smaller limit.',
	},
	tooManyResults: {
		status: 403,
		error: 'Invalid number of results',
		detail: 'You have requested too many results. Please refine your parameters.',
	},
	methodNotAllowed: {
		status: 405,
		error: 'Method not allowed',
		detail: 'This HTTP method is not allowed.',
	},
	generic: (status: number) => ({
		status,
		error: 'Sorry, something went wrong.',
		detail:
			'An unrecognized exception was thrown. Our developers have been alerted to the situation.',
	}),
} as const;

/** PHP's json_encode as Laravel's JsonResponse calls it: `/` as `\/`, non-ASCII as `\uXXXX`. */
export function laravelJson(value: unknown): string {
	return JSON.stringify(value)
		.replace(/\//g, '\\/')
		.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

const CORS = { 'access-control-allow-origin': '*' };

function laravel(status: number, value: unknown, headers: Record<string, string> = {}): Reply {
	const body = `${laravelJson(value)}\n`;
	return {
		status,
		headers: {
			'content-type': 'application/json',
			...CORS,
			etag: `"${createHash('md5').update(body).digest('hex')}"`,
			...headers,
		},
		body,
	};
}

const aicError = (e: { status: number }, headers?: Record<string, string>) =>
	laravel(e.status, e, headers);

/** What elasticsearch-php 9 makes of an Elasticsearch error: "<status> <reason>: <ES JSON>", passed through as is. */
class EsError extends Error {
	constructor(
		readonly type: string,
		readonly reason: string,
	) {
		super(reason);
	}
	reply(): Reply {
		const cause = { type: this.type, reason: this.reason, line: 1, col: 1 };
		const es = JSON.stringify({ error: { root_cause: [cause], ...cause }, status: 400 });
		return {
			status: 400,
			headers: { 'content-type': 'application/json', ...CORS },
			body: `400 Bad Request: ${es}`,
		};
	}
}

const CHALLENGE_PAGE =
	'<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title><meta http-equiv="Content-Type" content="text/html; charset=UTF-8"></head>' +
	'<body><noscript>Enable JavaScript and cookies to continue</noscript></body></html>';

const challenge = (): Reply => ({
	status: 403,
	headers: {
		'content-type': 'text/html; charset=UTF-8',
		'cf-mitigated': 'challenge',
		'cache-control': 'no-store',
	},
	body: CHALLENGE_PAGE,
});

// ---------------------------------------------------------------- PHP request input

type Input = Record<string, unknown>;
const isObject = (v: unknown): v is Record<string, unknown> =>
	typeof v === 'object' && v !== null && !Array.isArray(v);
const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** Objects keyed 0..n-1 become arrays, as PHP's json_encode hands them to Elasticsearch. */
function arrayify(v: unknown): unknown {
	if (Array.isArray(v)) return v.map(arrayify);
	if (!isObject(v)) return v;
	const keys = Object.keys(v);
	const out: Record<string, unknown> = {};
	for (const k of keys) out[k] = arrayify(v[k]);
	return keys.length && keys.every((k, i) => k === String(i)) ? keys.map((k) => out[k]) : out;
}

/** A query string as PHP parses it: `query[term][is_public_domain]=true` → {query: {term: {is_public_domain: 'true'}}}. */
export function phpQuery(params: URLSearchParams): Input {
	const root: Input = {};
	for (const [rawKey, value] of params) {
		const m = /^([^[\]]+)((?:\[[^\]]*\])*)$/.exec(rawKey);
		const keys = m ? [m[1], ...[...m[2].matchAll(/\[([^\]]*)\]/g)].map((x) => x[1])] : [rawKey];
		let node: Input = root;
		keys.forEach((key, i) => {
			const k = key === '' ? String(Object.keys(node).length) : key;
			if (UNSAFE_KEYS.has(k)) return;
			if (i === keys.length - 1) node[k] = value;
			else {
				if (!isObject(node[k])) node[k] = {};
				node = node[k] as Input;
			}
		});
	}
	return arrayify(root) as Input;
}

/** PHP's (int) cast: leading digits with an optional sign, else 0. */
function phpInt(v: unknown): number {
	if (typeof v === 'number') return Math.trunc(v);
	if (typeof v === 'boolean') return v ? 1 : 0;
	const m = /^\s*([+-]?\d+)/.exec(typeof v === 'string' ? v : '');
	return m ? Number(m[1]) : 0;
}
const phpTruthy = (v: unknown) =>
	!(v === undefined || v === null || v === '' || v === '0' || v === 0 || v === false);

/** PHP's urlencode (RFC 1738: spaces as '+'). */
const phpEncode = (s: string) =>
	encodeURIComponent(s)
		.replace(/[!'()*~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
		.replace(/%20/g, '+');

/** PHP's http_build_query over nested input. */
function httpBuildQuery(input: Input, prefix = ''): string[] {
	const out: string[] = [];
	const entries = Array.isArray(input)
		? input.map((v, i) => [String(i), v] as const)
		: Object.entries(input);
	for (const [k, v] of entries) {
		const key = prefix ? `${prefix}[${k}]` : k;
		if (v === null || v === undefined) continue;
		if (typeof v === 'object') out.push(...httpBuildQuery(v as Input, key));
		else
			out.push(
				`${phpEncode(key)}=${phpEncode(typeof v === 'boolean' ? (v ? '1' : '0') : String(v))}`,
			);
	}
	return out;
}

function fieldList(v: unknown): string[] | undefined {
	if (typeof v === 'string')
		return v
			.split(',')
			.map((f) => f.trim())
			.filter(Boolean);
	if (Array.isArray(v)) return v.map(String);
	return undefined;
}

// ---------------------------------------------------------------- search

/** Fields `q` searches, with the boosts of the museum's transformer. */
const Q_FIELDS: Array<[string, number]> = [
	['title', 1.5],
	['alt_titles', 1],
	['main_reference_number', 5],
	['date_display', 1],
	['artist_display', 1],
	['place_of_origin', 1],
	['medium_display', 1],
	['credit_line', 1],
	['artist_titles', 2.5],
	['category_titles', 1],
	['term_titles', 1],
];
const DEFAULT_SEARCH_FIELDS = [
	'id',
	'api_model',
	'api_link',
	'is_boosted',
	'title',
	'thumbnail',
	'timestamp',
];

const tokens = (s: string) =>
	s
		.normalize('NFKD')
		.replace(/[\u0300-\u036f]/g, '')
		.toLowerCase()
		.split(/[^a-z0-9]+/)
		.filter(Boolean);

function valueAt(a: Doc, field: string): unknown {
	let v: unknown = a;
	for (const part of field.replace(/\.keyword$/, '').split('.'))
		v = isObject(v) ? v[part] : undefined;
	return v;
}
const values = (v: unknown): unknown[] =>
	Array.isArray(v) ? v : v === null || v === undefined ? [] : [v];

function equal(field: unknown, wanted: unknown): boolean {
	if (typeof field === 'boolean') return String(field) === String(wanted).toLowerCase();
	if (typeof field === 'number') return wanted !== '' && Number(wanted) === field;
	return typeof field === 'string' && field === String(wanted);
}

function compare(field: unknown, bound: unknown): number {
	if (typeof field === 'number') return field - Number(bound);
	const [a, b] = [String(field), String(bound)];
	return a < b ? -1 : a > b ? 1 : 0;
}

/** A searched record: an artwork or a category term */
type Doc = Record<string, unknown>;
type Pred = (a: Doc) => boolean;

/** One clause of Elasticsearch's query DSL: exactly one key, as its parser insists. */
function compile(clause: unknown): Pred {
	if (!isObject(clause))
		throw new EsError(
			'parsing_exception',
			'[_na] query malformed, no start_object after query name',
		);
	const keys = Object.keys(clause);
	if (keys.length === 0)
		throw new EsError('parsing_exception', 'query malformed, empty clause found');
	if (keys.length > 1)
		throw new EsError(
			'parsing_exception',
			`[${keys[0]}] malformed query, expected [END_OBJECT] but found [FIELD_NAME]`,
		);
	const type = keys[0];
	const body = clause[type];
	const oneField = (): [string, unknown] => {
		if (!isObject(body))
			throw new EsError(
				'parsing_exception',
				`[${type}] query malformed, no start_object after query name`,
			);
		const fields = Object.keys(body);
		if (fields.length !== 1)
			throw new EsError(
				'parsing_exception',
				`[${type}] query doesn't support multiple fields, found [${fields[0]}] and [${fields[1]}]`,
			);
		return [fields[0], body[fields[0]]];
	};
	switch (type) {
		case 'match_all':
			return () => true;
		case 'term': {
			const [field, raw] = oneField();
			const wanted = isObject(raw) ? raw.value : raw;
			return (a) => values(valueAt(a, field)).some((v) => equal(v, wanted));
		}
		case 'terms': {
			const [field, raw] = oneField();
			const list = values(raw);
			return (a) => values(valueAt(a, field)).some((v) => list.some((w) => equal(v, w)));
		}
		case 'range': {
			const [field, raw] = oneField();
			if (!isObject(raw))
				throw new EsError(
					'parsing_exception',
					`[range] query malformed, no start_object after query name`,
				);
			const ops: Record<string, (c: number) => boolean> = {
				gte: (c) => c >= 0,
				gt: (c) => c > 0,
				lte: (c) => c <= 0,
				lt: (c) => c < 0,
			};
			for (const op of Object.keys(raw))
				if (!ops[op])
					throw new EsError('parsing_exception', `[range] query does not support [${op}]`);
			const bounds = Object.entries(raw);
			return (a) =>
				values(valueAt(a, field)).some((v) =>
					bounds.every(([op, bound]) => {
						const c = compare(v, bound);
						return !Number.isNaN(c) && ops[op](c);
					}),
				);
		}
		case 'exists': {
			const field = isObject(body) ? body.field : undefined;
			if (typeof field !== 'string')
				throw new EsError('parsing_exception', '[exists] must be provided with a [field]');
			return (a) => values(valueAt(a, field)).length > 0;
		}
		case 'match':
		case 'match_phrase': {
			const [field, raw] = oneField();
			const words = tokens(String(isObject(raw) ? raw.query : raw));
			return (a) =>
				values(valueAt(a, field)).some((v) => {
					const have = tokens(String(v));
					return type === 'match'
						? words.some((w) => have.includes(w))
						: ` ${have.join(' ')} `.includes(` ${words.join(' ')} `);
				});
		}
		case 'bool': {
			if (!isObject(body))
				throw new EsError(
					'parsing_exception',
					'[bool] query malformed, no start_object after query name',
				);
			const part = (k: string) => values(body[k]).map(compile);
			const must = [...part('must'), ...part('filter')];
			const not = part('must_not');
			const should = part('should');
			const min =
				body.minimum_should_match !== undefined
					? phpInt(body.minimum_should_match)
					: must.length
						? 0
						: 1;
			for (const k of Object.keys(body))
				if (!['must', 'filter', 'must_not', 'should', 'minimum_should_match', 'boost'].includes(k))
					throw new EsError('parsing_exception', `[bool] query does not support [${k}]`);
			return (a) =>
				must.every((p) => p(a)) &&
				!not.some((p) => p(a)) &&
				(should.length === 0 || should.filter((p) => p(a)).length >= Math.min(min, should.length));
		}
		default:
			throw new EsError('parsing_exception', `unknown query [${type}]`);
	}
}

interface Indexed {
	doc: Doc;
	order: number;
	/** Per searched field: its tokens joined by single spaces, padded for phrase checks. */
	text: Array<[string, number]>;
}

/** `q` as the museum's Request.php builds it: quoted phrases and digit-led tokens must match; other words, any. */
function scoreQuery(q: string): (x: Indexed) => number | undefined {
	const colour = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(q.trim());
	if (colour) {
		const hex = colour[1].length === 3 ? colour[1].replace(/./g, (c) => c + c) : colour[1];
		const target = hslOf(parseHex(hex)!);
		return ({ doc }) => {
			const c = doc.color as { h: number; s: number; l: number } | null | undefined;
			if (!c) return undefined;
			const dh = Math.abs(c.h - target.h) % 360;
			const ok =
				Math.min(dh, 360 - dh) <= 22.5 &&
				Math.abs(c.s - target.s) <= 15 &&
				Math.abs(c.l - target.l) <= 15;
			return ok ? 1 : undefined;
		};
	}
	const phrases: string[] = [];
	const rest = q.replace(/"([^"]*)"/g, (_m, p: string) => {
		if (tokens(p).length) phrases.push(tokens(p).join(' '));
		return ' ';
	});
	const words: string[] = [];
	for (const raw of rest.split(/\s+/).filter(Boolean)) {
		const t = tokens(raw);
		if (!t.length) continue;
		if (/^\d/.test(raw)) phrases.push(t.join(' '));
		else words.push(...t);
	}
	const best = (x: Indexed, needle: string) =>
		x.text.reduce((m, [t, boost]) => (t.includes(` ${needle} `) ? Math.max(m, boost) : m), 0);
	return (x) => {
		let score = 0;
		for (const p of phrases) {
			const s = best(x, p);
			if (!s) return undefined;
			score += s;
		}
		let any = 0;
		for (const w of words) any += best(x, w);
		if (words.length && !any) return undefined;
		return score + any;
	};
}

/** `sort` in its query-string and JSON forms: `id`, [`id`], {date_start: {order: 'desc'}}, [{date_start: 'desc'}]. */
function sortKeys(sort: unknown): Array<[string, 1 | -1]> {
	const out: Array<[string, 1 | -1]> = [];
	for (const s of values(sort)) {
		if (typeof s === 'string')
			for (const f of s.split(',').filter(Boolean)) out.push([f.trim(), 1]);
		else if (isObject(s))
			for (const [f, spec] of Object.entries(s)) {
				const order = isObject(spec) ? spec.order : spec;
				out.push([f, String(order).toLowerCase() === 'desc' ? -1 : 1]);
			}
	}
	return out;
}

function pick(a: Record<string, unknown>, fields: string[] | undefined): Record<string, unknown> {
	if (!fields) return a;
	// the transformer's own field order; names it does not know are dropped
	return Object.fromEntries(
		Object.keys(a)
			.filter((k) => fields.includes(k))
			.map((k) => [k, a[k]]),
	);
}

// ---------------------------------------------------------------- server

export const AIC_LIMIT_MAX = 100;
export const AIC_MAX_RESOURCES_GUEST = 1000;
export const AIC_MAX_RESOURCES_USER = 10000;

export async function startAicServer(options: AicServerOptions = {}): Promise<AicServer> {
	const source = options.artworks ?? loadAicArtworks({ source: 'auto' });
	const tokenSet = new Set(options.tokens ?? []);
	const version = options.version ?? '1.16';
	let apiUrl = '';
	let iiifUrl = '';
	// api_link points at this server, so following it stays on the loopback
	const artworks: AicArtwork[] = [];
	const index: Indexed[] = [];
	const byId = new Map<number, AicArtwork>();
	const images = new Map<string, AicArtwork>();
	let hits: number[] = []; // times of the requests the throttle counted

	const server = await createTestServer<AicMode>({
		requireKey: false,
		modeDefaults: { challenge: 'off', throttlePerMinute: 0 },
		onReset: () => void (hits = []),
		async handle({ req, url, recorded, mode, baseUrl }) {
			const method = req.method ?? 'GET';
			const isImage = url.pathname.startsWith('/iiif/');
			if (mode.challenge === 'all' || (isImage && mode.challenge === 'images')) return challenge();
			if (isImage) return iiif(method, url.pathname);

			// RedirectTrailingSlash: the request URI (query included) ending in '/'
			const uri = (req.url ?? '/').replace(/\/+$/, '');
			if ((req.url ?? '/') !== uri && uri !== '')
				return { status: 301, headers: { location: `${baseUrl}${uri}`, ...CORS }, body: '' };

			const signedIn = tokenSet.has(
				/^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1]?.trim() ?? '',
			);
			if (mode.throttlePerMinute > 0 && !signedIn) {
				const now = Date.now();
				hits = hits.filter((t) => t > now - 60_000);
				const limit = mode.throttlePerMinute;
				if (hits.length >= limit) {
					const retry = Math.max(1, Math.ceil((hits[0] + 60_000 - now) / 1000));
					return aicError(AIC_ERRORS.generic(429), {
						'retry-after': String(retry),
						'x-ratelimit-limit': String(limit),
						'x-ratelimit-remaining': '0',
						'x-ratelimit-reset': String(Math.ceil(now / 1000) + retry),
					});
				}
				hits.push(now);
			}

			const route = url.pathname.replace(/\/+$/, '');
			const m = /^\/api\/v1\/artworks(?:\/([^/]+))?$/.exec(route);
			const terms = /^\/api\/v1\/(artwork-types|departments)$/.exec(route)?.[1];
			const termSearch = route === '/api/v1/category-terms/search';
			if (!m && !terms && !termSearch) return aicError(AIC_ERRORS.generic(404));
			const search = m?.[1] === 'search';
			if (method !== 'GET' && method !== 'HEAD' && method !== 'POST')
				return aicError(AIC_ERRORS.methodNotAllowed);

			// Laravel's input: query string, then a JSON body over it, then DecodeParams' `params` over both
			let input: Input = phpQuery(url.searchParams);
			if (isObject(recorded.json)) input = { ...input, ...(arrayify(recorded.json) as Input) };
			if (typeof input.params === 'string') {
				try {
					const decoded: unknown = JSON.parse(input.params);
					if (isObject(decoded)) input = { ...input, ...(arrayify(decoded) as Input) };
				} catch {
					// not JSON: left as it is
				}
			}

			let reply: Reply;
			if (terms) reply = listing(terms, [...lists[terms]].sort(byLastMod), input, signedIn);
			else if (termSearch) reply = searchIn(termIndex, input, signedIn);
			else if (search) reply = searchIn(index, input, signedIn);
			else if (m?.[1] !== undefined) reply = showArtwork(m[1], input);
			else reply = listArtworks(input, signedIn);
			const etag = reply.headers?.etag;
			if (reply.status === 200 && etag && req.headers['if-none-match'] === etag)
				return { status: 304, headers: { etag, ...CORS }, body: '' };
			return reply;
		},
	});
	apiUrl = `${server.url}/api/v1`;
	iiifUrl = options.iiifUrl?.replace(/\/+$/, '') ?? `${server.url}/iiif/2`;
	const linked = (resource: string, terms: AicTerm[]) =>
		terms.map((t) => ({ ...t, api_link: `${apiUrl}/${resource}/${t.id}` }));
	const lists: Record<string, AicTerm[]> = {
		'artwork-types': linked('artwork-types', options.artworkTypes ?? AIC_ARTWORK_TYPES),
		departments: linked('category-terms', options.departments ?? AIC_DEPARTMENT_TERMS),
	};
	const termIndex: Indexed[] = [
		...lists.departments,
		...linked('category-terms', options.styles ?? AIC_STYLE_TERMS),
	].map((doc, order) => ({ doc, order, text: [[` ${tokens(doc.title).join(' ')} `, 1]] }));
	for (const [order, a] of source.entries()) {
		const artwork = { ...a, api_link: `${apiUrl}/artworks/${a.id}` } as AicArtwork;
		artworks.push(artwork);
		byId.set(artwork.id, artwork);
		for (const id of [artwork.image_id, ...values(artwork.alt_image_ids)])
			if (typeof id === 'string') images.set(id, artwork);
		index.push({
			doc: artwork,
			order,
			text: Q_FIELDS.map(([f, boost]) => [
				` ${values(artwork[f])
					.map((v) => tokens(String(v)).join(' '))
					.join(' | ')} `,
				boost,
			]),
		});
	}

	const envelope = () => ({
		info: {
			license_text: INFO_LICENSE,
			license_links: [
				'https://creativecommons.org/publicdomain/zero/1.0/',
				'https://www.artic.edu/terms',
			],
			version,
		},
		config: { iiif_url: iiifUrl, website_url: 'http://www.artic.edu' },
	});

	/** A search (Search/Request.php, Response.php) of artworks or of category terms. */
	function searchIn(docs: Indexed[], input: Input, signedIn: boolean): Reply {
		// Search/Request.php::getPaginationParams
		const size = phpInt(input.size ?? input.limit ?? 10);
		let from: number | undefined =
			input.from !== undefined && input.from !== null ? phpInt(input.from) : undefined;
		if (!from && input.page !== undefined && phpInt(input.page) > 0)
			from = (phpInt(input.page) - 1) * size;
		if (!signedIn && size > AIC_LIMIT_MAX) return aicError(AIC_ERRORS.invalidLimit);
		if (from !== undefined) {
			const max = signedIn ? AIC_MAX_RESOURCES_USER : AIC_MAX_RESOURCES_GUEST;
			if (from + size > max) return aicError(AIC_ERRORS.tooManyResults);
		}
		try {
			if (size < 0)
				throw new EsError(
					'illegal_argument_exception',
					`[size] parameter cannot be negative, found [${size}]`,
				);
			if ((from ?? 0) < 0)
				throw new EsError(
					'illegal_argument_exception',
					`[from] parameter cannot be negative, found [${from}]`,
				);
			const filter = input.query !== undefined ? compile(input.query) : () => true;
			const q = typeof input.q === 'string' && input.q.trim() ? scoreQuery(input.q) : undefined;
			const sort = sortKeys(input.sort);
			let found = docs
				.filter((x) => filter(x.doc))
				.map((x) => ({ x, score: q ? q(x) : x.doc.is_boosted ? 2 : 1 }))
				.filter((h): h is { x: Indexed; score: number } => h.score !== undefined);
			if (sort.length) {
				found.sort((a, b) => {
					for (const [field, dir] of sort) {
						const [va, vb] = [valueAt(a.x.doc, field), valueAt(b.x.doc, field)];
						const [na, nb] = [va === null || va === undefined, vb === null || vb === undefined];
						if (na || nb) {
							if (na !== nb) return na ? 1 : -1; // missing values last
							continue;
						}
						const c = compare(va, vb);
						if (c) return c * dir;
					}
					return a.x.order - b.x.order;
				});
			} else
				found.sort(
					(a, b) =>
						b.score - a.score ||
						Number(!!b.x.doc.is_boosted) - Number(!!a.x.doc.is_boosted) ||
						a.x.order - b.x.order,
				);
			const total = found.length;
			const offset = from ?? 0;
			found = found.slice(offset, offset + size);
			const fields = fieldList(input.fields) ?? DEFAULT_SEARCH_FIELDS;
			const score = (s: number) => (sort.length ? null : Math.round(s * 1e6) / 1e6);
			const { info, config } = envelope();
			return laravel(200, {
				preference: typeof input.preference === 'string' ? input.preference : null,
				pagination: {
					total,
					limit: size,
					offset,
					total_pages: size > 0 ? Math.ceil(total / size) : null,
					current_page: size > 0 ? Math.floor(offset / size) + 1 : null,
				},
				data: found.map((h) => ({ _score: score(h.score), ...pick(h.x.doc, fields) })),
				info,
				config,
			});
		} catch (err) {
			if (err instanceof EsError) return err.reply();
			throw err;
		}
	}

	const validId = (id: unknown) => /^\d+$/.test(String(id).trim()) && Number(id) > 0;
	const byLastMod = (a: Record<string, unknown>, b: Record<string, unknown>) =>
		String(b.updated_at ?? '').localeCompare(String(a.updated_at ?? '')) || compare(b.id, a.id);

	function showArtwork(id: string, input: Input): Reply {
		if (!validId(id)) return aicError(AIC_ERRORS.invalidSyntax);
		const artwork = byId.get(Number(id));
		if (!artwork) return aicError(AIC_ERRORS.notFound);
		return laravel(200, { data: pick(artwork, fieldList(input.fields)), ...envelope() });
	}

	function listArtworks(input: Input, signedIn: boolean): Reply {
		const fields = fieldList(input.fields);
		if (phpTruthy(input.ids)) {
			const ids = fieldList(input.ids) ?? [];
			if (!signedIn && ids.length > AIC_LIMIT_MAX) return aicError(AIC_ERRORS.tooManyIds);
			if (!ids.every(validId)) return aicError(AIC_ERRORS.invalidSyntax);
			const found = [...new Set(ids.map(Number))]
				.map((id) => byId.get(id))
				.filter((a): a is AicArtwork => !!a)
				.sort(byLastMod);
			return laravel(200, { data: found.map((a) => pick(a, fields)), ...envelope() });
		}
		return listing('artworks', [...artworks].sort(byLastMod), input, signedIn);
	}

	/** A database listing (BaseController::collect): `limit` default 12, `page`, links carrying every other parameter. */
	function listing(
		resource: string,
		all: Array<Record<string, unknown>>,
		input: Input,
		signedIn: boolean,
	): Reply {
		const limitIn = phpTruthy(input.limit) ? phpInt(input.limit) : 12;
		if (!signedIn && limitIn > AIC_LIMIT_MAX) return aicError(AIC_ERRORS.invalidLimit);
		const limit = limitIn > 0 ? limitIn : 12;
		const pageIn = phpInt(input.page);
		const page = /^\s*\d+\s*$/.test(String(input.page ?? '')) && pageIn >= 1 ? pageIn : 1;
		const total = all.length;
		const lastPage = Math.max(Math.ceil(total / limit), 1);
		const rest = Object.fromEntries(Object.entries(input).filter(([k]) => k !== 'page'));
		const others = httpBuildQuery(rest).join('&');
		const link = (p: number) => `${apiUrl}/${resource}?page=${p}${others ? `&${others}` : ''}`;
		const { info, config } = envelope();
		return laravel(200, {
			pagination: {
				total,
				limit,
				offset: limit * (page - 1),
				total_pages: lastPage,
				current_page: page,
				...(page > 1 ? { prev_url: link(page - 1) } : {}),
				...(page < lastPage ? { next_url: link(page + 1) } : {}),
			},
			data: all
				.slice((page - 1) * limit, page * limit)
				.map((a) => pick(a, fieldList(input.fields))),
			info,
			config,
		});
	}

	/** IIIF Image API 2: /iiif/2/{id}/{region}/{size}/{rotation}/{quality}.{format}, as far as clients use it. */
	function iiif(method: string, pathname: string): Reply {
		const plain = (status: number, body: string) => ({
			...text(status, body),
			headers: { ...text(status, body).headers, ...CORS },
		});
		if (method !== 'GET' && method !== 'HEAD') return plain(405, 'Method Not Allowed');
		const m = /^\/iiif\/2\/([^/]+)\/([^/]+)\/([^/]+)\/([^/]+)\/([^/.]+)\.([a-z]+)$/.exec(pathname);
		if (!m) return plain(404, 'Not Found');
		const [, id, region, size, rotation, quality, format] = m;
		const artwork = images.get(id);
		if (!artwork) return plain(404, 'Not Found');
		if (region !== 'full' || rotation !== '0' || quality !== 'default' || format !== 'jpg')
			return plain(
				400,
				`This stand-in serves full/{size}/0/default.jpg only, not ${region}/${size}/${rotation}/${quality}.${format}`,
			);
		const master = artwork.thumbnail;
		const [mw, mh] = master
			? [master.width, master.height]
			: [AIC_WEBSITE_WIDTH, AIC_WEBSITE_WIDTH];
		const cap = artwork.is_public_domain ? mw : Math.min(mw, AIC_WEBSITE_WIDTH);
		let width: number;
		const exact = /^(\d+),$/.exec(size);
		const fit = /^!(\d+),(\d+)$/.exec(size);
		if (exact) {
			width = Number(exact[1]);
			if (width < 1) return plain(400, 'Width must be at least 1 pixel');
			if (width > cap) return plain(403, 'Forbidden');
		} else if (fit) {
			const scale = Math.min(Number(fit[1]) / mw, Number(fit[2]) / mh, 1, cap / mw);
			width = Math.max(1, Math.round(mw * scale));
		} else return plain(400, `Unsupported size: ${size}`);
		const height = Math.max(1, Math.round((width * mh) / mw));
		return {
			status: 200,
			headers: { 'content-type': 'image/jpeg', 'cache-control': 'public, max-age=86400', ...CORS },
			body: flatJpeg(width, height, `${id}@${width}`),
		};
	}

	const secretIn = (r: RecordedRequest, secret: string) => {
		const forms = [secret, encodeURIComponent(secret), phpEncode(secret)];
		const hay = [r.path, JSON.stringify(r.query), JSON.stringify(r.headers), r.body].join('\n');
		return forms.some((f) => hay.includes(f));
	};
	return withGetters(server, apiUrl, iiifUrl, artworks, secretIn);
}

function withGetters(
	server: TestServer<AicMode>,
	apiUrl: string,
	iiifUrl: string,
	artworks: AicArtwork[],
	secretIn: (r: RecordedRequest, secret: string) => boolean,
): AicServer {
	return Object.defineProperties(server, {
		apiUrl: { value: apiUrl, enumerable: true },
		iiifUrl: { value: iiifUrl, enumerable: true },
		artworks: { value: artworks, enumerable: true },
		imageRequests: {
			get: () => server.requests.filter((r) => r.path.startsWith('/iiif/')),
			enumerable: true,
		},
		apiRequests: {
			get: () => server.requests.filter((r) => !r.path.startsWith('/iiif/')),
			enumerable: true,
		},
		keySeen: {
			value: (secret: string) => server.requests.some((r) => secretIn(r, secret)),
			enumerable: true,
		},
	}) as AicServer;
}
