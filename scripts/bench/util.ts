/**
 * Shared pieces of the benchmark: one row format, wall time + CPU + peak RSS measurement, a keep-alive axios client for
 * the bare-loop baseline, and the table printer. Every case runs in this one process, in the same run, so the
 * figures that matter are the ratios between a node and its baseline, not the absolute times.
 */
import axios, { type AxiosInstance } from 'axios';
import http from 'node:http';
import os from 'node:os';
import v8 from 'node:v8';
import vm from 'node:vm';

export interface BenchRow {
	/** What is measured, e.g. "Quote Tags, 1,000 items" */
	case: string;
	/** Who does it: the node, the bare loop, n8n's HTTP Request node… */
	variant: string;
	items?: number;
	/** Requests the client side made (when it can tell) */
	requests: number;
	/** Requests the server counted */
	serverRequests: number;
	wallMs: number;
	/** Peak RSS above the baseline taken just before the case, in MB */
	peakRssMb: number;
	/** When set, a target: peak RSS Δ must stay at or below this (MB) */
	memoryBudgetMb?: number;
	notes?: string;
	/** Why the case did not give a figure (an error, a wrong result, the time limit) */
	failed?: string;
	/** Figures of the last run a suite's checks read (e.g. failed items, 429 answers, deliveries) */
	extra?: Record<string, number>;
}

/** One verdict line: a target met (✓) or missed (✗). */
export interface Verdict {
	ok: boolean;
	text: string;
}

/** Most time one measured run (or warm-up) of a case may take before it fails instead of hanging. */
export const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_S ?? 90) * 1000;

/** Rejects when `promise` has not settled within `ms` (the work itself goes on in the background). */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
	let timer: NodeJS.Timeout | undefined;
	const limit = new Promise<never>((_, reject) => {
		timer = setTimeout(() => reject(new Error(`${what}: no result after ${ms / 1000} s`)), ms);
	});
	return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}

/** The machine, for the top of the report: single runs vary with the load. */
export function machine(): string {
	const load = os
		.loadavg()
		.map((l) => l.toFixed(2))
		.join(' / ');
	return `Node ${process.version} on ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown CPU'}), load average ${load} (1 / 5 / 15 min), ${new Date().toISOString()}`;
}

export interface Target {
	/** Row variant compared (numerator) */
	variant: string;
	/** Baseline variant (denominator) */
	baseline: string;
	/** Highest allowed wall-time ratio */
	maxRatio: number;
	case: string;
}

const gc: () => void = (() => {
	v8.setFlagsFromString('--expose-gc');
	return vm.runInNewContext('gc') as () => void;
})();

/**
 * Runs `fn`: wall time, this process's CPU time, and the peak RSS above the baseline taken just before (after a
 * forced GC), sampled every 2 ms.
 */
export async function measure<T>(
	fn: () => Promise<T>,
): Promise<{ result: T; wallMs: number; cpuMs: number; peakRssMb: number }> {
	gc();
	gc();
	const base = process.memoryUsage.rss();
	let peak = base;
	const timer = setInterval(() => {
		const rss = process.memoryUsage.rss();
		if (rss > peak) peak = rss;
	}, 2);
	timer.unref();
	const cpu = process.cpuUsage();
	const started = performance.now();
	try {
		const result = await fn();
		const wallMs = performance.now() - started;
		const used = process.cpuUsage(cpu);
		peak = Math.max(peak, process.memoryUsage.rss());
		return {
			result,
			wallMs,
			cpuMs: (used.user + used.system) / 1000,
			peakRssMb: (peak - base) / 1048576,
		};
	} finally {
		clearInterval(timer);
	}
}

/** Median (the mean of the middle two for an even count). */
export const median = (xs: number[]) => {
	const sorted = [...xs].sort((a, b) => a - b);
	const mid = Math.floor(sorted.length / 2);
	return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

export const errorText = (error: unknown) =>
	error instanceof Error ? error.message : String(error);

/** axios with keep-alive: the bare baseline a hand-written client would use (`false`: a new connection each time). */
export function keepAliveClient(keepAlive = true, maxSockets = 64): AxiosInstance {
	return axios.create({
		httpAgent: new http.Agent({ keepAlive, maxSockets }),
		validateStatus: () => true,
		timeout: 30000,
	});
}

/** Runs `work(i)` for i in [0, n) with at most `concurrency` at once. */
export async function pool(
	n: number,
	concurrency: number,
	work: (i: number) => Promise<unknown>,
): Promise<void> {
	let next = 0;
	await Promise.all(
		Array.from({ length: Math.min(concurrency, n) }, async () => {
			while (next < n) await work(next++);
		}),
	);
}

const fmt = (n: number, digits = 0) =>
	n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** Markdown table of the rows, with each row's time relative to the first row of its case that has a figure. */
export function table(rows: BenchRow[]): string {
	const firstOfCase = new Map<string, BenchRow>();
	for (const row of rows)
		if (!firstOfCase.has(row.case) && !row.failed) firstOfCase.set(row.case, row);
	const lines = [
		'| case | variant | items | requests (client / server) | wall time | vs first row | peak RSS Δ |',
		'|---|---|---:|---:|---:|---:|---:|',
	];
	for (const row of rows) {
		const base = firstOfCase.get(row.case) ?? row;
		const figures = row.failed
			? `**failed: ${row.failed}** | | `
			: `${fmt(row.wallMs)} ms | ${(row.wallMs / base.wallMs).toFixed(2)}× | ${fmt(row.peakRssMb, 1)} MB`;
		lines.push(
			`| ${row.case} | ${row.variant}${row.notes ? ` (${row.notes})` : ''} | ${row.items === undefined ? '' : fmt(row.items)} | ${fmt(row.requests)} / ${fmt(row.serverRequests)} | ${figures} |`,
		);
	}
	return lines.join('\n');
}

/** Checks wall-time ratios against targets, and each row's memory budget; returns the verdicts and whether all held. */
export function verdicts(rows: BenchRow[], targets: Target[]): { lines: string[]; ok: boolean } {
	let ok = true;
	const lines = targets.map((t) => {
		const a = rows.find((r) => r.case === t.case && r.variant === t.variant);
		const b = rows.find((r) => r.case === t.case && r.variant === t.baseline);
		if (!a || !b || a.failed || b.failed) {
			ok = false;
			const bad = !a || a.failed ? t.variant : t.baseline;
			return `✗ ${t.case}: ${t.variant} / ${t.baseline}: no figure for "${bad}" (${(a?.failed ?? b?.failed) || 'missing row'})`;
		}
		const ratio = a.wallMs / b.wallMs;
		const pass = ratio <= t.maxRatio;
		ok &&= pass;
		return `${pass ? '✓' : '✗'} ${t.case}: ${t.variant} / ${t.baseline} = ${ratio.toFixed(2)}× (target ≤ ${t.maxRatio}×)`;
	});
	for (const row of rows.filter((r) => r.memoryBudgetMb !== undefined)) {
		const pass = !row.failed && row.peakRssMb <= row.memoryBudgetMb!;
		ok &&= pass;
		lines.push(
			`${pass ? '✓' : '✗'} ${row.case}: ${row.variant} peak RSS Δ ${row.peakRssMb.toFixed(1)} MB (budget ≤ ${row.memoryBudgetMb!.toFixed(1)} MB)`,
		);
	}
	return { lines, ok };
}
