/**
 * The museum service of the benchmark, in a child process, so that its CPU and memory (the whole collection, the
 * JSON it writes) are not counted against any client; and the bare client that pages through it by hand.
 *
 * Data: `real` uses the real Tate + CMOA records of ../shared/data when present (the search "Classification =
 * Drawings", 51,804 records) and else `fallback` generated records with an empty search; `generated` always uses
 * generated records (deterministic, so the case works without ../shared/data).
 */
import { type ChildProcess, fork } from 'node:child_process';
import type { AxiosInstance } from 'axios';

import {
	DEFAULT_API_KEY,
	type MuseumMode,
	type MuseumRecord,
	generateMuseumRecords,
	hasSharedData,
	loadMuseumRecords,
	startMuseumServer,
} from '../../test/servers';
import type { BenchServer } from './compare';
import { bareClient } from './compare';
import { pool } from './util';

const SERVER_FLAG = '--museum-bench-server';

export interface DataSpec {
	source: 'real' | 'generated';
	/** Generated records (for `generated`, or for `real` when ../shared/data is absent) */
	count: number;
}

export interface ServerInfo {
	url: string;
	/** Records the benchmark search matches */
	total: number;
	/** JSON size of those records (bytes), as the service sends them */
	jsonBytes: number;
	/** Query of the benchmark search (without limit/page) */
	query: Record<string, string>;
	source: string;
	/** A few words that find records, for one search per item */
	words: string[];
}

async function serve(spec: DataSpec): Promise<void> {
	const real = spec.source === 'real' && hasSharedData();
	const records: MuseumRecord[] = real
		? loadMuseumRecords({ source: 'real' })
		: generateMuseumRecords(spec.count);
	const query: Record<string, string> = real ? { classification: 'Drawings' } : {};
	const matching = real ? records.filter((r) => r.classification === 'Drawings') : records;
	const server = await startMuseumServer({ records });
	let jsonBytes = 0;
	for (const r of matching) jsonBytes += Buffer.byteLength(JSON.stringify(r));
	const lastNames = matching.slice(0, 200).map(
		(r) =>
			String(r.people[0]?.name ?? '')
				.split(' ')
				.pop() ?? '',
	);
	const words = [...new Set(lastNames)].filter(Boolean).slice(0, 12);
	const info: ServerInfo = {
		url: server.url,
		total: matching.length,
		jsonBytes,
		query,
		words,
		source: real
			? `real Tate + CMOA records (${records.length.toLocaleString('en-US')}), classification=Drawings`
			: `${records.length.toLocaleString('en-US')} generated records, empty search`,
	};
	process.on('message', (message: { type: string; mode?: Partial<MuseumMode> }) => {
		if (message.type === 'count') process.send!({ type: 'count', count: server.requests.length });
		if (message.type === 'reset') {
			server.reset();
			server.setMode(message.mode ?? {});
			process.send!({ type: 'reset' });
		}
		if (message.type === 'stop') void server.close().then(() => process.exit(0));
	});
	process.send!({ type: 'ready', info });
}

export class ServerProcess implements BenchServer {
	/** Mode applied at every reset (e.g. `{ delayMs: 50 }`) */
	mode: Partial<MuseumMode> = {};

	private constructor(
		private readonly child: ChildProcess,
		readonly info: ServerInfo,
	) {}

	static async start(spec: DataSpec): Promise<ServerProcess> {
		const child = fork(__filename, [SERVER_FLAG, JSON.stringify(spec)], {
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

	private ask<T>(message: { type: string; mode?: Partial<MuseumMode> }): Promise<T> {
		return new Promise((resolve) => {
			const onMessage = (m: { type: string } & T) => {
				if (m.type !== message.type) return;
				this.child.off('message', onMessage);
				resolve(m);
			};
			this.child.on('message', onMessage);
			this.child.send(message);
		});
	}

	async count(): Promise<number> {
		return (await this.ask<{ count: number }>({ type: 'count' })).count;
	}

	async reset(): Promise<void> {
		await this.ask({ type: 'reset', mode: this.mode });
	}

	stop(): void {
		this.child.send({ type: 'stop' });
	}
}

// ------------------------------------------------------------------------------------------ the bare client

type Page = { data: { info: { next?: string; pages: number }; records: unknown[] } };

export function museumClient(keepAlive: boolean): AxiosInstance {
	return bareClient(keepAlive, {
		Authorization: `Bearer ${DEFAULT_API_KEY}`,
		Accept: 'application/json',
	});
}

async function getPage(client: AxiosInstance, url: string): Promise<Page['data']> {
	const res = await client.get<Page>(url);
	if (res.status !== 200) throw new Error(`bare loop: HTTP ${res.status} for ${url}`);
	return res.data.data;
}

/**
 * Return All by hand: page 1, then either the service's next links one after another (`concurrency` 1) or pages
 * 2…last by number, `concurrency` at a time. Keeps every record, in page order.
 */
export async function barePages(
	info: ServerInfo,
	keepAlive: boolean,
	concurrency = 1,
): Promise<{ records: unknown[]; requests: number }> {
	const client = museumClient(keepAlive);
	const pageUrl = (page: number) =>
		`${info.url}/object?${new URLSearchParams({ ...info.query, limit: '100', page: String(page) })}`;
	const first = await getPage(client, pageUrl(1));
	let requests = 1;
	if (concurrency > 1) {
		const pages: unknown[][] = [first.records];
		await pool(Math.max(0, first.info.pages - 1), concurrency, async (n) => {
			pages[n + 1] = (await getPage(client, pageUrl(n + 2))).records;
			requests++;
		});
		return { records: pages.flat(), requests };
	}
	const records: unknown[] = [...first.records];
	let next = first.records.length ? first.info.next : undefined;
	while (next) {
		const data = await getPage(client, next);
		requests++;
		for (const record of data.records) records.push(record);
		next = data.records.length ? data.info.next : undefined;
	}
	return { records, requests };
}

if (require.main === module && process.argv.includes(SERVER_FLAG)) {
	void serve(JSON.parse(process.argv[process.argv.indexOf(SERVER_FLAG) + 1]) as DataSpec);
}
