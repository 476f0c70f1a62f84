/**
 * The node surface guard: each node version's parameters (names, types, defaults, options, display conditions)
 * as recorded in surface.json. Workflows saved with a released version keep its parameters, so a recorded
 * version never changes: a change of parameters needs a new node version (`version: [1, 1.1]`, the old
 * parameters shown only on `@version` 1, the code reading `this.getNode().typeVersion`), whose surface is then
 * recorded with `TRIPTYCH_RECORD_SURFACE=1 npx jest test/surface/surface.test.ts` (it adds versions not yet
 * recorded and never rewrites one).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { IDataObject, INodeProperties, INodeTypeDescription } from 'n8n-workflow';

import { loadPackage } from '../harness/engine';

const FILE = path.join(__dirname, 'surface.json');

type Condition = number | { _cnd: Record<string, number> };
const TESTS: Record<string, (v: number, x: number) => boolean> = {
	eq: (v, x) => v === x,
	gte: (v, x) => v >= x,
	gt: (v, x) => v > x,
	lte: (v, x) => v <= x,
	lt: (v, x) => v < x,
};
const matches = (version: number, c: Condition) =>
	typeof c === 'number'
		? c === version
		: Object.entries(c._cnd).every(([op, x]) => TESTS[op]?.(version, x));

/** Whether n8n shows the parameter on this node version at all (its `@version` conditions). */
function onVersion(p: INodeProperties, version: number): boolean {
	const show = p.displayOptions?.show?.['@version'] as Condition[] | undefined;
	const hide = p.displayOptions?.hide?.['@version'] as Condition[] | undefined;
	return (
		(!show || show.some((c) => matches(version, c))) && !hide?.some((c) => matches(version, c))
	);
}

/** What a saved workflow depends on, one entry per parameter; nested ones named by their path (options.timeout). */
function surface(properties: INodeProperties[], version: number, prefix = ''): IDataObject[] {
	return properties
		.filter((p) => onVersion(p, version))
		.flatMap((p) => {
			const name = prefix + p.name;
			const entry: IDataObject = { name, type: p.type, default: p.default as IDataObject };
			if (p.displayOptions) entry.displayOptions = p.displayOptions as IDataObject;
			const options = (p.options ?? []) as unknown as IDataObject[];
			if (options.some((o) => 'value' in o))
				entry.options = options.map((o) => o.value) as string[];
			const nested = options.flatMap((o) =>
				'value' in o
					? []
					: 'values' in o
						? surface(o.values as INodeProperties[], version, `${name}.${o.name as string}.`)
						: surface([o as unknown as INodeProperties], version, `${name}.`),
			);
			return [entry, ...nested];
		});
}

/**
 * An entry without its `@version` conditions: the surface is already that of one version, so a parameter that gains
 * a condition true on that version (as when a newer version gets its own definition of it) is unchanged there.
 */
function withoutVersion(entry: IDataObject): IDataObject {
	const display = entry.displayOptions as Record<string, IDataObject> | undefined;
	if (!display) return entry;
	const kept = Object.entries(display)
		.map(([kind, conditions]) => {
			const rest = Object.entries(conditions).filter(([key]) => key !== '@version');
			return [kind, Object.fromEntries(rest)] as const;
		})
		.filter(([, conditions]) => Object.keys(conditions).length);
	const { displayOptions: _, ...rest } = entry;
	return kept.length ? { ...rest, displayOptions: Object.fromEntries(kept) } : rest;
}

test('released node versions keep their parameters', async () => {
	const { pkg } = await loadPackage();
	const current: Record<string, IDataObject[]> = {};
	for (const [name, { type }] of Object.entries(pkg.nodeTypes)) {
		const { version, properties } = (type as unknown as { description: INodeTypeDescription })
			.description;
		for (const v of [version].flat()) current[`${name}@${v}`] = surface(properties, v);
	}
	const recorded = JSON.parse(fs.readFileSync(FILE, 'utf8')) as Record<string, IDataObject[]>;
	const problems: string[] = [];
	for (const [key, params] of Object.entries(recorded)) {
		const [node, version] = key.split('@');
		const now = current[key];
		if (!now) {
			problems.push(`${node} version ${version} is gone: workflows saved with it would break`);
			continue;
		}
		const byName = (list: IDataObject[]) =>
			new Map(list.map(withoutVersion).map((p) => [JSON.stringify([p.name, p.displayOptions]), p]));
		const [was, is] = [byName(params), byName(now)];
		for (const [id, p] of was) {
			const q = is.get(id);
			if (!q) problems.push(`${node} version ${version}: parameter "${p.name}" is gone`);
			else if (JSON.stringify(q) !== JSON.stringify(p))
				problems.push(
					`${node} version ${version}: parameter "${p.name}" changed\n  recorded: ${JSON.stringify(p)}\n  now:      ${JSON.stringify(q)}`,
				);
		}
		for (const [id, q] of is)
			if (!was.has(id)) problems.push(`${node} version ${version}: new parameter "${q.name}"`);
	}
	const unrecorded = Object.keys(current).filter((key) => !(key in recorded));
	if (unrecorded.length && process.env.TRIPTYCH_RECORD_SURFACE === '1') {
		for (const key of unrecorded) recorded[key] = current[key];
		const lines = Object.entries(recorded).map(
			([key, params]) =>
				`\t${JSON.stringify(key)}: [\n${params.map((p) => `\t\t${JSON.stringify(p)}`).join(',\n')}\n\t]`,
		);
		fs.writeFileSync(FILE, `{\n${lines.join(',\n')}\n}\n`);
	} else if (unrecorded.length) {
		problems.push(
			`not recorded yet: ${unrecorded.join(', ')} (record with TRIPTYCH_RECORD_SURFACE=1 npx jest test/surface/surface.test.ts)`,
		);
	}
	if (problems.length)
		throw new Error(
			[
				'The parameters of a released node version changed. Workflows saved with that version would break.',
				'Keep the recorded version as it is; put the change in a new node version (version: [1, 1.1]',
				'with the old parameters shown only on @version 1 and the code reading this.getNode().typeVersion),',
				'then record the new version (TRIPTYCH_RECORD_SURFACE=1 npx jest test/surface/surface.test.ts).',
				...problems,
			].join('\n'),
		);
});
