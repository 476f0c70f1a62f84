/**
 * `npm run bench`: the cases that carry a target, run through n8n's engine in this process against loopback services
 * (test/servers) with latency and the limiters real services use, n8n's HTTP Request node as the peer in the same
 * run. One report: each figure as a ratio (to the ideal the service's limit allows, or to the peer), its target, and
 * the load of the machine when it was measured. Exits 1 when a target is missed.
 *
 *   BENCH_ONLY=crowd,headers,quotable,shapes,distant,latency,loopback   a subset (default: all)
 *   BENCH_RUNS=5                                                     runs of each limiter shape without headers
 */
import os from 'node:os';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import {
	type WorkflowSpec,
	chain,
	manualTrigger,
	newestVersions,
	node as workflowNode,
	runWorkflow,
} from '../test/harness/engine';
import {
	DEFAULT_API_KEY,
	type RateLimit,
	type TestServer,
	generateMuseumRecords,
	startMuseumServer,
	startQuotesServer,
	startTriggerServer,
} from '../test/servers';
import { type Kind, OURS, items, peerParameters } from './bench/workloads';

const RUNS = Math.max(1, Number(process.env.BENCH_RUNS ?? 5));
const ONLY = (process.env.BENCH_ONLY ?? '').split(',').filter(Boolean);
const START = 'Start';

interface Row {
	case: string;
	figure: string;
	target: string;
	ok?: boolean;
	load: string;
}
const rows: Row[] = [];
const load = () => os.loadavg()[0].toFixed(2);
function report(name: string, figure: string, target = '', ok?: boolean) {
	rows.push({ case: name, figure, target, ok, load: load() });
	process.stderr.write(`${ok === false ? '✗' : ok ? '✓' : '·'} ${name}: ${figure} ${target}\n`);
}
const x = (n: number) => `${n.toFixed(2)}×`;
const pct = (part: number, whole: number) => (whole ? (100 * part) / whole : Infinity);

// ------------------------------------------------------------------------------------------------ the workloads

const records = generateMuseumRecords(2_000);

async function service(kind: Kind, rateLimit?: RateLimit, delayMs = 0) {
	const server: TestServer & { deliveries?: Array<{ body: unknown }> } =
		kind === 'quotes'
			? await startQuotesServer()
			: kind === 'trigger'
				? await startTriggerServer()
				: await startMuseumServer({ records });
	// a new address may be one a closed service had: the nodes must not remember that one's budget
	server.reset();
	server.setMode({ rateLimit, delayMs });
	return server;
}

/** Each node's newest version (read before the cases run) */
let newest: Record<string, number> = {};

/** The node of this package for `kind`, as a node added to a workflow is: its newest version, its defaults. */
function ours(kind: Kind, url: string) {
	const { type, parameters, urlField } = OURS[kind];
	const credentials = {
		triptychApi: { apiKey: DEFAULT_API_KEY, [urlField]: url, sendKeyToQuotes: false },
	};
	const typeVersion = newest[type];
	const wf = chain(manualTrigger(START), workflowNode(type, 'Node', parameters, { typeVersion }));
	return { wf, credentials };
}

/** n8n's HTTP Request node making the same request per item, On Error → Continue (its errors become items). */
function peer(kind: Kind, url: string) {
	const http = workflowNode(
		'n8n-nodes-base.httpRequest',
		'Node',
		{ ...peerParameters(kind, url), options: {} },
		{ typeVersion: 4.5, onError: 'continueRegularOutput' },
	);
	return { wf: chain(manualTrigger(START), http), credentials: {} };
}

/** One execution: wall time, failed items (the whole input when the node stopped the workflow). */
async function execute(
	w: { wf: WorkflowSpec; credentials: Record<string, IDataObject> },
	input: IDataObject[],
) {
	const started = performance.now();
	const result = await runWorkflow(w.wf, {
		credentials: w.credentials as never,
		pinData: { [START]: input },
	});
	const ms = performance.now() - started;
	if (result.workflowError)
		return { ms, failed: input.length, error: result.workflowError.message };
	const out: INodeExecutionData[] = result.output('Node');
	return { ms, failed: out.filter((item) => item.json.error !== undefined).length };
}

/** What the service saw: accepted and refused requests. */
const counts = (server: TestServer) => ({
	accepted: server.requests.length - server.rateLimited,
	refused: server.rateLimited,
});

/** The least time the limit allows for `n` requests (from the first one), in ms. */
function ideal(limit: RateLimit, n: number): number {
	if ('perSecond' in limit) return (1000 * Math.max(0, n - limit.burst)) / limit.perSecond;
	if ('fixed' in limit) return (Math.ceil(n / limit.fixed) - 1) * limit.windowMs;
	if ('sliding' in limit) return (Math.ceil(n / limit.sliding) - 1) * limit.windowMs;
	return 0;
}

// ------------------------------------------------------------------------------------------------ the cases

/** 40 webhook executions × 5 items at once against 20/s burst 10: politeness at scale. */
async function crowd() {
	const limit: RateLimit = { perSecond: 20, burst: 10 };
	const name = '40 concurrent executions × 5 items, Fire Automation, 20/s burst 10';
	const server = await service('trigger', limit);
	const w = ours('trigger', server.url);
	const started = performance.now();
	const runs = await Promise.all(
		Array.from({ length: 40 }, async (_, e) => {
			const r = await execute(w, items(5, 5 * e));
			return { ...r, end: performance.now() - started };
		}),
	);
	const total = performance.now() - started;
	const { accepted, refused } = counts(server);
	const delivered = server.deliveries!.map((d) => (d.body as { n: number }).n);
	const once = delivered.length === 200 && new Set(delivered).size === 200;
	const ends = runs.map((r) => r.end).sort((a, b) => a - b);
	const failed = runs.reduce((n, r) => n + r.failed, 0);
	report(name, `${failed} failed items`, '0', failed === 0);
	report(
		name,
		`${delivered.length} deliveries of ${new Set(delivered).size} automations`,
		'each once',
		once,
	);
	report(
		name,
		`${x(total / ideal(limit, 200))} the ideal`,
		'≤ 1.25×',
		total <= 1.25 * ideal(limit, 200),
	);
	report(
		name,
		`${pct(refused, accepted).toFixed(1)}% refused per accepted`,
		'≤ 10%',
		refused <= 0.1 * accepted,
	);
	const slowest = ends[ends.length - 1] / ends[Math.floor(ends.length / 2)];
	report(name, `slowest execution ${x(slowest)} the median`, '≤ 3×', slowest <= 3);
	await server.close();

	const peerServer = await service('trigger', limit);
	const p = peer('trigger', peerServer.url);
	const peerRuns = await Promise.all(
		Array.from({ length: 40 }, (_, e) => execute(p, items(5, 5 * e))),
	);
	report(
		name,
		`HTTP Request node: ${peerRuns.reduce((n, r) => n + r.failed, 0)} of 200 items failed`,
	);
	await peerServer.close();
}

/** One run of `n` items against a limiter: time vs the ideal, refusals per accepted request. */
async function limited(kind: Kind, limit: RateLimit, n: number, delayMs = 0) {
	const server = await service(kind, limit, delayMs);
	const r = await execute(ours(kind, server.url), items(n));
	const { accepted, refused } = counts(server);
	const requests = server.requests.map((q) => ({ at: q.at, refused: !!q.rateLimited }));
	await server.close();
	return { ...r, ratio: r.ms / ideal(limit, n), share: pct(refused, accepted), refused, requests };
}

/** Services that announce their quota: the run plans by the headers. */
async function headers() {
	const cases: Array<[string, RateLimit, number]> = [
		[
			'draft-6 RateLimit-*, fixed window 30 per 3 s',
			{ fixed: 30, windowMs: 3000, headers: 'draft6' },
			150,
		],
		[
			'X-RateLimit-*, token bucket 20/s burst 10',
			{ perSecond: 20, burst: 10, headers: 'xRateLimit' },
			150,
		],
		[
			'draft-11 RateLimit, sliding window 20 per 1 s',
			{ sliding: 20, windowMs: 1000, headers: 'draft11' },
			150,
		],
	];
	for (const [what, limit, n] of cases) {
		const r = await limited('quotes', limit, n);
		const name = `${what}, ${n} items, Quote Tags`;
		report(name, `${x(r.ratio)} the ideal`, '≤ 1.05×', r.ratio <= 1.05 && r.failed === 0);
		report(
			name,
			`${r.share.toFixed(1)}% refused, ${r.failed} failed`,
			'≤ 1%',
			r.share <= 1 && r.failed === 0,
		);
	}
}

/** Quotable as it is: 100 per 60 s, draft-6, a 429's Retry-After is the whole window. */
async function quotable() {
	const limit: RateLimit = {
		fixed: 100,
		windowMs: 60_000,
		headers: 'draft6',
		retryAfterWindow: true,
	};
	const name = 'Quotable as it is (100 per 60 s, Retry-After 60), 150 items, Quote Tags defaults';
	const r = await limited('quotes', limit, 150);
	report(name, `${r.failed} failed items`, '0', r.failed === 0);
	report(name, `${x(r.ratio)} the ideal (the second window)`, '≤ 1.1×', r.ratio <= 1.1);
	report(name, `${r.refused} refused`, '≤ 1', r.refused <= 1);
	const server = await service('quotes', limit);
	const p = await execute(peer('quotes', server.url), items(150));
	report(name, `HTTP Request node: ${p.failed} of 150 items failed`);
	await server.close();
}

/** Without headers: each shape in `RUNS` runs, learned from refusals. */
async function shapes() {
	// [what, limit, items, target (none: shown only), latency]
	const cases: Array<[string, RateLimit, number, number?, number?]> = [
		['token bucket 20/s burst 10', { perSecond: 20, burst: 10 }, 200, 1.35],
		['token bucket 100/s burst 20', { perSecond: 100, burst: 20 }, 1000, 1.35],
		['fixed window 30 per 3 s', { fixed: 30, windowMs: 3000 }, 150, 1.35],
		['sliding window 20 per 1 s', { sliding: 20, windowMs: 1000 }, 200, 1.35],
		['at most 8 in flight, 100 ms per answer (503 beyond)', { inFlight: 8 }, 160, 1.3, 100],
		// a real service is not next door: what the window costs when each answer takes 100 ms
		[
			'sliding window 20 per 1 s, 100 ms per answer',
			{ sliding: 20, windowMs: 1000 },
			200,
			undefined,
			100,
		],
	];
	for (const [what, limit, n, target, delayMs] of cases) {
		const runs = [];
		for (let r = 0; r < RUNS; r++) runs.push(await limited('quotes', limit, n, delayMs));
		const ideals =
			'inFlight' in limit
				? (n / limit.inFlight) * (delayMs ?? 0)
				: ideal(limit, n) + (delayMs ?? 0);
		const ratios = runs.map((r) => r.ms / ideals);
		const name = `no headers, ${what}, ${n} items, Quote Tags`;
		const failed = runs.reduce((s, r) => s + r.failed, 0);
		const figure = `${ratios.map(x).join(' ')} the ideal, ${failed} failed`;
		if (target === undefined) report(name, figure);
		else
			report(
				name,
				figure,
				`≤ ${target}× in every run`,
				failed === 0 && Math.max(...ratios) <= target,
			);
		if (!('inFlight' in limit)) {
			const shares = runs.map((r) => r.share);
			const figure = `${shares.map((s) => s.toFixed(1)).join(' ')} % refused`;
			if (target === undefined) report(name, figure);
			else report(name, figure, '≤ 15%', Math.max(...shares) <= 15);
		}
	}
	// a limit that drops from 40/s to 10/s after 3 s: the run is back under it within 2 s. Back under: the refusals
	// the drop brings end (a second with none); later ones are the pace probing past the new limit, as CUBIC does
	const drop: RateLimit = {
		perSecond: 40,
		burst: 10,
		then: { ms: 3000, limit: { perSecond: 10, burst: 10 } },
	};
	const name = 'no headers, token bucket 40/s → 10/s after 3 s, 220 items, Quote Tags';
	for (let r = 0; r < RUNS; r++) {
		const run = await limited('quotes', drop, 220);
		const at = run.requests[0].at + 3000;
		const refusals = run.requests.filter((r) => r.refused && r.at > at).map((r) => r.at);
		let lastRefusal = refusals[0] ?? at;
		for (const t of refusals) if (t - lastRefusal < 1000) lastRefusal = t;
		const back = (lastRefusal - at) / 1000;
		report(
			name,
			`back under ${back.toFixed(1)} s after the drop, ${run.failed} failed`,
			'≤ 2 s',
			back <= 2 && run.failed === 0,
		);
	}
}

/** Median of three ratios of our node's time to the HTTP Request node's, each pair run back to back. */
async function versus(kind: Kind, url: string, n: number) {
	const [w, p] = [ours(kind, url), peer(kind, url)];
	const ratios = [];
	let failed = 0;
	for (let r = 0; r < 3; r++) {
		const node = await execute(w, items(n));
		failed += node.failed;
		ratios.push(node.ms / (await execute(p, items(n))).ms);
	}
	const median = ratios.sort((a, b) => a - b)[1];
	return {
		median,
		failed,
		figure: `${x(median)} the HTTP Request node (${ratios.map(x).join(' ')})`,
	};
}

/** A node's time over the HTTP Request node's, one run each back to back; and our node's failed items. */
async function pair(kind: Kind, url: string, n: number) {
	const node = await execute(ours(kind, url), items(n));
	return { ratio: node.ms / (await execute(peer(kind, url), items(n))).ms, failed: node.failed };
}

/**
 * Services 50 ms and 200 ms away, no limit: each node beside the HTTP Request node on the same items (Quote Tags and
 * Fire Automation 300 items, Museum 100 searches). Cold: the limiter forgotten, as in a new n8n process, the HTTP
 * Request node right after; warm: the median of three pairs after it.
 */
async function distant() {
	const cases: Array<[Kind, number]> = [
		['quotes', 300],
		['trigger', 300],
		['museum', 100],
	];
	for (const [kind] of cases) {
		// each node's first run in the process (code loaded, caches filled), out of the way
		const server = await service(kind);
		await execute(ours(kind, server.url), items(5));
		await execute(peer(kind, server.url), items(5));
		await server.close();
	}
	for (const ms of [50, 200])
		for (const [kind, n] of cases) {
			const server = await service(kind, undefined, ms);
			const cold = await pair(kind, server.url, n);
			const warm = await versus(kind, server.url, n);
			const name = `${ms} ms away, ${n} items, ${kind}`;
			const failed = cold.failed + warm.failed;
			report(
				name,
				`cold ${x(cold.ratio)} the HTTP Request node, ${failed} failed`,
				'≤ 1.0×',
				cold.ratio <= 1 && failed === 0,
			);
			report(name, `warm ${warm.figure}`, '≤ 1.0×', warm.median <= 1);
			await server.close();
		}
}

/**
 * Latency that varies as real services' does (log-normal: median 60 ms, σ 0.7), 300 items, Quote Tags: a cold run
 * (the budget forgotten), then a warm one, each against the HTTP Request node on the same latencies; five series.
 */
async function latency() {
	const server = await service('quotes');
	const [w, p] = [ours('quotes', server.url), peer('quotes', server.url)];
	const latencies = (seed: number) =>
		server.setMode({ delayMs: 60, delaySpread: { sigma: 0.7, seed } });
	const cold = [];
	const warm = [];
	let failed = 0;
	for (let seed = 1; seed <= 5; seed++) {
		server.reset(); // forgets the budgets
		latencies(seed);
		const first = await execute(w, items(300));
		latencies(seed);
		const second = await execute(w, items(300));
		server.reset();
		latencies(seed);
		const theirs = await execute(p, items(300));
		failed += first.failed + second.failed;
		cold.push(first.ms / theirs.ms);
		warm.push(second.ms / theirs.ms);
	}
	await server.close();
	for (const [what, ratios, target] of [
		['cold', cold, 2.5],
		['warm', warm, 1.25],
	] as const) {
		report(
			`latency that varies (median 60 ms, σ 0.7), 300 items, quotes, ${what} run`,
			`${ratios.map(x).join(' ')} the HTTP Request node`,
			`≤ ${target}× in every series`,
			Math.max(...ratios) <= target && failed === 0,
		);
	}
}

/**
 * No service limit at all (loopback, 1,000 items), median of 3: no slower than before the shared budget, which took
 * 0.65× the HTTP Request node's time for both nodes (2026-11-23).
 */
async function loopback() {
	for (const kind of ['quotes', 'trigger'] as Kind[]) {
		const server = await service(kind);
		await execute(ours(kind, server.url), items(50));
		await execute(peer(kind, server.url), items(50));
		const r = await versus(kind, server.url, 1000);
		report(`loopback, 1,000 items, ${kind}`, r.figure);
		await server.close();
	}
}

const CASES = { crowd, headers, quotable, shapes, distant, latency, loopback };

async function main() {
	const machine = `Node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'}, ${new Date().toISOString()}`;
	// load the engine and both packages before anything is measured
	newest = await newestVersions();
	const server = await service('quotes');
	await execute(ours('quotes', server.url), items(5));
	await execute(peer('quotes', server.url), items(5));
	await server.close();
	for (const [name, run] of Object.entries(CASES))
		if (!ONLY.length || ONLY.includes(name)) await run();
	console.log(`${machine}\n\n| case | figure | target | | load |\n|---|---|---|---|---:|`);
	for (const r of rows)
		console.log(
			`| ${r.case} | ${r.figure} | ${r.target} | ${r.ok === undefined ? '' : r.ok ? '✓' : '✗'} | ${r.load} |`,
		);
	process.exit(rows.some((r) => r.ok === false) ? 1 : 0);
}

main().catch((error) => {
	console.error(error);
	process.exit(2);
});
