/**
 * Today's loopback rows against the figures of README.md's Performance table, as printed notes (not verdicts:
 * single runs vary on a 2-core machine). Compared: each row's ratio to its bare keep-alive loop (what the README
 * reports), flagged when it is worse by more than 10%; the wall times are shown too, for reference only.
 */
import fs from 'node:fs';
import path from 'node:path';

import * as museum from './museum';
import * as quotes from './quotes';
import * as trigger from './trigger';
import type { BenchRow } from './util';

interface ReadmeRow {
	case: string;
	variant: string;
	wallMs: number;
	ratio: number;
}

/** README row (case prefix, variant) → this run's row (case, variant) and the bare loop the README's ratio is to. */
const MAP: Array<[string, string, string, string, string]> = [
	['Quote Tags', 'Quote Tags node', quotes.CASE, quotes.V.node, quotes.V.bare],
	['Quote Tags', 'HTTP Request node (defaults)', quotes.CASE, quotes.V.http, quotes.V.bare],
	[
		'Quote Tags',
		'bare axios loop, new connection per request',
		quotes.CASE,
		quotes.V.fresh,
		quotes.V.bare,
	],
	[
		'Museum Return All',
		'Museum Object Search, Output Simplified',
		museum.CASE,
		museum.V.simplified,
		museum.V.bare,
	],
	[
		'Museum Return All',
		'Museum Object Search, Output Raw',
		museum.CASE,
		museum.V.raw,
		museum.V.bare,
	],
	[
		'Museum Return All',
		'bare axios loop, new connection per request',
		museum.CASE,
		museum.V.fresh,
		museum.V.bare,
	],
	[
		'Trigger Call',
		'Trigger Call node, defaults (1 at a time)',
		trigger.CASE,
		trigger.V.node1,
		trigger.V.bare1,
	],
	[
		'Trigger Call',
		'Trigger Call node, Concurrency 8',
		trigger.CASE,
		trigger.V.node8,
		trigger.V.bare8,
	],
	[
		'Trigger Call',
		'HTTP Request node v4.5 (defaults)',
		trigger.CASE,
		trigger.V.http,
		trigger.V.bare1,
	],
];

const number = (cell: string) => Number(/([\d,.]+)/.exec(cell)?.[1].replace(/,/g, '') ?? NaN);

/** The rows of the first table under "## Performance" (an empty Case cell repeats the one above). */
export function readmeRows(file = path.resolve(__dirname, '../../README.md')): ReadmeRow[] {
	const text = fs.readFileSync(file, 'utf8');
	const section = text.slice(text.indexOf('## Performance'));
	const lines = section.split('\n').filter((l) => l.startsWith('|'));
	const rows: ReadmeRow[] = [];
	let current = '';
	for (const line of lines.slice(2)) {
		const cells = line
			.split('|')
			.slice(1, -1)
			.map((c) => c.replace(/\*\*/g, '').trim());
		if (cells.length < 5) break;
		current = cells[0] || current;
		rows.push({
			case: current,
			variant: cells[1],
			wallMs: number(cells[3]),
			ratio: number(cells[4]),
		});
	}
	return rows;
}

const fmt = (ms: number) => `${Math.round(ms).toLocaleString('en-US')} ms`;

export function readmeNotes(rows: BenchRow[]): string[] {
	let readme: ReadmeRow[];
	try {
		readme = readmeRows();
	} catch (error) {
		return [`note: README.md's Performance table could not be read (${String(error)})`];
	}
	const out: string[] = [];
	for (const [readmeCase, readmeVariant, benchCase, variant, baseline] of MAP) {
		const then = readme.find((r) => r.case.startsWith(readmeCase) && r.variant === readmeVariant);
		const row = rows.find((r) => r.case === benchCase && r.variant === variant);
		const base = rows.find((r) => r.case === benchCase && r.variant === baseline);
		if (!row || !base) continue; // the loopback suite did not run
		if (!then) {
			out.push(`note: "${readmeVariant}" is not in README.md's table any more`);
			continue;
		}
		if (row.failed || base.failed) {
			out.push(
				`note: ${variant}: no figure this run (README: ${then.ratio.toFixed(2)}× its bare loop)`,
			);
			continue;
		}
		const ratio = row.wallMs / base.wallMs;
		const change = ratio / then.ratio - 1;
		const mark = change > 0.1 ? '⚠ worse by > 10%' : 'ok';
		out.push(
			`note: ${benchCase} · ${variant}: ${ratio.toFixed(2)}× the bare loop vs README ${then.ratio.toFixed(2)}× (${change >= 0 ? '+' : ''}${(100 * change).toFixed(0)}%, ${mark}); wall ${fmt(row.wallMs)} vs README ${fmt(then.wallMs)}`,
		);
	}
	return out;
}
