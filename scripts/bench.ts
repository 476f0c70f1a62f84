/**
 * `npm run bench`: every node's benchmark in one process, one run, against loopback servers, each next to its
 * baselines (bare keep-alive axios loop, n8n's HTTP Request node). Prints one table and the verdict on each target;
 * exits 1 when a target is missed. Run with `node --expose-gc` (the npm script does) for steadier memory figures.
 */
import * as museum from './bench/museum';
import * as quotes from './bench/quotes';
import * as trigger from './bench/trigger';
import { type BenchRow, type Target, table, verdicts } from './bench/util';

const suites: Array<{ name: string; run: () => Promise<BenchRow[]>; targets?: Target[] }> = [
	{ name: 'Quote Tags', ...quotes },
	{ name: 'Museum Object Search', ...museum },
	{ name: 'Trigger Call', ...trigger },
];

async function main() {
	const rows: BenchRow[] = [];
	const targets: Target[] = [];
	for (const suite of suites) {
		const started = Date.now();
		process.stderr.write(`${suite.name}…`);
		rows.push(...(await suite.run()));
		targets.push(...(suite.targets ?? []));
		process.stderr.write(` ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
	}
	console.log(`Node ${process.version}, ${new Date().toISOString()}\n`);
	console.log(table(rows));
	const verdict = verdicts(rows, targets);
	console.log(`\n${verdict.lines.join('\n')}`);
	process.exit(verdict.ok ? 0 : 1);
}

main().catch((error) => {
	console.error(error);
	process.exit(2);
});
