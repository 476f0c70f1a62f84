/**
 * Quote Tags on loopback: 1,000 input items, one GET /tags?q=…&limit=5 each, through n8n's engine, next to a bare
 * keep-alive axios loop making the same requests (and the same loop with a new connection per request, what n8n's
 * request helper does) and n8n's own HTTP Request node configured the way a user would.
 *
 *   npx tsx scripts/bench/quotes.ts
 */
import type { AxiosInstance } from 'axios';
import type { IDataObject } from 'n8n-workflow';

import { loadQuoteTags, startQuotesServer } from '../../test/servers';
import { itemsCase } from './compare';
import { type BenchRow, type Target, table, verdicts } from './util';

const N = 1000;
/** Runs per variant (the row is the median): one cold run made the first case of `npm run bench` look 1.8× slower */
const REPEATS = Number(process.env.REPEATS ?? 5);
export const CASE = `Quote Tags, ${N.toLocaleString('en-US')} items`;
export const V = {
	bare: 'bare axios loop',
	fresh: 'bare axios loop, new connection per request',
	node: 'Quote Tags node',
	http: 'HTTP Request node (defaults)',
};

export const targets: Target[] = [
	{ case: CASE, variant: V.node, baseline: V.bare, maxRatio: 1.2 },
	{ case: CASE, variant: V.node, baseline: V.http, maxRatio: 1 },
];

/** Search words that find tags: the first letters of the service's tag names. */
export function quoteItems(n: number): IDataObject[] {
	const names = loadQuoteTags().map((t) => t.slug.slice(0, 3));
	return Array.from({ length: n }, (_, i) => ({ q: names[i % names.length] }));
}

/** The node, HTTP Request and bare-loop requests of one tag search per item (`q` from the item, `limit`). */
export function quoteCalls(url: string, limit: number) {
	return {
		node: {
			type: 'quoteTags',
			params: { q: '={{ $json.q }}', limit },
			credentials: { triptychApi: { apiKey: 'unused', quotesUrl: url } },
		},
		http: {
			method: 'GET',
			url: `${url}/tags`,
			sendQuery: true,
			queryParameters: {
				parameters: [
					{ name: 'q', value: '={{ $json.q }}' },
					{ name: 'limit', value: String(limit) },
				],
			},
			options: {},
		},
		request: async (client: AxiosInstance, item: IDataObject) => {
			const res = await client.get(`${url}/tags`, { params: { q: item.q, limit } });
			if (res.status !== 200) throw new Error(`bare loop: HTTP ${res.status}`);
			return (res.data as unknown[]).length;
		},
	};
}

export async function run(): Promise<BenchRow[]> {
	const server = await startQuotesServer();
	try {
		const calls = quoteCalls(server.url, 5);
		return await itemsCase({
			case: CASE,
			items: quoteItems(N),
			repeats: REPEATS,
			server: { reset: () => server.reset(), count: () => server.requests.length },
			bare: {
				request: calls.request,
				loops: [
					{ name: V.bare, concurrency: 1 },
					{
						name: V.fresh,
						concurrency: 1,
						keepAlive: false,
						notes: "what n8n's request helper does",
					},
				],
			},
			node: { ...calls.node, variants: [{ name: V.node }] },
			http: { typeVersion: 4.2, params: calls.http, variants: [{ name: V.http }] },
		});
	} finally {
		await server.close();
	}
}

if (require.main === module) {
	void run().then((rows) => {
		console.log(table(rows));
		const v = verdicts(rows, targets);
		console.log(v.lines.join('\n'));
		process.exit(v.ok ? 0 : 1);
	});
}
