/** A real n8n instance with the packed package, for scripts/e2e.ts and scripts/ui.ts. */
import fs from 'node:fs';
import path from 'node:path';

import {
	type Background,
	type Runtime,
	type Target,
	background,
	freePort,
	n8nBin,
	run,
} from './n8n';
import { ensure, fail, waitFor } from './checks';
import { PACKAGE, ROOT } from './scenarios';

/** Writes `value` as indented JSON (how n8n and npm write their files). */
export const writeJson = (file: string, value: unknown) =>
	fs.writeFileSync(file, JSON.stringify(value, null, 2));

/** `npm pack` of the built package into <work>/pack (run `npm run build` first: the npm scripts do). */
export async function pack(work: string): Promise<string> {
	if (!fs.existsSync(path.join(ROOT, 'dist/nodes')))
		fail('dist/ is missing: run `npm run build` first');
	const out = path.join(work, 'pack');
	fs.rmSync(out, { recursive: true, force: true });
	fs.mkdirSync(out, { recursive: true });
	const args = ['pack', '--json', '--ignore-scripts', '--pack-destination', out];
	const result = await run('npm', args, { cwd: ROOT, timeoutMs: 120_000 });
	if (result.code !== 0) fail(`npm pack failed: ${result.stderr.slice(-1500)}`);
	const [info] = JSON.parse(result.stdout.slice(result.stdout.indexOf('['))) as Array<{
		filename: string;
	}>;
	return path.join(out, info.filename);
}

/**
 * Installs the tarball as n8n's community-package installer leaves it: unpacked in
 * <user folder>/.n8n/nodes/node_modules/<name>, listed in <user folder>/.n8n/nodes/package.json, and without
 * devDependencies/peerDependencies (n8n installs with --omit=dev/peer semantics; the node must use n8n's own
 * n8n-workflow).
 */
async function installPackage(tarball: string, userFolder: string): Promise<string[]> {
	const nodesDir = path.join(userFolder, '.n8n', 'nodes');
	const target = path.join(nodesDir, 'node_modules', PACKAGE);
	fs.mkdirSync(target, { recursive: true });
	const tar = ['-xzf', tarball, '-C', target, '--strip-components=1'];
	const untar = await run('tar', tar, { timeoutMs: 60_000 });
	if (untar.code !== 0) fail(`tar failed: ${untar.stderr}`);
	const manifestFile = path.join(target, 'package.json');
	const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as Record<string, unknown>;
	delete manifest.devDependencies;
	delete manifest.peerDependencies;
	writeJson(manifestFile, manifest);
	const dependencies = { [PACKAGE]: manifest.version };
	writeJson(path.join(nodesDir, 'package.json'), {
		name: 'installed-nodes',
		private: true,
		dependencies,
	});
	if (fs.existsSync(path.join(target, 'node_modules')))
		fail('the packed package should have no node_modules');
	const runtime = Object.keys((manifest.dependencies as object | undefined) ?? {});
	if (runtime.length) fail(`runtime dependencies, which n8n would have to install: ${runtime}`);
	const n8n = manifest.n8n as { nodes: string[]; credentials: string[] };
	for (const file of [...n8n.nodes, ...n8n.credentials])
		if (!fs.existsSync(path.join(target, file)))
			fail(`package.json lists ${file}, which the tarball lacks`);
	return [
		`${path.basename(tarball)}: ${n8n.nodes.length} nodes, ${n8n.credentials.length} credential type(s), every listed file present`,
		'no runtime dependencies; devDependencies and peerDependencies dropped as n8n does',
	];
}

/** A prepared n8n: its version and Node, user folder and environment */
export type Env = Awaited<ReturnType<typeof prepare>>;

/**
 * A fresh user folder with the tarball installed in it, and the environment of an isolated n8n there: this
 * process's environment without N8N_/DB_/EXECUTIONS_ settings, SQLite, loopback addresses and free ports, no
 * telemetry, community packages on.
 */
export async function prepare(
	{ target, runtime }: { target: Target; runtime: Runtime },
	tarball: string,
	userFolder: string,
) {
	fs.rmSync(userFolder, { recursive: true, force: true });
	fs.mkdirSync(userFolder, { recursive: true });
	const installed = await installPackage(tarball, userFolder);
	const own = Object.entries(process.env).filter(([key]) => !/^(N8N_|DB_|EXECUTIONS_)/.test(key));
	const vars: NodeJS.ProcessEnv = Object.fromEntries(own);
	const port = await freePort();
	Object.assign(vars, {
		PATH: `${path.dirname(runtime.node)}${path.delimiter}${process.env.PATH}`,
		N8N_USER_FOLDER: userFolder,
		DB_TYPE: 'sqlite',
		N8N_LOG_LEVEL: 'info',
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: '127.0.0.1',
		N8N_PORT: String(port),
		N8N_EDITOR_BASE_URL: `http://127.0.0.1:${port}`,
		N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
		N8N_RUNNERS_BROKER_PORT: String(await freePort()),
		N8N_SECURE_COOKIE: 'false',
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
		GENERIC_TIMEZONE: 'UTC',
		TZ: 'UTC',
		...target.env,
	});
	return { target, runtime, userFolder, vars, installed };
}

/**
 * `n8n start` in a prepared user folder, waited for, with an owner (named after `who`, e.g. "E2e") set up (unless an
 * earlier start did) and logged in through the REST API, who also signs in to the editor; the server is stopped
 * again if any of that fails. Until n8n has finished starting it answers every route with HTTP 200 "n8n is starting
 * up. Please wait", so /rest/settings must carry its data.
 */
export async function startN8n(
	env: Env,
	who: string,
	browserId?: string,
): Promise<{ base: string; rest: Rest; server: Background; owner: Record<string, string> }> {
	const email = `${who.toLowerCase()}@triptych.test`;
	const password = `${who}-Passw0rd-Triptych`;
	const owner = { email, password, firstName: who.toUpperCase(), lastName: 'Owner' };
	const server = background(env.runtime.node, [n8nBin(env.target.version), 'start'], {
		env: env.vars,
		cwd: env.userFolder,
		logFile: path.join(env.userFolder, 'n8n-start.log'),
	});
	try {
		const base = String(env.vars.N8N_EDITOR_BASE_URL);
		const rest = new Rest(base, browserId);
		await waitFor(
			'n8n to finish starting',
			240_000,
			async () => ((await rest.call('GET', '/rest/settings')).json?.data ? true : undefined),
			server,
		);
		// Under load n8n 1.x may answer /rest/settings before its owner routes exist (404): ask again briefly.
		const setup = await waitFor(
			'the owner setup route',
			30_000,
			async () => {
				const answer = await rest.call('POST', '/rest/owner/setup', owner);
				return answer.status === 404 || !answer.json ? undefined : answer;
			},
			server,
		);
		// a second start in the same user folder finds the owner already set up: it logs in as that owner
		const again = setup.status === 400 && /already set ?up/i.test(setup.text);
		const login = await rest.call('POST', '/rest/login', {
			emailOrLdapLoginId: email,
			email,
			password,
		});
		const answers = [
			...(again ? [] : [['owner setup', setup] as const]),
			['login', login] as const,
		];
		for (const [what, answer] of answers)
			ensure(
				answer.status === 200,
				`${what} answered ${answer.status}: ${answer.text.slice(0, 500)}`,
			);
		return { base, rest, server, owner };
	} catch (error) {
		await server.stop();
		throw error;
	}
}

/** A REST client that keeps the owner's n8n-auth cookie. */
export class Rest {
	private cookie = '';

	constructor(
		readonly base: string,
		private readonly browserId = 'triptych-e2e',
	) {}

	async call(
		method: string,
		route: string,
		body?: unknown,
	): Promise<{ status: number; json: any; text: string }> {
		const res = await fetch(`${this.base}${route}`, {
			method,
			headers: {
				'content-type': 'application/json',
				'browser-id': this.browserId,
				...(this.cookie ? { cookie: this.cookie } : {}),
			},
			body: body === undefined ? undefined : JSON.stringify(body),
			signal: AbortSignal.timeout(60_000),
		});
		const setCookie = res.headers.get('set-cookie');
		const auth = setCookie && /n8n-auth=[^;]+/.exec(setCookie);
		if (auth) this.cookie = auth[0];
		const text = await res.text();
		const json = await Promise.resolve(text)
			.then(JSON.parse)
			.catch(() => undefined);
		return { status: res.status, json, text };
	}

	/** The executions of a workflow, newest first (the list's shape differs between n8n 1.x and 2.x). */
	async executions(
		workflowId: string,
	): Promise<Array<{ id: string; status?: string; finished?: boolean; mode: string }>> {
		const filter = encodeURIComponent(JSON.stringify({ workflowId }));
		const list = await this.call('GET', `/rest/executions?filter=${filter}`);
		return list.json?.data?.results ?? list.json?.data ?? [];
	}
}
