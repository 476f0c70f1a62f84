/**
 * The one case runner of the benchmark: variants (a node of this package, n8n's HTTP Request node, a bare axios
 * loop…) measured against the same server, in the same process and run, interleaved over `repeats` rounds (the
 * order rotates), each run after a server reset, each capped by a time limit that fails the row instead of hanging.
 * `itemsCase` builds the usual comparison, "N items through node X vs HTTP Request vs bare loop", on top of it.
 */
import http from 'node:http';
import axios, { type AxiosInstance } from 'axios';
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	INode,
	INodeExecutionData,
} from 'n8n-workflow';

import {
	type WorkflowSpec,
	chain,
	manualTrigger,
	node,
	runWorkflow,
} from '../../test/harness/engine';
import { type BenchRow, TIMEOUT_MS, errorText, measure, median, pool, withTimeout } from './util';

export interface Outcome {
	/** Requests the client made, when it can tell */
	requests?: number;
	/** Records (or output items) the variant got: every variant of a case must get as many (see `sameRecords`) */
	records?: number;
	notes?: string;
	/** Figures for the suite's checks (merged with the server's `stats`) */
	extra?: Record<string, number>;
	/** The server must have counted exactly this many requests */
	expectServer?: number;
}

export interface Variant {
	name: string;
	notes?: string;
	/** Rounds for this variant (default: the case's `repeats`), e.g. 1 for a slow sequential run */
	repeats?: number;
	/** `warm`: the short warm-up run (a few items), not measured */
	run(warm: boolean): Promise<Outcome>;
}

/** The service under test, however it runs (in this process, or a child process). */
export interface BenchServer {
	/** Before every run: forget requests and state, set the case's mode (latency, rate limit…) */
	reset(): void | Promise<void>;
	/** Requests the server received since the reset */
	count(): number | Promise<number>;
	/** Server-side figures after a run (deliveries, 429 answers…) */
	stats?(): Record<string, number> | Promise<Record<string, number>>;
	/** What was wrong with the run as the server saw it (e.g. an automation fired twice), if anything */
	check?(): string | undefined;
}

export interface CaseSpec {
	case: string;
	items?: number;
	server: BenchServer;
	variants: Variant[];
	repeats?: number;
	/** Every variant must get the same `records` (default true) */
	sameRecords?: boolean;
	/** …and this many, when known */
	records?: number;
	timeoutMs?: number;
}

interface Sample {
	wallMs: number;
	cpuMs: number;
	peakRssMb: number;
	serverRequests: number;
	outcome: Outcome;
	extra: Record<string, number>;
}

export async function runCase(spec: CaseSpec): Promise<BenchRow[]> {
	const repeats = spec.repeats ?? 1;
	const failed = new Map<string, string>();
	const samples = new Map<string, Sample[]>();
	let reference =
		spec.records === undefined ? undefined : { variant: 'the service', records: spec.records };

	const once = async (v: Variant, warm: boolean): Promise<Sample> => {
		await spec.server.reset();
		const label = `${warm ? 'warm-up of ' : ''}${v.name}`;
		const m = await withTimeout(
			measure(() => v.run(warm)),
			spec.timeoutMs ?? TIMEOUT_MS,
			label,
		);
		const serverRequests = await spec.server.count();
		const outcome = m.result;
		if (warm) return { ...m, serverRequests, outcome, extra: {} };
		if (outcome.expectServer !== undefined && serverRequests !== outcome.expectServer)
			throw new Error(
				`the server counted ${serverRequests} requests, ${outcome.expectServer} expected`,
			);
		const wrong = spec.server.check?.();
		if (wrong) throw new Error(wrong);
		if (spec.sameRecords !== false && outcome.records !== undefined) {
			reference ??= { variant: v.name, records: outcome.records };
			if (outcome.records !== reference.records)
				throw new Error(
					`got ${outcome.records} records, "${reference.variant}" ${reference.records}`,
				);
		}
		const extra = { ...(await spec.server.stats?.()), ...outcome.extra };
		return {
			wallMs: m.wallMs,
			cpuMs: m.cpuMs,
			peakRssMb: m.peakRssMb,
			serverRequests,
			outcome,
			extra,
		};
	};
	const attempt = async (v: Variant, warm: boolean) => {
		if (failed.has(v.name)) return;
		try {
			const s = await once(v, warm);
			if (!warm) samples.set(v.name, [...(samples.get(v.name) ?? []), s]);
		} catch (error) {
			failed.set(v.name, errorText(error));
		}
	};

	// warm-up: load the engine and both packages, JIT the paths (a few items per variant)
	for (const v of spec.variants) await attempt(v, true);
	for (let r = 0; r < repeats; r++) {
		// rotate the order, so that no variant always runs first (or always inherits a grown heap)
		const order = spec.variants.map((_, n) => spec.variants[(n + r) % spec.variants.length]);
		for (const v of order) if (r < (v.repeats ?? repeats)) await attempt(v, false);
	}

	return spec.variants.map((v): BenchRow => {
		const list = samples.get(v.name) ?? [];
		const last = list[list.length - 1];
		const base = { case: spec.case, variant: v.name, items: spec.items };
		if (failed.has(v.name) || !last)
			return {
				...base,
				requests: 0,
				serverRequests: 0,
				wallMs: NaN,
				peakRssMb: NaN,
				failed: failed.get(v.name) ?? 'no run',
			};
		const runs = list.map((s) => Math.round(s.wallMs));
		return {
			...base,
			requests: last.outcome.requests ?? last.serverRequests,
			serverRequests: last.serverRequests,
			wallMs: median(list.map((s) => s.wallMs)),
			peakRssMb: median(list.map((s) => s.peakRssMb)),
			extra: last.extra,
			notes: [
				v.notes,
				last.outcome.notes,
				list.length > 1 ? `best ${Math.min(...runs)} ms, runs ${runs.join('/')}` : undefined,
				`CPU ${Math.round(median(list.map((s) => s.cpuMs)))} ms`,
			]
				.filter(Boolean)
				.join('; '),
		};
	});
}

// ------------------------------------------------------------------------------------------ variant builders

/** n8n node settings a variant may change: On Error, Retry On Fail… */
type Settings = Pick<
	INode,
	'onError' | 'retryOnFail' | 'maxTries' | 'waitBetweenTries' | 'typeVersion'
>;

export interface EngineRun {
	workflow: WorkflowSpec;
	/** Node whose output is read */
	output: string;
	input?: IDataObject[];
	credentials?: Record<string, ICredentialDataDecryptedObject>;
	/** Records in the output (default: the output items) */
	records?(out: INodeExecutionData[]): number;
	/** Notes about the output, for the row */
	describe?(out: INodeExecutionData[]): string;
	/** The node may stop the workflow with an error: an outcome (every item failed), not a broken case */
	mayStop?: boolean;
}

/** Runs a workflow through n8n's engine: output items, records, error items (On Error → Continue). */
export async function runEngine(e: EngineRun, warm: boolean): Promise<Outcome> {
	const input = warm ? e.input?.slice(0, 5) : e.input;
	const result = await runWorkflow(e.workflow, {
		credentials: e.credentials,
		...(input ? { pinData: { [e.workflow.nodes[0].name]: input } } : {}),
	});
	if (result.workflowError) {
		if (!e.mayStop || warm) throw result.workflowError;
		const failed = input?.length ?? 1;
		return {
			records: 0,
			extra: { failed, stopped: 1 },
			notes: `the node stopped: ${result.workflowError.message.slice(0, 80)}`,
		};
	}
	const out = result.output(e.output);
	const failed = out.filter((item) => item.json.error !== undefined).length;
	return {
		records: e.records ? e.records(out) : out.length,
		extra: { failed, outputItems: out.length },
		notes: warm ? undefined : e.describe?.(out),
	};
}

export const START = 'When clicking Execute';

/** A one-node workflow after a Manual Trigger whose pinned output is the input items. */
export function oneNode(
	type: string,
	name: string,
	params: IDataObject,
	settings: Partial<Settings> = {},
): WorkflowSpec {
	return chain(manualTrigger(START), node(type, name, params, settings));
}

/** A keep-alive axios client (`keepAlive` false: a new connection per request, as n8n's helpers do). */
export function bareClient(keepAlive = true, headers: Record<string, string> = {}): AxiosInstance {
	return axios.create({
		httpAgent: new http.Agent({ keepAlive, maxSockets: Infinity }),
		headers,
		validateStatus: () => true,
		timeout: 30_000,
	});
}

// ------------------------------------------------------------------------------------------ N items through X

export interface EngineVariant {
	name: string;
	/** Merged into the node's `options` */
	options?: IDataObject;
	settings?: Partial<Settings>;
	notes?: string;
	repeats?: number;
	mayStop?: boolean;
}

export interface BareLoop {
	name: string;
	/** Several: each is measured, the row shows the best (the others in its notes) */
	concurrency: number | number[];
	keepAlive?: boolean;
	notes?: string;
}

export interface ItemsCase {
	case: string;
	items: IDataObject[];
	server: BenchServer;
	repeats?: number;
	/** Rounds of a variant that sends one request at a time (default: `repeats`) */
	sequentialRepeats?: number;
	/** Requests the server must count per run (default: one per item; null: not checked) */
	expectServer?: number | null;
	sameRecords?: boolean;
	/** The node under test, as `node(type, 'Node', params)`: one row per variant */
	node?: {
		type: string;
		params: IDataObject;
		credentials: Record<string, ICredentialDataDecryptedObject>;
		variants: EngineVariant[];
		records?(out: INodeExecutionData[]): number;
	};
	/** n8n's HTTP Request node configured for the same calls */
	http?: {
		typeVersion: number;
		params: IDataObject;
		variants: EngineVariant[];
		records?(out: INodeExecutionData[]): number;
	};
	/** The same requests by hand: `request` returns the records of one answer */
	bare?: { request(client: AxiosInstance, item: IDataObject): Promise<number>; loops: BareLoop[] };
}

export async function itemsCase(spec: ItemsCase): Promise<BenchRow[]> {
	const expectServer =
		spec.expectServer === null ? undefined : (spec.expectServer ?? spec.items.length);
	const engine = (
		target: NonNullable<ItemsCase['node'] | ItemsCase['http']>,
		type: string,
		name: string,
		credentials?: Record<string, ICredentialDataDecryptedObject>,
		defaults: Partial<Settings> = {},
	) =>
		target.variants.map((v): Variant => {
			const options = { ...(target.params.options as IDataObject | undefined), ...v.options };
			const workflow = oneNode(
				type,
				name,
				{ ...target.params, options },
				{ ...defaults, ...v.settings },
			);
			const sequential = v.options?.concurrency === 1;
			return {
				name: v.name,
				notes: v.notes,
				repeats: v.repeats ?? (sequential ? spec.sequentialRepeats : undefined),
				run: async (warm) => ({
					...(await runEngine(
						{
							workflow,
							output: name,
							input: spec.items,
							credentials,
							records: target.records,
							mayStop: v.mayStop,
						},
						warm,
					)),
					expectServer,
				}),
			};
		});
	const variants: Variant[] = [];
	const bestOf = new Map<string, number[]>();
	for (const loop of spec.bare?.loops ?? []) {
		const list = Array.isArray(loop.concurrency) ? loop.concurrency : [loop.concurrency];
		if (list.length > 1) bestOf.set(loop.name, list);
		for (const c of list)
			variants.push({
				name: list.length > 1 ? `${loop.name} @${c}` : loop.name,
				notes: loop.notes,
				repeats: c === 1 ? spec.sequentialRepeats : undefined,
				run: async (warm) => {
					const items = warm ? spec.items.slice(0, 5) : spec.items;
					const client = bareClient(loop.keepAlive ?? true);
					let records = 0;
					await pool(items.length, c, async (i) => {
						const found = await spec.bare!.request(client, items[i]);
						records += found; // after the await: `records += await …` would lose concurrent updates
					});
					return { records, requests: items.length, expectServer };
				},
			});
	}
	if (spec.node) variants.push(...engine(spec.node, spec.node.type, 'Node', spec.node.credentials));
	if (spec.http)
		variants.push(
			...engine(spec.http, 'n8n-nodes-base.httpRequest', 'HTTP Request', undefined, {
				typeVersion: spec.http.typeVersion,
			}),
		);
	const rows = await runCase({
		case: spec.case,
		items: spec.items.length,
		server: spec.server,
		variants,
		repeats: spec.repeats,
		sameRecords: spec.sameRecords,
	});
	return collapseBest(rows, bestOf);
}

/** One row per multi-concurrency bare loop: its best concurrency's figures, the others in the notes. */
export function collapseBest(rows: BenchRow[], bestOf: Map<string, number[]>): BenchRow[] {
	const out: BenchRow[] = [];
	for (const row of rows) {
		const loop = [...bestOf.keys()].find((name) => row.variant.startsWith(`${name} @`));
		if (!loop) {
			out.push(row);
			continue;
		}
		if (out.some((r) => r.variant === loop)) continue;
		const group = bestOf
			.get(loop)!
			.map((c) => ({ c, row: rows.find((r) => r.variant === `${loop} @${c}`)! }));
		const ok = group.filter((g) => !g.row.failed);
		const best = ok.sort((a, b) => a.row.wallMs - b.row.wallMs)[0];
		const all = group
			.map(
				(g) =>
					`${g.c}: ${g.row.failed ? `failed (${g.row.failed})` : `${Math.round(g.row.wallMs).toLocaleString('en-US')} ms`}`,
			)
			.join(', ');
		out.push(
			best
				? {
						...best.row,
						variant: loop,
						notes: `best at ${best.c} at a time (${all}); ${best.row.notes}`,
					}
				: { ...group[0].row, variant: loop, notes: all },
		);
	}
	return out;
}
