/**
 * The real n8n app the UI check drives: the packed package installed into a private user folder (as n8n's
 * community-package installer leaves it), `n8n start` on 127.0.0.1 only, the owner set up and logged in through
 * the REST API, and the Triptych credential created through REST, pointing at the loopback demo services.
 * Reuses the end-to-end check's installs and process handling (scripts/e2e/n8n.ts: every child process in its
 * own process group, killed at exit).
 */
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
} from '../e2e/n8n';
import { type Services, CREDENTIAL_TYPE, PACKAGE, ROOT, credentialData } from '../e2e/scenarios';

export const OWNER = {
	email: 'ui@triptych.test',
	password: 'Ui-Passw0rd-Triptych',
	firstName: 'UI',
	lastName: 'Owner',
};
export const CREDENTIAL_NAME = 'Triptych (UI check)';

const fail = (message: string): never => {
	throw new Error(message);
};

/** `npm pack` of the built package into <work>/pack (the same as the end-to-end check's). */
export async function pack(work: string): Promise<string> {
	if (!fs.existsSync(path.join(ROOT, 'dist/nodes')))
		fail('dist/ is missing: run `npm run build` first');
	const out = path.join(work, 'pack');
	fs.rmSync(out, { recursive: true, force: true });
	fs.mkdirSync(out, { recursive: true });
	const result = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', out], {
		cwd: ROOT,
		timeoutMs: 120_000,
	});
	if (result.code !== 0) fail(`npm pack failed: ${result.stderr.slice(-1500)}`);
	const [info] = JSON.parse(result.stdout.slice(result.stdout.indexOf('['))) as Array<{
		filename: string;
	}>;
	return path.join(out, info.filename);
}

/** Unpacks the tarball into <user folder>/.n8n/nodes/node_modules/<name>, without dev/peer dependencies. */
export async function installPackage(tarball: string, userFolder: string): Promise<void> {
	const nodesDir = path.join(userFolder, '.n8n', 'nodes');
	const target = path.join(nodesDir, 'node_modules', PACKAGE);
	fs.mkdirSync(target, { recursive: true });
	const untar = await run('tar', ['-xzf', tarball, '-C', target, '--strip-components=1'], {
		timeoutMs: 60_000,
	});
	if (untar.code !== 0) fail(`tar failed: ${untar.stderr}`);
	const manifestFile = path.join(target, 'package.json');
	const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as Record<string, unknown>;
	delete manifest.devDependencies;
	delete manifest.peerDependencies;
	fs.writeFileSync(manifestFile, JSON.stringify(manifest, null, 2));
	fs.writeFileSync(
		path.join(nodesDir, 'package.json'),
		JSON.stringify(
			{ name: 'installed-nodes', private: true, dependencies: { [PACKAGE]: manifest.version } },
			null,
			2,
		),
	);
}

/** A logged-in REST client (the n8n-auth cookie of the owner). */
export class Rest {
	cookie = '';

	constructor(readonly base: string) {}

	async call(method: string, route: string, body?: unknown) {
		const res = await fetch(`${this.base}${route}`, {
			method,
			headers: {
				'content-type': 'application/json',
				'browser-id': 'triptych-ui',
				...(this.cookie ? { cookie: this.cookie } : {}),
			},
			body: body === undefined ? undefined : JSON.stringify(body),
			signal: AbortSignal.timeout(30_000),
		});
		const auth = /n8n-auth=[^;]+/.exec(res.headers.get('set-cookie') ?? '');
		if (auth) this.cookie = auth[0];
		const text = await res.text();
		let json: any;
		try {
			json = JSON.parse(text);
		} catch {
			json = undefined;
		}
		return { status: res.status, json, text };
	}
}

export async function waitFor<T>(
	what: string,
	timeoutMs: number,
	probe: () => Promise<T | undefined>,
	server?: Background,
): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		if (server?.exited())
			fail(`n8n exited while waiting for ${what}:\n${server.output().slice(-3000)}`);
		try {
			const value = await probe();
			if (value !== undefined) return value;
		} catch {
			/* not yet */
		}
		if (Date.now() > deadline) fail(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
		await new Promise((resolve) => setTimeout(resolve, 500));
	}
}

export interface App {
	base: string;
	rest: Rest;
	server: Background;
	credentialId: string;
	userFolder: string;
}

/** Starts n8n with the package installed, sets up the owner, logs in and creates the credential. */
export async function startApp(
	target: Target,
	runtime: Runtime,
	tarball: string,
	userFolder: string,
	services: Services,
): Promise<App> {
	fs.rmSync(userFolder, { recursive: true, force: true });
	fs.mkdirSync(userFolder, { recursive: true });
	await installPackage(tarball, userFolder);
	const vars: NodeJS.ProcessEnv = {};
	for (const [key, value] of Object.entries(process.env)) {
		if (!key.startsWith('N8N_') && !key.startsWith('DB_') && !key.startsWith('EXECUTIONS_'))
			vars[key] = value;
	}
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
	const server = background(runtime.node, [n8nBin(target.version), 'start'], {
		env: vars,
		cwd: userFolder,
		logFile: path.join(userFolder, 'n8n-start.log'),
	});
	const base = `http://127.0.0.1:${port}`;
	await waitFor(
		'n8n to answer /healthz',
		180_000,
		async () => ((await fetch(`${base}/healthz`)).ok ? true : undefined),
		server,
	);
	await waitFor(
		'n8n to finish starting',
		60_000,
		// until then n8n answers every route with HTTP 200 "n8n is starting up. Please wait"
		async () => {
			const res = await fetch(`${base}/rest/settings`);
			const body = (await res.json().catch(() => undefined)) as { data?: unknown } | undefined;
			return res.ok && body?.data ? true : undefined;
		},
		server,
	);
	const rest = new Rest(base);
	const setup = await waitFor(
		'the owner setup route',
		30_000,
		async () => {
			const answer = await rest.call('POST', '/rest/owner/setup', OWNER);
			return answer.status === 404 || !answer.json ? undefined : answer;
		},
		server,
	);
	if (setup.status !== 200) fail(`owner setup answered ${setup.status}: ${setup.text.slice(0, 500)}`);
	const login = await rest.call('POST', '/rest/login', {
		emailOrLdapLoginId: OWNER.email,
		email: OWNER.email,
		password: OWNER.password,
	});
	if (login.status !== 200) fail(`login answered ${login.status}: ${login.text.slice(0, 500)}`);
	const created = await rest.call('POST', '/rest/credentials', {
		name: CREDENTIAL_NAME,
		type: CREDENTIAL_TYPE,
		data: credentialData(services, 'main'),
	});
	const credentialId = created.json?.data?.id as string | undefined;
	if (created.status !== 200 || !credentialId)
		fail(`creating the credential answered ${created.status}: ${created.text.slice(0, 500)}`);
	return { base, rest, server, credentialId: credentialId as string, userFolder };
}
