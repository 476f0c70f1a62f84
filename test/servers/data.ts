/** Test data: the real open data of ../shared/data when present, else test/fixtures; a generator. */
import * as fs from 'fs';
import * as path from 'path';
import * as zlib from 'zlib';

export const SHARED_DATA_DIR = process.env.TRIPTYCH_SHARED_DATA
	? path.resolve(process.env.TRIPTYCH_SHARED_DATA)
	: path.resolve(__dirname, '../../../shared/data');
export const FIXTURES_DIR = path.resolve(__dirname, '../fixtures');

const SHARED_FILES = {
	tate: 'tate/artworks.jsonl.gz',
	cmoa: 'cmoa/cmoa.jsonl.gz',
	tags: 'quotable/tags.json',
	quotes: 'quotable/quotes.json',
};
const shared = (key: keyof typeof SHARED_FILES) => path.join(SHARED_DATA_DIR, SHARED_FILES[key]);

/** True when the real open data (Tate, CMOA, Quotable) is available. */
export function hasSharedData(): boolean {
	return Object.values(SHARED_FILES).every((file) =>
		fs.existsSync(path.join(SHARED_DATA_DIR, file)),
	);
}

type Of<T, K extends string> = { [key in K]: T };
type Text = string | null;
export type MuseumColor = { color: string; percent: number; hue: string };
type Person = Of<number, 'personid' | 'displayorder'> &
	Of<string, 'name' | 'displayname' | 'role'> &
	Partial<Of<Text, 'culture' | 'displaydate' | 'gender'>>;
type Image = Of<number, 'imageid' | 'displayorder'> &
	Of<number | null, 'width' | 'height'> & { baseimageurl: Text; format: string };
type RecordInput = Of<
	Text,
	| 'title'
	| 'dated'
	| 'period'
	| 'culture'
	| 'classification'
	| 'medium'
	| 'dimensions'
	| 'creditline'
	| 'department'
	| 'url'
> &
	Of<number | null, 'datebegin' | 'dateend' | 'accessionyear'> & {
		objectid: number;
		objectnumber: string;
		people: Person[];
		images: Image[];
		source: 'tate' | 'cmoa' | 'fixture' | 'generated';
	};
/** Harvard-style /object record (a subset of Harvard's fields plus `source`, maybe more). Treat as read-only. */
export type MuseumRecord = ReturnType<typeof baseRecord>;

export interface QuoteTag {
	_id: string;
	name: string;
	slug: string;
	quoteCount: number;
	dateAdded: string;
	dateModified: string;
}

// ---------------------------------------------------------------- deterministic helpers

// Module-local aliases: looking up the global `Math` inside jest's vm context is ~100x slower in hot loops.
const { imul, floor, round, max: mathMax, min: mathMin, abs } = Math;

/** FNV-1a 32-bit hash. */
export function hash32(s: string): number {
	let h = 0x811c9dc5;
	for (let i = 0; i < s.length; i++) h = imul(h ^ s.charCodeAt(i), 0x01000193);
	return h >>> 0;
}

/** mulberry32 PRNG: deterministic floats in [0, 1). */
export function rng(seed: number): () => number {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = imul(t ^ (t >>> 15), t | 1);
		t ^= t + imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

const HEX2 = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
export const hex = (r: number, g: number, b: number) =>
	`#${HEX2[r & 255]}${HEX2[g & 255]}${HEX2[b & 255]}`;
export const parseHex = (h: string): [number, number, number] | undefined => {
	const m = /^#?([0-9a-f]{6})$/i.exec(h.trim());
	if (!m) return undefined;
	const n = parseInt(m[1], 16);
	return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
};

/** One of Harvard's 10 hue names for an RGB colour. */
export function hueName(r: number, g: number, b: number): string {
	const max = mathMax(r, g, b) / 255;
	const min = mathMin(r, g, b) / 255;
	const l = (max + min) / 2;
	const s = max === min ? 0 : (max - min) / (1 - abs(2 * l - 1));
	if (l < 0.12) return 'Black';
	if (l > 0.9) return 'White';
	if (s < 0.15) return 'Grey';
	const d = max - min;
	const [R, G, B] = [r / 255, g / 255, b / 255];
	let h = max === R ? ((G - B) / d) % 6 : max === G ? (B - R) / d + 2 : (R - G) / d + 4;
	h = (h * 60 + 360) % 360;
	if (h < 15 || h >= 345) return 'Red';
	if (h < 45) return l < 0.45 ? 'Brown' : 'Orange';
	if (h < 70) return 'Yellow';
	if (h < 170) return 'Green';
	if (h < 260) return 'Blue';
	return 'Violet';
}

/** Deterministic Harvard-like palette of 1-3 colours, channels quantised to multiples of 25. */
export function synthesizeColors(objectid: number): MuseumColor[] {
	// Plain loops, no Array.from/Set/map: this runs for every record at load time.
	const rand = rng(hash32(`colors:${objectid}`));
	const weights: number[] = [];
	for (let i = 1 + floor(rand() * 3); i > 0; i--) weights.push(0.2 + rand());
	weights.sort((a, b) => b - a);
	let total = 0;
	for (const w of weights) total += w;
	total /= 0.6 + rand() * 0.4;
	const out: MuseumColor[] = [];
	for (const w of weights) {
		const r = floor(rand() * 11) * 25;
		const g = floor(rand() * 11) * 25;
		const b = floor(rand() * 11) * 25;
		const color = hex(r, g, b);
		if (out.some((c) => c.color === color)) continue;
		out.push({ color, percent: round((w / total) * 10000) / 10000, hue: hueName(r, g, b) });
	}
	return out;
}

/** The image-host file extension used for an object's images (alternates by id parity). */
export const imageExtension = (objectid: number): 'jpg' | 'png' =>
	objectid % 2 === 0 ? 'jpg' : 'png';

function ordinal(n: number): string {
	const s = n % 100 >= 11 && n % 100 <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
	return `${n}${s}`;
}

/** Harvard-style century label from a year: 1870 -> "19th century", -430 -> "5th century BCE". */
export function centuryOf(year: number | null): string | null {
	if (year === null) return null;
	return year > 0
		? `${ordinal(floor((year - 1) / 100) + 1)} century`
		: `${ordinal(floor(-year / 100) + 1)} century BCE`;
}

const toInt = (v: unknown): number | null => {
	const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() ? Number(v) : NaN;
	return Number.isFinite(n) ? Math.trunc(n) : null;
};
const yearOfIso = (s: string | null | undefined): number | null => {
	const m = /^(-?\d+)-/.exec(s ?? '');
	return m ? Number(m[1]) : null;
};
const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** Completes a record with its derived fields. One fixed-shape literal: spreading 97k records was the slowest part of loading. */
function baseRecord(r: RecordInput, extra?: Record<string, unknown>) {
	const colors = synthesizeColors(r.objectid);
	const record = {
		objectid: r.objectid,
		id: r.objectid,
		objectnumber: r.objectnumber,
		title: r.title,
		people: r.people,
		peoplecount: r.people.length,
		dated: r.dated,
		datebegin: r.datebegin,
		dateend: r.dateend,
		century: centuryOf(r.datebegin),
		period: r.period,
		culture: r.culture,
		classification: r.classification,
		medium: r.medium,
		dimensions: r.dimensions,
		creditline: r.creditline,
		department: r.department,
		url: r.url,
		primaryimageurl: null as Text,
		images: r.images,
		imagecount: r.images.length,
		colors,
		colorcount: colors.length,
		totalpageviews: hash32(`views:${r.objectid}`) % 5000,
		accessionyear: r.accessionyear,
		source: r.source,
	};
	return Object.assign(record, extra) as typeof record & Record<string, unknown>;
}

function images(objectid: number, sizes: Array<[number | null, number | null]>): Image[] {
	const format = imageExtension(objectid) === 'jpg' ? 'image/jpeg' : 'image/png';
	return sizes.map(([width, height], i) => ({
		imageid: objectid * 10 + i,
		baseimageurl: null,
		width,
		height,
		format,
		displayorder: i + 1,
	}));
}

// ---------------------------------------------------------------- Tate

interface TateRaw {
	id: number;
	acno: string;
	title: string;
	contributors?: Array<{
		id: number;
		fc: string;
		role: string;
		displayOrder: number;
		date?: string | null;
		gender?: string | null;
	}>;
	dateText?: string | null;
	dateRange?: { startYear?: number | string; endYear?: number | string } | null;
	movements?: Array<{ name: string }>;
	classification?: string | null;
	medium?: string | null;
	dimensions?: string | null;
	creditLine?: string | null;
	acquisitionYear?: number | null;
	url?: string | null;
	thumbnailUrl?: string | null;
	width?: string;
	height?: string;
	additionalImages?: Array<{ sizes?: Array<{ size: string; width: number; height: number }> }>;
}

const TATE_CLASSIFICATION: Record<string, string> = {
	painting: 'Paintings',
	'on paper, print': 'Prints',
	'on paper, unique': 'Drawings',
	sculpture: 'Sculpture',
	relief: 'Sculpture',
	installation: 'Installations',
	'block for printing': 'Printing Blocks',
};
const TATE_ROLE: Record<string, string> = { artist: 'Artist', after: 'Artist after' };

export function mapTateRecord(r: TateRaw): MuseumRecord {
	const begin = toInt(r.dateRange?.startYear) ?? toInt(/\b(\d{4})\b/.exec(r.dateText ?? '')?.[1]);
	// Tate's width/height fields are swapped against the dimensions text; the thumbnail is 256 px on its long side.
	const [w, h] = [toInt(r.height), toInt(r.width)];
	const thumb: [number, number] =
		w && h ? (w >= h ? [256, round((256 * h) / w)] : [round((256 * w) / h), 256]) : [256, 256];
	const extra = (r.additionalImages ?? []).map((a): [number | null, number | null] => {
		const s = a.sizes?.find((x) => x.size === 'large') ?? a.sizes?.[a.sizes.length - 1];
		return [s?.width ?? null, s?.height ?? null];
	});
	return baseRecord({
		objectid: r.id,
		objectnumber: r.acno,
		title: r.title ?? null,
		people: [...(r.contributors ?? [])]
			.sort((a, b) => a.displayOrder - b.displayOrder)
			.map((c) => ({
				personid: c.id,
				name: c.fc,
				displayname: c.fc,
				role: TATE_ROLE[c.role] ?? capitalise(c.role),
				displayorder: c.displayOrder,
				displaydate: c.date ? c.date.replace(/\s*[–-]\s*/, ' - ') : null, // Harvard style "1833 - 1898"
				gender: c.gender ?? null,
			})),
		dated: r.dateText ?? null,
		datebegin: begin,
		dateend: toInt(r.dateRange?.endYear) ?? begin,
		period: r.movements?.[0]?.name ?? null,
		culture: null,
		classification: r.classification
			? (TATE_CLASSIFICATION[r.classification] ?? capitalise(r.classification))
			: null,
		medium: r.medium ?? null,
		dimensions: r.dimensions ?? null,
		creditline: r.creditLine ?? null,
		department: 'Tate',
		url: r.url ?? null,
		images: images(r.id, r.thumbnailUrl ? [thumb, ...extra] : []),
		accessionyear: r.acquisitionYear ?? null,
		source: 'tate',
	});
}

// ---------------------------------------------------------------- CMOA

interface CmoaRaw {
	id: string;
	title?: string | null;
	accession_number: string;
	creation_date?: string | null;
	creation_date_earliest?: string | null;
	creation_date_latest?: string | null;
	medium?: string | null;
	credit_line?: string | null;
	date_acquired?: string | null;
	department?: string | null;
	web_url?: string | null;
	classification?: string | null;
	item_width?: number | null;
	item_height?: number | null;
	item_depth?: number | null;
	item_diameter?: number | null;
	images?: Array<{ image_url?: string }> | null;
	creator?: Array<{
		artist_id?: string | null;
		full_name?: string | null;
		role?: string | null;
		nationality?: string | null;
		birth_date?: string | null;
		death_date?: string | null;
	}> | null;
}

/** CMOA object ids are GUIDs: they get 10_000_000 + file index; people get 20_000_000 + first-seen index. */
export const CMOA_OBJECT_ID_BASE = 10_000_000;
export const CMOA_PERSON_ID_BASE = 20_000_000;

const CMOA_CLASSIFICATION: Record<string, string> = {
	prints: 'Prints',
	'drawings and watercolors': 'Drawings',
	photographs: 'Photographs',
	'photographic negative': 'Photographs',
	paintings: 'Paintings',
	sculpture: 'Sculpture',
	installations: 'Installations',
	'printing blocks': 'Printing Blocks',
};

function cmoaDimensions(r: CmoaRaw): string | null {
	const parts = [r.item_height, r.item_width, r.item_depth].filter(
		(v): v is number => !!v && v > 0,
	);
	const fmt = (xs: number[], unit: string, k: number) =>
		xs.map((x) => round(x * k * 10) / 10).join(' x ') + ` ${unit}`;
	if (parts.length) return `${fmt(parts, 'in.', 1)} (${fmt(parts, 'cm', 2.54)})`;
	return r.item_diameter && r.item_diameter > 0
		? `diam. ${fmt([r.item_diameter], 'in.', 1)} (${fmt([r.item_diameter], 'cm', 2.54)})`
		: null;
}

export function mapCmoaRecord(
	r: CmoaRaw,
	index: number,
	personIds: Map<string, number> = new Map(),
): MuseumRecord {
	const objectid = CMOA_OBJECT_ID_BASE + index;
	const creators = r.creator ?? [];
	const begin = yearOfIso(r.creation_date_earliest) ?? yearOfIso(r.creation_date_latest);
	const nationality = creators[0]?.nationality;
	return baseRecord(
		{
			objectid,
			objectnumber: r.accession_number,
			title: r.title ?? null,
			people: creators.map((c, i) => {
				const key = c.artist_id ?? `${c.full_name}`;
				if (!personIds.has(key)) personIds.set(key, CMOA_PERSON_ID_BASE + personIds.size);
				const [born, died] = [yearOfIso(c.birth_date), yearOfIso(c.death_date)];
				const name = c.full_name ?? 'unknown';
				return {
					personid: personIds.get(key) as number,
					name,
					displayname: name,
					role: c.role ? capitalise(c.role) : 'Artist',
					displayorder: i + 1,
					culture: c.nationality ?? null,
					displaydate:
						born !== null || died !== null ? `${born ?? ''} - ${died ?? ''}`.trim() : null,
				};
			}),
			dated: r.creation_date ?? null,
			datebegin: begin,
			dateend: yearOfIso(r.creation_date_latest) ?? begin,
			period: null,
			culture: nationality && !/^(undetermined|unknown)$/i.test(nationality) ? nationality : null,
			classification: r.classification
				? (CMOA_CLASSIFICATION[r.classification.toLowerCase()] ??
					capitalise(r.classification.toLowerCase()))
				: null,
			medium: r.medium ?? null,
			dimensions: cmoaDimensions(r),
			creditline: r.credit_line ?? null,
			department: r.department ?? null,
			url: r.web_url ?? null,
			images: images(
				objectid,
				(r.images ?? []).map(() => [null, null]),
			),
			accessionyear: yearOfIso(r.date_acquired),
			source: 'cmoa',
		},
		{ guid: r.id },
	);
}

// ---------------------------------------------------------------- loaders (lazy, cached)

const jsonlCache = new Map<string, { records: MuseumRecord[]; complete: boolean }>();

/**
 * Map up to `max` lines of a gzipped JSONL file; caches what was mapped (re-reads only when more is needed).
 * `skip` = [key, nextKey]: cut `"key":...` up to `,"nextKey":` out of each line before parsing (Tate's unused
 * `subjects` trees are 30% of the bytes); a line that does not parse after the cut is parsed whole.
 */
function loadJsonl(
	file: string,
	max: number,
	makeMapper: () => (raw: unknown, index: number) => MuseumRecord,
	skip?: [string, string],
): MuseumRecord[] {
	let entry = jsonlCache.get(file);
	if (!entry || (!entry.complete && entry.records.length < max)) {
		const buf = zlib.gunzipSync(fs.readFileSync(file));
		const [from, to] = skip ? [Buffer.from(`,"${skip[0]}":`), Buffer.from(`,"${skip[1]}":`)] : [];
		const parse = (start: number, end: number): unknown => {
			const i = from ? buf.indexOf(from, start) : -1;
			const j = to && i >= 0 && i < end ? buf.indexOf(to, i) : -1;
			if (j >= 0 && j < end) {
				try {
					return JSON.parse(buf.toString('utf8', start, i) + buf.toString('utf8', j, end));
				} catch {
					// fall through to the whole line
				}
			}
			return JSON.parse(buf.toString('utf8', start, end));
		};
		const map = makeMapper();
		const records: MuseumRecord[] = [];
		let start = 0;
		while (records.length < max && start < buf.length) {
			let end = buf.indexOf(10, start);
			if (end < 0) end = buf.length;
			if (end - start > 1) records.push(map(parse(start, end), records.length));
			start = end + 1;
		}
		entry = { records, complete: start >= buf.length };
		jsonlCache.set(file, entry);
	}
	return entry.records.slice(0, max);
}

export interface LoadMuseumOptions {
	/** 'real' = Tate then CMOA from SHARED_DATA_DIR (throws if absent); 'fixture' = test/fixtures/museum-records.json; 'auto' = real when present. */
	source: 'real' | 'fixture' | 'auto';
	/** Upper bound on the number of records (Tate first, then CMOA). */
	max?: number;
	/** Which real collections to include (default both). */
	collections?: Array<'tate' | 'cmoa'>;
}

/** Museum records (a fresh array; the records themselves are shared, do not mutate them). */
export function loadMuseumRecords(options: LoadMuseumOptions): MuseumRecord[] {
	const max = options.max ?? Infinity;
	const source =
		options.source === 'auto' ? (hasSharedData() ? 'real' : 'fixture') : options.source;
	if (source === 'fixture') return readFixture<MuseumRecord[]>('museum-records.json').slice(0, max);
	if (!hasSharedData())
		throw new Error(`shared data not found in ${SHARED_DATA_DIR} (set TRIPTYCH_SHARED_DATA)`);
	const out: MuseumRecord[] = [];
	for (const c of options.collections ?? ['tate', 'cmoa']) {
		const left = max - out.length;
		if (left <= 0) break;
		const recs =
			c === 'tate'
				? loadJsonl(shared('tate'), left, () => (raw) => mapTateRecord(raw as TateRaw), [
						'subjects',
						'thumbnailCopyright',
					])
				: loadJsonl(shared('cmoa'), left, () => {
						const personIds = new Map<string, number>();
						return (raw, i) => mapCmoaRecord(raw as CmoaRaw, i, personIds);
					});
		for (const r of recs) out.push(r);
	}
	return out;
}

const fixtureCache = new Map<string, unknown>();
function readFixture<T>(name: string): T {
	if (!fixtureCache.has(name))
		fixtureCache.set(name, JSON.parse(fs.readFileSync(path.join(FIXTURES_DIR, name), 'utf8')));
	return fixtureCache.get(name) as T;
}

/** Lower-case words joined by single spaces ("famous-quotes", "Famous Quotes", "famousQuotes" -> "famous quotes"). */
export function normaliseTagText(s: string): string {
	return s
		.replace(/([a-z0-9])([A-Z])/g, '$1 $2')
		.normalize('NFKD')
		.replace(/[\u0300-\u036f]/g, '')
		.toLowerCase()
		.replace(/[^a-z0-9]+/g, ' ')
		.trim();
}

let realTags: QuoteTag[] | undefined;

/** Quotable tags `{_id, name, slug, quoteCount, dateAdded, dateModified}`: real data when present (or forced), else the fixture. */
export function loadQuoteTags(source: 'auto' | 'real' | 'fixture' = 'auto'): QuoteTag[] {
	const useReal = source === 'real' || (source === 'auto' && hasSharedData());
	if (!useReal) return readFixture<QuoteTag[]>('quote-tags.json').map((t) => ({ ...t }));
	if (!realTags) {
		if (!hasSharedData())
			throw new Error(`shared data not found in ${SHARED_DATA_DIR} (set TRIPTYCH_SHARED_DATA)`);
		const tags = JSON.parse(fs.readFileSync(shared('tags'), 'utf8')) as Array<{
			_id: string;
			name: string;
		}>;
		const quotes = JSON.parse(fs.readFileSync(shared('quotes'), 'utf8')) as Array<{
			tags?: string[];
		}>;
		const counts = new Map<string, number>();
		for (const q of quotes)
			for (const t of new Set(q.tags ?? [])) counts.set(t, (counts.get(t) ?? 0) + 1);
		// tags.json has no dates: synthesise a stable dateAdded between 2019-07-23 and 2023-04-14 (the data's range).
		const from = Date.UTC(2019, 6, 23);
		const span = Date.UTC(2023, 3, 14) - from;
		realTags = tags.map((t) => ({
			_id: t._id,
			name: t.name,
			slug: normaliseTagText(t.name).replace(/ /g, '-'), // Quotable's slugs: "Self Help" -> "self-help"
			quoteCount: counts.get(t.name) ?? 0,
			dateAdded: new Date(from + (hash32(t._id) % (span / 86_400_000)) * 86_400_000)
				.toISOString()
				.slice(0, 10),
			dateModified: '2023-04-14',
		}));
	}
	return realTags.map((t) => ({ ...t }));
}

// ---------------------------------------------------------------- generated records

const GEN_ARTISTS: Array<[string, string, number, number]> = [
	['Katsushika Hokusai', 'Japanese', 1760, 1849],
	['Utagawa Hiroshige', 'Japanese', 1797, 1858],
	['Rembrandt Harmensz. van Rijn', 'Dutch', 1606, 1669],
	['Albrecht Dürer', 'German', 1471, 1528],
	['Käthe Kollwitz', 'German', 1867, 1945],
	['Joseph Mallord William Turner', 'British', 1775, 1851],
	['Mary Cassatt', 'American', 1844, 1926],
	['Winslow Homer', 'American', 1836, 1910],
	['Berthe Morisot', 'French', 1841, 1895],
	['Francisco de Goya y Lucientes', 'Spanish', 1746, 1828],
	['Julia Margaret Cameron', 'British', 1815, 1879],
	['Unidentified Artist', 'Chinese', 1600, 1700],
];
const GEN_CLASSES: Array<[string, string[]]> = [
	['Paintings', ['Oil on canvas', 'Tempera on panel', 'Watercolour on paper']],
	['Prints', ['Etching', 'Woodblock print; ink and color on paper', 'Lithograph']],
	['Drawings', ['Graphite on paper', 'Charcoal on laid paper', 'Pen and brown ink']],
	['Photographs', ['Albumen silver print', 'Gelatin silver print']],
	['Sculpture', ['Bronze', 'Marble']],
	['Vessels', ['Porcelain with underglaze blue', 'Stoneware']],
];
const GEN_PERIODS =
	'Edo period|Romanticism|Impressionism|Baroque|Northern Renaissance|Pre-Raphaelite Brotherhood'.split(
		'|',
	);
const GEN_WORDS = [
	'Study of|View of|Landscape with|Portrait of|Evening at|Storm over'.split('|'),
	'a River|the Harbour|a Woman Reading|Mount Fuji|the Old Mill|a Sleeping Dog|Venice|the Sea'.split(
		'|',
	),
];

/** n varied, deterministic Harvard-style records (objectids 30_000_000 + i); every 5th has no image. */
export function generateMuseumRecords(n: number, seed = 1): MuseumRecord[] {
	const out: MuseumRecord[] = [];
	for (let i = 0; i < n; i++) {
		const rand = rng(hash32(`gen:${seed}:${i}`));
		const pick = <T>(xs: readonly T[]): T => xs[floor(rand() * xs.length)];
		const [name, culture, born, died] = pick(GEN_ARTISTS);
		const [classification, media] = pick(GEN_CLASSES);
		const objectid = 30_000_000 + i;
		const year = born + 18 + floor(rand() * mathMax(1, died - born - 18));
		out.push(
			baseRecord({
				objectid,
				objectnumber: `G${seed}.${i}`,
				title: `${pick(GEN_WORDS[0])} ${pick(GEN_WORDS[1])}`,
				people: [
					{
						personid: 900_000 + GEN_ARTISTS.findIndex((a) => a[0] === name),
						name,
						displayname: name,
						role: 'Artist',
						displayorder: 1,
						culture,
						displaydate: `${born} - ${died}`,
					},
				],
				dated: `c. ${year}`,
				datebegin: year,
				dateend: year + (rand() < 0.3 ? 5 : 0),
				period: rand() < 0.4 ? pick(GEN_PERIODS) : null,
				culture,
				classification,
				medium: pick(media),
				dimensions: `${10 + floor(rand() * 90)} x ${10 + floor(rand() * 90)} cm`,
				creditline: rand() < 0.5 ? 'Gift of a private collector' : 'Purchase fund',
				department: 'Generated Collection',
				url: null,
				images: images(objectid, i % 5 === 4 ? [] : [[400 + (i % 7) * 50, 300 + (i % 3) * 100]]),
				accessionyear: 1900 + floor(rand() * 120),
				source: 'generated',
			}),
		);
	}
	return out;
}

/** Where another museum's records come from: its real ones when present (`auto`), or the project's fixture. */
export interface LoadOwnOptions {
	/** 'real' = the file in ../shared/data (throws if absent); 'fixture' = test/fixtures; 'auto' = real when present. */
	source: 'real' | 'fixture' | 'auto';
	/** Add this many records mapped from Tate/CMOA (or generated ones when the shared data is absent) for volume. */
	volume?: number;
}

/** A museum's own records (`shared` in ../shared/data, or `fixture`), plus `volume` more mapped into its shape. */
export function loadOwnRecords<T>(
	files: { shared: string; fixture: string },
	options: LoadOwnOptions,
	mapFrom: (records: MuseumRecord[]) => T[],
): T[] {
	const real = fs.existsSync(path.join(SHARED_DATA_DIR, files.shared));
	const source = options.source === 'auto' ? (real ? 'real' : 'fixture') : options.source;
	const file =
		source === 'real'
			? path.join(SHARED_DATA_DIR, files.shared)
			: path.join(FIXTURES_DIR, files.fixture);
	if (!fs.existsSync(file)) throw new Error(`Records not found: ${file}`);
	const own = JSON.parse(fs.readFileSync(file, 'utf8')) as T[];
	if (!options.volume) return own;
	const more = hasSharedData()
		? loadMuseumRecords({ source: 'real', max: options.volume })
		: generateMuseumRecords(options.volume);
	return [...own, ...mapFrom(more)];
}
