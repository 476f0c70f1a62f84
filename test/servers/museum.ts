/**
 * Museum object search: GET /object?q=&limit=&page=&person=&classification=&period=&color=&hasimage=&sort=&sortorder=&fields=
 * and GET /object/{id} (404 for an unknown ID). Answers {status:"success", data:{info, records}, message:"OK"} (or
 * another `shape` mode). With `harvard` it is the Harvard Art Museums API instead (see harvard.ts): also
 * GET /classification and /period, colours matched exactly on the quantized palettes, `q` clauses colors.hue:NAME.
 */
import {
	BaseMode,
	DEFAULT_API_KEY,
	HttpError,
	TestServer,
	createTestServer,
	failEnvelope,
	json,
	one,
	positiveInt,
	success,
} from './common';
import { MuseumRecord, imageExtension, parseHex } from './data';

export interface MuseumMode extends BaseMode {
	/** Every page claims a next page and is full (records wrap around). */
	endlessNext: boolean;
	/** Each page starts with the last record of the previous page (pages overlap by one). */
	duplicateAcrossPages: boolean;
	/** `info` has only page, next and prev links (no totalrecords, no pages): a client can only follow `next`. */
	linksOnly: boolean;
	/** envelope: data.records (default); plain: body is {info, records} (Harvard's default); dataArray: data is the array; bareArray: body is the array; weird: data is {items, info}. */
	shape: 'envelope' | 'plain' | 'dataArray' | 'bareArray' | 'weird';
}

export interface MuseumServerOptions {
	records: MuseumRecord[];
	apiKey?: string;
	/** Base of the image host (e.g. imageHost.url): images become `${imageBaseUrl}/images/<objectid>.<jpg|png>`. Without it image URLs are null. */
	imageBaseUrl?: string;
	/** Default true. */
	requireKey?: boolean;
	/** Be the Harvard Art Museums API (see harvard.ts). */
	harvard?: boolean;
}

export type MuseumServer = TestServer<MuseumMode>;

export const MAX_PAGE_SIZE = 100;
export const COLOR_DISTANCE = 60;

const lc = (v: unknown) => (typeof v === 'string' ? v.toLowerCase() : '');
/** `a|b|any` -> predicate over a lowercase field value ('' = null). */
function listMatcher(value: string, exact: boolean): (field: string) => boolean {
	const parts = value
		.split('|')
		.map((s) => s.trim().toLowerCase())
		.filter(Boolean);
	return (field) =>
		parts.some((p) => (p === 'any' ? field !== '' : exact ? field === p : field.includes(p)));
}

export async function startMuseumServer(options: MuseumServerOptions): Promise<MuseumServer> {
	const index = options.records.map((record) => {
		const people = record.people.map((p) => `${lc(p.name)}\n${lc(p.displayname)}`).join('\n');
		return {
			record,
			people,
			classification: lc(record.classification),
			period: lc(record.period),
			text: [
				lc(record.title),
				people,
				lc(record.classification),
				lc(record.culture),
				lc(record.medium),
				lc(record.period),
			].join('\n'),
			rgb: record.colors
				.map((c) => parseHex(c.color))
				.filter((c): c is [number, number, number] => !!c),
			hexes: record.colors.map((c) => c.color),
			hues: record.colors.map((c) => c.hue.toLowerCase()),
		};
	});
	const harvard = options.harvard ?? false;
	const terms = {
		classification: termsOf(options.records, 'classification', 20_000),
		period: termsOf(options.records, 'period', 7_000),
	};
	const byId = new Map(options.records.map((r) => [String(r.objectid), r]));
	const imageBase = options.imageBaseUrl?.replace(/\/+$/, '');
	// Filter+sort results of recent queries (paging through 70k records re-uses them).
	const cache = new Map<string, MuseumRecord[]>();

	function search(query: Record<string, string | string[]>): MuseumRecord[] {
		const get = (k: string) => one(query, k)?.trim() || undefined;
		const key = JSON.stringify(
			['q', 'person', 'classification', 'period', 'color', 'hasimage', 'sort', 'sortorder'].map(
				get,
			),
		);
		const hit = cache.get(key);
		if (hit) return hit;

		const tests: Array<(x: (typeof index)[number]) => boolean> = [];
		let q = get('q');
		if (q && harvard) {
			// Elasticsearch query_string as far as the node uses it: `(text) AND colors.hue:(A OR B)`
			for (const m of q.matchAll(/colors\.hue:(?:\(([^)]*)\)|(\w+))/gi)) {
				const hues = (m[1] ?? m[2]).split(/\s+OR\s+/i).map((h) => h.trim().toLowerCase());
				tests.push((x) => x.hues.some((h) => hues.includes(h)));
			}
			q = q
				.replace(/colors\.hue:(?:\([^)]*\)|\w+)/gi, ' ')
				.replace(/\bAND\b|[()]/g, ' ')
				.trim();
		}
		if (q) {
			const words = q.toLowerCase().split(/\s+/);
			tests.push((x) => words.every((t) => x.text.includes(t)));
		}
		const person = get('person');
		if (person) {
			const m = listMatcher(person, false);
			tests.push((x) => m(x.people));
		}
		for (const field of ['classification', 'period'] as const) {
			let v = get(field);
			// Harvard takes an ID or a name
			if (v && harvard)
				v = v
					.split('|')
					.map((part) => terms[field].byId.get(part.trim())?.name ?? part)
					.join('|');
			if (v) {
				const m = listMatcher(v, true);
				tests.push((x) => m(x[field]));
			}
		}
		const color = get('color');
		if (color) {
			const targets = color.split('|').map((c) => {
				const rgb = parseHex(c);
				if (!rgb) throw new HttpError(400, 'color must be a hex color like #afaf4b');
				return rgb;
			});
			if (harvard) {
				// exact on the quantized palette colours, as Harvard matches
				const wanted = color.split('|').map((c) => c.trim().toLowerCase());
				tests.push((x) => x.hexes.some((h) => wanted.includes(h)));
			} else {
				const limit2 = COLOR_DISTANCE * COLOR_DISTANCE;
				const near = (a: number[], b: number[]) =>
					(a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2 + (a[2] - b[2]) ** 2 <= limit2;
				tests.push((x) => x.rgb.some((c) => targets.some((t) => near(c, t))));
			}
		}
		const hasimage = get('hasimage');
		if (hasimage !== undefined) {
			if (hasimage !== '0' && hasimage !== '1') throw new HttpError(400, 'hasimage must be 0 or 1');
			tests.push((x) => x.record.imagecount > 0 === (hasimage === '1'));
		}
		let found = index.filter((x) => tests.every((t) => t(x))).map((x) => x.record);

		const sort = get('sort');
		if (sort) {
			const dir = (get('sortorder') ?? 'asc').toLowerCase() === 'desc' ? -1 : 1;
			const val = (r: MuseumRecord) => r[sort];
			found = found
				.map((r, i) => ({ r, i, v: val(r) }))
				.sort((a, b) => {
					const an = a.v === null || a.v === undefined;
					const bn = b.v === null || b.v === undefined;
					if (an || bn) return an === bn ? a.i - b.i : an ? 1 : -1; // nulls last
					const c =
						typeof a.v === 'number' && typeof b.v === 'number'
							? a.v - b.v
							: String(a.v).localeCompare(String(b.v));
					return c * dir || a.i - b.i;
				})
				.map((x) => x.r);
		}
		if (cache.size >= 20) cache.delete(cache.keys().next().value as string);
		cache.set(key, found);
		return found;
	}

	function present(r: MuseumRecord): MuseumRecord {
		const extra = harvard ? harvardFields(r) : {};
		if (!imageBase || r.images.length === 0) return { ...r, ...extra };
		const ext = imageExtension(r.objectid);
		const images = r.images.map((img, i) => {
			const name = `${r.objectid}${i ? `-${i}` : ''}`;
			return {
				...img,
				baseimageurl: `${imageBase}/images/${name}.${ext}`,
				// Harvard: JPEG images also through the IIIF image service
				...(harvard && ext === 'jpg' ? { iiifbaseuri: `${imageBase}/iiif/${name}` } : {}),
			};
		});
		return { ...r, ...extra, images, primaryimageurl: images[0].baseimageurl };
	}

	/** What Harvard's records carry beyond the shared data: term IDs, image rights, the object's page. */
	function harvardFields(r: MuseumRecord) {
		return {
			classificationid: terms.classification.byName.get(r.classification ?? '')?.id ?? null,
			periodid: terms.period.byName.get(r.period ?? '')?.id ?? null,
			imagepermissionlevel: r.objectid % 10 === 7 ? 1 : 0,
			url: `https://harvardartmuseums.org/collections/object/${r.objectid}`,
		};
	}

	function pick(r: MuseumRecord, fields: string[] | undefined): Record<string, unknown> {
		if (!fields) return r;
		return Object.fromEntries(fields.filter((f) => f in r).map((f) => [f, r[f]]));
	}

	const apiKey = options.apiKey ?? DEFAULT_API_KEY;
	return createTestServer<MuseumMode>({
		apiKey,
		requireKey: !harvard && (options.requireKey ?? true),
		modeDefaults: {
			endlessNext: false,
			duplicateAcrossPages: false,
			linksOnly: false,
			shape: harvard ? 'plain' : 'envelope',
		},
		handle({ req, url, recorded, mode, baseUrl }) {
			if (harvard && one(recorded.query, 'apikey') !== apiKey)
				return json(401, { error: 'Unauthorized: a valid apikey query parameter is required' });
			const path = url.pathname.replace(/\/+$/, '');
			const notFound = (what: string) =>
				harvard
					? json(404, { error: `Not found: ${what}` })
					: failEnvelope(404, `Not found: ${what}`);
			if (req.method !== 'GET' && req.method !== 'HEAD')
				return failEnvelope(405, 'Method not allowed', { allow: 'GET' });
			const query = recorded.query;
			const single = /^\/object\/([^/]+)$/.exec(path);
			if (single) {
				const record = byId.get(decodeURIComponent(single[1]));
				if (!record) return notFound(`no object with the ID ${single[1]}`);
				const full = present(record);
				return harvard || mode.shape === 'plain' ? json(200, full) : success(full);
			}
			if (harvard && (path === '/classification' || path === '/period')) {
				return termPage(
					terms[path.slice(1) as 'classification' | 'period'].list,
					query,
					url,
					baseUrl,
				);
			}
			if (path !== '/object') return notFound(url.pathname);
			const requested =
				(harvard
					? positiveInt(one(query, 'size'), 'size')
					: positiveInt(one(query, 'limit') ?? one(query, 'size'), 'limit')) ?? 10;
			const page = positiveInt(one(query, 'page'), 'page') ?? 1;
			const size = Math.min(requested, MAX_PAGE_SIZE);
			const fields = one(query, 'fields')
				?.split(',')
				.map((f) => f.trim())
				.filter(Boolean);
			const found = search(query);
			const total = found.length;

			let records: MuseumRecord[];
			let pages: number;
			let hasNext: boolean;
			if (mode.endlessNext) {
				records = total
					? Array.from({ length: size }, (_, i) => found[((page - 1) * size + i) % total])
					: [];
				pages = page + 1;
				hasNext = true;
			} else {
				// page p covers [(p-1)*stride, (p-1)*stride + size): pages overlap by one with duplicateAcrossPages
				const stride = mode.duplicateAcrossPages ? Math.max(1, size - 1) : size;
				const start = (page - 1) * stride;
				records = found.slice(start, start + size);
				pages = total <= size ? Math.min(total, 1) : Math.ceil((total - size) / stride) + 1;
				hasNext = start + size < total;
			}
			const link = (p: number) => {
				const params = new URLSearchParams(url.searchParams);
				params.set('page', String(p));
				return `${baseUrl}${url.pathname}?${params}`;
			};
			const info = {
				...(mode.linksOnly ? {} : { totalrecordsperquery: size, totalrecords: total, pages }),
				page: total === 0 && !mode.endlessNext ? 0 : page,
				...(hasNext ? { next: link(page + 1) } : {}),
				...(page > 1 && page - 1 <= pages ? { prev: link(page - 1) } : {}),
				responsetime: '1 ms',
			};
			const out = records.map((r) => pick(present(r), fields));
			switch (mode.shape) {
				case 'dataArray':
					return success(out);
				case 'bareArray':
					return json(200, out);
				case 'weird':
					return success({ items: out, meta: info });
				case 'plain':
					return json(200, { info, records: out });
				default:
					return success({ info, records: out });
			}
		},
	});
}

interface Term {
	id: number;
	name: string;
	objectcount: number;
}

/** The values of a record field as Harvard lists them: IDs from `base`, by name, with object counts. */
function termsOf(records: MuseumRecord[], field: 'classification' | 'period', base: number) {
	const counts = new Map<string, number>();
	for (const r of records) {
		const name = r[field];
		if (name) counts.set(name, (counts.get(name) ?? 0) + 1);
	}
	const list: Term[] = [...counts.keys()]
		.sort()
		.map((name, i) => ({ id: base + i * 7, name, objectcount: counts.get(name)! }));
	return {
		list,
		byName: new Map(list.map((t) => [t.name, t])),
		byId: new Map(list.map((t) => [String(t.id), t])),
	};
}

/** GET /classification or /period: Harvard's list envelope, `size` (default 10, at most 100) and `page`. */
function termPage(
	list: Term[],
	query: Record<string, string | string[]>,
	url: URL,
	baseUrl: string,
) {
	const size = Math.min(positiveInt(one(query, 'size'), 'size') ?? 10, MAX_PAGE_SIZE);
	const page = positiveInt(one(query, 'page'), 'page') ?? 1;
	const resource = url.pathname.replace(/\/+$/, '').slice(1);
	const pages = Math.ceil(list.length / size);
	const next = new URLSearchParams(url.searchParams);
	next.set('page', String(page + 1));
	const records = list.slice((page - 1) * size, page * size).map((t) => ({
		objectcount: t.objectcount,
		id: t.id,
		lastupdate: '2026-01-01T04:00:00-0500',
		name: t.name,
		[`${resource}id`]: t.id,
	}));
	return json(200, {
		info: {
			totalrecordsperquery: size,
			totalrecords: list.length,
			pages,
			page,
			...(page < pages ? { next: `${baseUrl}${url.pathname}?${next}` } : {}),
			responsetime: '1 ms',
		},
		records,
	});
}
