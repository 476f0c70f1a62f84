/** What the stand-ins promise beyond what the node tests show through the nodes. */
import { useServer } from '../harness/engine';
import {
	MuseumRecord,
	COLOR_DISTANCE,
	parseHex,
	PNG_SIGNATURE,
	QuoteTag,
	generateMuseumRecords,
	hasSharedData,
	loadMuseumRecords,
	loadQuoteTags,
	startImageHost,
	startMuseumServer,
	startQuotesServer,
	startTriggerServer,
	SHARED_DATA_DIR,
} from './index';

const KEY = 'test-key-123';
const auth = { authorization: `Bearer ${KEY}` };

interface Info {
	totalrecords: number;
	totalrecordsperquery: number;
	pages: number;
	page: number;
	next?: string;
	prev?: string;
}
interface Page {
	status: string;
	data: { info: Info; records: Array<Record<string, unknown>> };
	message: string;
}

async function get(url: string, headers: Record<string, string> = auth) {
	const res = await fetch(url, { headers });
	const text = await res.text();
	const body: unknown = /^[[{]/.test(text) ? JSON.parse(text) : undefined;
	return { res, text, body };
}
const getPage = async (url: string) => (await get(url)).body as Page;

/** Follow info.next links from `url`; returns all records seen (with repeats) and the number of pages fetched. */
async function crawl(url: string, maxPages = 50) {
	const seen: Array<Record<string, unknown>> = [];
	let next: string | undefined = url;
	let pages = 0;
	while (next && pages < maxPages) {
		const page: Page = await getPage(next);
		seen.push(...page.data.records);
		next = page.data.info.next;
		pages++;
	}
	return { seen, pages, exhausted: !next };
}

const fixtures = loadMuseumRecords({ source: 'fixture' });

describe('museum server (fixture records)', () => {
	const images = useServer(() => startImageHost());
	const museum = useServer(() =>
		startMuseumServer({ records: fixtures, imageBaseUrl: images.url }),
	);

	test('fixture has about 30 varied records', () => {
		expect(fixtures.length).toBeGreaterThanOrEqual(28);
		expect(new Set(fixtures.map((r) => r.classification)).size).toBeGreaterThanOrEqual(5);
		expect(fixtures.some((r) => r.imagecount === 0)).toBe(true);
	});

	test('requires the Bearer key', async () => {
		for (const headers of [{}, { authorization: 'Bearer nope' }, { authorization: KEY }] as Array<
			Record<string, string>
		>) {
			const { res, body } = await get(`${museum.url}/object`, headers);
			expect(res.status).toBe(401);
			expect(body).toEqual({ status: 'fail', data: null, message: 'Invalid API key' });
		}
		expect((await get(`${museum.url}/object`)).res.status).toBe(200);
		museum.setMode({ unauthorizedAlways: true });
		expect((await get(`${museum.url}/object`)).res.status).toBe(401);
		expect(museum.requests).toHaveLength(5);
		expect(museum.requests[0]).toMatchObject({ method: 'GET', path: '/object', body: '' });
	});

	test('pages with absolute info.next/info.prev and Content-Length', async () => {
		const { res, body } = await get(`${museum.url}/object?limit=10&q=`);
		expect(res.headers.get('content-length')).toBeTruthy();
		const page = body as Page;
		expect(page.status).toBe('success');
		expect(page.message).toBe('OK');
		expect(page.data.info).toMatchObject({
			totalrecords: fixtures.length,
			totalrecordsperquery: 10,
			pages: Math.ceil(fixtures.length / 10),
			page: 1,
		});
		expect(page.data.info.prev).toBeUndefined();
		expect(page.data.info.next).toBe(`${museum.url}/object?limit=10&q=&page=2`);
		const second = await getPage(page.data.info.next as string);
		expect(second.data.info.prev).toBe(`${museum.url}/object?limit=10&q=&page=1`);
		const { seen, pages, exhausted } = await crawl(`${museum.url}/object?size=10`);
		expect(exhausted).toBe(true);
		expect(pages).toBe(Math.ceil(fixtures.length / 10));
		expect(seen.map((r) => r.objectid)).toEqual(fixtures.map((r) => r.objectid));
		const beyond = await getPage(`${museum.url}/object?page=99`);
		expect(beyond.data.records).toEqual([]);
		expect(beyond.data.info.next).toBeUndefined();
	});

	test('empty result looks like Harvard (pages 0, page 0)', async () => {
		const page = await getPage(`${museum.url}/object?q=zzzzzz`);
		expect(page.data.info).toMatchObject({ totalrecords: 0, pages: 0, page: 0 });
		expect(page.data.records).toEqual([]);
	});

	test.each(['abc', '-1', '2.5', '0', '1e3'])('limit=%s is a 400', async (limit) => {
		const { res, body } = await get(`${museum.url}/object?limit=${limit}`);
		expect(res.status).toBe(400);
		expect(body).toMatchObject({ status: 'fail', message: 'limit must be a positive integer' });
	});

	test('page=0 is a 400; limit is clamped to 100', async () => {
		expect((await get(`${museum.url}/object?page=0`)).res.status).toBe(400);
		const big = await startMuseumServer({ records: generateMuseumRecords(250) });
		try {
			const page = await getPage(`${big.url}/object?limit=1000`);
			expect(page.data.records).toHaveLength(100);
			expect(page.data.info).toMatchObject({
				totalrecords: 250,
				pages: 3,
				totalrecordsperquery: 100,
			});
		} finally {
			await big.close();
		}
	});

	test('q: all terms, case-insensitive, over title/people/classification/culture/medium/period', async () => {
		const hokusai = await getPage(`${museum.url}/object?q=${encodeURIComponent('HOKUSAI wave')}`);
		expect(hokusai.data.records.map((r) => r.title)).toEqual([
			'Under the Wave off Kanagawa (Kanagawa oki nami ura)',
		]);
		const edo = await getPage(`${museum.url}/object?q=edo&limit=100`);
		expect(edo.data.records.length).toBe(fixtures.filter((r) => r.period === 'Edo period').length);
		const bronze = await getPage(`${museum.url}/object?q=bronze`);
		expect(bronze.data.records.every((r) => r.medium === 'Bronze')).toBe(true);
	});

	test('person, classification (| = OR, whole value), period', async () => {
		const cassatt = await getPage(`${museum.url}/object?person=cassatt`);
		expect(cassatt.data.info.totalrecords).toBe(2);
		const cls = await getPage(
			`${museum.url}/object?classification=${encodeURIComponent('sculpture|VESSELS')}&limit=100`,
		);
		expect(new Set(cls.data.records.map((r) => r.classification))).toEqual(
			new Set(['Sculpture', 'Vessels']),
		);
		const print = await getPage(`${museum.url}/object?classification=print`); // equality, not substring
		expect(print.data.info.totalrecords).toBe(0);
		const period = await getPage(
			`${museum.url}/object?period=${encodeURIComponent('edo period')}&limit=100`,
		);
		expect(period.data.records.every((r) => r.period === 'Edo period')).toBe(true);
		expect(period.data.info.totalrecords).toBe(3);
	});

	// the node test compares one normalised colour with the fixtures; these are the forms the service itself accepts
	test('color: without "#", several joined by |; a name is a 400', async () => {
		const near = (target: string) => (r: Record<string, unknown>) =>
			(r.colors as Array<{ color: string }>).some((c) => {
				const [a, b] = [parseHex(c.color) as number[], parseHex(target) as number[]];
				return Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]) <= COLOR_DISTANCE;
			});
		const bare = await getPage(`${museum.url}/object?color=b4b450&limit=100`);
		expect(bare.data.info.totalrecords).toBe(fixtures.filter(near('b4b450')).length);
		const either = await getPage(`${museum.url}/object?color=%23afaf4b%7C%23fafafa&limit=100`);
		expect(either.data.info.totalrecords).toBe(
			fixtures.filter((r) => near('#afaf4b')(r) || near('#fafafa')(r)).length,
		);
		expect((await get(`${museum.url}/object?color=red`)).res.status).toBe(400);
	});

	test('sort/sortorder (nulls last)', async () => {
		const desc = await getPage(
			`${museum.url}/object?sort=datebegin&sortorder=desc&limit=100&fields=datebegin`,
		);
		const years = desc.data.records.map((r) => r.datebegin as number | null);
		const nonNull = years.filter((y): y is number => y !== null);
		expect(nonNull).toEqual([...nonNull].sort((a, b) => b - a));
		expect(years[years.length - 1]).toBeNull();
		const asc = await getPage(`${museum.url}/object?sort=title&limit=2&fields=title`);
		expect(asc.data.records[0].title).toBe('Boys in a Dory');
	});

	test('image URLs point at the image host (none without one) and alternate .jpg/.png by id parity', async () => {
		const page = await getPage(`${museum.url}/object?hasimage=1&limit=100`);
		for (const r of page.data.records) {
			const ext = (r.objectid as number) % 2 === 0 ? 'jpg' : 'png';
			expect(r.primaryimageurl).toBe(`${images.url}/images/${r.objectid}.${ext}`);
			expect((r.images as Array<{ baseimageurl: string }>)[0].baseimageurl).toBe(r.primaryimageurl);
		}
		const two = page.data.records.find((r) => r.imagecount === 2) as Record<string, unknown>;
		expect((two.images as Array<{ baseimageurl: string }>)[1].baseimageurl).toMatch(
			/\/images\/\d+-1\.(jpg|png)$/,
		);
		const plain = await startMuseumServer({ records: fixtures });
		try {
			const p = await getPage(`${plain.url}/object?hasimage=1&limit=100`);
			expect(p.data.records.every((r) => r.primaryimageurl === null)).toBe(true);
		} finally {
			await plain.close();
		}
	});

	test('hugePage ignores limit and cap; generated records are deterministic', async () => {
		const records = generateMuseumRecords(700);
		expect(generateMuseumRecords(3)).toEqual(records.slice(0, 3));
		const big = await startMuseumServer({ records, hugePageSize: 500 });
		try {
			big.setMode({ hugePage: true });
			const page = await getPage(`${big.url}/object?limit=10`);
			expect(page.data.records).toHaveLength(500);
			expect(page.data.info.next).toBeDefined();
		} finally {
			await big.close();
		}
	});

	test('echoHeaders fault and mode leak every header, Authorization included; unknown path is a JSON 404', async () => {
		const nf = await get(`${museum.url}/nope`);
		expect([nf.res.status, (nf.body as Page).status]).toEqual([404, 'fail']);
		museum.fail({ kind: 'echoHeaders' });
		const a = await get(`${museum.url}/object`, { ...auth, 'x-extra': 'yes' });
		expect(a.res.status).toBe(400);
		const body = a.body as { message: string; debug: { headers: Record<string, string> } };
		expect(body.message).toContain(`Bearer ${KEY}`);
		expect(body.debug.headers.authorization).toBe(`Bearer ${KEY}`);
		expect(body.debug.headers['x-extra']).toBe('yes');
		museum.fail({ kind: 'echoHeaders', status: 500 });
		expect((await get(`${museum.url}/object`)).res.status).toBe(500);
		museum.setMode({ echoHeaders: true });
		expect((await get(`${museum.url}/object`)).text).toContain(KEY);
		expect((await get(`${museum.url}/object`)).text).toContain(KEY);
	});
});

describe('trigger server', () => {
	const trigger = useServer(() => startTriggerServer());

	const post = async (
		path: string,
		init: { body?: string; headers?: Record<string, string> } = {},
	) => {
		const res = await fetch(`${trigger.url}${path}`, {
			method: 'POST',
			headers: {
				...auth,
				...(init.body ? { 'content-type': 'application/json' } : {}),
				...init.headers,
			},
			body: init.body,
		});
		return {
			res,
			body: (await res.json()) as {
				status: string;
				data: Record<string, unknown>;
				message: string;
			},
		};
	};

	test('q and limit as query parameters; event optional', async () => {
		const { res, body } = await post('/trigger/door_open?q=hello&limit=5');
		expect(res.status).toBe(200);
		expect(body.status).toBe('success');
		expect(body.message).toBe('Fired door_open');
		expect(body.data).toMatchObject({
			event: 'door_open',
			q: 'hello',
			limit: 5,
			received: null,
			duplicate: false,
		});
		expect(body.data.id).toMatch(/^[0-9a-f-]{36}$/);
		for (const path of ['/trigger/', '/trigger']) {
			const none = await post(path);
			expect(none.body.data.event).toBe('');
			expect(none.body.message).toBe('Fired ');
		}
		expect(trigger.deliveries.map((d) => d.event)).toEqual(['door_open', '', '']);
	});

	test('q and limit in the JSON body (body wins over query)', async () => {
		const payload = { q: 'from body', limit: 3, extra: { nested: true } };
		const { body } = await post('/trigger/x?q=from-query&limit=9', {
			body: JSON.stringify(payload),
		});
		expect(body.data).toMatchObject({ q: 'from body', limit: 3, received: payload });
		expect(trigger.deliveries[0]).toMatchObject({
			event: 'x',
			q: 'from body',
			limit: 3,
			body: payload,
			query: { q: 'from-query', limit: '9' },
		});
	});

	test('event names are URL-decoded and validated', async () => {
		expect((await post(`/trigger/${encodeURIComponent('front-door.v2_ok')}`)).body.data.event).toBe(
			'front-door.v2_ok',
		);
		for (const bad of ['my%20event', 'a%2Fb', 'caf%C3%A9', '%E0%A4%A']) {
			const { res, body } = await post(`/trigger/${bad}`);
			expect(res.status).toBe(400);
			expect(body.status).toBe('fail');
		}
		expect((await post('/trigger/a/b')).res.status).toBe(404);
		expect(trigger.deliveries).toHaveLength(1);
	});

	test('auth, bad params, bad JSON, wrong method', async () => {
		expect(
			(await post('/trigger/x', { headers: { authorization: 'Bearer wrong' } })).res.status,
		).toBe(401);
		expect((await post('/trigger/x?limit=-2')).body.message).toBe(
			'limit must be a positive integer',
		);
		expect((await post('/trigger/x', { body: JSON.stringify({ limit: 1.5 }) })).res.status).toBe(
			400,
		);
		expect((await post('/trigger/x', { body: JSON.stringify({ q: 42 }) })).res.status).toBe(400);
		expect((await post('/trigger/x', { body: '{"q": "unterminated' })).res.status).toBe(400);
		const get = await fetch(`${trigger.url}/trigger/x`, { headers: auth });
		expect(get.status).toBe(405);
		expect(trigger.deliveries).toHaveLength(0);
		expect(trigger.requests).toHaveLength(6);
	});
});

describe('quotes server', () => {
	const tags = loadQuoteTags('fixture');
	const quotes = useServer(() => startQuotesServer({ tags }));
	const names = async (qs: string) =>
		((await get(`${quotes.url}/tags${qs}`, {})).body as QuoteTag[]).map((t) => t.name);

	test('bare array of all tags sorted by name, no key needed, zero-count and duplicate Work kept', async () => {
		const { res, body } = await get(`${quotes.url}/tags`, {});
		expect(res.status).toBe(200);
		const list = body as QuoteTag[];
		expect(Array.isArray(list)).toBe(true);
		expect(list).toHaveLength(tags.length);
		expect(Object.keys(list[0]).sort()).toEqual([
			'_id',
			'dateAdded',
			'dateModified',
			'name',
			'quoteCount',
			'slug',
		]);
		expect(list.map((t) => t.name)).toEqual(
			[...tags.map((t) => t.name)].sort((a, b) => a.localeCompare(b)),
		);
		expect(list.filter((t) => t.name === 'Work')).toHaveLength(2);
		expect(list.some((t) => t.quoteCount === 0)).toBe(true);
	});

	test('q: normalised, prefix matches first, then substring', async () => {
		for (const q of ['famous-quotes', 'famous quotes', 'FAMOUS_QUOTES', 'famousQuotes'])
			expect(await names(`?q=${encodeURIComponent(q)}`)).toEqual(['Famous Quotes']);
		expect(await names('?q=quotes')).toEqual(['Famous Quotes', 'Power Quotes']);
		expect(await names('?q=self')).toEqual(['Self', 'Self Help']);
		const s = await names('?q=s');
		expect(s.slice(0, 5)).toEqual(['Self', 'Self Help', 'Social Justice', 'Sports', 'Success']);
		expect(s).toContain('Famous Quotes');
		expect(await names('?q=hum&limit=1')).toEqual(['Humor']);
		expect(await names('?q=zzz')).toEqual([]);
	});

	test('limit, sortBy, order/sortOrder', async () => {
		expect(await names('?limit=2')).toEqual(['Athletics', 'Famous Quotes']);
		expect((await names('?sortBy=quoteCount')).slice(0, 2)).toEqual(['Famous Quotes', 'Wisdom']);
		expect((await names('?sortBy=quoteCount&order=asc')).slice(0, 2)).toEqual([
			'Athletics',
			'Humor',
		]);
		expect((await names('?sortBy=name&sortOrder=desc')).slice(0, 1)).toEqual(['Work']);
		expect(await names('?sortBy=dateAdded&limit=1')).toEqual(['Athletics']);
		expect(await names('?sortBy=bogus&limit=1')).toEqual(['Athletics']);
		const bad = await get(`${quotes.url}/tags?limit=x`, {});
		expect([bad.res.status, (bad.body as { message: string }).message]).toEqual([
			400,
			'limit must be a positive integer',
		]);
		const nf = await get(`${quotes.url}/quotes`, {});
		expect([nf.res.status, nf.body]).toEqual([
			404,
			{ statusCode: 404, statusMessage: 'Not Found' },
		]);
	});

	test('envelope and requireKey options', async () => {
		const env = await startQuotesServer({ tags, envelope: true, requireKey: true });
		try {
			expect((await get(`${env.url}/tags`, {})).res.status).toBe(401);
			const { body } = await get(`${env.url}/tags?limit=3`);
			expect(body).toMatchObject({ status: 'success', message: 'OK' });
			expect((body as { data: unknown[] }).data).toHaveLength(3);
		} finally {
			await env.close();
		}
	});
});

describe('image host', () => {
	const host = useServer(() => startImageHost({ hugeBytes: 2 * 1024 * 1024 }));
	const bytes = async (path: string, headers: Record<string, string> = {}) => {
		const res = await fetch(`${host.url}${path}`, { headers });
		return { res, buf: Buffer.from(await res.arrayBuffer()) };
	};

	test('PNG: signature, IHDR 8x8 RGB, Content-Length', async () => {
		const { res, buf } = await bytes('/images/12345.png');
		expect(res.headers.get('content-type')).toBe('image/png');
		expect(Number(res.headers.get('content-length'))).toBe(buf.length);
		expect(buf.subarray(0, 8)).toEqual(PNG_SIGNATURE);
		expect(buf.toString('ascii', 12, 16)).toBe('IHDR');
		expect([buf.readUInt32BE(16), buf.readUInt32BE(20), buf[24], buf[25]]).toEqual([8, 8, 8, 2]);
		expect(buf.toString('ascii', buf.length - 8, buf.length - 4)).toBe('IEND');
		const again = await bytes('/images/12345.png');
		expect(again.buf).toEqual(buf); // deterministic
		expect((await bytes('/images/12347.png')).buf).not.toEqual(buf);
	});

	test('JPEG: SOI/EOI markers, baseline SOF0', async () => {
		for (const path of ['/images/228563-1.jpg', '/images/42.jpeg']) {
			const { res, buf } = await bytes(path);
			expect(res.headers.get('content-type')).toBe('image/jpeg');
			expect([buf[0], buf[1]]).toEqual([0xff, 0xd8]);
			expect([buf[buf.length - 2], buf[buf.length - 1]]).toEqual([0xff, 0xd9]);
			expect(buf.includes(Buffer.from([0xff, 0xc0]))).toBe(true);
		}
	});

	test('authorizationSeen', async () => {
		await bytes('/images/1.png');
		expect(host.authorizationSeen).toBe(false);
		await bytes('/images/1.png', { authorization: 'Bearer x' });
		expect(host.authorizationSeen).toBe(true);
		host.reset();
		expect(host.authorizationSeen).toBe(false);
		await bytes('/images/1.png?apikey=k');
		expect(host.authorizationSeen).toBe(true);
	});
});

(hasSharedData() ? describe : describe.skip)(
	`real open data from ${SHARED_DATA_DIR} (skipped when absent)`,
	() => {
		let all: MuseumRecord[];
		let loadMs = 0;
		beforeAll(() => {
			const t0 = Date.now();
			all = loadMuseumRecords({ source: 'real' });
			loadMs = Date.now() - t0;
			console.info(`[servers.test] loaded ${all.length} Tate+CMOA records in ${loadMs} ms`);
		});

		test('loads all Tate + CMOA records once, then from the cache', () => {
			expect(all.filter((r) => r.source === 'tate')).toHaveLength(69_202);
			expect(all.filter((r) => r.source === 'cmoa')).toHaveLength(28_258);
			expect(new Set(all.map((r) => r.objectid)).size).toBe(all.length);
			const t0 = Date.now();
			expect(loadMuseumRecords({ source: 'real' })).toHaveLength(all.length);
			// a ratio, not a time: the cache must spare the parse whatever the machine's load
			expect(Date.now() - t0).toBeLessThanOrEqual(loadMs / 10);
			expect(
				loadMuseumRecords({ source: 'real', max: 5, collections: ['cmoa'] }).map((r) => r.objectid),
			).toEqual([10_000_000, 10_000_001, 10_000_002, 10_000_003, 10_000_004]);
		});

		test('Harvard-style mapping', () => {
			const tate = all.find(
				(r) => r.source === 'tate' && r.period !== null && r.imagecount > 1,
			) as MuseumRecord;
			expect(tate).toBeDefined();
			expect(typeof tate.objectid).toBe('number');
			expect(tate.id).toBe(tate.objectid);
			expect(tate.people[0]).toMatchObject({
				personid: expect.any(Number),
				name: expect.any(String),
				role: expect.any(String),
				displayorder: 1,
			});
			expect(tate.century).toMatch(/^\d+(st|nd|rd|th) century$/);
			const classes = new Set(all.map((r) => r.classification));
			for (const c of ['Paintings', 'Prints', 'Drawings', 'Sculpture', 'Photographs'])
				expect(classes.has(c)).toBe(true);
			expect([...classes].every((c) => c === null || /^[A-Z]/.test(c))).toBe(true);
			const cmoa = all.filter((r) => r.source === 'cmoa');
			expect(cmoa.every((r) => r.objectid >= 10_000_000 && typeof r.guid === 'string')).toBe(true);
			expect(cmoa.some((r) => r.datebegin !== null && r.datebegin < 0)).toBe(true);
			expect(cmoa.filter((r) => r.imagecount === 0).length).toBeGreaterThan(5000);
			expect(
				all.every(
					(r) => r.primaryimageurl === null && r.images.every((i) => i.baseimageurl === null),
				),
			).toBe(true);
			expect(
				all.every(
					(r) =>
						r.colors.length >= 1 &&
						r.colors.length <= 3 &&
						r.colors.every((c) => /^#(00|19|32|4b|64|7d|96|af|c8|e1|fa){3}$/.test(c.color)),
				),
			).toBe(true);
			const turner = all.filter((r) =>
				r.people.some((p) => p.name === 'Joseph Mallord William Turner'),
			);
			expect(turner.length).toBeGreaterThan(30_000);
		});

		test('museum server over all records: search, filters and deep paging', async () => {
			const images = await startImageHost();
			const t0 = Date.now();
			const museum = await startMuseumServer({ records: all, imageBaseUrl: images.url });
			const startMs = Date.now() - t0;
			try {
				const t1 = Date.now();
				const q = await getPage(`${museum.url}/object?q=turner&classification=Paintings&limit=5`);
				expect(q.data.info.totalrecords).toBeGreaterThan(100);
				expect(q.data.records[0].primaryimageurl).toMatch(
					new RegExp(`^${images.url}/images/\\d+\\.(jpg|png)$`),
				);
				const deep = await getPage(`${museum.url}/object?limit=100&page=900`);
				expect(deep.data.info).toMatchObject({ totalrecords: all.length, page: 900 });
				const colour = await getPage(
					`${museum.url}/object?color=%23afaf4b&sort=datebegin&sortorder=desc`,
				);
				expect(colour.data.info.totalrecords).toBeGreaterThan(1000);
				const period = await getPage(
					`${museum.url}/object?period=${encodeURIComponent('Pre-Raphaelite Brotherhood|St Ives School')}`,
				);
				expect(period.data.info.totalrecords).toBeGreaterThan(100);
				console.info(
					`[servers.test] museum over ${all.length} records: index ${startMs} ms, 4 queries ${Date.now() - t1} ms`,
				);
			} finally {
				await museum.close();
				await images.close();
			}
		});

		test('real Quotable tags: 67 docs, counts computed from quotes', () => {
			const tags = loadQuoteTags('real');
			expect(tags).toHaveLength(67);
			const count = (name: string) => tags.filter((t) => t.name === name).map((t) => t.quoteCount);
			expect(count('Famous Quotes')).toEqual([1090]);
			expect(count('Wisdom')).toEqual([550]);
			expect(count('Success')).toEqual([82]);
			expect(count('Work')).toEqual([3, 3]);
			expect(
				tags
					.filter((t) => t.quoteCount === 0)
					.map((t) => t.name)
					.sort(),
			).toEqual(['Athletics', 'Humor', 'Proverb']);
			expect(tags.find((t) => t.name === 'Self Help')?.slug).toBe('self-help');
			expect(
				tags.every((t) => /^\d{4}-\d{2}-\d{2}$/.test(t.dateAdded) && t.dateAdded <= t.dateModified),
			).toBe(true);
		});
	},
);
