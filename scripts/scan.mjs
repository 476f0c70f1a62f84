#!/usr/bin/env node
/**
 * Offline run of n8n's community-package scanner (@n8n/scan-community-package) on this package.
 * The published scanner also checks npm provenance and downloads the attested GitHub source, which needs a published
 * package and network; its lint legs are what it then runs, and this script runs exactly those, with the scanner's
 * own `analyzePackage` and configuration:
 *   1. the source: package.json and {nodes,credentials}/**\/*.{js,ts,json}
 *   2. the packed tarball (`npm pack` of the built package): **\/*.js and package.json
 * It also checks that the tarball ships only what n8n loads: dist/ (nodes, credentials, icons), package.json, README.md
 * and LICENSE. `n8n-node build` copies every PNG of the repository into dist/, the README's screenshots too; the
 * `files` entry `!dist/docs` keeps those out of the tarball, and this check fails if they come back.
 * Run after `npm run build`.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const scanner = await import(
	path.join(root, 'node_modules/@n8n/scan-community-package/scanner/scanner.mjs')
);

if (!fs.existsSync(path.join(root, 'dist/nodes'))) {
	console.error('dist/ is missing: run `npm run build` first');
	process.exit(1);
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'triptych-scan-'));
let failed = false;
try {
	const packed = JSON.parse(
		execFileSync('npm', ['pack', '--json', '--pack-destination', work], {
			cwd: root,
			encoding: 'utf8',
		}),
	)[0];
	const unpacked = path.join(work, 'package');
	execFileSync('tar', ['-xzf', path.join(work, packed.filename), '-C', work]);

	const files = packed.files.map((f) => f.path);
	const stray = files.filter(
		(f) => !f.startsWith('dist/') && !['package.json', 'README.md', 'LICENSE'].includes(f),
	);
	console.log(
		`tarball ${packed.filename}: ${files.length} files, ${(packed.size / 1024).toFixed(1)} kB packed`,
	);
	if (stray.length) {
		failed = true;
		console.error(`✗ the tarball ships files outside dist/: ${stray.join(', ')}`);
	}
	const unloaded = files.filter(
		(f) => f.startsWith('dist/') && !/^dist\/((nodes|credentials|icons)\/|package\.json$)/.test(f),
	);
	if (unloaded.length) {
		failed = true;
		console.error(`✗ the tarball ships dist/ files n8n never loads: ${unloaded.join(', ')}`);
	}
	if (files.some((f) => /(^|\/)(test|__tests__|node_modules)\//.test(f))) {
		failed = true;
		console.error('✗ the tarball ships test code or node_modules');
	}

	const legs = [
		['source', root, scanner.SOURCE_FILE_PATTERNS],
		['tarball', unpacked, ['**/*.js', 'package.json']],
	];
	for (const [name, dir, patterns] of legs) {
		const result = await scanner.analyzePackage(dir, patterns);
		if (result.passed) {
			console.log(`✓ scanner lint rules pass on the ${name} (${patterns.join(', ')})`);
		} else {
			failed = true;
			console.error(`✗ scanner lint rules fail on the ${name}: ${result.message}`);
			if (result.details) console.error(result.details);
		}
	}
} finally {
	fs.rmSync(work, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
