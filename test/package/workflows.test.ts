/** The GitHub Actions workflows do what n8n asks of community packages. */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';

const ROOT = path.resolve(__dirname, '../..');
const read = (name: string) =>
	parse(fs.readFileSync(path.join(ROOT, '.github/workflows', name), 'utf8')) as Record<string, any>;

test('ci.yml installs and runs the test command on pushes and pull requests', () => {
	const ci = read('ci.yml');
	expect(Object.keys(ci.on)).toEqual(expect.arrayContaining(['push', 'pull_request']));
	const runs = ci.jobs.test.steps.map((s: { run?: string }) => s.run).filter(Boolean);
	expect(runs).toEqual(['npm install --no-audit --no-fund', 'npm run test:all']);
});

test('publish.yml publishes from a version tag with provenance (id-token) through n8n-node release', () => {
	const publish = read('publish.yml');
	expect(publish.on.push.tags).toEqual(['*.*.*']);
	expect(publish.permissions).toEqual({ contents: 'read', 'id-token': 'write' });
	const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
	expect(pkg.scripts.release).toBe('n8n-node release');
	expect(pkg.scripts.prepublishOnly).toBe('n8n-node prerelease');
});

test('publish.yml writes the npm token only when the secret is set, so trusted publishing works without it', () => {
	const steps = read('publish.yml').jobs.publish.steps as Array<{
		uses?: string;
		with?: Record<string, string>;
		run?: string;
		env?: Record<string, string>;
	}>;
	// setup-node with a registry-url writes an .npmrc whose token npm would send instead of using OIDC
	const setup = steps.find((s) => s.uses?.startsWith('actions/setup-node'));
	expect(setup?.with?.['registry-url']).toBeUndefined();
	const release = steps.find((s) => s.run?.trim().endsWith('npm run release'))!;
	expect(release.env).toEqual({ NPM_TOKEN: '${{ secrets.NPM_TOKEN }}' });

	// the step's script as GitHub runs it (bash -e), with an npm that records what it was asked
	const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'triptych-publish-'));
	try {
		fs.writeFileSync(path.join(bin, 'npm'), '#!/bin/sh\necho "$*" >> "$(dirname "$0")/calls"\n', {
			mode: 0o755,
		});
		const run = (token: string) => {
			fs.rmSync(path.join(bin, 'calls'), { force: true });
			execFileSync('bash', ['-e', '-c', release.run!], {
				env: { HOME: bin, PATH: `${bin}:${process.env.PATH}`, NPM_TOKEN: token },
				stdio: 'pipe',
			});
			return fs.readFileSync(path.join(bin, 'calls'), 'utf8').trim().split('\n');
		};
		expect(run('')).toEqual(['run release']);
		expect(run('npm_secret')).toEqual([
			'config set //registry.npmjs.org/:_authToken npm_secret',
			'run release',
		]);
	} finally {
		fs.rmSync(bin, { recursive: true, force: true });
	}
});
