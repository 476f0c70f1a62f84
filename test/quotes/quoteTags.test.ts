/** Quote Tags through n8n's engine against the loopback quotes server. */
import type { IDataObject, IPairedItemData } from 'n8n-workflow';

import { logs, runNode, useServer } from '../harness/engine';
import { dump } from '../museum/setup';
import { DEFAULT_API_KEY, hasSharedData, loadQuoteTags, startQuotesServer } from '../servers';

const KEY = DEFAULT_API_KEY;
const FAST = { retryDelay: 5, maxRetryWait: 5 };

const server = useServer(() => startQuotesServer());
const keyed = useServer(() => startQuotesServer({ envelope: true, requireKey: true }));

const runTags = (
	params: IDataObject,
	{ credentials, ...opts }: Parameters<typeof runNode>[3] = {},
) =>
	runNode('quoteTags', 'Tags', params, {
		...opts,
		credentials: { apiKey: KEY, quotesUrl: server.url, sendKeyToQuotes: false, ...credentials },
	});

describe('field mapping', () => {
	test('Search becomes q; with Sort By the node sorts the whole list itself: neither limit nor sortBy is sent', async () => {
		const result = await runTags({
			q: 'lo',
			limit: 3,
			options: { sortBy: 'quoteCount', order: 'desc' },
		});
		expect(result.workflowError).toBeUndefined();
		expect(server.requests).toHaveLength(1);
		const req = server.requests[0];
		expect(req.method).toBe('GET');
		expect(req.path).toBe('/tags');
		expect(req.query).toEqual({ q: 'lo' });
		const expected = loadQuoteTags()
			.filter((t) => `${t.name} ${t.slug}`.toLowerCase().includes('lo'))
			.map((t) => t.quoteCount)
			.sort((a, b) => b - a)
			.slice(0, 3);
		expect(result.output('Tags').map((i) => i.json.quoteCount)).toEqual(expected);
	});

	describe('a service that ignores sorting and limit: the node sorts and cuts itself', () => {
		// 30 tags in no particular order; some counts tie, one count comes as text, one tag has none
		const tags: IDataObject[] = Array.from({ length: 30 }, (_, n) => ({
			_id: `t${n}`,
			// lower- and upper-case names mixed, in no order
			name: `${n % 2 ? 'Tag' : 'tag'} ${String.fromCharCode(97 + ((n * 7) % 26))}${String.fromCharCode(97 + (n % 26))}`,
			quoteCount: (n * 37) % 23,
			dateAdded: `20${10 + (n % 7)}-0${1 + (n % 9)}-1${n % 10}`,
		}));
		tags[5].quoteCount = '100';
		delete tags[7].quoteCount;
		const count = (t: IDataObject) =>
			t.quoteCount === undefined ? -Infinity : Number(t.quoteCount);

		test('Sort By Quote Count, Descending, Limit 10: the 10 highest counts, in order (ties in the service’s order)', async () => {
			server.fail({ kind: 'status', status: 200, body: tags });
			const result = await runTags({ limit: 10, options: { sortBy: 'quoteCount', order: 'desc' } });
			expect(result.workflowError).toBeUndefined();
			expect(server.requests).toHaveLength(1);
			expect(server.requests[0].query).toEqual({});
			const expected = tags
				.map((tag, index) => ({ tag, index }))
				.sort((a, b) => count(b.tag) - count(a.tag) || a.index - b.index)
				.slice(0, 10)
				.map((x) => x.tag);
			const out = result.output('Tags').map((i) => i.json);
			expect(out).toEqual(expected);
			expect(out[0]).toMatchObject({ _id: 't5', quoteCount: '100' }); // "100" compares as a number
			expect(out.map((t) => t._id)).not.toContain('t7'); // no count: last
		});

		test('Sort By Quote Count alone is descending; Ascending puts a tag without a count last', async () => {
			server.fail(
				{ kind: 'status', status: 200, body: tags },
				{ kind: 'status', status: 200, body: tags },
			);
			const desc = await runTags({ returnAll: true, options: { sortBy: 'quoteCount' } });
			const asc = await runTags({
				returnAll: true,
				options: { sortBy: 'quoteCount', order: 'asc' },
			});
			const counts = (result: typeof desc) => result.output('Tags').map((i) => i.json.quoteCount);
			expect(counts(desc)).toHaveLength(30);
			const d = counts(desc).map(Number);
			for (let i = 1; i < 29; i++) expect(d[i - 1]).toBeGreaterThanOrEqual(d[i]);
			const a = counts(asc);
			expect(a[29]).toBeUndefined();
			for (let i = 1; i < 29; i++) expect(Number(a[i - 1])).toBeLessThanOrEqual(Number(a[i]));
			expect(server.requests[0].query).toEqual({});
		});

		test('Sort By Name: ascending by default, case-insensitive', async () => {
			server.fail({ kind: 'status', status: 200, body: tags });
			const result = await runTags({ limit: 5, options: { sortBy: 'name' } });
			const names = result.output('Tags').map((i) => String(i.json.name));
			const expected = tags
				.map((t) => String(t.name))
				.sort((x, y) =>
					x.toLowerCase() < y.toLowerCase() ? -1 : x.toLowerCase() > y.toLowerCase() ? 1 : 0,
				)
				.slice(0, 5);
			expect(names).toEqual(expected);
			expect(names.some((n) => n.startsWith('tag '))).toBe(true);
			expect(names.some((n) => n.startsWith('Tag '))).toBe(true);
		});

		test('Sort By Date Added: newest first by default, compared as dates', async () => {
			server.fail({ kind: 'status', status: 200, body: tags });
			const result = await runTags({ returnAll: true, options: { sortBy: 'dateAdded' } });
			const times = result.output('Tags').map((i) => Date.parse(String(i.json.dateAdded)));
			expect(times).toHaveLength(30);
			for (let i = 1; i < times.length; i++) expect(times[i - 1]).toBeGreaterThanOrEqual(times[i]);
		});

		test('without Sort By or Sort Order the service’s order is kept', async () => {
			server.fail({ kind: 'status', status: 200, body: tags });
			const result = await runTags({ limit: 10 });
			expect(result.output('Tags').map((i) => i.json)).toEqual(tags.slice(0, 10));
		});
	});

	test('an empty search and Return All send neither q nor limit, and return every tag', async () => {
		const result = await runTags({ returnAll: true });
		expect(server.requests[0].query).toEqual({});
		const names = result.output('Tags').map((i) => i.json.name);
		expect(names).toHaveLength(loadQuoteTags().length);
	});

	(hasSharedData() ? test : test.skip)(
		'real Quotable data: counts computed from the quotes',
		async () => {
			const result = await runTags({ q: 'famous', returnAll: true });
			const famous = result.output('Tags').find((i) => i.json.slug === 'famous-quotes');
			expect(famous?.json).toMatchObject({ name: 'Famous Quotes', quoteCount: 1090 });
		},
	);

	test('several input items each run their own search from expressions, paired to their item', async () => {
		const result = await runTags(
			{ q: '={{ $json.term }}', limit: '={{ $json.max }}' },
			{
				items: [
					{ term: 'wis', max: 1 },
					{ term: 'self', max: 2 },
					{ term: 'zzz-none', max: 5 },
				],
			},
		);
		// the items run concurrently: one request each, in any order
		expect(
			server.requests.map((r) => r.query).sort((a, b) => Number(a.limit) - Number(b.limit)),
		).toEqual([
			{ q: 'wis', limit: '1' },
			{ q: 'self', limit: '2' },
			{ q: 'zzz-none', limit: '5' },
		]);
		const out = result.output('Tags');
		const pairedTo = (n: number) => out.filter((i) => (i.pairedItem as IPairedItemData).item === n);
		expect(pairedTo(0)).toHaveLength(1);
		expect(pairedTo(0)[0].json.name).toMatch(/wis/i);
		expect(
			pairedTo(1)
				.map((i) => i.json.name)
				.sort(),
		).toEqual(['Self', 'Self Help']);
		expect(pairedTo(2)).toHaveLength(0);
		expect(out).toHaveLength(pairedTo(0).length + pairedTo(1).length);
	});
});

describe('body shapes and the key', () => {
	test('an envelope {status, data, message} is unwrapped; the key is sent when the credentials say so', async () => {
		const result = await runTags(
			{ limit: 2 },
			{ credentials: { quotesUrl: `${keyed.url}/`, sendKeyToQuotes: true } },
		);
		expect(result.workflowError).toBeUndefined();
		expect(keyed.requests[0].headers.authorization).toBe(`Bearer ${KEY}`);
		expect(result.output('Tags')).toHaveLength(2);
		expect(result.output('Tags')[0].json).toHaveProperty('slug');
	});

	test('by default the key is not sent to the quotes service', async () => {
		await runTags({ limit: 1 });
		expect(server.requests[0].headers.authorization).toBeUndefined();
	});

	test('a service that wants a key says how to turn it on', async () => {
		const result = await runTags({ limit: 1 }, { credentials: { quotesUrl: keyed.url } });
		const error = result.error('Tags')!;
		expect(error.message).toMatch(
			/quotes service answered status "fail": Invalid API key \[item 0\]/,
		);
		expect(error.description).toMatch(/Send API Key to Quotes Service/);
		expect(error.httpCode).toBe('401');
	});

	test('a {results: [...]} body (the README shape of the best-known service) is accepted', async () => {
		server.fail({
			kind: 'status',
			status: 200,
			body: { count: 1, results: [{ _id: 'x', name: 'Love' }] },
		});
		const result = await runTags({ limit: 5 });
		expect(result.output('Tags').map((i) => i.json)).toEqual([{ _id: 'x', name: 'Love' }]);
	});

	test('an unexpected body shape is named in the error', async () => {
		server.fail({ kind: 'status', status: 200, body: { tagz: 1, other: 2 } });
		const result = await runTags({ limit: 5 });
		expect(result.error('Tags')!.message).toMatch(
			/object with the keys tagz, other where a list of tags was expected/,
		);
	});
});

describe('failures of the service', () => {
	test('429s do not use up Max Attempts (the service did not act on them); with Max Attempts 1 nothing is retried', async () => {
		const four429 = Array.from({ length: 4 }, () => ({
			kind: 'status' as const,
			status: 429,
			retryAfter: '0',
		}));
		server.fail(...four429);
		const result = await runTags({ limit: 2, options: { ...FAST, maxAttempts: 3 } });
		expect(result.workflowError).toBeUndefined();
		expect(server.requests).toHaveLength(5);
		expect(result.output('Tags')).toHaveLength(2);

		server.reset();
		server.fail({ kind: 'status', status: 429, retryAfter: '0' });
		const once = await runTags({ limit: 2, options: { ...FAST, maxAttempts: 1 } });
		expect(server.requests).toHaveLength(1);
		expect(once.error('Tags')!.description).toMatch(/gave up after 1 attempt/);
	});

	test('a 502 after 429s: only the 502s count (Max Attempts 2: 429, 502, 429, 502 and it stops)', async () => {
		server.fail(
			{ kind: 'status', status: 429, retryAfter: '0' },
			{ kind: 'status', status: 502 },
			{ kind: 'status', status: 429, retryAfter: '0' },
			{ kind: 'status', status: 502 },
		);
		const result = await runTags({ limit: 2, options: { ...FAST, maxAttempts: 2 } });
		expect(server.requests).toHaveLength(4);
		expect(result.error('Tags')!.description).toMatch(/gave up after 4 attempts/);
	});

	test('a 429 with Retry-After pauses every request of the run, not only the one that got it', async () => {
		// two at a time: the first request to arrive gets the 429, the other is answered 150 ms later, when the next
		// item takes its place and has to wait for the pause
		server.fail(
			{ kind: 'status', status: 429, retryAfter: '1' },
			...Array.from({ length: 10 }, () => ({ kind: 'slow' as const, ms: 150 })),
		);
		const items = Array.from({ length: 6 }, (_, n) => ({ term: `t${n}` }));
		const result = await runTags(
			{ q: '={{ $json.term }}', limit: 1, options: { ...FAST, concurrency: 2 } },
			{ items },
		);
		expect(result.workflowError).toBeUndefined();
		expect(server.requests).toHaveLength(7); // 6 items, one of them twice
		const refusedAt = server.requests[0].at;
		const after = server.requests.slice(2);
		// the retry and every item that was still waiting for its turn went out after the pause
		for (const r of after) expect(r.at - refusedAt).toBeGreaterThanOrEqual(950);
		const retried = server.requests.filter((r) => r.query.q === server.requests[0].query.q);
		expect(retried).toHaveLength(2);
		expect(new Set(server.requests.map((r) => r.query.q)).size).toBe(6);
	});

	test('the shared pause still respects each request’s Max Retry Wait', async () => {
		// a new service's first request goes alone and gets a 429 asking for 2 s; the next item in line then meets the
		// pause with at most 1 s to wait, and fails at once without being sent; the third waits and goes
		server.fail({ kind: 'status', status: 429, retryAfter: '2' });
		const result = await runTags(
			{
				q: '={{ $json.term }}',
				limit: 1,
				options: {
					retryDelay: 5,
					maxRetryWait: '={{ $itemIndex === 1 ? 1 : 10 }}',
					concurrency: 3,
				},
			},
			// terms that match tags in the fixtures and in the shared data alike
			{ items: [{ term: 'o' }, { term: 'e' }, { term: 's' }], extra: { continueOnFail: true } },
		);
		expect(result.workflowError).toBeUndefined();
		const out = result.output('Tags');
		expect(out.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(out[0].json.error).toBeUndefined();
		expect(out[2].json.error).toBeUndefined();
		expect(out[1].json.error).toMatch(
			/^The quotes service is rate-limiting this run: the service asked every request to wait [12] s more, more than the Max Retry Wait \[item 1\]$/,
		);
		// item 1 was never sent; the item that got the 429 was sent again after the pause
		expect(server.requests.map((r) => r.query.q).sort()).toEqual(['o', 'o', 's']);
	});

	test('a Retry-After given as an HTTP date is honoured', async () => {
		const date = new Date(Date.now() + 1500).toUTCString();
		server.fail({ kind: 'status', status: 503, retryAfter: date });
		const started = Date.now();
		const result = await runTags({ limit: 1, options: { maxRetryWait: 10 } });
		expect(result.workflowError).toBeUndefined();
		expect(server.requests).toHaveLength(2);
		// HTTP dates have one-second precision: the wait is at least what is left of that second
		expect(server.requests[1].at - server.requests[0].at).toBeGreaterThanOrEqual(400);
		expect(Date.now() - started).toBeLessThan(5000);
	});

	test('other 4xx are not retried', async () => {
		server.fail({
			kind: 'status',
			status: 400,
			body: { status: 'fail', message: 'limit is too large' },
		});
		const result = await runTags({ limit: 1, options: FAST });
		expect(server.requests).toHaveLength(1);
		expect(result.error('Tags')!.message).toMatch(/answered status "fail": limit is too large/);
		expect(result.error('Tags')!.description).toMatch(/refused the parameters/);
	});

	test('an address where nothing listens: clear error naming the credentials field', async () => {
		const closed = await startQuotesServer();
		const url = closed.url;
		await closed.close();
		const result = await runTags(
			{ limit: 1, options: { ...FAST, maxAttempts: 2 } },
			{ credentials: { quotesUrl: url } },
		);
		const error = result.error('Tags')!;
		expect(error.message).toBe(`Nothing listens at ${url} (connection refused) [item 0]`);
		expect(error.description).toMatch(
			/Check the Quotes URL in the Triptych API credentials: its host and port, and that the service runs \(ECONNREFUSED\)/,
		);
		expect(error.description).toMatch(/gave up after 2 attempts/);
	});
});

describe('credentials addresses', () => {
	test.each([
		['', /The Quotes URL is empty \[item 0\]/],
		['not a url', /The Quotes URL "not a url" is not a web address \[item 0\]/],
		['ftp://example.com', /The Quotes URL "ftp:\/\/example.com" is not a web address/],
	])('Quotes URL %j', async (quotesUrl, message) => {
		const result = await runTags({ limit: 1 }, { credentials: { quotesUrl } });
		expect(result.error('Tags')!.message).toMatch(message);
		expect(server.requests).toHaveLength(0);
	});

	test.each([
		['{url}/#', /has a query string or fragment \(\? or #\)/],
		['{url}/hooks?token=abc', /"http:\/\/127\.0\.0\.1:\d+\/hooks…" has a query string or fragment/],
		['{url}?', /has a query string or fragment/],
		[
			'http://alice:s3cret@{host}',
			/The Quotes URL holds a user name or password \(user:password@\)/,
		],
	])(
		'a base address %s is refused before any request, its secrets unquoted',
		async (typed, said) => {
			const quotesUrl = typed
				.replace('{url}', server.url)
				.replace('{host}', new URL(server.url).host);
			const result = await runTags({ limit: 1 }, { credentials: { quotesUrl } });
			const error = result.error('Tags')!;
			expect(error.message).toMatch(said);
			expect(`${error.message} ${error.description}`).not.toMatch(/token=abc|alice|s3cret/);
			expect(server.requests).toHaveLength(0);
		},
	);

	test('trailing slashes are tolerated', async () => {
		const result = await runTags({ limit: 1 }, { credentials: { quotesUrl: `${server.url}///` } });
		expect(result.workflowError).toBeUndefined();
		expect(server.requests[0].path).toBe('/tags');
	});
});

describe('bad field values are refused before any request', () => {
	test.each([
		[{ limit: 0 }, /"Limit" must be a whole number of 1 or more, not 0 \[item 0\]/],
		[{ limit: -2 }, /"Limit" must be a whole number of 1 or more, not -2/],
		[{ limit: 2.5 }, /"Limit" must be a whole number of 1 or more, not 2.5/],
		[{ limit: '={{ "ten" }}' }, /"Limit" must be a whole number of 1 or more, not "ten"/],
		[{ q: '={{ { a: 1 } }}' }, /"Search" must be text, not \{"a":1\}/],
		[
			{ options: { timeout: 0 } },
			/^"Timeout \(ms\)" must be a whole number from 1 to 3600000, not 0 \[item 0\]$/,
		],
		[
			{ options: { maxResponseSize: 2000 } },
			/^"Max Response Size \(MB\)" must be a whole number from 1 to 1024, not 2000 \[item 0\]$/,
		],
		[
			{ options: { concurrency: 0 } },
			/^"Concurrency" must be a whole number from 1 to 512, not 0 \[item 0\]$/,
		],
		[
			{ options: { maxAttempts: 11 } },
			/"Max Attempts" must be a whole number from 1 to 10, not 11/,
		],
		[
			{ options: { retryDelay: -5 } },
			/"Initial Retry Delay \(ms\)" must be a whole number from 0 to 600000, not -5/,
		],
		[
			{ options: { maxRetryWait: -1 } },
			/"Max Retry Wait \(Seconds\)" must be a whole number from 0 to 3600/,
		],
		[
			{ options: { sortBy: '={{ "popularity" }}' } },
			/^"Sort By" must be one of dateAdded, dateModified, name, quoteCount, not "popularity" \[item 0\]$/,
		],
		[
			{ options: { order: '={{ "up" }}' } },
			/^"Sort Order" must be one of asc, desc, not "up" \[item 0\]$/,
		],
	])('%j', async (params, message) => {
		const result = await runTags(params as IDataObject);
		const error = result.error('Tags')!;
		expect(error.message).toMatch(message);
		expect(error.name).toBe('NodeOperationError');
		expect((error.context as IDataObject).itemIndex).toBe(0);
		expect(server.requests).toHaveLength(0);
	});

	test.each([513, '={{ "many" }}'])(
		'Concurrency %j is refused before any request',
		async (concurrency) => {
			const result = await runTags({ options: { concurrency } });
			const error = result.error('Tags')!;
			expect(error.message).toMatch(
				/^"Concurrency" must be a whole number from 1 to 512, not .+ \[item 0\]$/,
			);
			expect(error.name).toBe('NodeOperationError');
			expect(server.requests).toHaveLength(0);
		},
	);

	test('the item is named when only one item of several is wrong, and nothing is sent for any item', async () => {
		const result = await runTags(
			{ limit: '={{ $json.max }}' },
			{ items: [{ max: 2 }, { max: 0 }] },
		);
		expect(result.error('Tags')!.message).toMatch(/not 0 \[item 1\]/);
		expect(server.requests).toHaveLength(0);
	});
});

describe('Continue On Fail', () => {
	test('errors become items paired to their input; good items still run', async () => {
		server.fail(
			{ kind: 'status', status: 200, body: loadQuoteTags() },
			{ kind: 'envelope', envStatus: 'fail', message: 'No such tag' },
		);
		// one request at a time, so the faults meet the items in order
		const result = await runTags(
			{ q: '={{ $json.term }}', limit: '={{ $json.max }}', options: { concurrency: 1 } },
			{
				items: [
					{ term: 'a', max: 1 },
					{ term: 'b', max: 1 },
					{ term: 'c', max: -1 },
				],
				extra: { continueOnFail: true },
			},
		);
		expect(result.workflowError).toBeUndefined();
		const out = result.output('Tags');
		expect(out).toHaveLength(3);
		expect(out[0].pairedItem).toEqual({ item: 0 });
		expect(out[0].json).toHaveProperty('name');
		expect(out[1]).toMatchObject({
			pairedItem: { item: 1 },
			json: { error: expect.stringMatching(/No such tag/) },
		});
		expect(out[2]).toMatchObject({
			pairedItem: { item: 2 },
			json: { error: expect.stringMatching(/"Limit" must be/) },
		});
		expect(server.requests).toHaveLength(2);
	});
});

describe('the API key never shows', () => {
	test('not in errors, error items, output or logs, even when the service echoes the headers', async () => {
		keyed.setMode({ echoHeaders: true });
		const failing = await runTags(
			{ limit: 1, options: FAST },
			{ credentials: { quotesUrl: keyed.url, sendKeyToQuotes: true } },
		);
		const error = failing.error('Tags')!;
		expect(keyed.requests[0].headers.authorization).toBe(`Bearer ${KEY}`);
		expect(error.message).toMatch(/Bearer \*\*\*/);
		const asItems = await runTags(
			{ limit: 1, options: FAST },
			{
				credentials: { quotesUrl: keyed.url, sendKeyToQuotes: true },
				extra: { continueOnFail: true },
			},
		);
		keyed.setMode({ echoHeaders: false });
		const ok = await runTags(
			{ limit: 1 },
			{ credentials: { quotesUrl: keyed.url, sendKeyToQuotes: true } },
		);
		for (const result of [failing, asItems, ok]) expect(dump(result)).not.toContain(KEY);
		expect(JSON.stringify(logs)).not.toContain(KEY);
		expect(asItems.output('Tags')[0].json.error).toMatch(/\*\*\*/);
	});
});
