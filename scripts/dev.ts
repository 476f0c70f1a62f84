/**
 * `npm run dev`: a real n8n editor (http://localhost:5678) with this package loaded from dist/ — not from the
 * package root, so test dependencies in node_modules (n8n-core, n8n-nodes-base…) never reach n8n's loader — and
 * `tsc --watch` rebuilding it while n8n reloads (N8N_DEV_RELOAD). Needs Node 24 (n8n 2.x) and network access to
 * fetch n8n with npx (set N8N_VERSION to pin one; default: latest). Loaded this way, node types are
 * `CUSTOM.<name>` (e.g. CUSTOM.quoteTags); installed from npm they are `n8n-nodes-triptych.<name>`.
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(__dirname, '..');
const major = Number(process.versions.node.split('.')[0]);
if (major < 22) {
	console.error(
		`n8n 2.x needs Node 22.16 or newer (this is ${process.version}). Use Node 24, e.g. \`npx -y node@24 …\` or nvm.`,
	);
	process.exit(1);
}

const version = process.env.N8N_VERSION ?? 'latest';
const env = {
	...process.env,
	N8N_CUSTOM_EXTENSIONS: path.join(root, 'dist'),
	N8N_DEV_RELOAD: 'true',
	N8N_USER_FOLDER: process.env.N8N_USER_FOLDER ?? path.join(os.homedir(), '.n8n-triptych-dev'),
	N8N_DIAGNOSTICS_ENABLED: 'false',
	N8N_PERSONALIZATION_ENABLED: 'false',
};
const children = [
	spawn('npx', ['tsc', '--watch', '--preserveWatchOutput'], { cwd: root, stdio: 'inherit' }),
	spawn('npx', ['-y', `n8n@${version}`, 'start'], { cwd: os.tmpdir(), env, stdio: 'inherit' }),
];
const stop = () => children.forEach((child) => child.kill('SIGTERM'));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
children[1].on('exit', (code) => {
	stop();
	process.exit(code ?? 0);
});
