/**
 * `npm run bench`: every benchmark in one process, one run, each case next to its baselines (a bare keep-alive
 * axios loop, n8n's HTTP Request node) against local servers. Prints the machine, one table, the verdict on each
 * target and, as notes, today's loopback figures against README.md's table; exits 1 when a target is missed.
 * Run with `node --expose-gc` (the npm script does) for steadier memory figures.
 *
 * Groups (BENCH_ONLY=loopback,latency,ratelimit runs a subset; default all):
 * - loopback: Quote Tags, Museum Return All and Fire Automation against servers that answer at once;
 * - latency: every answer 50 ms late: 300 items per node, and Museum Return All over 45 pages;
 * - ratelimit: Fire Automation and HTTP Request against a trigger service limited to 20 requests/s, burst 10
 *   (and, reported only, 100/s with a burst of 20);
 * - versus: Quote Tags and Fire Automation at loopback, this build against 0.1 built from its commit, in
 *   alternating processes (skipped without git history).
 * Every measured run is capped (BENCH_TIMEOUT_S, default 90 s): a run that takes longer fails its row.
 */
import * as latency from './bench/latency';
import * as museum from './bench/museum';
import * as quotes from './bench/quotes';
import * as ratelimit from './bench/ratelimit';
import { readmeNotes } from './bench/readme';
import * as trigger from './bench/trigger';
import * as versus from './bench/versus';
import { type BenchRow, type Target, type Verdict, machine, table, verdicts } from './bench/util';

type Group = 'loopback' | 'latency' | 'ratelimit' | 'versus';

interface Suite {
	name: string;
	group: Group;
	run(): Promise<BenchRow[]>;
	targets?: Target[];
	checks?(rows: BenchRow[]): Verdict[];
}

const suites: Suite[] = [
	{ name: 'Quote Tags (loopback)', group: 'loopback', ...quotes },
	{ name: 'Museum Object Search (loopback)', group: 'loopback', ...museum },
	{ name: 'Fire Automation (loopback)', group: 'loopback', ...trigger },
	{ name: '50 ms latency', group: 'latency', ...latency },
	{ name: 'rate-limited trigger service', group: 'ratelimit', ...ratelimit },
	{ name: 'loopback against 0.1', group: 'versus', ...versus },
];

function selected(): Suite[] {
	const only = (process.env.BENCH_ONLY ?? '')
		.split(',')
		.map((s) => s.trim())
		.filter(Boolean);
	const unknown = only.filter((g) => !suites.some((s) => s.group === g));
	if (unknown.length)
		throw new Error(
			`BENCH_ONLY: unknown group ${unknown.join(', ')} (loopback, latency, ratelimit, versus)`,
		);
	return only.length ? suites.filter((s) => only.includes(s.group)) : suites;
}

async function main() {
	const chosen = selected();
	console.log(`${machine()}\nGroups: ${[...new Set(chosen.map((s) => s.group))].join(', ')}\n`);
	const rows: BenchRow[] = [];
	const targets: Target[] = [];
	const checks: Verdict[] = [];
	for (const suite of chosen) {
		const started = Date.now();
		process.stderr.write(`${suite.name}…`);
		try {
			const suiteRows = await suite.run();
			rows.push(...suiteRows);
			checks.push(...(suite.checks?.(suiteRows) ?? []));
		} catch (error) {
			checks.push({
				ok: false,
				text: `✗ ${suite.name}: the suite failed: ${error instanceof Error ? error.stack : String(error)}`,
			});
		}
		targets.push(...(suite.targets ?? []));
		process.stderr.write(` ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
	}
	console.log(table(rows));
	const verdict = verdicts(rows, targets);
	const lines = [...verdict.lines, ...checks.map((c) => c.text)];
	console.log(`\n${lines.join('\n')}`);
	const notes = readmeNotes(rows);
	if (notes.length) {
		console.log(
			`\nLoopback rows against README.md's table of 0.1 (notes, not targets: another day's run, whose bare loop ran once, cold; the same-run comparison with 0.1 is the versus group):\n${notes.join('\n')}`,
		);
	}
	console.log(`\nMachine at the end: ${machine()}`);
	process.exit(verdict.ok && checks.every((c) => c.ok) ? 0 : 1);
}

main().catch((error) => {
	console.error(error);
	process.exit(2);
});
