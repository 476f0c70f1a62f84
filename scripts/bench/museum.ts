/**
 * Museum Object Search, Return All over ≥ 40,000 records in pages of 100, through n8n's engine (`runWorkflow`),
 * next to a bare keep-alive axios loop making the same requests (same path, query, Bearer header; it follows the
 * same next links and keeps the same records), in the same process and the same run.
 *
 * Data: with ../shared/data present, the real Tate + CMOA records (97,460) and the search "Classification =
 * Drawings" (51,804 records, 519 pages); without it, 40,000 generated records and an empty search (400 pages).
 * The museum server runs in a child process, so that its CPU and memory (the whole collection, the JSON it
 * writes) are not counted against either client.
 *
 * Figures per case: median wall time over REPEATS runs, requests made by the client and counted by the server,
 * peak RSS above the baseline taken just before the case (sampled every 2 ms, after a forced GC), and the JSON
 * size of the records the service returned, the yardstick of the memory target (peak ≤ 2× that size).
 *
 *   npx tsx scripts/bench/museum.ts     (REPEATS=… runs per variant, default 3; LATENCY_MS=… delays every answer)
 *
 * The machine's load matters: each variant's runs are interleaved with the others' (the order rotates), the table
 * shows the median, and the notes the best run and this process's CPU time, which contention disturbs less.
 */
import axios from 'axios';
import { type ChildProcess, fork } from 'node:child_process';
import http from 'node:http';
import type { IDataObject } from 'n8n-workflow';

import { chain, logs, manualTrigger, node, runWorkflow } from '../../test/harness/engine';
import {
	DEFAULT_API_KEY,
	type MuseumRecord,
	generateMuseumRecords,
	hasSharedData,
	loadMuseumRecords,
	startMuseumServer,
} from '../../test/servers';
import { type BenchRow, type Target, measure, median, table, verdicts } from './util';

const REPEATS = Math.max(1, Number(process.env.REPEATS ?? 3));
/** Added to every answer of the service, in ms (default 0: loopback, the worst case for any client overhead). */
const LATENCY_MS = Math.max(0, Number(process.env.LATENCY_MS ?? 0));
const START = 'When clicking Execute';
const SERVER_FLAG = '--museum-bench-server';
const CASE = `Museum Return All, pages of 100${LATENCY_MS ? `, ${LATENCY_MS} ms service latency` : ''}`;
const V = {
	bare: 'bare axios loop (keep-alive)',
	fresh: 'bare axios loop (new connection per request)',
	simplified: 'Museum Object Search node, Output Simplified',
	raw: 'Museum Object Search node, Output Raw',
};

/** Wall time ≤ 1.2× the bare loop's; the memory target (≤ 2× the records' JSON) is each node row's budget. */
export const targets: Target[] = [
	{ case: CASE, variant: V.simplified, baseline: V.bare, maxRatio: 1.2 },
	{ case: CASE, variant: V.raw, baseline: V.bare, maxRatio: 1.2 },
];

// ------------------------------------------------------------------------------------------ the server process

interface ServerInfo {
	url: string;
	/** Records the benchmark search matches */
	total: number;
	/** JSON size of those records (bytes), as the service sends them */
	jsonBytes: number;
	/** Query of the benchmark search (without limit/page) */
	query: Record<string, string>;
	source: string;
}

async function serve(): Promise<void> {
	const real = hasSharedData();
	const records: MuseumRecord[] = real
		? loadMuseumRecords({ source: 'real' })
		: generateMuseumRecords(40_000);
	const query: Record<string, string> = real ? { classification: 'Drawings' } : {};
	const matching = real ? records.filter((r) => r.classification === 'Drawings') : records;
	const server = await startMuseumServer({ records });
	let jsonBytes = 0;
	for (const r of matching) jsonBytes += Buffer.byteLength(JSON.stringify(r));
	const info: ServerInfo = {
		url: server.url,
		total: matching.length,
		jsonBytes,
		query,
		source: real
			? `real Tate + CMOA records (${records.length.toLocaleString('en-US')}), classification=Drawings`
			: '40,000 generated records (../shared/data absent), empty search',
	};
	process.on('message', (message: { type: string }) => {
		if (message.type === 'count') process.send!({ type: 'count', count: server.requests.length });
		if (message.type === 'reset') {
			server.reset();
			server.setMode({ delayMs: LATENCY_MS });
			process.send!({ type: 'reset' });
		}
		if (message.type === 'stop') void server.close().then(() => process.exit(0));
	});
	process.send!({ type: 'ready', info });
}

class ServerProcess {
	private constructor(
		private readonly child: ChildProcess,
		readonly info: ServerInfo,
	) {}

	static async start(): Promise<ServerProcess> {
		const child = fork(__filename, [SERVER_FLAG], {
			stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
		});
		const info = await new Promise<ServerInfo>((resolve, reject) => {
			child.once('error', reject);
			child.once('exit', (code) => reject(new Error(`the museum server process exited (${code})`)));
			child.on(
				'message',
				(m: { type: string; info?: ServerInfo }) => m.type === 'ready' && resolve(m.info!),
			);
		});
		child.removeAllListeners('exit');
		return new ServerProcess(child, info);
	}

	private ask<T>(type: string): Promise<T> {
		return new Promise((resolve) => {
			const onMessage = (m: { type: string } & T) => {
				if (m.type !== type) return;
				this.child.off('message', onMessage);
				resolve(m);
			};
			this.child.on('message', onMessage);
			this.child.send({ type });
		});
	}

	async count(): Promise<number> {
		return (await this.ask<{ count: number }>('count')).count;
	}

	async reset(): Promise<void> {
		await this.ask('reset');
	}

	stop(): void {
		this.child.send({ type: 'stop' });
	}
}

// ------------------------------------------------------------------------------------------ the cases

/** The bare loop: the node's requests by hand — page 1, then the service's next links, until there is none. */
async function bareLoop(
	info: ServerInfo,
	keepAlive: boolean,
): Promise<{ records: unknown[]; requests: number }> {
	const client = axios.create({
		httpAgent: new http.Agent({ keepAlive, maxSockets: 1 }),
		headers: { Authorization: `Bearer ${DEFAULT_API_KEY}`, Accept: 'application/json' },
		timeout: 30_000,
	});
	const records: unknown[] = [];
	let url: string | undefined =
		`${info.url}/object?${new URLSearchParams({ ...info.query, limit: '100', page: '1' })}`;
	let requests = 0;
	while (url) {
		const res: { data: { data: { info: { next?: string }; records: unknown[] } } } =
			await client.get(url);
		requests++;
		const data = res.data.data;
		for (const record of data.records) records.push(record);
		url = data.records.length ? data.info.next : undefined;
	}
	return { records, requests };
}

function museumWorkflow(output: 'simplified' | 'raw') {
	const params: IDataObject = {
		returnAll: true,
		filters: { ...(hasSharedData() ? { classification: 'Drawings' } : {}) },
		options: { output, maxPages: 2000 },
	};
	return chain(manualTrigger(START), node('museumObjectSearch', 'Museum', params));
}

/** Pages the node reported in its debug log line. */
function pagesLogged(): number {
	const line = logs.find((l) => /museum search of item 0 fetched \d+ pages/.test(l.message));
	return line ? Number(/fetched (\d+) pages/.exec(line.message)![1]) : NaN;
}

export async function run(): Promise<BenchRow[]> {
	const server = await ServerProcess.start();
	const { info } = server;
	const credentials = { triptychApi: { apiKey: DEFAULT_API_KEY, museumUrl: info.url } };
	const caseName = CASE;
	const jsonMb = info.jsonBytes / 1048576;

	type Sample = {
		wallMs: number;
		cpuMs: number;
		peakRssMb: number;
		requests: number;
		serverRequests: number;
		items: number;
		outMb?: number;
	};
	const variants: Array<{
		name: string;
		note: string;
		run: () => Promise<Omit<Sample, 'serverRequests'>>;
	}> = [
		...[
			{ name: V.bare, note: 'keeps the raw records', keepAlive: true },
			{ name: V.fresh, note: 'what n8n’s request helpers do', keepAlive: false },
		].map(({ name, note, keepAlive }) => ({
			name,
			note,
			run: async () => {
				const m = await measure(() => bareLoop(info, keepAlive));
				return {
					wallMs: m.wallMs,
					cpuMs: m.cpuMs,
					peakRssMb: m.peakRssMb,
					requests: m.result.requests,
					items: m.result.records.length,
				};
			},
		})),
		...(['simplified', 'raw'] as const).map((output) => ({
			name: V[output],
			note: output === 'raw' ? 'outputs the raw records' : 'one flat item per record',
			run: async () => {
				logs.length = 0;
				const wf = museumWorkflow(output);
				const m = await measure(() => runWorkflow(wf, { credentials }));
				if (m.result.workflowError) throw m.result.workflowError;
				const out = m.result.output('Museum');
				let outBytes = 0;
				for (const item of out) outBytes += Buffer.byteLength(JSON.stringify(item.json));
				return {
					wallMs: m.wallMs,
					cpuMs: m.cpuMs,
					peakRssMb: m.peakRssMb,
					requests: pagesLogged(),
					items: out.length,
					outMb: outBytes / 1048576,
				};
			},
		})),
	];

	const samples = new Map<string, Sample[]>();
	try {
		// warm-up: load the package and n8n's modules, JIT the paths, open the server's caches
		await server.reset();
		for (const v of variants) await v.run();
		for (let r = 0; r < REPEATS; r++) {
			// rotate the order, so that no variant always runs first (or always inherits a grown heap)
			const order = variants.map((_, n) => variants[(n + r) % variants.length]);
			for (const v of order) {
				await server.reset();
				const s = await v.run();
				const serverRequests = await server.count();
				samples.set(v.name, [...(samples.get(v.name) ?? []), { ...s, serverRequests }]);
			}
		}
	} finally {
		server.stop();
	}

	const rows: BenchRow[] = variants.map((v) => {
		const list = samples.get(v.name)!;
		const wallMs = median(list.map((s) => s.wallMs));
		const minMs = Math.min(...list.map((s) => s.wallMs));
		const cpuMs = median(list.map((s) => s.cpuMs));
		const peakRssMb = median(list.map((s) => s.peakRssMb));
		const last = list[list.length - 1];
		if (last.items !== info.total)
			throw new Error(`${v.name} returned ${last.items} records, the service has ${info.total}`);
		const out = last.outMb === undefined ? '' : `, output JSON ${last.outMb.toFixed(1)} MB`;
		return {
			case: caseName,
			variant: v.name,
			items: last.items,
			requests: last.requests,
			serverRequests: last.serverRequests,
			wallMs,
			peakRssMb,
			...(v.name.startsWith('Museum') ? { memoryBudgetMb: 2 * jsonMb } : {}),
			notes: `${v.note}; best ${Math.round(minMs)} ms; CPU ${Math.round(cpuMs)} ms; records JSON ${jsonMb.toFixed(1)} MB${out}; peak RSS Δ = ${(peakRssMb / jsonMb).toFixed(2)}× records JSON; runs ${list.map((s) => Math.round(s.wallMs)).join('/')} ms`,
		};
	});
	return rows;
}

// ------------------------------------------------------------------------------------------ entry points

if (require.main === module) {
	if (process.argv.includes(SERVER_FLAG)) {
		void serve();
	} else {
		run().then(
			(rows) => {
				console.log(`${rows[0].case} (REPEATS=${REPEATS})\n`);
				console.log(table(rows));
				const v = verdicts(rows, targets);
				console.log(`\n${v.lines.join('\n')}`);
				process.exit(v.ok ? 0 : 1);
			},
			(error: unknown) => {
				console.error(error);
				process.exit(1);
			},
		);
	}
}
