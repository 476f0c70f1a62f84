/** The GitHub Actions workflows do what n8n asks of community packages. */
import fs from 'node:fs';
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
	const steps = publish.jobs.publish.steps as Array<{ run?: string; env?: Record<string, string> }>;
	const release = steps.find((s) => s.run === 'npm run release');
	expect(release?.env?.NODE_AUTH_TOKEN).toContain('secrets.NPM_TOKEN');
	const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
	expect(pkg.scripts.release).toBe('n8n-node release');
	expect(pkg.scripts.prepublishOnly).toBe('n8n-node prerelease');
});
