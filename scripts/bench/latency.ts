/**
 * The nodes against services that answer 50 ms late (the servers' `delayMs` mode): what concurrency is worth.
 * 300 input items each, through n8n's engine, next to n8n's HTTP Request node with its defaults (it starts every
 * item's request at once) and a bare keep-alive axios loop at the best of a few fixed concurrencies:
 * - Quote Tags (defaults), one tag search per item;
 * - Fire Automation (defaults, and Concurrency 1), one POST per item;
 * - Museum Object Search, one search per item (Limit 10);
 * - Museum Return All over 45 pages (paging.ts).
 * Target: each node's defaults ≤ 1.5× the HTTP Request node's time; Return All ≤ 0.5× HTTP Request's pagination.
 *
 *   npx tsx scripts/bench/latency.ts     (REPEATS=… rounds per variant, default 5; sequential variants run once)
 */
import type { AxiosInstance } from 'axios';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { DEFAULT_API_KEY, startQuotesServer, startTriggerServer } from '../../test/servers';
import { type BareLoop, itemsCase } from './compare';
import { museumCredentials } from './museum';
import { ServerProcess } from './museumServer';
import { LATENCY_MS, pagingCase, pagingTargets } from './paging';
import { quoteCalls, quoteItems } from './quotes';
import { HTTP_REQUEST_VERSION, triggerBenchServer, triggerCalls, triggerItems } from './trigger';
import { type BenchRow, type Target, table, verdicts } from './util';

const ITEMS = 300;
const REPEATS = Math.max(1, Number(process.env.REPEATS ?? 5));
const CONCURRENCIES = [1, 8, 32, 64, 300];
const at = `${ITEMS} items, ${LATENCY_MS} ms latency`;
export const CASES = {
	quotes: `Quote Tags, ${at}`,
	trigger: `Fire Automation, ${at}`,
	museum: `Museum Object Search, one search per item (Limit 10), ${at}`,
};
const V = {
	bare: 'bare keep-alive loop, best fixed concurrency',
	http: `HTTP Request node v${HTTP_REQUEST_VERSION} (defaults)`,
	quotes: 'Quote Tags node (defaults)',
	trigger: 'Fire Automation node (defaults)',
	trigger1: 'Fire Automation node (Concurrency 1)',
	museum: 'Museum Object Search node (defaults)',
};

export const targets: Target[] = [
	{ case: CASES.quotes, variant: V.quotes, baseline: V.http, maxRatio: 1.5 },
	{ case: CASES.trigger, variant: V.trigger, baseline: V.http, maxRatio: 1.5 },
	{ case: CASES.museum, variant: V.museum, baseline: V.http, maxRatio: 1.5 },
	...pagingTargets,
];

const bareBest: BareLoop[] = [{ name: V.bare, concurrency: CONCURRENCIES }];
/** Diagnostic, no target: the node with its highest Concurrency (it still starts small and ramps up) */
const maxed = (name: string) => ({
	name: `${name.replace(' (defaults)', '')} (Concurrency 256, the most)`,
	options: { concurrency: 256 },
});
const common = { repeats: REPEATS, sequentialRepeats: 1 };

async function quotes(): Promise<BenchRow[]> {
	const server = await startQuotesServer();
	try {
		const calls = quoteCalls(server.url, 5);
		return await itemsCase({
			...common,
			case: CASES.quotes,
			items: quoteItems(ITEMS),
			server: {
				reset: () => (server.reset(), server.setMode({ delayMs: LATENCY_MS })),
				count: () => server.requests.length,
			},
			bare: { request: calls.request, loops: bareBest },
			node: { ...calls.node, variants: [{ name: V.quotes }, maxed(V.quotes)] },
			http: { typeVersion: HTTP_REQUEST_VERSION, params: calls.http, variants: [{ name: V.http }] },
		});
	} finally {
		await server.close();
	}
}

async function trigger(): Promise<BenchRow[]> {
	const server = await startTriggerServer();
	try {
		const calls = triggerCalls(server);
		return await itemsCase({
			...common,
			case: CASES.trigger,
			items: triggerItems(ITEMS),
			server: triggerBenchServer(server, { delayMs: LATENCY_MS }),
			bare: { request: calls.request, loops: bareBest },
			node: {
				...calls.node,
				variants: [
					{ name: V.trigger },
					maxed(V.trigger),
					{ name: V.trigger1, options: { concurrency: 1 } },
				],
			},
			http: { typeVersion: HTTP_REQUEST_VERSION, params: calls.http, variants: [{ name: V.http }] },
		});
	} finally {
		await server.close();
	}
}

async function museum(server: ServerProcess): Promise<BenchRow[]> {
	const { info } = server;
	const url = `${info.url}/object`;
	const auth = `Bearer ${DEFAULT_API_KEY}`;
	const items: IDataObject[] = Array.from({ length: ITEMS }, (_, i) => ({
		q: info.words[i % info.words.length],
	}));
	const recordsOf = (body: unknown) =>
		((body as { data?: { records?: unknown[] } })?.data?.records ?? []).length;
	server.mode = { delayMs: LATENCY_MS };
	try {
		return await itemsCase({
			...common,
			case: CASES.museum,
			items,
			server,
			bare: {
				loops: bareBest,
				request: async (client: AxiosInstance, item: IDataObject) => {
					const res = await client.get(url, {
						params: { q: item.q, limit: 10 },
						headers: { Authorization: auth },
					});
					if (res.status !== 200) throw new Error(`bare loop: HTTP ${res.status}`);
					return recordsOf(res.data);
				},
			},
			node: {
				type: 'museumObjectSearch',
				params: { q: '={{ $json.q }}', returnAll: false, limit: 10, options: {} },
				credentials: museumCredentials(info.url),
				variants: [{ name: V.museum }, maxed(V.museum)],
			},
			http: {
				typeVersion: HTTP_REQUEST_VERSION,
				params: {
					method: 'GET',
					url,
					sendQuery: true,
					queryParameters: {
						parameters: [
							{ name: 'q', value: '={{ $json.q }}' },
							{ name: 'limit', value: '10' },
						],
					},
					sendHeaders: true,
					headerParameters: { parameters: [{ name: 'Authorization', value: auth }] },
					options: {},
				},
				records: (out: INodeExecutionData[]) =>
					out.reduce((n, item) => n + recordsOf(item.json), 0),
				variants: [{ name: V.http, notes: 'one output item per search' }],
			},
		});
	} finally {
		server.mode = {};
	}
}

export async function run(): Promise<BenchRow[]> {
	const rows = [...(await quotes()), ...(await trigger())];
	const server = await ServerProcess.start({ source: 'generated', count: 4_500 });
	try {
		rows.push(...(await museum(server)), ...(await pagingCase(server, REPEATS)));
	} finally {
		server.stop();
	}
	return rows;
}

if (require.main === module) {
	void run().then((rows) => {
		console.log(table(rows));
		const v = verdicts(rows, targets);
		console.log(`\n${v.lines.join('\n')}`);
		process.exit(v.ok ? 0 : 1);
	});
}
