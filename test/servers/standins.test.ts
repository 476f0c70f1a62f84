/** The AIC and Cleveland stand-ins behave as ../shared/reference/{aic,cleveland}-api.md say the real APIs do. */
import { useServer } from '../harness/engine';
import {
	AIC_ARTWORK_TYPES,
	AIC_DEPARTMENT_TERMS,
	AIC_ERRORS,
	AIC_STYLE_TERMS,
	type AicArtwork,
	type ClevelandArtwork,
	SHARED_DATA_DIR,
	aicArtworksFrom,
	clevelandArtworksFrom,
	generateMuseumRecords,
	hasAicData,
	hasClevelandData,
	jpegSize,
	loadAicArtworks,
	loadClevelandArtworks,
	startAicServer,
	startClevelandServer,
} from './index';

interface Answer {
	status: number;
	headers: Headers;
	text: string;
	bytes: Buffer;
	json: <T = Record<string, unknown>>() => T;
}

async function get(url: string, init: RequestInit = {}): Promise<Answer> {
	const res = await fetch(url, init);
	const bytes = Buffer.from(await res.arrayBuffer());
	const text = bytes.toString('utf8');
	return {
		status: res.status,
		headers: res.headers,
		text,
		bytes,
		json: <T>() => JSON.parse(text) as T,
	};
}

/** The size a baseline TIFF's IFD declares (ImageWidth, ImageLength). */
function tiffSize(b: Buffer): { width: number; height: number } {
	const ifd = b.readUInt32LE(4);
	const tags = new Map<number, number>();
	for (let i = 0, n = b.readUInt16LE(ifd); i < n; i++) {
		const o = ifd + 2 + i * 12;
		const type = b.readUInt16LE(o + 2);
		tags.set(b.readUInt16LE(o), type === 3 ? b.readUInt16LE(o + 8) : b.readUInt32LE(o + 8));
	}
	return { width: tags.get(256)!, height: tags.get(257)! };
}

// ================================================================ AIC

type Hit = Record<string, unknown> & { _score: number | null; id: number };
interface SearchPage {
	preference: null;
	pagination: Record<string, number | null>;
	data: Hit[];
	info: { license_text: string; license_links: string[]; version: string };
	config: { iiif_url: string; website_url: string };
}
interface ListPage {
	pagination: Record<string, number | string>;
	data: AicArtwork[];
}

const AIC_OWN = loadAicArtworks({ source: 'fixture' });
const AIC_ALL = [...AIC_OWN, ...aicArtworksFrom(generateMuseumRecords(1200))];
const TOKEN = 'aic-token-7';

describe('AIC stand-in', () => {
	const aic = useServer(() => startAicServer({ artworks: AIC_ALL, tokens: [TOKEN] }));
	const search = async (query: string, init?: RequestInit) =>
		await get(`${aic.apiUrl}/artworks/search${query ? `?${query}` : ''}`, init);
	const page = async (query: string) => (await search(query)).json<SearchPage>();

	test('the fixtures cover the odd cases: no image, not public domain, a master under 843 px', () => {
		expect(AIC_OWN.some((a) => a.image_id === null && a.thumbnail === null)).toBe(true);
		expect(AIC_OWN.some((a) => !a.is_public_domain && a.copyright_notice)).toBe(true);
		expect(AIC_OWN.some((a) => a.image_id && a.thumbnail && a.thumbnail.width < 843)).toBe(true);
		expect(AIC_OWN.some((a) => a.thumbnail?.lqip === null)).toBe(true);
	});

	test('a search answers few fields, _score first, pagination without URLs, info and config', async () => {
		const body = await page('');
		expect(Object.keys(body)).toEqual(['preference', 'pagination', 'data', 'info', 'config']);
		expect(body.preference).toBeNull();
		expect(body.pagination).toEqual({
			total: AIC_ALL.length,
			limit: 10,
			offset: 0,
			total_pages: Math.ceil(AIC_ALL.length / 10),
			current_page: 1,
		});
		expect(body.data).toHaveLength(10);
		for (const hit of body.data)
			expect(Object.keys(hit)).toEqual([
				'_score',
				'id',
				'api_model',
				'api_link',
				'is_boosted',
				'title',
				'thumbnail',
				'timestamp',
			]);
		// without q, the "essentials" come first
		const boosted = AIC_ALL.filter((a) => a.is_boosted).length;
		expect(body.data.slice(0, Math.min(10, boosted)).every((h) => h.is_boosted)).toBe(true);
		expect(body.data[0].api_link).toBe(`${aic.apiUrl}/artworks/${body.data[0].id}`);
		expect(body.config).toEqual({ iiif_url: aic.iiifUrl, website_url: 'http://www.artic.edu' });
		expect(body.info.license_links).toContain('https://www.artic.edu/terms');
	});

	test('limit over 100 is a 403 "Invalid limit"; size wins over limit', async () => {
		for (const q of ['limit=101', 'size=101&limit=5', 'limit=1000']) {
			const res = await search(q);
			expect([res.status, res.json()]).toEqual([403, AIC_ERRORS.invalidLimit]);
		}
		expect((await page('limit=100')).data).toHaveLength(100);
		expect((await page('size=3&limit=50')).pagination.limit).toBe(3);
		// a signed-in caller is not held to 100 per page
		const token = await search('limit=150', { headers: { authorization: `Bearer ${TOKEN}` } });
		expect(token.json<SearchPage>().data).toHaveLength(150);
	});

	test.each([
		['page=10&limit=100', 200],
		['page=11&limit=100', 403],
		['page=54&limit=20', 403],
		['page=50&limit=20', 200],
		['page=51&limit=20', 403],
		['page=199&limit=50', 403],
		['page=100', 200],
		['page=101', 403],
		['from=950&size=50', 200],
		['from=951&size=50', 403],
		['limit=100', 200],
	])('deep paging %s: %i (the guest cap is 1,000 results)', async (query, status) => {
		const res = await search(query);
		expect(res.status).toBe(status);
		if (status === 403) expect(res.json()).toEqual(AIC_ERRORS.tooManyResults);
		else {
			const p = res.json<SearchPage>().pagination;
			expect((p.offset as number) + (p.limit as number)).toBeLessThanOrEqual(1000);
		}
	});

	test('past 1,000 a signed-in caller goes on; offset and current_page follow from', async () => {
		const res = await search('page=11&limit=100', {
			headers: { authorization: `Bearer ${TOKEN}` },
		});
		const body = res.json<SearchPage>();
		expect(body.pagination).toMatchObject({ offset: 1000, limit: 100, current_page: 11 });
		expect(body.data).toHaveLength(Math.min(100, AIC_ALL.length - 1000));
	});

	test('limit=0 counts only', async () => {
		const body = await page('query[term][is_public_domain]=true&limit=0');
		expect(body.data).toEqual([]);
		expect(body.pagination).toEqual({
			total: AIC_ALL.filter((a) => a.is_public_domain).length,
			limit: 0,
			offset: 0,
			total_pages: null,
			current_page: null,
		});
	});

	test('fields= picks fields in the transformer order, drops unknown names, keeps image_id null', async () => {
		const body = await page('fields=image_id,title,artist_title,nope,id&limit=100');
		for (const hit of body.data)
			expect(Object.keys(hit)).toEqual(['_score', 'id', 'title', 'artist_title', 'image_id']);
		const noImage = AIC_OWN.find((a) => a.image_id === null)!;
		expect(body.data.find((h) => h.id === noImage.id)?.image_id).toBeNull();
	});

	test('q: any word matches; phrases and digit-led tokens must; title and artist rank higher', async () => {
		const has = (a: AicArtwork, word: string) =>
			['title', 'artist_display', 'medium_display', 'term_titles', 'category_titles', 'alt_titles']
				.flatMap((f) => [a[f]].flat())
				.some((v) => typeof v === 'string' && new RegExp(`\\b${word}\\b`, 'i').test(v));
		const cats = await page('q=cats&limit=100&fields=id,title');
		const expected = AIC_ALL.filter((a) => has(a, 'cats'));
		expect(cats.pagination.total).toBe(expected.length);
		expect(cats.data.map((h) => h.id).sort()).toEqual(expected.map((a) => a.id).sort());
		const scores = cats.data.map((h) => h._score as number);
		expect(scores).toEqual([...scores].sort((a, b) => b - a));
		expect(/cats/i.test(String(cats.data[0].title))).toBe(true);

		// phrases must match, and at least one other word must too (minimum_should_match: 1)
		const phrase = await page(`q=${encodeURIComponent('"plum blossoms" tea')}&fields=id`);
		expect(phrase.data.map((h) => h.id)).toEqual(
			AIC_ALL.filter((a) => has(a, 'plum blossoms') && has(a, 'tea')).map((a) => a.id),
		);
		expect(phrase.data.length).toBeGreaterThan(0);
		const nothingElse = await page(`q=${encodeURIComponent('"plum blossoms" harbor')}`);
		expect(nothingElse.pagination.total).toBe(0);
		const year = await page('q=1884&fields=id,date_display');
		expect(year.data.length).toBeGreaterThan(0);
		expect(year.data.every((h) => String(h.date_display).includes('1884'))).toBe(true);
		expect((await page('q=zzzqqq')).pagination).toMatchObject({ total: 0, total_pages: 0 });
	});

	test('query[...] terms, ranges, exists and bool; params= and a POST body say the same', async () => {
		const ids = async (res: Answer) => {
			const body = res.json<SearchPage>();
			return [body.pagination.total, body.data.map((h) => h.id).sort()];
		};
		const pd = AIC_ALL.filter((a) => a.is_public_domain);
		const r1 = await page('query[term][is_public_domain]=true&limit=0');
		expect(r1.pagination.total).toBe(pd.length);
		expect((await page('query[term][is_public_domain]=false&limit=0')).pagination.total).toBe(
			AIC_ALL.length - pd.length,
		);
		const withImage = await page('query[exists][field]=image_id&limit=0');
		expect(withImage.pagination.total).toBe(AIC_ALL.filter((a) => a.image_id).length);

		const q =
			'query[bool][filter][0][term][department_id]=PC-13&query[bool][filter][1][range][date_start][gte]=1860&limit=100';
		const wanted = AIC_ALL.filter(
			(a) => a.department_id === 'PC-13' && (a.date_start as number) >= 1860,
		)
			.map((a) => a.id)
			.sort();
		expect(wanted.length).toBeGreaterThan(0);
		const [total, got] = await ids(await search(q));
		expect(total).toBe(wanted.length);
		expect(got).toHaveLength(Math.min(100, wanted.length));
		expect((got as number[]).every((id) => wanted.includes(id))).toBe(true);
		const dsl = {
			bool: {
				filter: [{ term: { department_id: 'PC-13' } }, { range: { date_start: { gte: 1860 } } }],
			},
		};
		const params = encodeURIComponent(JSON.stringify({ query: dsl, limit: 100 }));
		expect(await ids(await search(`params=${params}`))).toEqual([total, got]);
		const posted = await search('', {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ query: dsl, limit: 100 }),
		});
		expect(await ids(posted)).toEqual([total, got]);
		expect(aic.requests.at(-1)).toMatchObject({ method: 'POST', json: { limit: 100 } });
	});

	test('sibling clauses pass the Elasticsearch error through: 400, not the {status,error,detail} shape', async () => {
		const res = await search('query[term][is_public_domain]=true&query[range][id][gte]=0');
		expect(res.status).toBe(400);
		expect(res.headers.get('content-type')).toMatch(/^application\/json/);
		expect(res.text).toMatch(/^400 Bad Request: /);
		expect(res.text).toContain('expected [END_OBJECT] but found [FIELD_NAME]');
		expect(() => res.json()).toThrow();
		expect((await search('query[nonsense][x]=1')).text).toContain('unknown query [nonsense]');
	});

	test('sort orders by a field and nulls every _score', async () => {
		const body = await page('sort[date_start][order]=desc&fields=id,date_start&limit=50');
		const dates = body.data.map((h) => h.date_start as number);
		expect(dates).toEqual([...dates].sort((a, b) => b - a));
		expect(body.data.every((h) => h._score === null)).toBe(true);
		const byId = await page('sort[0]=id&fields=id&limit=20');
		const ids = byId.data.map((h) => h.id);
		expect(ids).toEqual([...AIC_ALL.map((a) => a.id)].sort((a, b) => a - b).slice(0, 20));
	});

	test('the listing: default 12, limit=0 is 12, updated_at desc, next/prev URLs keeping the other params', async () => {
		const list = async (q: string) => (await get(`${aic.apiUrl}/artworks?${q}`)).json<ListPage>();
		const sorted = [...AIC_ALL].sort(
			(a, b) => String(b.updated_at).localeCompare(String(a.updated_at)) || b.id - a.id,
		);
		const first = await list('');
		expect(first.data.map((a) => a.id)).toEqual(sorted.slice(0, 12).map((a) => a.id));
		expect(first.data[0]).toHaveProperty('image_id'); // all fields on a listing
		expect(first.pagination).toEqual({
			total: AIC_ALL.length,
			limit: 12,
			offset: 0,
			total_pages: Math.ceil(AIC_ALL.length / 12),
			current_page: 1,
			next_url: `${aic.apiUrl}/artworks?page=2`,
		});
		expect((await list('limit=0')).pagination.limit).toBe(12);
		const third = await list('page=3&limit=20&fields=id,artist_title,title');
		expect(third.pagination).toMatchObject({
			offset: 40,
			current_page: 3,
			prev_url: `${aic.apiUrl}/artworks?page=2&limit=20&fields=id%2Cartist_title%2Ctitle`,
			next_url: `${aic.apiUrl}/artworks?page=4&limit=20&fields=id%2Cartist_title%2Ctitle`,
		});
		expect(Object.keys(third.data[0])).toEqual(['id', 'title', 'artist_title']);
		const beyond = await list('page=999&limit=100');
		expect(beyond.data).toEqual([]);
		expect(beyond.pagination.prev_url).toBe(`${aic.apiUrl}/artworks?page=998&limit=100`);
		expect(beyond.pagination.next_url).toBeUndefined();
		const big = await get(`${aic.apiUrl}/artworks?limit=101`);
		expect([big.status, big.json()]).toEqual([403, AIC_ERRORS.invalidLimit]);
	});

	test.each([
		['artwork-types', AIC_ARTWORK_TYPES, ['id', 'api_model', 'api_link', 'title', 'aat_id']],
		['departments', AIC_DEPARTMENT_TERMS, ['id', 'api_model', 'api_link', 'title', 'subtype']],
	])(
		'the %s picker list: a listing with its envelope, limit at most 100',
		async (name, terms, keys) => {
			const all = await (await get(`${aic.apiUrl}/${name}?limit=100`)).json<ListPage>();
			expect(Object.keys(all)).toEqual(['pagination', 'data', 'info', 'config']);
			expect(all.pagination).toEqual({
				total: terms.length,
				limit: 100,
				offset: 0,
				total_pages: 1,
				current_page: 1,
			});
			expect(all.data.map((t) => t.id).sort()).toEqual(terms.map((t) => t.id).sort());
			const [first] = all.data as unknown as Array<Record<string, unknown>>;
			expect(Object.keys(first).slice(0, keys.length)).toEqual(keys);
			const model = name === 'departments' ? 'category-terms' : name;
			expect(first.api_link).toBe(`${aic.apiUrl}/${model}/${String(first.id)}`);
			const small = await (await get(`${aic.apiUrl}/${name}?limit=2`)).json<ListPage>();
			expect(small.pagination.next_url).toBe(`${aic.apiUrl}/${name}?page=2&limit=2`);
			const big = await get(`${aic.apiUrl}/${name}?limit=101`);
			expect([big.status, big.json()]).toEqual([403, AIC_ERRORS.invalidLimit]);
		},
	);

	test('category-terms/search: the search envelope, query[term][subtype] and q honoured, 1,000 results deep', async () => {
		const terms = async (query: string) =>
			await get(`${aic.apiUrl}/category-terms/search?${query}`);
		const styles = (await terms('query[term][subtype]=style&limit=100')).json<ListPage>();
		expect(Object.keys(styles)).toEqual(['preference', 'pagination', 'data', 'info', 'config']);
		expect(styles.pagination).toEqual({
			total: AIC_STYLE_TERMS.length,
			limit: 100,
			offset: 0,
			total_pages: 1,
			current_page: 1,
		});
		const titles = (page: ListPage) => page.data.map((t) => t.title);
		expect(titles(styles).sort()).toEqual(AIC_STYLE_TERMS.map((t) => t.title).sort());
		const all = (await terms('limit=100')).json<ListPage>();
		expect(all.pagination.total).toBe(AIC_STYLE_TERMS.length + AIC_DEPARTMENT_TERMS.length);
		const q = (await terms('query[term][subtype]=style&q=impressionism')).json<ListPage>();
		expect(titles(q)).toEqual(['Impressionism']);
		const deep = await terms('query[term][subtype]=style&limit=100&page=11');
		expect([deep.status, deep.json()]).toEqual([403, AIC_ERRORS.tooManyResults]);
		const big = await terms('limit=101');
		expect([big.status, big.json()]).toEqual([403, AIC_ERRORS.invalidLimit]);
	});

	test('ids=: no pagination block, unknown ids dropped, ordered by last change; over 100 ids is a 403', async () => {
		const some = [AIC_OWN[0].id, 999_999, AIC_OWN[3].id, AIC_OWN[1].id];
		const res = await get(`${aic.apiUrl}/artworks?ids=${some.join(',')}&fields=id,updated_at`);
		const body = res.json<{ data: AicArtwork[] }>();
		expect(Object.keys(body)).toEqual(['data', 'info', 'config']);
		const known = AIC_OWN.filter((a) => some.includes(a.id)).sort((a, b) =>
			String(b.updated_at).localeCompare(String(a.updated_at)),
		);
		expect(body.data.map((a) => a.id)).toEqual(known.map((a) => a.id));
		const many = Array.from({ length: 101 }, (_, i) => i + 1).join(',');
		const tooMany = await get(`${aic.apiUrl}/artworks?ids=${many}`);
		expect([tooMany.status, tooMany.json()]).toEqual([403, AIC_ERRORS.tooManyIds]);
		const bad = await get(`${aic.apiUrl}/artworks?ids=1,abc`);
		expect([bad.status, bad.json()]).toEqual([400, AIC_ERRORS.invalidSyntax]);
	});

	test('detail: {data, info, config}; 404 and 400 bodies', async () => {
		const a = AIC_OWN[0];
		const res = await get(`${aic.apiUrl}/artworks/${a.id}`);
		const body = res.json<{ data: AicArtwork }>();
		expect(Object.keys(body)).toEqual(['data', 'info', 'config']);
		expect(body.data).toEqual({ ...a, api_link: `${aic.apiUrl}/artworks/${a.id}` });
		const narrow = await get(`${aic.apiUrl}/artworks/${a.id}?fields=title,image_id`);
		expect(narrow.json<{ data: object }>().data).toEqual({ title: a.title, image_id: a.image_id });
		const missing = await get(`${aic.apiUrl}/artworks/424242`);
		expect([missing.status, missing.json()]).toEqual([404, AIC_ERRORS.notFound]);
		for (const id of ['abc', '0', '-3']) {
			const bad = await get(`${aic.apiUrl}/artworks/${id}`);
			expect([bad.status, bad.json()]).toEqual([400, AIC_ERRORS.invalidSyntax]);
		}
	});

	test("Laravel's habits: escaped JSON with a newline, ETag/304, 301 on a trailing slash, 405, CORS", async () => {
		const res = await get(`${aic.apiUrl}/artworks/${AIC_OWN[1].id}`);
		expect(res.text.endsWith('}\n')).toBe(true);
		expect(res.text).toContain('http:\\/\\/www.artic.edu');
		expect(res.text).toMatch(/\\u00c9mile/); // É
		expect(res.json<{ data: AicArtwork }>().data.title).toBe(AIC_OWN[1].title);
		expect(res.headers.get('access-control-allow-origin')).toBe('*');
		const etag = res.headers.get('etag')!;
		expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
		const again = await get(`${aic.apiUrl}/artworks/${AIC_OWN[1].id}`, {
			headers: { 'if-none-match': etag },
		});
		expect([again.status, again.text]).toEqual([304, '']);
		const slash = await get(`${aic.apiUrl}/artworks/`, { redirect: 'manual' });
		expect([slash.status, slash.headers.get('location')]).toEqual([301, `${aic.apiUrl}/artworks`]);
		const del = await get(`${aic.apiUrl}/artworks/${AIC_OWN[1].id}`, { method: 'DELETE' });
		expect([del.status, del.json()]).toEqual([405, AIC_ERRORS.methodNotAllowed]);
		const unknown = await get(`${aic.apiUrl}/nothing-here`);
		expect([unknown.status, unknown.json()]).toEqual([404, AIC_ERRORS.generic(404)]);
	});

	describe('IIIF images', () => {
		const image = async (id: string, size: string) =>
			await get(`${aic.iiifUrl}/${id}/full/${size}/0/default.jpg`);
		const wide = AIC_OWN.find(
			(a) => a.is_public_domain && a.thumbnail && a.thumbnail.width > 1686,
		)!;
		const narrow = AIC_OWN.find((a) => a.thumbnail && a.thumbnail.width < 843)!;
		const notPd = AIC_OWN.find((a) => !a.is_public_domain && a.image_id)!;

		test('config.iiif_url + image_id + /full/843,/0/default.jpg is a JPEG that wide', async () => {
			const body = (await page('')).config;
			const res = await get(`${body.iiif_url}/${wide.image_id}/full/843,/0/default.jpg`);
			expect(res.status).toBe(200);
			expect(res.headers.get('content-type')).toBe('image/jpeg');
			expect(res.bytes.subarray(0, 2).toString('hex')).toBe('ffd8');
			const t = wide.thumbnail!;
			expect(jpegSize(res.bytes)).toEqual({
				width: 843,
				height: Math.round((843 * t.height) / t.width),
			});
			for (const w of [200, 400, 600, 1686])
				expect(jpegSize((await image(wide.image_id!, `${w},`)).bytes)?.width).toBe(w);
		});

		test('no upscaling: a master under 843 px answers 403 to 843, and fits into !843,843', async () => {
			expect((await image(narrow.image_id!, '843,')).status).toBe(403);
			expect(jpegSize((await image(narrow.image_id!, '400,')).bytes)?.width).toBe(400);
			const fit = await image(narrow.image_id!, '!843,843');
			expect(jpegSize(fit.bytes)).toEqual({
				width: narrow.thumbnail!.width,
				height: narrow.thumbnail!.height,
			});
		});

		test('1686 is for public-domain works only; unknown images 404', async () => {
			expect((await image(notPd.image_id!, '1686,')).status).toBe(403);
			expect((await image(notPd.image_id!, '843,')).status).toBe(200);
			expect((await image('00000000-0000-0000-0000-000000000000', '843,')).status).toBe(404);
			expect((await image(wide.image_id!, '0,')).status).toBe(400);
		});

		test("Cloudflare's challenge on images leaves the JSON API alone", async () => {
			aic.setMode({ challenge: 'images' });
			const res = await image(wide.image_id!, '843,');
			expect(res.status).toBe(403);
			expect(res.headers.get('cf-mitigated')).toBe('challenge');
			expect(res.headers.get('content-type')).toMatch(/^text\/html/);
			expect(res.text).toContain('Just a moment...');
			expect((await search('limit=1')).status).toBe(200);
			expect(aic.imageRequests).toHaveLength(1);
			expect(aic.apiRequests).toHaveLength(1);
		});
	});

	test('requests are recorded: AIC-User-Agent seen, a key in any form detected', async () => {
		await search('q=cats', { headers: { 'AIC-User-Agent': 'triptych (ops@example.org)' } });
		const [r] = aic.requests;
		expect(r).toMatchObject({
			method: 'GET',
			path: '/api/v1/artworks/search',
			query: { q: 'cats' },
			headers: { 'aic-user-agent': 'triptych (ops@example.org)' },
		});
		expect(aic.keySeen('s3cret/key')).toBe(false);
		await search(`apikey=${encodeURIComponent('s3cret/key')}`);
		expect(aic.keySeen('s3cret/key')).toBe(true);
		aic.reset();
		await search('', { headers: { 'x-api-key': 's3cret/key' } });
		expect(aic.keySeen('s3cret/key')).toBe(true);
	});

	test('the throttle mode: 429 with Retry-After and the generic body; tokens pass', async () => {
		aic.setMode({ throttlePerMinute: 3 });
		const statuses: number[] = [];
		for (let i = 0; i < 4; i++) statuses.push((await search('limit=1')).status);
		expect(statuses).toEqual([200, 200, 200, 429]);
		const refused = await search('limit=1');
		expect(refused.json()).toEqual(AIC_ERRORS.generic(429));
		expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
		const auth = { headers: { authorization: `Bearer ${TOKEN}` } };
		expect((await search('limit=1', auth)).status).toBe(200);
	});
});

// ================================================================ Cleveland

interface CmaList {
	info: { total: number; parameters: Record<string, unknown> };
	data: ClevelandArtwork[];
}

const CMA_OWN = loadClevelandArtworks({ source: 'fixture' });
const CMA_ALL = [...CMA_OWN, ...clevelandArtworksFrom(generateMuseumRecords(2500))];

describe('Cleveland stand-in', () => {
	const cma = useServer(() => startClevelandServer({ artworks: CMA_ALL }));
	const list = async (query: string) =>
		(await get(`${cma.apiUrl}/artworks/${query ? `?${query}` : ''}`)).json<CmaList>();

	test('the fixtures cover the odd cases: copyrighted without images, BCE, anonymous, no dates', () => {
		expect(CMA_OWN.some((a) => a.share_license_status === 'Copyrighted' && a.copyright)).toBe(true);
		expect(CMA_OWN.some((a) => (a.creation_date_earliest ?? 0) < 0)).toBe(true);
		expect(CMA_OWN.some((a) => a.creators.length === 0)).toBe(true);
		expect(CMA_OWN.some((a) => a.creation_date_earliest === null)).toBe(true);
		expect(CMA_OWN.some((a) => a.creators.some((c) => c.role === null))).toBe(true);
	});

	test('without a limit an answer holds 1,000 full records; the limit is capped there', async () => {
		const body = await list('');
		expect(Object.keys(body)).toEqual(['info', 'data']);
		expect(body.info).toEqual({ total: CMA_ALL.length, parameters: { skip: 0, limit: 1000 } });
		expect(body.data).toHaveLength(1000);
		expect(body.data[0]).toMatchObject({ id: CMA_ALL[0].id, tombstone: CMA_ALL[0].tombstone });
		const noSlash = (await get(`${cma.apiUrl}/artworks?limit=2`)).json<CmaList>();
		expect(noSlash.data.map((a) => a.id)).toEqual(CMA_ALL.slice(0, 2).map((a) => a.id));
		expect((await list('limit=5000')).data).toHaveLength(1000);
	});

	test('past the end: data [] with the real total', async () => {
		const body = await list(`skip=${CMA_ALL.length + 10}&limit=5`);
		expect(body).toEqual({
			info: { total: CMA_ALL.length, parameters: { skip: CMA_ALL.length + 10, limit: 5 } },
			data: [],
		});
	});

	test('paging is unstable: a walk meets some works twice and misses as many; same request, same answer', async () => {
		const walk = async () => {
			const seen: number[] = [];
			for (let skip = 0; skip < CMA_ALL.length; skip += 100)
				seen.push(...(await list(`skip=${skip}&limit=100`)).data.map((a) => a.id));
			return seen;
		};
		const seen = await walk();
		const boundaries = Math.ceil(CMA_ALL.length / 100) - 1;
		expect(seen).toHaveLength(CMA_ALL.length);
		expect(new Set(seen).size).toBe(CMA_ALL.length - boundaries);
		const twice = seen.filter((id, i) => seen.indexOf(id) !== i);
		expect(twice).toHaveLength(boundaries);
		// the work that came twice ended the page before: it is the first of the next one
		const second = (await list('skip=100&limit=100')).data;
		const first = (await list('skip=0&limit=100')).data;
		expect(second[0].id).toBe(first[99].id);
		expect((await list('skip=100&limit=100')).data).toEqual(second);

		cma.setMode({ unstablePaging: 0 });
		const stable = await walk();
		expect(stable).toEqual(CMA_ALL.map((a) => a.id));
	});

	test('one artwork by id or by accession number: {data} only; unknown is a 404', async () => {
		const a = CMA_OWN[0];
		const byId = (await get(`${cma.apiUrl}/artworks/${a.id}`)).json<{ data: ClevelandArtwork }>();
		expect(Object.keys(byId)).toEqual(['data']);
		expect(byId.data.accession_number).toBe(a.accession_number);
		const byAcc = await get(`${cma.apiUrl}/artworks/${a.accession_number}`);
		expect(byAcc.json()).toEqual(byId);
		const suffixed = CMA_OWN.find((x) => /[a-z]$/.test(x.accession_number))!;
		expect(
			(await get(`${cma.apiUrl}/artworks/${suffixed.accession_number}`)).json<{
				data: ClevelandArtwork;
			}>().data.id,
		).toBe(suffixed.id);
		for (const key of ['99999999', '1800.1']) {
			const res = await get(`${cma.apiUrl}/artworks/${key}`);
			expect([res.status, res.json()]).toEqual([404, { detail: 'Not Found' }]);
		}
	});

	test('images: web/print JPEGs and the full TIFF at the sizes the record states (strings)', async () => {
		const a = CMA_OWN.find((x) => x.images?.web && x.images.full)!;
		const body = (await get(`${cma.apiUrl}/artworks/${a.id}`)).json<{ data: ClevelandArtwork }>();
		const { web, print, full } = body.data.images!;
		expect(typeof web!.width).toBe('string');
		expect(web!.url).toBe(`${cma.cdnUrl}/${a.accession_number}/${a.accession_number}_web.jpg`);
		for (const r of [web!, print!]) {
			const res = await get(r.url);
			expect(res.headers.get('content-type')).toBe('image/jpeg');
			expect(jpegSize(res.bytes)).toEqual({ width: Number(r.width), height: Number(r.height) });
		}
		const tif = await get(full!.url);
		expect(tif.headers.get('content-type')).toBe('image/tiff');
		expect(tiffSize(tif.bytes)).toEqual({
			width: Number(full!.width),
			height: Number(full!.height),
		});
		expect(cma.imageRequests).toHaveLength(3);

		cma.setMode({ missingImages: [a.accession_number] });
		expect((await get(web!.url)).status).toBe(404);
	});

	test('copyrighted works have no image links: {} now, null in the 2020 form', async () => {
		const c = CMA_OWN.find((x) => x.share_license_status === 'Copyrighted')!;
		const data = async () =>
			(await get(`${cma.apiUrl}/artworks/${c.id}`)).json<{ data: ClevelandArtwork }>().data;
		expect(await data()).toMatchObject({ images: {}, copyright: c.copyright });
		cma.setMode({ noImages: 'null' });
		expect((await data()).images).toBeNull();
	});

	test.each<[string, (a: ClevelandArtwork) => boolean]>([
		['cc0', (a) => a.share_license_status === 'CC0'],
		['cc0=', (a) => a.share_license_status === 'CC0'],
		['cc0=1', (a) => a.share_license_status === 'CC0'],
		['copyrighted', (a) => a.share_license_status === 'Copyrighted'],
		['has_image=1', (a) => !!a.images?.web],
		['type=Painting', (a) => a.type === 'Painting'],
		['department=Prints', (a) => a.department === 'Prints'],
		['created_after=1900', (a) => (a.creation_date_earliest ?? -Infinity) >= 1900],
		['created_before=-1', (a) => (a.creation_date_latest ?? Infinity) <= -1],
		[
			'cc0&has_image=1&type=Print',
			(a) => a.share_license_status === 'CC0' && !!a.images?.web && a.type === 'Print',
		],
		['q=harbor', (a) => /harbor/i.test(`${a.title} ${a.tombstone}`)],
		['artists=hale', (a) => a.creators.some((c) => /hale/i.test(c.description))],
		['type=Nothing%20Like%20This', () => false],
	])('filter %s', async (query, keep) => {
		const wanted = CMA_ALL.filter(keep);
		const body = await list(`${query}&limit=1000`);
		expect(body.info.total).toBe(wanted.length);
		expect(body.data.map((a) => a.id)).toEqual(wanted.slice(0, 1000).map((a) => a.id));
	});

	test('departments: both spellings of the Indian and South(-)East Asian department find the same works', async () => {
		const a = await list(`department=${encodeURIComponent('Indian and Southeast Asian Art')}`);
		const b = await list(`department=${encodeURIComponent('Indian and South East Asian Art')}`);
		expect(a.info.total).toBeGreaterThan(0);
		expect(b.data).toEqual(a.data);
	});

	test('parameters are echoed: skip and limit as integers, flags as sent; the legacy form only what was sent', async () => {
		const body = await list('african_american_artists&cc0=1&limit=2');
		expect(body.info.parameters).toEqual({
			skip: 0,
			limit: 2,
			african_american_artists: '',
			black_american_artists: '',
			cc0: '1',
		});
		cma.setMode({ parameterEcho: 'legacy' });
		expect((await list('cc0=1&limit=2&skip=0')).info.parameters).toEqual({
			cc0: '1',
			limit: '2',
			skip: '0',
		});
	});

	test('fields, indent, sort ignored, orderby=id finds nothing, bad numbers 400', async () => {
		const picked = await list('limit=2&fields=id,title,images');
		expect(Object.keys(picked.data[0])).toEqual(['id', 'title', 'images']);
		const pretty = await get(`${cma.apiUrl}/artworks/?limit=1&indent=2`);
		expect(pretty.text).toMatch(/^\{\n {2}"info": \{\n {4}"total"/);
		const sorted = await list('limit=5&sort=title');
		expect(sorted.data.map((a) => a.id)).toEqual(CMA_ALL.slice(0, 5).map((a) => a.id));
		expect((await list('orderby=id')).info.total).toBe(0);
		for (const q of ['limit=abc', 'skip=-1', 'created_after=1900s']) {
			const res = await get(`${cma.apiUrl}/artworks/?${q}`);
			expect(res.status).toBe(400);
			expect(res.json()).toHaveProperty('detail');
		}
	});
});

// ================================================================ real records

(hasAicData() && hasClevelandData() ? describe : describe.skip)(
	`the real AIC and Cleveland records of ${SHARED_DATA_DIR} (skipped when absent)`,
	() => {
		let aicReal: AicArtwork[];
		let cmaReal: ClevelandArtwork[];
		beforeAll(() => {
			aicReal = loadAicArtworks({ source: 'real' });
			cmaReal = loadClevelandArtworks({ source: 'real' });
		});
		const aic = useServer(() => startAicServer());
		const cma = useServer(() => startClevelandServer());

		test('the AIC stand-in serves them by default; narrow masters refuse 843', async () => {
			expect(aic.artworks.map((a) => a.id)).toEqual(aicReal.map((a) => a.id));
			const search = await get(
				`${aic.apiUrl}/artworks/search?query[term][is_public_domain]=true&limit=0`,
			);
			expect(search.json<SearchPage>().pagination.total).toBe(
				aicReal.filter((a) => a.is_public_domain).length,
			);
			for (const a of aicReal.filter((x) => x.image_id && x.thumbnail)) {
				const res = await get(`${aic.iiifUrl}/${a.image_id}/full/843,/0/default.jpg`);
				expect(res.status).toBe(a.thumbnail!.width >= 843 ? 200 : 403);
			}
			const detail = await get(`${aic.apiUrl}/artworks/${aicReal[0].id}`);
			expect(detail.json<{ data: AicArtwork }>().data.title).toBe(aicReal[0].title);
		});

		test('the Cleveland stand-in: one default page, CC0 images on the loopback, departments split the total', async () => {
			const body = (await get(`${cma.apiUrl}/artworks/`)).json<CmaList>();
			expect(body.info.total).toBe(cmaReal.length);
			expect(body.data).toHaveLength(Math.min(1000, cmaReal.length));
			const cc0 = cmaReal.filter((a) => a.share_license_status === 'CC0');
			expect((await get(`${cma.apiUrl}/artworks/?cc0&limit=1`)).json<CmaList>().info.total).toBe(
				cc0.length,
			);
			const withImage = body.data.filter((a) => a.images && 'web' in a.images);
			expect(withImage.map((a) => a.id)).toEqual(
				cmaReal.filter((a) => a.images && 'web' in a.images).map((a) => a.id),
			);
			for (const a of withImage) {
				expect(a.images!.web!.url.startsWith(cma.cdnUrl)).toBe(true);
				const res = await get(a.images!.web!.url);
				expect(jpegSize(res.bytes)?.width).toBe(Number(a.images!.web!.width));
			}
			let sum = 0;
			for (const d of new Set(cmaReal.map((a) => a.department)))
				sum += (
					await get(`${cma.apiUrl}/artworks/?limit=0&department=${encodeURIComponent(d)}`)
				).json<CmaList>().info.total;
			expect(sum).toBe(cmaReal.length);
			const acc = cmaReal[0].accession_number;
			expect(
				(await get(`${cma.apiUrl}/artworks/${acc}`)).json<{ data: ClevelandArtwork }>().data.id,
			).toBe(cmaReal[0].id);
		});
	},
);
