/** What n8n and its verification check about the package itself. */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { ROOT, loadPackage } from '../harness/engine';

const pkgJson = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));

describe('package.json', () => {
	test('follows the community-package rules', () => {
		expect(pkgJson.name).toBe('n8n-nodes-triptych');
		expect(pkgJson.keywords).toContain('n8n-community-node-package');
		expect(pkgJson.license).toBe('MIT');
		// `n8n-node build` copies the README's screenshots into dist/docs: they stay out of the tarball
		expect(pkgJson.files).toEqual(['dist', '!dist/docs']);
		// n8n loads the files under `n8n`; nothing imports the package by its name
		expect(pkgJson.main).toBeUndefined();
		expect(pkgJson.dependencies).toBeUndefined();
		expect(pkgJson.peerDependencies).toEqual({ 'n8n-workflow': '*' });
		for (const hook of ['preinstall', 'install', 'postinstall', 'prepare', 'prepublish']) {
			expect(pkgJson.scripts[hook]).toBeUndefined();
		}
		expect(pkgJson.scripts.build).toBe('n8n-node build');
		expect(pkgJson.scripts.lint).toBe('n8n-node lint');
		expect(fs.readFileSync(path.join(ROOT, 'LICENSE'), 'utf8')).toMatch(/MIT License/);
	});

	test('the tarball holds dist/ without dist/docs, package.json, README.md and LICENSE', () => {
		const [packed] = JSON.parse(
			execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
				cwd: ROOT,
				encoding: 'utf8',
			}),
		) as Array<{ files: Array<{ path: string }> }>;
		const files = packed.files.map((f) => f.path);
		expect(files).toEqual(expect.arrayContaining(pkgJson.n8n.nodes));
		expect(files.filter((f) => f.startsWith('dist/docs/'))).toEqual([]);
		expect(
			files.filter(
				(f) =>
					!/^dist\/((nodes|credentials|icons)\/|package\.json$)/.test(f) &&
					!['package.json', 'README.md', 'LICENSE'].includes(f),
			),
		).toEqual([]);
	});

	test('the n8n section lists every built node and credential, and nothing else', () => {
		const built = fs
			.readdirSync(path.join(ROOT, 'dist/nodes'))
			.filter((dir) => fs.existsSync(path.join(ROOT, 'dist/nodes', dir, `${dir}.node.js`)))
			.map((dir) => `dist/nodes/${dir}/${dir}.node.js`);
		expect([...pkgJson.n8n.nodes].sort()).toEqual(built.sort());
		expect(pkgJson.n8n.credentials).toEqual(['dist/credentials/TriptychApi.credentials.js']);
	});
});

describe('nodes as n8n loads them', () => {
	test('each node: codex, themed icons that exist and differ, tool use, action (not trigger) naming', async () => {
		const { pkg } = await loadPackage();
		const names = Object.keys(pkg.nodeTypes);
		expect(names.length).toBe(pkgJson.n8n.nodes.length);
		for (const name of names) {
			const type = pkg.nodeTypes[name].type as unknown as {
				description: Record<string, unknown>;
				constructor: { name: string };
			};
			const d = type.description as {
				name: string;
				displayName: string;
				defaults: { name?: string };
				usableAsTool?: boolean | { replacements?: { description?: string } };
				group: string[];
				codex?: {
					categories?: string[];
					alias?: string[];
					resources?: { primaryDocumentation?: unknown[] };
				};
				iconUrl?: { light: string; dark: string };
				credentials?: Array<{ name: string }>;
				properties: Array<{ name: string; displayName: string }>;
			};
			// usable as an AI agent's tool (true, or with replacements such as a description for the model)
			expect(d.usableAsTool).toBeTruthy();
			if (typeof d.usableAsTool === 'object') {
				expect(d.usableAsTool.replacements?.description).toEqual(expect.any(String));
				expect(d.usableAsTool.replacements!.description!.length).toBeGreaterThan(20);
			}
			// n8n's editor lists any node whose type or display name contains "trigger" as a trigger node
			expect(d.group).not.toContain('trigger');
			for (const text of [name, d.name, d.displayName, d.defaults.name])
				expect(text).not.toMatch(/trigger/i);
			// the package's name finds every node in the editor's search
			expect(d.codex?.alias).toContain('triptych');
			expect(type.constructor.name).not.toMatch(/Trigger$/);
			expect(d.codex?.categories?.length).toBeGreaterThan(0);
			expect(d.codex?.resources?.primaryDocumentation?.length).toBeGreaterThan(0);
			expect(d.credentials).toEqual([expect.objectContaining({ name: 'triptychApi' })]);
			const icons = d.iconUrl!;
			const file = (url: string) => path.join(ROOT, url.replace('icons/n8n-nodes-triptych/', ''));
			expect(fs.existsSync(file(icons.light))).toBe(true);
			expect(fs.existsSync(file(icons.dark))).toBe(true);
			expect(fs.readFileSync(file(icons.light))).not.toEqual(fs.readFileSync(file(icons.dark)));
			expect(d.properties.some((p) => p.name === 'options')).toBe(true);
		}
	});
});

describe('gulp build:icons', () => {
	test('copies every node and credential icon into the output folder, byte for byte', () => {
		const out = fs.mkdtempSync(path.join(os.tmpdir(), 'triptych-icons-'));
		try {
			execFileSync(
				process.execPath,
				[path.join(ROOT, 'node_modules/gulp/bin/gulp.js'), 'build:icons'],
				{
					cwd: ROOT,
					env: { ...process.env, TRIPTYCH_ICONS_DEST: out },
					stdio: 'pipe',
				},
			);
			const sources = [
				...fs.readdirSync(path.join(ROOT, 'icons')).map((f) => `icons/${f}`),
				...fs
					.readdirSync(path.join(ROOT, 'nodes'))
					.flatMap((dir) =>
						fs.statSync(path.join(ROOT, 'nodes', dir)).isDirectory()
							? fs.readdirSync(path.join(ROOT, 'nodes', dir)).map((f) => `nodes/${dir}/${f}`)
							: [],
					),
			].filter((f) => /\.(svg|png)$/.test(f));
			expect(sources.length).toBeGreaterThanOrEqual(8);
			for (const rel of sources) {
				expect(fs.readFileSync(path.join(out, rel))).toEqual(fs.readFileSync(path.join(ROOT, rel)));
			}
		} finally {
			fs.rmSync(out, { recursive: true, force: true });
		}
	});
});
