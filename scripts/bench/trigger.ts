/**
 * Trigger Call: 1,000 input items POSTed to the local trigger server through n8n's engine (`runWorkflow`), with
 * the default (one request at a time) and with Concurrency 8, next to, in the same process and the same run:
 * - a bare axios loop with keep-alive making the same POSTs (same path, headers and JSON body), 1 and 8 at a time;
 * - the same loop opening a new connection per request, which is what n8n's request helpers do (they build a fresh
 *   http.Agent for every request): it shows where the rest of the gap to the keep-alive loop comes from;
 * - n8n's HTTP Request node (n8n-nodes-base, latest version loaded) with its default settings: POST, JSON body,
 *   the Bearer header as a plain header parameter. By default it starts every item's request at once.
 * Every variant runs REPEATS times, interleaved, after a warm-up. `wallMs` is the median; the notes give the best
 * run, every run and the median CPU time of the process (client and server share it: less sensitive to other load
 * on the machine than wall time). `serverRequests` is what the server received, checked equal to the items in
 * every run, as are the deliveries (no request lost or doubled).
 *
 *   npx tsx scripts/bench/trigger.ts            (ITEMS=… REPEATS=… to change the size)
 */
import http from 'node:http';
import axios, { type AxiosInstance } from 'axios';
import type { IDataObject } from 'n8n-workflow';

import { chain, manualTrigger, node, runWorkflow } from '../../test/harness/engine';
import { DEFAULT_API_KEY, type TriggerServer, startTriggerServer } from '../../test/servers';
import { type BenchRow, type Target, measure, pool, table, verdicts } from './util';

const ITEMS = Number(process.env.ITEMS ?? 1000);
const REPEATS = Number(process.env.REPEATS ?? 5);
const CASE = `Trigger Call, ${ITEMS.toLocaleString('en-US')} items`;
const START = 'When clicking Execute';
const EVENT = 'bench_event';
const HTTP_REQUEST_VERSION = 4.5;

const V = {
	bare1: 'bare axios loop, keep-alive, 1 at a time',
	bare8: 'bare axios loop, keep-alive, 8 at a time',
	fresh1: 'bare axios loop, new connection per request, 1 at a time',
	fresh8: 'bare axios loop, new connection per request, 8 at a time',
	node1: 'Trigger Call node (defaults: 1 at a time)',
	node8: 'Trigger Call node (Concurrency 8)',
	http: `HTTP Request node v${HTTP_REQUEST_VERSION} (defaults)`,
};

export const targets: Target[] = [
	{ case: CASE, variant: V.node1, baseline: V.bare1, maxRatio: 1.2 },
	{ case: CASE, variant: V.node8, baseline: V.bare8, maxRatio: 1.2 },
	{ case: CASE, variant: V.node1, baseline: V.http, maxRatio: 1 },
	{ case: CASE, variant: V.node8, baseline: V.http, maxRatio: 1 },
];

function inputItems(count: number): IDataObject[] {
	return Array.from({ length: count }, (_, n) => ({
		n,
		value1: `sensor-${n}`,
		value2: n * 1.5,
		value3: n % 2 === 0,
	}));
}

function credentials(server: TriggerServer) {
	return {
		triptychApi: {
			apiKey: DEFAULT_API_KEY,
			triggerUrl: server.url,
			museumUrl: '',
			quotesUrl: '',
			sendKeyToQuotes: false,
		},
	};
}

function bareClient(keepAlive: boolean): AxiosInstance {
	return axios.create({ httpAgent: new http.Agent({ keepAlive, maxSockets: 64 }), timeout: 30000 });
}

async function bareLoop(
	server: TriggerServer,
	items: IDataObject[],
	concurrency: number,
	keepAlive: boolean,
) {
	const client = bareClient(keepAlive);
	const headers = {
		Authorization: `Bearer ${DEFAULT_API_KEY}`,
		'Content-Type': 'application/json',
		Accept: 'application/json',
	};
	await pool(items.length, concurrency, async (i) => {
		const res = await client.post(`${server.url}/trigger/${EVENT}`, items[i], { headers });
		if (res.data?.status !== 'success')
			throw new Error(`bare loop: unexpected answer ${JSON.stringify(res.data)}`);
	});
}

async function triggerCall(server: TriggerServer, items: IDataObject[], concurrency?: number) {
	const options: IDataObject = concurrency ? { concurrency } : {};
	const wf = chain(
		manualTrigger(START),
		node('triggerCall', 'Trigger Call', { event: EVENT, payload: 'item', options }),
	);
	const result = await runWorkflow(wf, {
		credentials: credentials(server),
		pinData: { [START]: items },
	});
	if (result.workflowError) throw result.workflowError;
	const out = result.output('Trigger Call');
	if (out.length !== items.length || out[items.length - 1].json.event !== EVENT) {
		throw new Error('Trigger Call: wrong output');
	}
}

async function httpRequestNode(server: TriggerServer, items: IDataObject[]) {
	const wf = chain(
		manualTrigger(START),
		node(
			'n8n-nodes-base.httpRequest',
			'HTTP Request',
			{
				method: 'POST',
				url: `${server.url}/trigger/${EVENT}`,
				sendHeaders: true,
				headerParameters: {
					parameters: [{ name: 'Authorization', value: `Bearer ${DEFAULT_API_KEY}` }],
				},
				sendBody: true,
				contentType: 'json',
				specifyBody: 'json',
				jsonBody: '={{ $json }}',
				options: {},
			},
			{ typeVersion: HTTP_REQUEST_VERSION },
		),
	);
	const result = await runWorkflow(wf, { pinData: { [START]: items } });
	if (result.workflowError) throw result.workflowError;
	const out = result.output('HTTP Request');
	if (out.length !== items.length || out[0].json.status !== 'success')
		throw new Error('HTTP Request: wrong output');
}

const VARIANTS: Array<{
	variant: string;
	run: (server: TriggerServer, items: IDataObject[]) => Promise<void>;
	notes?: string;
}> = [
	{ variant: V.bare1, run: (s, i) => bareLoop(s, i, 1, true) },
	{ variant: V.bare8, run: (s, i) => bareLoop(s, i, 8, true) },
	{ variant: V.fresh1, run: (s, i) => bareLoop(s, i, 1, false), notes: "n8n's connection model" },
	{ variant: V.fresh8, run: (s, i) => bareLoop(s, i, 8, false), notes: "n8n's connection model" },
	{ variant: V.node1, run: (s, i) => triggerCall(s, i) },
	{ variant: V.node8, run: (s, i) => triggerCall(s, i, 8) },
	{ variant: V.http, run: httpRequestNode, notes: 'all requests started at once' },
];

const median = (values: number[]) => {
	const sorted = [...values].sort((a, b) => a - b);
	const mid = Math.floor(sorted.length / 2);
	return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

interface Sample {
	serverRequests: number;
	wallMs: number;
	cpuMs: number;
	peakRssMb: number;
}

/** Best-run and CPU figures per variant of the last `run()`, for `ratios()`. */
const extra = new Map<string, { bestMs: number; cpuMs: number }>();

export async function run(): Promise<BenchRow[]> {
	const server = await startTriggerServer();
	const items = inputItems(ITEMS);
	try {
		// warm-up: load the engine and both packages, JIT the paths
		for (const v of VARIANTS) {
			server.reset();
			await v.run(server, inputItems(50));
		}
		const samples = new Map<string, Sample[]>();
		for (let r = 0; r < REPEATS; r++) {
			for (const v of VARIANTS) {
				server.reset();
				const cpu = process.cpuUsage();
				const m = await measure(() => v.run(server, items));
				const used = process.cpuUsage(cpu);
				if (server.requests.length !== items.length || server.deliveries.length !== items.length) {
					throw new Error(
						`${v.variant}: the server received ${server.requests.length} requests and fired ${server.deliveries.length} times for ${items.length} items`,
					);
				}
				const list = samples.get(v.variant) ?? [];
				list.push({
					serverRequests: server.requests.length,
					wallMs: m.wallMs,
					cpuMs: (used.user + used.system) / 1000,
					peakRssMb: m.peakRssMb,
				});
				samples.set(v.variant, list);
			}
		}
		extra.clear();
		return VARIANTS.map((v) => {
			const list = samples.get(v.variant)!;
			const bestMs = Math.min(...list.map((s) => s.wallMs));
			const cpuMs = median(list.map((s) => s.cpuMs));
			extra.set(v.variant, { bestMs, cpuMs });
			return {
				case: CASE,
				variant: v.variant,
				items: items.length,
				requests: items.length,
				serverRequests: Math.max(...list.map((s) => s.serverRequests)),
				wallMs: Math.round(median(list.map((s) => s.wallMs))),
				peakRssMb: Math.round(Math.max(...list.map((s) => s.peakRssMb)) * 10) / 10,
				notes: [
					`best ${Math.round(bestMs)} ms`,
					`runs ${list.map((s) => Math.round(s.wallMs)).join('/')}`,
					`CPU ${Math.round(cpuMs)} ms`,
					v.notes,
				]
					.filter(Boolean)
					.join('; '),
			};
		});
	} finally {
		await server.close();
	}
}

/** The targets' ratios on median wall time, best run and CPU time. */
export function ratios(rows: BenchRow[]): string[] {
	const wall = (variant: string) => rows.find((r) => r.variant === variant)!.wallMs;
	return targets.map((t) => {
		const a = extra.get(t.variant)!;
		const b = extra.get(t.baseline)!;
		const f = (x: number) => x.toFixed(2);
		return `${t.variant} / ${t.baseline}: median ${f(wall(t.variant) / wall(t.baseline))}×, best ${f(a.bestMs / b.bestMs)}×, CPU ${f(a.cpuMs / b.cpuMs)}× (target ≤ ${t.maxRatio}×)`;
	});
}

if (require.main === module) {
	run()
		.then((rows) => {
			console.log(table(rows));
			console.log();
			const v = verdicts(rows, targets);
			console.log(v.lines.join('\n'));
			console.log();
			console.log(ratios(rows).join('\n'));
			process.exit(v.ok ? 0 : 1);
		})
		.catch((error: unknown) => {
			console.error(error);
			process.exit(1);
		});
}
