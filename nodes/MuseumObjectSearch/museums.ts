import type { IDataObject } from 'n8n-workflow';

import { SERVICES, type StyleEntry } from '../shared/services';
import { describeValue, isPlainObject } from '../shared/values';
import { harvardImage, iiifImage, readPage, simplifyHarvard, whole } from './records';
import type { ImageAt, Page } from './types';

/* Each museum in its own terms (paths, paging, filters, Simplified record), beside its style in the service table. */

/** An editor list: names, or GET {path} pages, a record showing `shows` and sending its first `sends` (or the name) */
export type List =
	| string[]
	| { path: string; shows: string; sends?: string[]; qs?: IDataObject; maxResults?: number };

export interface Museum {
	/** Search's path; `skip`: pages go by offset; `maxResults`: results a search may page through at most */
	search: { path: string; skip?: boolean; maxResults?: number; fields?: string[] };
	/** Get's path (`{id}`: the ID) and the IDs the service takes */
	object: string;
	id?: { pattern: RegExp; says: string };
	read(data: unknown): Page | string;
	/** A search answer's shape, for the error when another comes */
	shape: string;
	one(data: unknown): { record: IDataObject; context?: IDataObject } | undefined;
	simplify(record: IDataObject, context?: IDataObject): IDataObject;
	image(
		record: IDataObject,
		width: number | undefined,
		style: StyleEntry,
		context?: IDataObject,
	): ImageAt | undefined;
	/** Filters by key, as parameters or (AIC) an Elasticsearch clause; absent: refused; none: Harvard's, renamable */
	filters?: Record<string, (value: string) => IDataObject>;
	/** Filters go as AIC's `query[bool][filter][n]…` clauses */
	dsl?: boolean;
	/** The fields a picker's entry needs (the service sends fewer without `fields=`, or far more) */
	pick: string;
	/** Search options the service honours besides Fields (Harvard's: all) */
	options?: string[];
	/** The editor's lists, by filter key, in the values the filter sends */
	lists?: Record<string, List>;
}

/** The Simplified record, the same keys in every museum's output (null: the service says nothing). */
export const SIMPLIFIED =
	'id title artist date classification period culture medium imageUrl url creditLine publicDomain imagePermissionLevel'.split(
		' ',
	);
export const simplified = (fields: IDataObject): IDataObject =>
	Object.fromEntries(SIMPLIFIED.map((key) => [key, fields[key] ?? null]));

/** Trimmed text or a number; else (empty text too) null */
const text = (value: unknown) =>
	(typeof value === 'string' && value.trim()) || (typeof value === 'number' ? value : null);
const list = (value: unknown) => (Array.isArray(value) ? value : []);

/** An open museum's answer `{data: [...]}`: its records, with what `beside` reads next to them. */
function dataPage(data: unknown, beside: (answer: IDataObject) => Omit<Page, 'records'>) {
	if (!isPlainObject(data) || !Array.isArray(data.data)) return describeValue(data ?? undefined);
	return { ...beside(data), records: data.data };
}

/** A Get answer `{data: {…}}` (AIC's with `config` beside it). */
function enveloped(data: unknown) {
	if (!isPlainObject(data) || !isPlainObject(data.data)) return undefined;
	return { record: data.data, context: isPlainObject(data.config) ? data.config : undefined };
}

const AIC_IIIF = 'https://www.artic.edu/iiif/2';
/** The widths AIC's IIIF service serves; the widest only for public-domain works */
const AIC_WIDTHS = [200, 400, 600, 843, 1686];
const AIC_WEB = 843;

/** An AIC image at the served width that fits `width`, never past the work's own image (AIC refuses an upscale). */
function aicImage(record: IDataObject, width: number | undefined, context?: IDataObject) {
	const id = text(record.image_id);
	if (typeof id !== 'string') return undefined;
	const base = `${String(text(context?.iiif_url) ?? AIC_IIIF).replace(/\/+$/, '')}/${id}`;
	const widths = AIC_WIDTHS.filter((w) => record.is_public_domain === true || w <= AIC_WEB);
	let w = widths.find((served) => width !== undefined && served >= width) ?? widths.at(-1)!;
	const master = isPlainObject(record.thumbnail) ? Number(record.thumbnail.width) : NaN;
	if (master > 0 && master < w) w = Math.floor(master);
	return { url: iiifImage(base, w), source: base };
}

const AIC: Museum = {
	search: {
		path: '/artworks/search',
		maxResults: 1000,
		// a search answers a handful of fields unless it is told which
		fields: (
			'id title artist_title artist_display date_display artwork_type_title classification_title style_title ' +
			'place_of_origin medium_display credit_line is_public_domain copyright_notice image_id thumbnail ' +
			'department_title main_reference_number'
		).split(' '),
	},
	object: '/artworks/{id}',
	pick: 'id,title,artist_title,artist_display,date_display',
	shape: 'Expected {"pagination": {...}, "data": [...], "config": {...}}.',
	id: { pattern: /^[1-9]\d{0,11}$/, says: 'an AIC artwork ID is a whole number, e.g. 27992' },
	read: (data) =>
		dataPage(data, ({ pagination, config }) => {
			const paging = isPlainObject(pagination) ? pagination : {};
			const context = isPlainObject(config) ? config : undefined;
			return { total: whole(paging.total), pages: whole(paging.total_pages, 1), context };
		}),
	one: enveloped,
	simplify: (r, context) =>
		simplified({
			id: text(r.id),
			title: text(r.title),
			artist: text(r.artist_title) ?? text(String(text(r.artist_display) ?? '').split('\n')[0]),
			date: text(r.date_display),
			classification: text(r.artwork_type_title) ?? text(r.classification_title),
			period: text(r.style_title),
			culture: text(r.place_of_origin),
			medium: text(r.medium_display),
			imageUrl: aicImage(r, AIC_WEB, context)?.url,
			url: text(r.id) === null ? null : `https://www.artic.edu/artworks/${String(r.id)}`,
			creditLine: text(r.credit_line),
			publicDomain: typeof r.is_public_domain === 'boolean' ? r.is_public_domain : null,
		}),
	image: (record, width, _style, context) => aicImage(record, width, context),
	dsl: true,
	filters: {
		person: (v) => (/^\d+$/.test(v) ? term('artist_id', v) : { match_phrase: { artist_title: v } }),
		classification: (v) =>
			term(/^\d+$/.test(v) ? 'artwork_type_id' : 'artwork_type_title.keyword', v),
		department: (v) => term(/^PC-\d+$/i.test(v) ? 'department_id' : 'department_title.keyword', v),
		period: (v) => ({ match_phrase: { style_title: v } }),
		hasImage: (v) => (v === '1' ? HAS_IMAGE : { bool: { must_not: [HAS_IMAGE] } }),
		createdAfter: (v) => ({ range: { date_start: { gte: v } } }),
		createdBefore: (v) => ({ range: { date_end: { lte: v } } }),
		publicDomainOnly: () => term('is_public_domain', 'true'),
	},
	options: ['sort'],
	lists: {
		classification: { path: '/artwork-types', shows: 'title', sends: ['id'] },
		department: { path: '/departments', shows: 'title', sends: ['id'] },
		// a style's title: Period matches `style_title`
		period: {
			path: '/category-terms/search',
			shows: 'title',
			qs: { 'query[term][subtype]': 'style' },
			maxResults: 1000,
		},
	},
};

const term = (field: string, value: string) => ({ term: { [field]: value } });
const HAS_IMAGE = { exists: { field: 'image_id' } };

/** Cleveland's `web` rendition when it is as wide as wanted, else `print` (the `full` TIFF is never fetched). */
function clevelandImage(record: IDataObject, width: number | undefined) {
	const images = isPlainObject(record.images) ? record.images : {};
	const [web, print] = [images.web, images.print].map((r) => (isPlainObject(r) ? r : undefined));
	const fits = web && width !== undefined && !(Number(web.width) < width);
	const url = text((fits ? web : (print ?? web))?.url);
	return typeof url === 'string' ? { url, source: url } : undefined;
}

/** "Thomas Cole (American, 1801–1848)" → "Thomas Cole", each name once */
function clevelandArtists(record: IDataObject) {
	const names = list(record.creators)
		.map((c) => (isPlainObject(c) ? text(c.description) : null))
		.filter((d): d is string => typeof d === 'string')
		.map((d) => d.replace(/\s*\([^()]*\)\s*$/, ''));
	return names.length ? [...new Set(names)].join(', ') : text(list(record.culture)[0]);
}

const CLEVELAND: Museum = {
	search: { path: '/artworks/', skip: true },
	pick: 'id,title,creators,creation_date,url,culture',
	object: '/artworks/{id}',
	shape: 'Expected {"info": {"total": ...}, "data": [...]}.',
	read: (data) =>
		dataPage(data, ({ info }) => ({ total: whole(isPlainObject(info) ? info.total : undefined) })),
	one: enveloped,
	simplify: (r) => {
		const license = text(r.share_license_status);
		const accession = text(r.accession_number);
		return simplified({
			id: text(r.id),
			title: text(r.title),
			artist: clevelandArtists(r),
			date: text(r.creation_date),
			classification: text(r.type),
			culture: text(list(r.culture)[0]),
			medium: text(r.technique),
			imageUrl: clevelandImage(r, 0)?.url,
			url: text(r.url) ?? (accession ? `https://www.clevelandart.org/art/${accession}` : null),
			creditLine: text(r.creditline),
			publicDomain: license === null ? null : license === 'CC0',
		});
	},
	image: (record, width) => clevelandImage(record, width),
	filters: {
		person: (v) => ({ artists: v }),
		classification: (v) => ({ type: v }),
		department: (v) => ({ department: v }),
		hasImage: (v) => ({ has_image: v }),
		createdAfter: (v) => ({ created_after: v }),
		createdBefore: (v) => ({ created_before: v }),
		publicDomainOnly: () => ({ cc0: '1' }),
	},
	// the API lists neither, its documentation does ("Southeast Asian": the newer appendix's and records' spelling)
	lists: {
		classification: (
			'Amulets|Apparatus|Arms and Armor|Basketry|Book Binding|Bound Volume|Calligraphy|Carpet|Ceramic|Coins|' +
			'Cosmetic Objects|Drawing|Embroidery|Enamel|Forgery|Frame|Funerary Equipment|Furniture and woodwork|Garment|' +
			'Glass|Glyptic|Illumination|Implements|Inlays|Ivory|Jade|Jewelry|Knitting|Lace|Lacquer|Leather|Linoleum Block|' +
			'Lithographic Stone|Manuscript|Metalwork|Miniature|Miscellaneous|Mixed Media|Monotype|Mosaic|Musical Instrument|' +
			'Netsuke|Painting|Papyri|Photograph|Plaque|Plate|Portfolio|Portrait Miniature|Print|Relief|Rock crystal|Rubbing|' +
			'Sampler|Scarabs|Sculpture|Seals|Silver|Spindle Whorl|Stencil|Stone|Tapestry|Textile|Time-based Media|Tool|' +
			'Velvet|Vessels|Wood|Woodblock'
		).split('|'),
		department: (
			'African Art|American Painting and Sculpture|Art of the Americas|Chinese Art|Contemporary Art|' +
			'Decorative Art and Design|Drawings|Egyptian and Ancient Near Eastern Art|European Painting and Sculpture|' +
			'Greek and Roman Art|Indian and Southeast Asian Art|Islamic Art|Japanese Art|Korean Art|Medieval Art|' +
			'Modern European Painting and Sculpture|Oceania|Performing Arts, Music, & Film|Photography|Prints|Textiles'
		).split('|'),
	},
};

const HARVARD: Museum = {
	search: { path: '/object' },
	object: '/object/{id}',
	pick: 'objectid,id,title,people,dated,url',
	read: readPage,
	shape:
		'Expected {"info": {...}, "records": [...]} (alone or as the "data" of {"status": "success", "data": ...}), a list of records, or such a list as "data".',
	one: (data) => (isPlainObject(data) ? { record: data } : undefined),
	simplify: (record) => simplified(simplifyHarvard(record)),
	image: harvardImage,
	options: ['sort', 'sortOrder', 'filterNames'],
};

/** Harvard's lists: a classification goes as its ID (matched more reliably), a period as its name (as documented). */
export const HARVARD_LISTS: Record<string, List> = {
	classification: {
		path: '/classification',
		shows: 'name',
		sends: ['id', 'classificationid'],
		qs: { sort: 'name' },
	},
	period: { path: '/period', shows: 'name', qs: { sort: 'name' } },
};

const { artic, cleveland } = SERVICES.museum.styles;
export const museumOf = (style: StyleEntry): Museum =>
	style === artic ? AIC : style === cleveland ? CLEVELAND : HARVARD;

export function pageQuery(style: StyleEntry, page: number, size: number): IDataObject {
	const at = museumOf(style).search.skip ? { skip: (page - 1) * size } : { page };
	return { [style.pageSize ?? 'limit']: size, ...at };
}
