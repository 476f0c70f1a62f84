/**
 * `npm run bench:n8n`: the warm run in a real n8n, where the HTTP Request node's own work per request shows (in
 * `npm run bench` it shares one process with the services and the engine, and n8n's request path sets both nodes'
 * time). The packed package in the end-to-end check's n8n (`n8n start`, installed once into ~/.cache/triptych-e2e);
 * per node, two webhook workflows (Webhook → Split Out of 300 items → the node, answering when done): this package's
 * node at its newest version with its defaults, and the HTTP Request node. The services run at 50 ms in this process.
 * A cold run first, then pairs of warm runs back to back; each pair's ratio of the two times from webhook call to
 * answer. Exits 1 when a node's median misses 0.7×. Options: --n8n=2.41.1, BENCH_PAIRS=7.
 */
import path from 'node:path';

import type { WorkflowJson } from './e2e/scenarios';
import { fail, log, runMain, waitFor } from './e2e/checks';
import { pack, prepare, startN8n, writeJson } from './e2e/instance';
import { installN8n, killAll, n8nBin, run } from './e2e/n8n';
import { newestVersions } from '../test/harness/engine';
import { type Kind, OURS, items, peerParameters } from './bench/workloads';
import {
	DEFAULT_API_KEY,
	generateMuseumRecords,
	startMuseumServer,
	startQuotesServer,
	startTriggerServer,
} from '../test/servers';

const VERSION = /^--n8n=(.+)$/.exec(process.argv[2] ?? '')?.[1] ?? '2.41.1';
const PAIRS = Math.max(1, Number(process.env.BENCH_PAIRS ?? 7));
const ITEMS = 300;
const KINDS: Kind[] = ['quotes', 'trigger', 'museum'];
const TARGET = 0.7;
const WORK = path.join(__dirname, '..', '.tmp', 'bench-n8n');
const CREDENTIAL = { id: 'benchTriptych001', name: 'Triptych (bench)' };

/** Webhook → Split Out (the posted items) → `node`, answering when the last node is done. */
function workflow(id: string, node: Record<string, unknown>): WorkflowJson & { id: string } {
	const webhook = {
		path: id,
		httpMethod: 'POST',
		responseMode: 'lastNode',
		responseData: 'noData',
	};
	const nodes = [
		{ name: 'Webhook', type: 'n8n-nodes-base.webhook', typeVersion: 2, parameters: webhook },
		{
			name: 'Split',
			type: 'n8n-nodes-base.splitOut',
			typeVersion: 1,
			parameters: { fieldToSplitOut: 'body' },
		},
		{ name: 'Node', ...node },
	].map((n, i) => ({ id: `${id}-${i}`, position: [i * 200, 0], ...n }));
	const next = (to: string) => ({ main: [[{ node: to, type: 'main', index: 0 }]] });
	return {
		id,
		name: `bench: ${id}`,
		active: false,
		nodes: [
			{ ...nodes[0], webhookId: `b3c4d5e6-0000-4000-8000-${id.slice(-12)}` },
			...nodes.slice(1),
		],
		connections: { Webhook: next('Split'), Split: next('Node') },
		settings: {},
	} as unknown as WorkflowJson & { id: string };
}

async function main(): Promise<number> {
	const newest = await newestVersions();
	const install = await installN8n(VERSION, log);
	const env = await prepare(install, await pack(WORK), path.join(WORK, `n8n-${VERSION}`));
	const services = {
		quotes: await startQuotesServer(),
		trigger: await startTriggerServer(),
		museum: await startMuseumServer({ records: generateMuseumRecords(2000) }),
	};
	for (const s of Object.values(services)) s.setMode({ delayMs: 50 });
	const data = { apiKey: DEFAULT_API_KEY, sendKeyToQuotes: false };
	for (const kind of KINDS) Object.assign(data, { [OURS[kind].urlField]: services[kind].url });
	const workflows = KINDS.flatMap((kind) => {
		const { type: name, parameters } = OURS[kind];
		const type = `n8n-nodes-triptych.${name}`;
		const typeVersion = newest[name];
		const credentials = { triptychApi: CREDENTIAL };
		// 4.2: the newest HTTP Request node n8n 1.x has, so --n8n=1.85.4 runs the same workflows
		const http = { type: 'n8n-nodes-base.httpRequest', typeVersion: 4.2 };
		return [
			workflow(`bench${kind}ours`.padEnd(16, '0'), { type, typeVersion, parameters, credentials }),
			workflow(`bench${kind}peer`.padEnd(16, '0'), {
				...http,
				parameters: { ...peerParameters(kind, services[kind].url), options: {} },
				onError: 'continueRegularOutput',
			}),
		];
	});
	const cli = (args: string[]) =>
		run(env.runtime.node, [n8nBin(VERSION), ...args], {
			env: env.vars,
			cwd: env.userFolder,
			timeoutMs: 180_000,
		});
	const credentials = [{ ...CREDENTIAL, type: 'triptychApi', data }];
	for (const [command, list] of [
		['import:credentials', credentials],
		['import:workflow', workflows],
	] as const) {
		const file = path.join(env.userFolder, `${command.split(':')[1]}.json`);
		writeJson(file, list);
		const result = await cli([command, `--input=${file}`]);
		if (result.code !== 0) fail(`${command}: ${result.stderr.slice(-2000)}`);
	}
	for (const { id } of workflows) {
		const result = await cli(install.target.activate(id));
		if (result.code !== 0) fail(`activating ${id}: ${result.stderr.slice(-2000)}`);
	}
	const app = await startN8n(env, 'Bench');
	const body = JSON.stringify(items(ITEMS));
	/** A webhook call; n8n answers 404, running nothing, until it has registered the published workflows' webhooks */
	const call = async (id: string) =>
		await waitFor(`the webhook of ${id}`, 30_000, async () => {
			const started = performance.now();
			const res = await fetch(`${app.base}/webhook/${id}`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body,
				signal: AbortSignal.timeout(60_000),
			});
			await res.text();
			return res.status === 404 ? undefined : { res, ms: performance.now() - started };
		});
	/** One execution through its webhook: ms from call to answer; all items must have reached the service */
	const execute = async (id: string, kind: Kind) => {
		const before = services[kind].requests.length;
		const { res, ms } = await call(id);
		const sent = services[kind].requests.length - before;
		if (!res.ok || sent < ITEMS) fail(`${id}: HTTP ${res.status}, ${sent} requests`);
		return ms;
	};
	let missed = 0;
	try {
		log(`n8n ${VERSION}, ${ITEMS} items, services at 50 ms, ${PAIRS} warm pairs per node`);
		for (const kind of KINDS) {
			const [ours, peer] = workflows
				.filter((w) => w.id.startsWith(`bench${kind}`))
				.map((w) => w.id);
			await execute(peer, kind); // n8n's own first-run work, out of the way
			const cold = await execute(ours, kind);
			const ratios: number[] = [];
			for (let i = 0; i < PAIRS; i++)
				ratios.push((await execute(ours, kind)) / (await execute(peer, kind)));
			const sorted = [...ratios].sort((a, b) => a - b);
			const median = sorted[Math.floor(sorted.length / 2)];
			if (median > TARGET) missed++;
			const all = ratios.map((r) => `${r.toFixed(2)}×`).join(' ');
			log(
				`${median <= TARGET ? '✓' : '✗'} ${kind}: warm ${median.toFixed(2)}× the HTTP Request node (${all}); cold ${cold.toFixed(0)} ms; target ≤ ${TARGET}×`,
			);
		}
	} finally {
		await app.server.stop();
		await Promise.all(Object.values(services).map(async (s) => await s.close()));
		killAll();
	}
	return missed ? 1 : 0;
}

runMain(main);
