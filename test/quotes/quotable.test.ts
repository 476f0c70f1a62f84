/** Quote Tags against Quotable's own /tags (a bare list, no key, q and limit ignored). */
import type { IDataObject } from 'n8n-workflow';

import { chain, logs, manualTrigger, node, runWorkflow, useServer } from '../harness/engine';
import { keySightings } from '../museum/setup';
import { DEFAULT_API_KEY as KEY, loadQuoteTags, startQuotesServer } from '../servers';

const TAGS = loadQuoteTags();
const server = useServer(() => startQuotesServer({ quotable: true }));

const tags = async (params: IDataObject, quotesUrl = server.url) =>
	await runWorkflow(chain(manualTrigger('Start'), node('quoteTags', 'Tags', params)), {
		credentials: { triptychApi: { apiKey: KEY, quotesUrl, sendKeyToQuotes: false } },
	});
const byName = [...TAGS].sort((a, b) => a.name.localeCompare(b.name) || a._id.localeCompare(b._id));
const byCount = [...byName].sort((a, b) => b.quoteCount - a.quoteCount);

test.each([
	['every tag', { returnAll: true }, {}, byName],
	[
		'Search and Limit: the node filters and cuts',
		{ q: 'WIS', limit: 1 },
		{ q: 'WIS', limit: '1' },
		byName.filter((t) => /wis/i.test(t.name)).slice(0, 1),
	],
	[
		'a Search matching the slug',
		{ q: 'famous-quotes', returnAll: true },
		{ q: 'famous-quotes' },
		byName.filter((t) => t.slug === 'famous-quotes'),
	],
	[
		'sorted by quote count',
		{ limit: 3, options: { sortBy: 'quoteCount' } },
		{},
		byCount.slice(0, 3),
	],
])('%s', async (_name, params, query, expected) => {
	const result = await tags(params);
	const out = result.output('Tags').map((i) => i.json);
	expect(out).toEqual(expected);
	expect(server.requests).toHaveLength(1);
	expect(server.requests[0].query).toEqual(query);
	expect(server.requests[0].headers.authorization).toBeUndefined();
	expect(keySightings(result, KEY)).toEqual([]);
});

test('a wrong path: a clear HTTP 404', async () => {
	const error = (await tags({ returnAll: true }, `${server.url}/v1`)).error('Tags')!;
	expect(error.httpCode).toBe('404');
	expect(error.message).toMatch(/quotes service answered HTTP 404.*\[item 0\]$/);
});
