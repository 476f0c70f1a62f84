/**
 * Quote Tags against each quotes service alive today, each answering /tags in its own shape: every sort, Search and
 * Limit, and the hint when tags lack the sort field.
 */
import type { IConnections, IDataObject, INode, NodeExecutionHint } from 'n8n-workflow';

import { type RunResult, runNode, runWorkflow, useServer } from '../harness/engine';
import { readWorkflow } from '../scenarios';
import {
	DEFAULT_API_KEY as KEY,
	THEY_SAID_SO_CATEGORIES,
	type TestServer,
	startQuotableRewrite,
	startQuoteSlate,
	startQuotesServer,
	startTheySaidSo,
} from '../servers';

type Field = 'quoteCount' | 'dateAdded' | 'dateModified';

/** Each service: its stand-in, the path of its base URL, the field it gives for each sort (if any) */
const SERVICES = [
	{
		name: 'a self-hosted Quotable',
		server: useServer(() => startQuotesServer({ quotable: true })),
		base: '',
		fields: { quoteCount: 'quoteCount', dateAdded: 'dateAdded', dateModified: 'dateModified' },
	},
	{
		name: 'the Quotable rewrite',
		server: useServer(() => startQuotableRewrite()),
		base: '/api',
		fields: { quoteCount: 'quotesCount' },
	},
	{
		name: 'the Quotable rewrite, early shape',
		server: useServer(() => startQuotableRewrite({ shape: 'early' })),
		base: '/api',
		fields: { quoteCount: 'quotesCount', dateAdded: 'createdAt', dateModified: 'updatedAt' },
	},
	{ name: 'QuoteSlate', server: useServer(() => startQuoteSlate()), base: '/api', fields: {} },
	{ name: 'They Said So', server: useServer(() => startTheySaidSo()), base: '', fields: {} },
	{
		name: 'They Said So, the bare map',
		server: useServer(() => startTheySaidSo({ bare: true })),
		base: '',
		fields: {},
	},
] as Array<{
	name: string;
	server: TestServer;
	base: string;
	fields: Partial<Record<Field, string>>;
}>;

const tags = (result: RunResult) => result.output('Tags').map((i) => i.json);
/** The queries the service got (a request retried on a dropped connection comes twice: still the same query) */
const queries = (server: TestServer) => [
	...new Set(server.requests.map((r) => JSON.stringify(r.query))),
];
const hints = (result: RunResult): NodeExecutionHint[] =>
	result.run.data.resultData.runData.Tags[0].hints ?? [];

/** What the service answers without parameters, one object per tag, in its order */
async function answer(url: string): Promise<IDataObject[]> {
	const body = (await (await fetch(`${url}/tags`)).json()) as unknown;
	const list = Array.isArray(body)
		? body
		: (((body as IDataObject).contents as IDataObject | undefined)?.categories ?? body);
	return Array.isArray(list)
		? list.map((t: unknown) => (typeof t === 'string' ? { name: t } : (t as IDataObject)))
		: Object.entries(list as IDataObject).map(([name, description]) => ({ name, description }));
}

const value = (tag: IDataObject, field: string | undefined, by: Field) =>
	field === undefined || tag[field] === undefined
		? undefined
		: by === 'quoteCount'
			? Number(tag[field])
			: Date.parse(String(tag[field]));

describe.each(SERVICES)('$name', ({ server, base, fields }) => {
	const run = (params: IDataObject, items?: IDataObject[]) =>
		runNode('quoteTags', 'Tags', params, {
			items,
			credentials: { apiKey: KEY, quotesUrl: `${server.url}${base}`, sendKeyToQuotes: false },
		});

	test.each<[Field, 'asc' | 'desc' | undefined]>([
		['quoteCount', undefined],
		['quoteCount', 'asc'],
		['dateAdded', 'desc'],
		['dateModified', 'asc'],
	])('Sort By %s, %s: the node sorts; no sort parameter is sent', async (by, order) => {
		const all = await answer(`${server.url}${base}`);
		server.reset();
		const result = await run({ returnAll: true, options: { sortBy: by, order } });
		expect(result.workflowError).toBeUndefined();
		expect(queries(server)).toEqual(['{}']);
		const out = tags(result);
		expect(out).toHaveLength(all.length);
		const field = fields[by];
		if (field) {
			const values = out.map((t) => value(t, field, by)!);
			const sign = order === 'asc' ? 1 : -1;
			for (let i = 1; i < values.length; i++)
				expect(sign * (values[i] - values[i - 1])).toBeGreaterThanOrEqual(0);
			expect(hints(result)).toEqual([]);
		} else {
			// no tag has the field: the service's order, and one hint that says why
			expect(out).toEqual(all);
			expect(hints(result)).toEqual([
				{
					message: expect.stringMatching(
						new RegExp(`^None of the ${all.length} tags has a .+: this quotes service does not`),
					),
					location: 'outputPane',
				},
			]);
		}
		for (const tag of out) expect(typeof tag.name).toBe('string');
	});

	test('Sort By Name, descending, Search and Limit: filtered, sorted and cut by the node', async () => {
		const all = await answer(`${server.url}${base}`);
		server.reset();
		const result = await run({ q: 'IN', limit: 3, options: { sortBy: 'name', order: 'desc' } });
		// sorting: limit is not sent, so a service that cuts the list cannot cut it before the sort
		expect(queries(server)).toEqual(['{"q":"IN"}']);
		const expected = all
			.filter((t) => String(t.name).toLowerCase().includes('in'))
			.map((t) => String(t.name))
			.sort((a, b) =>
				a.toLowerCase() < b.toLowerCase() ? 1 : a.toLowerCase() > b.toLowerCase() ? -1 : 0,
			)
			.slice(0, 3);
		expect(expected.length).toBeGreaterThan(0);
		expect(tags(result).map((t) => t.name)).toEqual(expected);
		expect(hints(result)).toEqual([]);
	});

	test('an empty call (as a tool with nothing to fill in) lists the tags in the service’s order', async () => {
		const all = await answer(`${server.url}${base}`);
		server.reset();
		const result = await run({});
		expect(queries(server)).toEqual(['{"limit":"50"}']);
		expect(tags(result)).toEqual(all.slice(0, 50));
	});
});

test('They Said So: each name with its description', async () => {
	const { server } = SERVICES[4];
	const result = await runNode(
		'quoteTags',
		'Tags',
		{ q: 'sports', returnAll: true },
		{
			credentials: { apiKey: KEY, quotesUrl: server.url },
		},
	);
	expect(tags(result)).toEqual([{ name: 'sports', description: THEY_SAID_SO_CATEGORIES.sports }]);
});

test('tags that lack the count come last; one hint for the run says how many, however many items', async () => {
	const { server } = SERVICES[0];
	const body = [
		{ name: 'A', quoteCount: 3 },
		{ name: 'B' },
		{ name: 'C', quotesCount: 9 },
		{ name: 'D', quoteCount: null },
		{ name: 'E', quoteCount: '5' },
	];
	server.fail(...[0, 1].map(() => ({ kind: 'status' as const, status: 200, body })));
	const result = await runNode(
		'quoteTags',
		'Tags',
		{ returnAll: true, options: { sortBy: 'quoteCount', concurrency: 1 } },
		{ items: [{}, {}], credentials: { apiKey: KEY, quotesUrl: server.url } },
	);
	expect(tags(result).map((t) => t.name)).toEqual('C E A B D C E A B D'.split(' '));
	expect(hints(result)).toEqual([
		{
			message: '4 of 10 tags have no quote count ("quoteCount" or "quotesCount"): they come last.',
			location: 'outputPane',
		},
	]);
});

describe('the stand-ins are as strict as the services', () => {
	const get = async (url: string) => {
		const res = await fetch(url);
		return { status: res.status, headers: res.headers, body: (await res.json()) as unknown };
	};

	test('the rewrite: an order other than asc or desc is a 400; an unknown sortBy is ignored', async () => {
		const { server } = SERVICES[1];
		const refused = await get(`${server.url}/api/tags?order=descending`);
		expect(refused).toMatchObject({
			status: 400,
			body: { error: 'Bad Request', statusCode: 400 },
		});
		const plain = await get(`${server.url}/api/tags`);
		expect((await get(`${server.url}/api/tags?sortBy=quoteCount`)).body).toEqual(plain.body);
		const counts = (
			(await get(`${server.url}/api/tags?sortBy=quotesCount&order=desc`)).body as IDataObject[]
		).map((t) => t.quotesCount as number);
		expect(counts).toEqual([...counts].sort((a, b) => b - a));
		expect((await get(`${server.url}/tags`)).status).toBe(404);
	});

	test('QuoteSlate: draft-6 rate-limit headers, and a 429 once its window is used up', async () => {
		const slate = await startQuoteSlate({ max: 2 });
		try {
			const first = await get(`${slate.url}/api/tags`);
			expect(first.headers.get('ratelimit-policy')).toBe('2;w=900');
			expect(first.headers.get('ratelimit-remaining')).toBe('1');
			await get(`${slate.url}/api/tags`);
			const refused = await get(`${slate.url}/api/tags`);
			expect(refused.status).toBe(429);
			expect(refused.body).toEqual({ error: 'Too many requests, please try again later.' });
			expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(800);
			slate.reset();
			const result = await runNode(
				'quoteTags',
				'Tags',
				{ limit: 1 },
				{
					credentials: { apiKey: KEY, quotesUrl: `${slate.url}/api` },
				},
			);
			expect(tags(result)).toHaveLength(1);
		} finally {
			await slate.close();
		}
	});
});

describe('the example workflows against the services alive today', () => {
	const runExample = async (file: string, quotesUrl: string) => {
		const wf = readWorkflow(file);
		return await runWorkflow(
			{ nodes: wf.nodes as unknown as INode[], connections: wf.connections as IConnections },
			{ credentials: { triptychApi: { apiKey: KEY, quotesUrl, sendKeyToQuotes: false } } },
		);
	};

	test('the tag digest sums the rewrite’s quotesCount, most quoted first', async () => {
		const { server } = SERVICES[1];
		const all = await answer(`${server.url}/api`);
		const result = await runExample('examples/tag-digest.json', `${server.url}/api`);
		const byCount = [...all].sort((a, b) => Number(b.quotesCount) - Number(a.quotesCount));
		expect(result.output('Digest')[0].json).toMatchObject({
			tagCount: all.length,
			quoteCount: all.reduce((sum, t) => sum + Number(t.quotesCount), 0),
			text: `Quote tags this week, most quoted first: ${byCount.map((t) => t.name).join(', ')}`,
		});
	});

	test('the ten most quoted tags from QuoteSlate: ten names in its order, and the hint says why', async () => {
		const { server } = SERVICES[3];
		const all = await answer(`${server.url}/api`);
		const result = await runExample('examples/quotable-tags.json', `${server.url}/api`);
		expect(result.output('One Line').map((i) => i.json)).toEqual([
			{ tags: all.slice(0, 10).map((t) => t.name) },
		]);
		expect(result.run.data.resultData.runData['Top Tags'][0].hints).toHaveLength(1);
	});
});
