/**
 * Fire Automation (node type `fireAutomation`) on loopback: 1,000 input items POSTed to the local trigger server
 * through n8n's engine, with its defaults (adaptive concurrency), with Concurrency 1 (0.1's default, the README's
 * table) and with Concurrency 8, next to, in the same process and the same run:
 * - a bare axios loop with keep-alive making the same POSTs (same path, headers and JSON body), 1 and 8 at a time;
 * - the same loop opening a new connection per request, which is what n8n's request helpers do (they build a fresh
 *   http.Agent for every request): it shows where the rest of the gap to the keep-alive loop comes from;
 * - n8n's HTTP Request node v4.5 with its default settings: POST, JSON body, the Bearer header as a plain header
 *   parameter. By default it starts every item's request at once.
 * Every variant runs REPEATS times, interleaved, after a warm-up; the row is the median, the notes give the best
 * run, every run and the median CPU time of the process (client and server share it). Every run is checked: one
 * request and one delivery per item (no request lost or doubled).
 *
 *   npx tsx scripts/bench/trigger.ts            (ITEMS=… REPEATS=… to change the size)
 */
import type { AxiosInstance } from 'axios';
import type { IDataObject } from 'n8n-workflow';

import { DEFAULT_API_KEY, type TriggerServer, startTriggerServer } from '../../test/servers';
import type { BenchServer } from './compare';
import { itemsCase } from './compare';
import { type BenchRow, type Target, table, verdicts } from './util';

const ITEMS = Number(process.env.ITEMS ?? 1000);
const REPEATS = Number(process.env.REPEATS ?? 5);
export const CASE = `Trigger Call, ${ITEMS.toLocaleString('en-US')} items`;
export const EVENT = 'bench_event';
export const HTTP_REQUEST_VERSION = 4.5;

export const V = {
	bare1: 'bare axios loop, keep-alive, 1 at a time',
	bare8: 'bare axios loop, keep-alive, 8 at a time',
	fresh1: 'bare axios loop, new connection per request, 1 at a time',
	fresh8: 'bare axios loop, new connection per request, 8 at a time',
	node: 'Fire Automation node (defaults: adaptive concurrency)',
	node1: 'Fire Automation node (Concurrency 1)',
	node8: 'Fire Automation node (Concurrency 8)',
	http: `HTTP Request node v${HTTP_REQUEST_VERSION} (defaults)`,
};

export const targets: Target[] = [
	{ case: CASE, variant: V.node1, baseline: V.bare1, maxRatio: 1.2 },
	{ case: CASE, variant: V.node8, baseline: V.bare8, maxRatio: 1.2 },
	{ case: CASE, variant: V.node1, baseline: V.http, maxRatio: 1 },
	{ case: CASE, variant: V.node8, baseline: V.http, maxRatio: 1 },
	{ case: CASE, variant: V.node, baseline: V.http, maxRatio: 1 },
];

export function triggerItems(count: number): IDataObject[] {
	return Array.from({ length: count }, (_, n) => ({
		n,
		value1: `sensor-${n}`,
		value2: n * 1.5,
		value3: n % 2 === 0,
	}));
}

/** The node, HTTP Request and bare-loop calls of one POST per item (the item as the JSON body). */
export function triggerCalls(server: TriggerServer) {
	const url = `${server.url}/trigger/${EVENT}`;
	const auth = `Bearer ${DEFAULT_API_KEY}`;
	return {
		node: {
			type: 'fireAutomation',
			params: { event: EVENT, payload: 'item', options: {} },
			credentials: {
				triptychApi: {
					apiKey: DEFAULT_API_KEY,
					triggerUrl: server.url,
					museumUrl: '',
					quotesUrl: '',
					sendKeyToQuotes: false,
				},
			},
		},
		http: {
			method: 'POST',
			url,
			sendHeaders: true,
			headerParameters: { parameters: [{ name: 'Authorization', value: auth }] },
			sendBody: true,
			contentType: 'json',
			specifyBody: 'json',
			jsonBody: '={{ $json }}',
			options: {},
		},
		request: async (client: AxiosInstance, item: IDataObject) => {
			const headers = {
				Authorization: auth,
				'Content-Type': 'application/json',
				Accept: 'application/json',
			};
			const res = await client.post(url, item, { headers });
			if (res.data?.status !== 'success')
				throw new Error(`bare loop: unexpected answer ${JSON.stringify(res.data)}`);
			return 1;
		},
	};
}

/** The trigger server as a case sees it; every run must fire exactly one automation per request. */
export function triggerBenchServer(
	server: TriggerServer,
	mode: Parameters<TriggerServer['setMode']>[0] = {},
): BenchServer {
	return {
		reset: () => {
			server.reset();
			server.setMode(mode);
		},
		count: () => server.requests.length,
		check: () =>
			mode.rateLimit || server.deliveries.length === server.requests.length
				? undefined
				: `the server received ${server.requests.length} requests and fired ${server.deliveries.length} times`,
	};
}

export async function run(): Promise<BenchRow[]> {
	const server = await startTriggerServer();
	try {
		const calls = triggerCalls(server);
		return await itemsCase({
			case: CASE,
			items: triggerItems(ITEMS),
			server: triggerBenchServer(server),
			repeats: REPEATS,
			bare: {
				request: calls.request,
				loops: [
					{ name: V.bare1, concurrency: 1 },
					{ name: V.bare8, concurrency: 8 },
					{ name: V.fresh1, concurrency: 1, keepAlive: false, notes: "n8n's connection model" },
					{ name: V.fresh8, concurrency: 8, keepAlive: false, notes: "n8n's connection model" },
				],
			},
			node: {
				...calls.node,
				variants: [
					{ name: V.node },
					{ name: V.node1, options: { concurrency: 1 } },
					{ name: V.node8, options: { concurrency: 8 } },
				],
			},
			http: {
				typeVersion: HTTP_REQUEST_VERSION,
				params: calls.http,
				variants: [{ name: V.http, notes: 'all requests started at once' }],
			},
		});
	} finally {
		await server.close();
	}
}

if (require.main === module) {
	void run().then((rows) => {
		console.log(table(rows));
		const v = verdicts(rows, targets);
		console.log(`\n${v.lines.join('\n')}`);
		process.exit(v.ok ? 0 : 1);
	});
}
