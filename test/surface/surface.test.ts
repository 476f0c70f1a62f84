/**
 * The node surface guard. surface.json holds each node version's parameters (names, types, defaults, options,
 * display conditions) as published. Once `published` names a release, a workflow saved with a recorded version must
 * keep working: a removed or renamed parameter, a changed type or default, a removed option value or a parameter
 * that became required fails here; a new optional parameter or option value passes (n8n's own rule). Such a change
 * needs a new node version. `TRIPTYCH_RECORD_SURFACE=1 npx jest test/surface/surface.test.ts` records: before the
 * first release every version anew (the surface as it will ship), after it only versions not yet recorded.
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
			if (p.required) entry.required = true;
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

type Entry = IDataObject & { name: string };
interface Recorded {
	published: string | null;
	nodes: Record<string, Entry[]>;
}

/** What breaks a saved workflow when `was` became `is` (undefined: the parameter is gone). */
function breaks(was: Entry, is: Entry | undefined): string | undefined {
	if (!is) return 'is gone';
	for (const field of ['type', 'default'] as const)
		if (JSON.stringify(was[field]) !== JSON.stringify(is[field]))
			return `changed its ${field} from ${JSON.stringify(was[field])} to ${JSON.stringify(is[field])}`;
	const lost = ((was.options ?? []) as string[]).filter(
		(o) => !((is.options ?? []) as string[]).includes(o),
	);
	if (lost.length) return `lost the option values ${lost.join(', ')}`;
	if (is.required && !was.required) return 'became required';
	return undefined;
}

test('published node versions keep their parameters', async () => {
	const { pkg } = await loadPackage();
	const current: Record<string, Entry[]> = {};
	for (const [name, { type }] of Object.entries(pkg.nodeTypes)) {
		const { version, properties } = (type as unknown as { description: INodeTypeDescription })
			.description;
		for (const v of [version].flat())
			current[`${name}@${v}`] = surface(properties, v).map(withoutVersion) as Entry[];
	}
	const recorded = JSON.parse(fs.readFileSync(FILE, 'utf8')) as Recorded;
	if (process.env.TRIPTYCH_RECORD_SURFACE === '1') {
		for (const [key, params] of Object.entries(current))
			if (recorded.published === null || !(key in recorded.nodes)) recorded.nodes[key] = params;
		const lines = Object.entries(recorded.nodes).map(
			([key, params]) =>
				`\t\t${JSON.stringify(key)}: [\n${params.map((p) => `\t\t\t${JSON.stringify(p)}`).join(',\n')}\n\t\t]`,
		);
		const published = JSON.stringify(recorded.published);
		fs.writeFileSync(
			FILE,
			`{\n\t"published": ${published},\n\t"nodes": {\n${lines.join(',\n')}\n\t}\n}\n`,
		);
	}
	const problems: string[] = [];
	for (const [key, params] of Object.entries(recorded.nodes)) {
		const [node, version] = key.split('@');
		const now = current[key];
		if (!now) {
			problems.push(`${node} version ${version} is gone`);
			continue;
		}
		const byName = new Map(now.map((p) => [p.name, p]));
		for (const p of params) {
			const why = breaks(p, byName.get(p.name));
			if (why) problems.push(`${node} version ${version}: parameter "${p.name}" ${why}`);
		}
	}
	const unrecorded = Object.keys(current).filter((key) => !(key in recorded.nodes));
	for (const key of unrecorded)
		problems.push(
			`${key} is not recorded (TRIPTYCH_RECORD_SURFACE=1 npx jest test/surface/surface.test.ts)`,
		);
	if (problems.length)
		throw new Error(
			[
				`Parameters of a recorded node version changed${recorded.published ? ` since ${recorded.published}` : ''}: workflows saved with it would break.`,
				'Keep the recorded parameters as they are and put the change in a new node version, or, before the first',
				'release, record the surface anew (TRIPTYCH_RECORD_SURFACE=1 npx jest test/surface/surface.test.ts).',
				...problems,
			].join('\n'),
		);
});

test.each([
	[{ name: 'a', type: 'string', default: '' }, undefined, /is gone/],
	[
		{ name: 'a', type: 'string', default: '' },
		{ name: 'a', type: 'string', default: 'x' },
		/default/,
	],
	[
		{ name: 'a', type: 'options', default: 'x', options: ['x', 'y'] },
		{ name: 'a', type: 'options', default: 'x', options: ['x'] },
		/lost the option values y/,
	],
	[
		{ name: 'a', type: 'string', default: '' },
		{ name: 'a', type: 'string', default: '', required: true },
		/became required/,
	],
	[
		{ name: 'a', type: 'options', default: 'x', options: ['x'] },
		{ name: 'a', type: 'options', default: 'x', options: ['x', 'y'] },
		undefined,
	],
])('the guard judges %j → %j', (was, is, expected) => {
	const why = breaks(was as Entry, is as Entry | undefined);
	if (expected) expect(why).toMatch(expected);
	else expect(why).toBeUndefined();
});
