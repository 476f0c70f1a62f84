/**
 * Museum Object Search on loopback, Return All over ≥ 40,000 records in pages of 100, through n8n's engine, next to
 * a bare keep-alive axios loop making the same requests (same path, query, Bearer header; it follows the same next
 * links and keeps the same records), in the same process and the same run.
 *
 * Data: with ../shared/data present, the real Tate + CMOA records (97,460) and the search "Classification =
 * Drawings" (51,804 records, 519 pages); without it, 40,000 generated records and an empty search (400 pages).
 * The server runs in a child process (museumServer.ts). Figures per variant: median wall time over REPEATS runs,
 * requests made by the client and counted by the server, peak RSS above the baseline taken just before the run,
 * and the JSON size of the records, the yardstick of the memory target (peak ≤ 2× that size).
 *
 *   npx tsx scripts/bench/museum.ts     (REPEATS=… runs per variant, default 3)
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { logs } from '../../test/harness/engine';
import { DEFAULT_API_KEY, hasSharedData } from '../../test/servers';
import { type Variant, oneNode, runCase, runEngine } from './compare';
import { type ServerInfo, ServerProcess, barePages } from './museumServer';
import { type BenchRow, type Target, table, verdicts } from './util';

const REPEATS = Math.max(1, Number(process.env.REPEATS ?? 3));
export const CASE = 'Museum Return All, pages of 100';
export const V = {
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

export const museumCredentials = (url: string) => ({
	triptychApi: { apiKey: DEFAULT_API_KEY, museumUrl: url },
});

/** Pages the node reported in its debug log line for item 0. */
export function pagesLogged(): number {
	const line = logs.find((l) => /museum search of item 0 fetched \d+ pages?/.test(l.message));
	return line ? Number(/fetched (\d+) page/.exec(line.message)![1]) : NaN;
}

const jsonMb = (out: INodeExecutionData[]) => {
	let bytes = 0;
	for (const item of out) bytes += Buffer.byteLength(JSON.stringify(item.json));
	return bytes / 1048576;
};

/** The node's Return All run (one input item) as a case variant: records, pages from its log, output JSON size. */
export function returnAllVariant(
	name: string,
	info: ServerInfo,
	params: IDataObject,
	notes?: string,
): Variant {
	const workflow = oneNode('museumObjectSearch', 'Museum', { returnAll: true, ...params });
	return {
		name,
		notes,
		run: async (warm) => {
			logs.length = 0;
			const outcome = await runEngine(
				{
					workflow,
					output: 'Museum',
					credentials: museumCredentials(info.url),
					describe: (out) => `output JSON ${jsonMb(out).toFixed(1)} MB`,
				},
				warm,
			);
			return { ...outcome, requests: pagesLogged(), expectServer: pagesLogged() };
		},
	};
}

/** The bare loop over every page as a case variant (`concurrency` 1: following next links). */
export function barePagesVariant(
	name: string,
	info: ServerInfo,
	keepAlive: boolean,
	concurrency = 1,
	notes?: string,
): Variant {
	return {
		name,
		notes,
		run: async () => {
			const { records, requests } = await barePages(info, keepAlive, concurrency);
			return { records: records.length, requests, expectServer: requests };
		},
	};
}

/** Adds each row's peak RSS Δ relative to the records' JSON to its notes, and the memory budget to node rows. */
export function memoryNotes(rows: BenchRow[], info: ServerInfo, budgeted: string[]): BenchRow[] {
	const mb = info.jsonBytes / 1048576;
	return rows.map((row) => ({
		...row,
		...(budgeted.includes(row.variant) ? { memoryBudgetMb: 2 * mb } : {}),
		notes: `${row.notes}; records JSON ${mb.toFixed(1)} MB; peak RSS Δ = ${(row.peakRssMb / mb).toFixed(2)}× records JSON`,
	}));
}

export async function run(): Promise<BenchRow[]> {
	const server = await ServerProcess.start({ source: 'real', count: 40_000 });
	const { info } = server;
	const filters = hasSharedData() ? { classification: 'Drawings' } : {};
	try {
		const rows = await runCase({
			case: CASE,
			server,
			repeats: REPEATS,
			records: info.total,
			variants: [
				barePagesVariant(V.bare, info, true, 1, 'keeps the raw records'),
				barePagesVariant(V.fresh, info, false, 1, 'what n8n’s request helpers do'),
				returnAllVariant(
					V.simplified,
					info,
					{ filters, output: 'simplified', options: { maxPages: 2000 } },
					'one flat item per record',
				),
				returnAllVariant(
					V.raw,
					info,
					{ filters, output: 'raw', options: { maxPages: 2000 } },
					'outputs the raw records',
				),
			],
		});
		return memoryNotes(rows, info, [V.simplified, V.raw]).map((row, n) => ({
			...row,
			items: info.total,
			notes: n ? row.notes : `${info.source}; ${row.notes}`,
		}));
	} finally {
		server.stop();
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
