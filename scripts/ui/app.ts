/**
 * The real n8n app the UI check drives: the packed package installed into a private user folder (as n8n's
 * community-package installer leaves it), `n8n start` on 127.0.0.1 only, the owner set up and logged in through
 * the REST API, and the Triptych credential created through REST, pointing at the loopback demo services.
 * Reuses the end-to-end check's installs, package install, start-up wait and REST client (scripts/e2e/instance.ts)
 * and its process handling (scripts/e2e/n8n.ts: every child process in its own process group, killed at exit).
 */
import fs from 'node:fs';
import path from 'node:path';

import { Rest, installPackage, n8nEnv, waitFor, waitForStart } from '../e2e/instance';
import { type Background, type Runtime, type Target, background, n8nBin } from '../e2e/n8n';
import { type Services, CREDENTIAL_TYPE, credentialData } from '../e2e/scenarios';

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
	const vars = await n8nEnv(target, runtime, userFolder);
	const server = background(runtime.node, [n8nBin(target.version), 'start'], {
		env: vars,
		cwd: userFolder,
		logFile: path.join(userFolder, 'n8n-start.log'),
	});
	const base = String(vars.N8N_EDITOR_BASE_URL);
	await waitForStart(base, server);
	const rest = new Rest(base, 'triptych-ui');
	const setup = await waitFor(
		'the owner setup route',
		30_000,
		async () => {
			const answer = await rest.call('POST', '/rest/owner/setup', OWNER);
			return answer.status === 404 || !answer.json ? undefined : answer;
		},
		server,
	);
	if (setup.status !== 200)
		fail(`owner setup answered ${setup.status}: ${setup.text.slice(0, 500)}`);
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
