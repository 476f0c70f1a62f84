/** Source layout: small product files; test code never imports scripts/. */
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

function files(dir: string, ending: string): string[] {
	const out: string[] = [];
	for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
		const rel = path.join(dir, entry.name);
		if (entry.isDirectory()) out.push(...files(rel, ending));
		else if (entry.name.endsWith(ending)) out.push(rel);
	}
	return out;
}

test('no product file is over 300 lines', () => {
	const long = [...files('nodes', '.ts'), ...files('credentials', '.ts')]
		.map((file) => ({
			file,
			lines: fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n').length,
		}))
		.filter(({ lines }) => lines > 300);
	expect(long).toEqual([]);
});

test('test code imports nothing from scripts/', () => {
	const offending = files('test', '.ts').filter((file) =>
		/from\s+['"](\.\.\/)+scripts\//.test(fs.readFileSync(path.join(ROOT, file), 'utf8')),
	);
	expect(offending).toEqual([]);
});

/** Each product file's relative imports (types included), as repository paths */
function importsOf(): Map<string, string[]> {
	const product = [...files('nodes', '.ts'), ...files('credentials', '.ts')];
	const graph = new Map<string, string[]>();
	for (const file of product) {
		const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
		const targets = [...text.matchAll(/from\s+'(\.[^']+)'/g)].map(([, spec]) => {
			const base = path.join(path.dirname(file), spec);
			return product.find((f) => f === `${base}.ts` || f === path.join(base, 'index.ts')) ?? base;
		});
		graph.set(file, targets);
	}
	return graph;
}

test('the transport is entered only through its index.ts', () => {
	const transport = path.join('nodes', 'shared', 'transport');
	const past = [...importsOf()].flatMap(([file, targets]) =>
		file.startsWith(transport)
			? []
			: targets
					.filter((t) => t.startsWith(transport) && t !== path.join(transport, 'index.ts'))
					.map((t) => `${file} → ${t}`),
	);
	expect(past).toEqual([]);
});

test('no import circle among product files, types included', () => {
	const graph = importsOf();
	const circles: string[] = [];
	const state = new Map<string, 'open' | 'done'>();
	const visit = (file: string, trail: string[]) => {
		if (state.get(file) === 'done') return;
		if (state.get(file) === 'open') {
			circles.push([...trail.slice(trail.indexOf(file)), file].join(' → '));
			return;
		}
		state.set(file, 'open');
		for (const next of graph.get(file) ?? []) visit(next, [...trail, file]);
		state.set(file, 'done');
	};
	for (const file of graph.keys()) visit(file, []);
	expect(circles).toEqual([]);
});
