/** What the stand-ins promise beyond what the node tests show through the nodes. */
import { useServer } from '../harness/engine';
import {
	COLOR_DISTANCE,
	DEFAULT_API_KEY,
	type MuseumRecord,
	type QuoteTag,
	SHARED_DATA_DIR,
	generateMuseumRecords,
	hasSharedData,
	loadMuseumRecords,
	loadQuoteTags,
	parseHex,
	startImageHost,
	startMuseumServer,
	startQuotesServer,
	startTriggerServer,
} from './index';

const KEY = DEFAULT_API_KEY;
const auth = { authorization: `Bearer ${KEY}` };
const IMAGES = 'http://127.0.0.1:9/img';

async function get(url: string, init: RequestInit = { headers: auth }) {
	const res = await fetch(url, init);
	const text = await res.text();
	return { status: res.status, body: (/^[[{]/.test(text) ? JSON.parse(text) : text) as unknown };
}
interface Page {
	data: { info: Record<string, unknown>; records: Array<Record<string, unknown>> };
}
const getPage = async (url: string) => (await get(url)).body as Page;

const fixtures = loadMuseumRecords({ source: 'fixture' });
const tags = loadQuoteTags('fixture');

test('the fixtures are varied enough for the node tests to mean something', () => {
	expect(fixtures.length).toBeGreaterThanOrEqual(28);
	expect(new Set(fixtures.map((r) => r.classification)).size).toBeGreaterThanOrEqual(5);
	expect(fixtures.some((r) => r.imagecount === 0)).toBe(true);
	// Quotable's quirks: a tag twice, tags without quotes
	expect(tags.filter((t) => t.name === 'Work')).toHaveLength(2);
	expect(tags.some((t) => t.quoteCount === 0)).toBe(true);
	// generated records are deterministic: a longer run starts with a shorter one
	expect(generateMuseumRecords(3)).toEqual(generateMuseumRecords(700).slice(0, 3));
});

describe('museum server', () => {
	const museum = useServer(() => startMuseumServer({ records: fixtures, imageBaseUrl: IMAGES }));
	const big = useServer(() => startMuseumServer({ records: generateMuseumRecords(250) }));

	test.each<Record<string, string>>([{}, { authorization: KEY }])(
		'Authorization %j is a 401 envelope',
		async (headers) => {
			expect(await get(`${museum.url}/object`, { headers })).toEqual({
				status: 401,
				body: { status: 'fail', data: null, message: 'Invalid API key' },
			});
		},
	);

	test('info: totals and absolute next/prev links keeping the query; size is limit', async () => {
		const page = await getPage(`${museum.url}/object?size=10&q=&page=2`);
		expect(page.data.info).toMatchObject({
			totalrecords: fixtures.length,
			totalrecordsperquery: 10,
			pages: Math.ceil(fixtures.length / 10),
			page: 2,
			next: `${museum.url}/object?size=10&q=&page=3`,
			prev: `${museum.url}/object?size=10&q=&page=1`,
		});
		expect((await getPage(`${museum.url}/object`)).data.info.prev).toBeUndefined();
		const beyond = await getPage(`${museum.url}/object?page=99`);
		expect([beyond.data.records, beyond.data.info.next]).toEqual([[], undefined]);
		// no match looks like Harvard's: pages 0, page 0
		expect((await getPage(`${museum.url}/object?q=zzzzzz`)).data).toMatchObject({
			info: { totalrecords: 0, pages: 0, page: 0 },
			records: [],
		});
	});

	test('limit is capped at 100', async () => {
		const page = await getPage(`${big.url}/object?limit=1000`);
		expect(page.data.records).toHaveLength(100);
		expect(page.data.info).toMatchObject({
			totalrecords: 250,
			pages: 3,
			totalrecordsperquery: 100,
		});
	});

	test.each([
		['/object?limit=abc', 400, 'limit must be a positive integer'],
		['/object?limit=-1', 400, 'limit must be a positive integer'],
		['/object?limit=2.5', 400, 'limit must be a positive integer'],
		['/object?limit=0', 400, 'limit must be a positive integer'],
		['/object?limit=1e3', 400, 'limit must be a positive integer'],
		['/object?page=0', 400, 'page must be a positive integer'],
		['/object?color=red', 400, 'color must be a hex color like #afaf4b'],
		['/nope', 404, 'Not found: /nope'],
	])('%s is a %i', async (path, status, message) => {
		expect(await get(`${museum.url}${path}`)).toEqual({
			status,
			body: { status: 'fail', data: null, message },
		});
	});

	const near = (...hexes: string[]) => {
		const targets = hexes.map((h) => parseHex(h)!);
		return (r: MuseumRecord) =>
			r.colors.some((c) => {
				const a = parseHex(c.color)!;
				return targets.some(
					(b) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]) <= COLOR_DISTANCE,
				);
			});
	};
	const WAVE = 'Under the Wave off Kanagawa (Kanagawa oki nami ura)';
	test.each<[string, (r: MuseumRecord) => boolean, number]>([
		// q: every term, case-insensitive, over title, people, classification, culture, medium and period
		['q=HOKUSAI%20wave', (r) => r.title === WAVE, 1],
		['q=edo', (r) => r.period === 'Edo period', 3],
		['q=bronze', (r) => r.medium === 'Bronze', 1],
		['person=cassatt', (r) => r.people.some((p) => /Cassatt/.test(p.name)), 2],
		// classification and period: the whole value, | = or
		[
			'classification=sculpture%7CVESSELS',
			(r) => /^(Sculpture|Vessels)$/.test(`${r.classification}`),
			4,
		],
		['classification=print', () => false, 0],
		['period=edo%20period', (r) => r.period === 'Edo period', 3],
		// color: without "#", several joined by |
		['color=b4b450', near('#b4b450'), 5],
		['color=%23afaf4b%7C%23fafafa', near('#afaf4b', '#fafafa'), 8],
	])('%s', async (query, match, count) => {
		const page = await getPage(`${museum.url}/object?limit=100&fields=objectid&${query}`);
		const expected = fixtures.filter(match).map((r) => r.objectid);
		expect(expected).toHaveLength(count);
		expect(page.data.records.map((r) => r.objectid)).toEqual(expected);
	});

	test('sort and sortorder, nulls last', async () => {
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

	test('a second image is <id>-1 on the image host; without an image host URLs are null', async () => {
		const page = await getPage(`${museum.url}/object?limit=100`);
		const two = page.data.records.find((r) => r.imagecount === 2)!;
		const ext = (two.objectid as number) % 2 ? 'png' : 'jpg';
		expect((two.images as Array<{ baseimageurl: string }>).map((i) => i.baseimageurl)).toEqual([
			`${IMAGES}/images/${two.objectid}.${ext}`,
			`${IMAGES}/images/${two.objectid}-1.${ext}`,
		]);
		const plain = (await getPage(`${big.url}/object?hasimage=1`)).data.records;
		expect(plain.length).toBeGreaterThan(0);
		for (const r of plain as unknown as MuseumRecord[]) {
			expect(r.primaryimageurl).toBeNull();
			expect(r.images.every((i) => i.baseimageurl === null)).toBe(true);
		}
	});
});

describe('trigger server', () => {
	const trigger = useServer(() => startTriggerServer());
	const post = async (path: string, init: RequestInit = {}) =>
		await get(`${trigger.url}${path}`, {
			method: 'POST',
			...init,
			headers: { ...auth, 'content-type': 'application/json', ...init.headers },
		});

	test('without a body nothing was received; /trigger without a slash is the empty event', async () => {
		expect((await post('/trigger/door_open')).body).toMatchObject({ data: { received: null } });
		expect((await post('/trigger')).body).toMatchObject({ data: { event: '' }, message: 'Fired ' });
	});

	test('q and limit in the JSON body win over the query', async () => {
		const payload = { q: 'from body', limit: 3, extra: { nested: true } };
		await post('/trigger/x?q=from-query&limit=9', { body: JSON.stringify(payload) });
		const query = { q: 'from-query', limit: '9' };
		expect(trigger.deliveries).toMatchObject([{ q: 'from body', limit: 3, body: payload, query }]);
	});

	test.each<[string, RequestInit, number]>([
		['/trigger/my%20event', {}, 400],
		['/trigger/a%2Fb', {}, 400],
		['/trigger/caf%C3%A9', {}, 400],
		['/trigger/%E0%A4%A', {}, 400],
		['/trigger/a/b', {}, 404],
		['/trigger/x?limit=-2', {}, 400],
		['/trigger/x', { body: '{"limit": 1.5}' }, 400],
		['/trigger/x', { body: '{"q": 42}' }, 400],
		['/trigger/x', { body: '{"q": "unterminated' }, 400],
		['/trigger/x', { headers: { authorization: 'Bearer wrong' } }, 401],
		['/trigger/x', { method: 'GET' }, 405],
	])('%s %j: %i, a fail envelope, no delivery', async (path, init, status) => {
		expect(await post(path, init)).toMatchObject({ status, body: { status: 'fail', data: null } });
		expect(trigger.deliveries).toHaveLength(0);
	});
});

describe('quotes server', () => {
	const quotes = useServer(() => startQuotesServer({ tags }));

	test.each([
		// q: normalised; prefix matches first, then the others
		['?q=famous-quotes', ['Famous Quotes']],
		['?q=famous%20quotes', ['Famous Quotes']],
		['?q=FAMOUS_QUOTES', ['Famous Quotes']],
		['?q=famousQuotes', ['Famous Quotes']],
		['?q=quotes', ['Famous Quotes', 'Power Quotes']],
		['?q=s&limit=5', ['Self', 'Self Help', 'Social Justice', 'Sports', 'Success']],
		['?q=hum&limit=1', ['Humor']],
		['?q=zzz', []],
		// sortBy: name ascending by default, the others descending; order or sortOrder
		['?limit=2', ['Athletics', 'Famous Quotes']],
		['?sortBy=quoteCount&limit=2', ['Famous Quotes', 'Wisdom']],
		['?sortBy=quoteCount&order=asc&limit=2', ['Athletics', 'Humor']],
		['?sortBy=name&sortOrder=desc&limit=1', ['Work']],
		['?sortBy=dateAdded&limit=1', ['Athletics']],
		['?sortBy=bogus&limit=1', ['Athletics']],
	])('/tags%s', async (query, names) => {
		const { body } = await get(`${quotes.url}/tags${query}`, {});
		expect((body as QuoteTag[]).map((t) => t.name)).toEqual(names);
	});

	test("a bad limit is a 400; another path is Quotable's 404", async () => {
		expect(await get(`${quotes.url}/tags?limit=x`, {})).toMatchObject({
			status: 400,
			body: { message: 'limit must be a positive integer' },
		});
		expect(await get(`${quotes.url}/quotes`, {})).toEqual({
			status: 404,
			body: { statusCode: 404, statusMessage: 'Not Found' },
		});
	});
});

describe('image host', () => {
	const host = useServer(() => startImageHost());
	const bytes = async (path: string, headers: Record<string, string> = {}) => {
		const res = await fetch(`${host.url}${path}`, { headers });
		return { type: res.headers.get('content-type'), buf: Buffer.from(await res.arrayBuffer()) };
	};

	test('PNG: 8x8 RGB, coloured by id', async () => {
		const { type, buf } = await bytes('/images/12345.png');
		expect(type).toBe('image/png');
		const ihdr = [buf.toString('ascii', 12, 16), buf.readUInt32BE(16), buf.readUInt32BE(20)];
		expect([...ihdr, buf[24], buf[25]]).toEqual(['IHDR', 8, 8, 8, 2]);
		expect((await bytes('/images/12347.png')).buf).not.toEqual(buf);
	});

	test('JPEG: baseline (SOF0), also as .jpeg, bytes of its own per image', async () => {
		const [a, b] = [await bytes('/images/228563-1.jpg'), await bytes('/images/42.jpeg')];
		for (const { type, buf } of [a, b]) {
			expect(type).toBe('image/jpeg');
			expect([buf[0], buf[1], buf[buf.length - 2], buf[buf.length - 1]]).toEqual([
				0xff, 0xd8, 0xff, 0xd9,
			]);
			expect(buf.includes(Buffer.from([0xff, 0xc0]))).toBe(true);
		}
		expect(a.buf).not.toEqual(b.buf);
	});

	test('authorizationSeen: an Authorization header or a key parameter', async () => {
		await bytes('/images/1.png');
		expect(host.authorizationSeen).toBe(false);
		for (const [path, headers] of [
			['/images/1.png', { authorization: 'Bearer x' }],
			['/images/1.png?apikey=k', {}],
		] as const) {
			host.reset();
			await bytes(path, headers);
			expect(host.authorizationSeen).toBe(true);
		}
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
			const tate = all.find((r) => r.source === 'tate' && r.period !== null && r.imagecount > 1)!;
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
			const noImageUrl = (r: MuseumRecord) =>
				r.primaryimageurl === null && r.images.every((i) => i.baseimageurl === null);
			expect(all.every(noImageUrl)).toBe(true);
			const CHANNELS = /^#(00|19|32|4b|64|7d|96|af|c8|e1|fa){3}$/;
			const palette = (r: MuseumRecord) =>
				r.colors.length >= 1 &&
				r.colors.length <= 3 &&
				r.colors.every((c) => CHANNELS.test(c.color));
			expect(all.every(palette)).toBe(true);
			const turner = all.filter((r) =>
				r.people.some((p) => p.name === 'Joseph Mallord William Turner'),
			);
			expect(turner.length).toBeGreaterThan(30_000);
		});

		test('museum server over all records: search and filters', async () => {
			const museum = await startMuseumServer({ records: all, imageBaseUrl: IMAGES });
			try {
				const total = async (query: string) =>
					(await getPage(`${museum.url}/object?${query}`)).data.info.totalrecords;
				expect(await total('q=turner&classification=Paintings')).toBeGreaterThan(100);
				expect(await total('color=%23afaf4b&sort=datebegin&sortorder=desc')).toBeGreaterThan(1000);
				const period = encodeURIComponent('Pre-Raphaelite Brotherhood|St Ives School');
				expect(await total(`period=${period}`)).toBeGreaterThan(100);
			} finally {
				await museum.close();
			}
		});

		test('real Quotable tags: 67 docs, counts computed from quotes', () => {
			const real = loadQuoteTags('real');
			expect(real).toHaveLength(67);
			const count = (name: string) => real.filter((t) => t.name === name).map((t) => t.quoteCount);
			expect(count('Famous Quotes')).toEqual([1090]);
			expect(count('Wisdom')).toEqual([550]);
			expect(count('Success')).toEqual([82]);
			expect(count('Work')).toEqual([3, 3]);
			const empty = real.filter((t) => t.quoteCount === 0).map((t) => t.name);
			expect(empty.sort()).toEqual(['Athletics', 'Humor', 'Proverb']);
			expect(real.find((t) => t.name === 'Self Help')?.slug).toBe('self-help');
			for (const t of real) {
				expect(t.dateAdded).toMatch(/^\d{4}-\d{2}-\d{2}$/);
				expect(t.dateAdded <= t.dateModified).toBe(true);
			}
		});
	},
);
