/**
 * Loopback against 0.1, in the same run (issue 10: "the loopback figures of today must not get worse by more than
 * 10%"). 0.1 is built from its commit (`git archive` into a scratch folder that shares this checkout's
 * node_modules), then the same workflow — 1,000 items through n8n's engine against the loopback servers — runs
 * with each build, each in a process of its own, alternating 0.1 / now / 0.1 / now… This machine's speed drifts by
 * ±20% from one minute to the next, so each neighbouring pair gives one ratio, and the row is the median ratio
 * (wall time and CPU time of the process, server included).
 *
 *   npx tsx scripts/bench/versus.ts     (VERSUS_REF: the commit to compare with; VERSUS_PAIRS: pairs, default 6)
 *
 * Skipped, with a line saying so, when git or the commit is not there (a shallow clone, an unpacked tarball).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import type { IDataObject } from 'n8n-workflow';

import { chain, manualTrigger, node, runWorkflow } from '../../test/harness/engine';
import { type TriggerServer, startQuotesServer, startTriggerServer } from '../../test/servers';
import { quoteCalls, quoteItems } from './quotes';
import { triggerCalls, triggerItems } from './trigger';
import { type BenchRow, type Verdict, median } from './util';

const ROOT = path.resolve(__dirname, '../..');
/** 0.1 as measured in README.md's reference table */
const REF = process.env.VERSUS_REF ?? '96aa4a3';
const PAIRS = Number(process.env.VERSUS_PAIRS ?? 6);
const RUNS = 5;
const ITEMS = 1000;
const MAX_RATIO = 1.1;

type CaseName = 'quotes' | 'trigger';
const CASES: Record<CaseName, string> = {
	quotes: `Quote Tags, ${ITEMS.toLocaleString('en-US')} items, loopback`,
	trigger: `Fire Automation (0.1: Trigger Call), ${ITEMS.toLocaleString('en-US')} items, loopback`,
};

interface Sample {
	wall: number;
	cpu: number;
}

/** In the child process: the case's workflow, RUNS times after one warm-up, with the build in TRIPTYCH_PACKAGE_DIR. */
async function child(which: CaseName): Promise<Sample> {
	const dir = process.env.TRIPTYCH_PACKAGE_DIR ?? ROOT;
	// the same node calls as the loopback cases of `npm run bench`
	const server = which === 'quotes' ? await startQuotesServer() : await startTriggerServer();
	const call =
		which === 'quotes'
			? quoteCalls(server.url, 5).node
			: // the node's type was `triggerCall` in 0.1
				{
					...triggerCalls(server as TriggerServer).node,
					type: fs.existsSync(path.join(dir, 'dist/nodes/FireAutomation'))
						? 'fireAutomation'
						: 'triggerCall',
				};
	const items: IDataObject[] = which === 'quotes' ? quoteItems(ITEMS) : triggerItems(ITEMS);
	const wf = chain(manualTrigger('Start'), node(call.type, 'Node', call.params));
	const run = async () =>
		await runWorkflow(wf, { credentials: call.credentials, pinData: { Start: items } });
	const walls: number[] = [];
	const cpus: number[] = [];
	for (let r = 0; r <= RUNS; r++) {
		const cpu = process.cpuUsage();
		const started = performance.now();
		const result = (await run()) as { data?: { resultData?: { error?: unknown } } };
		if (result?.data?.resultData?.error)
			throw new Error(`the workflow failed: ${String(result.data.resultData.error)}`);
		const used = process.cpuUsage(cpu);
		if (r === 0) continue; // warm-up
		walls.push(performance.now() - started);
		cpus.push((used.user + used.system) / 1000);
	}
	await server.close();
	return { wall: median(walls), cpu: median(cpus) };
}

/** Builds the commit into a scratch folder once (kept for the next run); `undefined` when it cannot. */
function buildRef(): { dir: string } | { skipped: string } {
	const dir = path.join(os.tmpdir(), `triptych-versus-${REF}`);
	if (fs.existsSync(path.join(dir, 'dist/nodes'))) return { dir };
	try {
		execFileSync('git', ['cat-file', '-e', `${REF}^{commit}`], { cwd: ROOT, stdio: 'ignore' });
	} catch {
		return { skipped: `commit ${REF} is not in this clone (git history needed)` };
	}
	fs.rmSync(dir, { recursive: true, force: true });
	fs.mkdirSync(dir, { recursive: true });
	const archive = execFileSync('git', ['archive', REF], {
		cwd: ROOT,
		maxBuffer: 256 * 1024 * 1024,
	});
	execFileSync('tar', ['-x', '-C', dir], { input: archive });
	fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
	const bin = (name: string) => path.join(ROOT, 'node_modules/.bin', name);
	execFileSync(bin('tsc'), ['-p', path.join(dir, 'tsconfig.json')], { cwd: dir, stdio: 'ignore' });
	execFileSync(bin('gulp'), ['build:icons'], { cwd: dir, stdio: 'ignore' });
	return { dir };
}

function inChild(which: CaseName, packageDir: string): Sample {
	const out = spawnSync(process.execPath, ['--import', 'tsx', __filename, '--child', which], {
		cwd: ROOT,
		env: { ...process.env, TRIPTYCH_PACKAGE_DIR: packageDir },
		encoding: 'utf8',
		timeout: 120_000,
	});
	const line = out.stdout.trim().split('\n').pop() ?? '';
	if (out.status !== 0 || !line.startsWith('{')) {
		throw new Error(
			`the ${which} run failed: ${(out.stderr || out.stdout).trim().split('\n').slice(-3).join(' ')}`,
		);
	}
	return JSON.parse(line) as Sample;
}

let lastVerdicts: Verdict[] = [];

export async function run(): Promise<BenchRow[]> {
	lastVerdicts = [];
	const built = buildRef();
	if ('skipped' in built) {
		lastVerdicts.push({ ok: true, text: `– Loopback against 0.1: skipped (${built.skipped})` });
		return [];
	}
	const rows: BenchRow[] = [];
	for (const which of Object.keys(CASES) as CaseName[]) {
		const wall: number[] = [];
		const cpu: number[] = [];
		const old: Sample[] = [];
		const now: Sample[] = [];
		for (let p = 0; p < PAIRS; p++) {
			const a = inChild(which, built.dir);
			const b = inChild(which, ROOT);
			old.push(a);
			now.push(b);
			wall.push(b.wall / a.wall);
			cpu.push(b.cpu / a.cpu);
		}
		const row = (variant: string, samples: Sample[], notes: string): BenchRow => ({
			case: CASES[which],
			variant,
			items: ITEMS,
			requests: ITEMS,
			serverRequests: ITEMS,
			wallMs: median(samples.map((s) => s.wall)),
			peakRssMb: NaN,
			notes,
		});
		const ratios = wall.map((r) => r.toFixed(2)).join(' ');
		rows.push(
			row(`0.1 (commit ${REF}), defaults`, old, `median of ${PAIRS} processes × ${RUNS} runs`),
		);
		rows.push(
			row(
				'now, defaults',
				now,
				`pair ratios ${ratios}; CPU ${median(cpu).toFixed(2)}× 0.1's (median)`,
			),
		);
		const ratio = median(wall);
		lastVerdicts.push({
			ok: ratio <= MAX_RATIO,
			text: `${ratio <= MAX_RATIO ? '✓' : '✗'} ${CASES[which]}: now / 0.1 = ${ratio.toFixed(2)}× (median of ${PAIRS} neighbouring pairs; CPU ${median(cpu).toFixed(2)}×; target ≤ ${MAX_RATIO}×)`,
		});
	}
	return rows;
}

export function checks(): Verdict[] {
	return lastVerdicts;
}

if (require.main === module) {
	const at = process.argv.indexOf('--child');
	if (at > 0) {
		void child(process.argv[at + 1] as CaseName).then(
			(sample) => {
				console.log(JSON.stringify(sample));
				process.exit(0);
			},
			(error: unknown) => {
				console.error(error);
				process.exit(1);
			},
		);
	} else {
		void run().then((rows) => {
			for (const r of rows)
				console.log(`${r.case} | ${r.variant} | ${Math.round(r.wallMs)} ms | ${r.notes}`);
			console.log(
				checks()
					.map((v) => v.text)
					.join('\n'),
			);
			process.exit(checks().every((v) => v.ok) ? 0 : 1);
		});
	}
}
