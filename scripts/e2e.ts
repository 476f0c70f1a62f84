/**
 * End-to-end check in a real n8n app (`npm run test:e2e`; see docs/development.md, "End to end in a real n8n").
 *
 * For each n8n version (default: the newest 2.x that installs here and the oldest 1.x the package supports):
 *   1. installs n8n once into ~/.cache/triptych-e2e/n8n-<version> (cached: later runs skip it);
 *   2. packs this package (`npm pack`) and installs the tarball into a private n8n user folder the way n8n's
 *      community-package installer does (<folder>/.n8n/nodes/node_modules/n8n-nodes-triptych, without its
 *      devDependencies and peerDependencies, so it runs on n8n's own n8n-workflow);
 *   3. starts the loopback demo services (museum, image host, quotes, trigger, and a failing trigger service);
 *   4. `n8n import:credentials` + `n8n import:workflow` (the example workflows and two end-to-end workflows), then
 *      `n8n execute --id=<id> --rawOutput` for each, and checks each run's output and what the services received;
 *   5. `n8n start` on 127.0.0.1: owner setup and login through the REST API, the node list (each node and its
 *      Tool variant), the credential test endpoint (good key OK, bad key rejected with the credential's
 *      message), n8n's log (no "Unrecognized node type", no load error), and a published Schedule Trigger
 *      workflow fired by n8n's own scheduler;
 * then prints a PASS/FAIL summary with timings and exits non-zero on any failure.
 *
 * Options: --n8n=2.41.1,1.85.4 (or E2E_N8N_VERSIONS), --keep (keep the user folders under .tmp/e2e).
 */
import fs from 'node:fs';
import path from 'node:path';

import {
	type Background,
	type Runtime,
	type Target,
	TARGETS,
	credentialTestMessage,
	ensureN8n,
	ensureRuntime,
	killAll,
	n8nBin,
	run,
} from './e2e/n8n';
import {
	type Item,
	type RunView,
	type Scenario,
	type Services,
	type WorkflowJson,
	CREDENTIAL_TYPE,
	PACKAGE,
	ROOT,
	SCENARIOS,
	credentialData,
	readWorkflow,
	resetServices,
	startServices,
	viewOfRun,
	withCredential,
} from './e2e/scenarios';
import {
	HOSTILE_CREDENTIAL,
	STOP_WORKFLOW,
	hostilePhase,
	hostileWorkflows,
	stopChecks,
} from './e2e/hostile';
import { type Rest, fail, installPackage, n8nEnv, pack, startN8n, waitFor } from './e2e/instance';

const DEFAULT_VERSIONS = ['2.41.1', '1.85.4'];
const WORK = path.join(ROOT, '.tmp', 'e2e');
const CLI_TIMEOUT = 180_000;

const CREDENTIALS = {
	main: { id: 'e2eTriptychMain1', name: 'Triptych (e2e)' },
	failingTrigger: { id: 'e2eTriptychFail1', name: 'Triptych (e2e, failing trigger service)' },
	quotesKeyed: HOSTILE_CREDENTIAL,
} as const;
/** The workflow n8n's scheduler runs in the server phase (a copy of Tag digest firing every few seconds) */
const SCHEDULED = { id: 'e2eScheduled0001', scenario: 'tag-digest', seconds: 3 };

// ------------------------------------------------------------------------------------------------ reporting

/** Each check's version and outcome, for the summary and for which user folders to keep. */
const checks: Array<{ version: string; name: string; ok: boolean }> = [];
const log = (line: string) => console.log(line);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** Runs one check: prints PASS with what it verified, or FAIL with why. */
async function check(version: string, name: string, body: () => Promise<string[]>) {
	const started = Date.now();
	let lines: string[];
	let ok = true;
	try {
		lines = await body();
	} catch (error) {
		ok = false;
		lines = String((error as Error).message ?? error)
			.split('\n')
			.slice(0, 30);
	}
	checks.push({ version, name, ok });
	log(`  ${ok ? 'PASS' : 'FAIL'}  ${name} (${seconds(Date.now() - started)})`);
	for (const line of lines) log(`          ${line}`);
	return ok;
}

// ------------------------------------------------------------------------------------------------ n8n commands

interface Env {
	target: Target;
	runtime: Runtime;
	userFolder: string;
	vars: NodeJS.ProcessEnv;
}

async function n8n(env: Env, args: string[], sampleMemory = false) {
	const result = await run(env.runtime.node, [n8nBin(env.target.version), ...args], {
		env: env.vars,
		cwd: env.userFolder,
		timeoutMs: CLI_TIMEOUT,
		logFile: path.join(env.userFolder, 'n8n-cli.log'),
		sampleMemory,
	});
	if (result.timedOut) fail(`n8n ${args.join(' ')} timed out after ${seconds(CLI_TIMEOUT)}`);
	return result;
}

const outputOf = (r: { stdout: string; stderr: string }) => `${r.stdout}\n${r.stderr}`;

/** Fails with the lines of n8n's output that say the package did not load, if any. */
function noLoadProblems(output: string): void {
	const problems = output
		.split('\n')
		.filter((line) =>
			/Unrecognized node type|Unrecognized credential type|(error|failed).{0,80}(n8n-nodes-triptych|community package|loading package)|n8n-nodes-triptych.{0,80}(error|failed)|Class could not be found/i.test(
				line,
			),
		);
	if (problems.length) fail(`n8n reported load problems:\n${problems.slice(0, 10).join('\n')}`);
}

/** The JSON document `n8n execute --rawOutput` printed (after n8n's own log lines). */
function parseRawOutput(stdout: string): {
	data: { resultData: { runData: never; error?: { message?: string } } };
} {
	const lines = stdout.split('\n');
	const start = lines.findIndex((line) => line === '{');
	if (start < 0) fail(`no JSON in the output of n8n execute:\n${stdout.slice(-3000)}`);
	const end = lines.findIndex((line, index) => index > start && line === '}');
	return JSON.parse(lines.slice(start, end + 1).join('\n'));
}

// ------------------------------------------------------------------------------------------------ workflows

const workflowId = (scenario: Scenario) =>
	`e2e${scenario.key.replace(/[^a-z0-9]/gi, '')}`.slice(0, 16).padEnd(16, '0');

/**
 * The workflow as imported: credentials pointing at the imported one, a fixed id, and, for a Schedule Trigger
 * workflow, a Manual Trigger wired to the same nodes. `n8n execute` starts a run only from a Manual (or Execute
 * Workflow) Trigger (n8n's findCliWorkflowStart); the Schedule Trigger itself runs in the server phase.
 */
function staged(scenario: Scenario, id = workflowId(scenario)): WorkflowJson {
	const credential = CREDENTIALS[scenario.credential];
	const wf = withCredential(readWorkflow(scenario.file), credential.id, credential.name);
	wf.id = id;
	wf.active = false;
	if (id === SCHEDULED.id) {
		wf.name = `${wf.name} (e2e: every ${SCHEDULED.seconds} s)`;
		wf.nodes.find((n) => n.name === scenario.trigger)!.parameters = {
			rule: { interval: [{ field: 'seconds', secondsInterval: SCHEDULED.seconds }] },
		};
		return wf;
	}
	const start = wf.nodes.find((n) => n.name === scenario.trigger);
	if (!start) fail(`${scenario.file} has no node "${scenario.trigger}"`);
	if (start.type !== 'n8n-nodes-base.manualTrigger') {
		const name = 'E2E: Run Once';
		wf.nodes.push({
			id: `${wf.id}-manual`,
			name,
			type: 'n8n-nodes-base.manualTrigger',
			typeVersion: 1,
			position: [start.position[0], start.position[1] + 200],
			parameters: {},
		});
		wf.connections[name] = JSON.parse(JSON.stringify(wf.connections[scenario.trigger]));
	}
	return wf;
}

function binaryReader(userFolder: string) {
	return (item: Item, property: string): Buffer | undefined => {
		const binary = item.binary?.[property];
		if (!binary) return undefined;
		if (
			binary.data &&
			!binary.id &&
			binary.data !== 'filesystem-v2' &&
			binary.data !== 'filesystem'
		) {
			return Buffer.from(binary.data, 'base64');
		}
		const match = /^filesystem(?:-v2)?:(.+)$/.exec(binary.id ?? '');
		if (!match) return undefined;
		// n8n 2.x keeps binary data under .n8n/storage, 1.x under .n8n/binaryData
		const file = ['storage', 'binaryData']
			.map((dir) => path.join(userFolder, '.n8n', dir, match[1]))
			.find((f) => fs.existsSync(f));
		return file ? fs.readFileSync(file) : undefined;
	};
}

// ------------------------------------------------------------------------------------------------ one version

async function runVersion(version: string, tarball: string, services: Services): Promise<void> {
	const target =
		TARGETS[version] ??
		fail(`unknown n8n version ${version}; known: ${Object.keys(TARGETS).join(', ')}`);
	log(`\n=== n8n ${version} ===`);
	let runtime: Runtime | undefined;
	const installed = await check(
		version,
		`install n8n ${version} (cached in ~/.cache/triptych-e2e)`,
		async () => {
			runtime = await ensureRuntime(target, log);
			const { cached } = await ensureN8n(target, runtime, log);
			return [`Node ${runtime.version}; ${cached ? 'cached install reused' : 'installed now'}`];
		},
	);
	if (!installed || !runtime) return;

	const userFolder = path.join(WORK, `n8n-${version}`);
	fs.rmSync(userFolder, { recursive: true, force: true });
	fs.mkdirSync(userFolder, { recursive: true });
	const env = { target, runtime, userFolder, vars: await n8nEnv(target, runtime, userFolder) };

	if (
		!(await check(version, 'install the packed package into the user folder', () =>
			installPackage(tarball, userFolder),
		))
	)
		return;

	const imported = await check(version, 'n8n import:credentials and import:workflow', async () => {
		const credentials = (Object.keys(CREDENTIALS) as Array<keyof typeof CREDENTIALS>).map(
			(kind) => ({
				...CREDENTIALS[kind],
				type: CREDENTIAL_TYPE,
				data:
					kind === 'quotesKeyed'
						? { ...credentialData(services, 'main'), sendKeyToQuotes: true }
						: credentialData(services, kind),
			}),
		);
		const credentialsFile = path.join(userFolder, 'credentials.json');
		fs.writeFileSync(credentialsFile, JSON.stringify(credentials, null, 2));
		const workflows = [
			...SCENARIOS.map((scenario) => staged(scenario)),
			staged(SCENARIOS.find((s) => s.key === SCHEDULED.scenario)!, SCHEDULED.id),
			...hostileWorkflows(CREDENTIALS),
		];
		const workflowsFile = path.join(userFolder, 'workflows.json');
		fs.writeFileSync(workflowsFile, JSON.stringify(workflows, null, 2));
		const c = await n8n(env, ['import:credentials', `--input=${credentialsFile}`]);
		if (
			c.code !== 0 ||
			!new RegExp(`imported ${credentials.length} credential`, 'i').test(outputOf(c))
		)
			fail(`import:credentials failed:\n${outputOf(c).slice(-3000)}`);
		const w = await n8n(env, ['import:workflow', `--input=${workflowsFile}`]);
		if (
			w.code !== 0 ||
			!new RegExp(`imported ${workflows.length} workflow`, 'i').test(outputOf(w))
		) {
			fail(`import:workflow failed:\n${outputOf(w).slice(-3000)}`);
		}
		noLoadProblems(outputOf(c) + outputOf(w));
		return [
			`${credentials.length} credentials (n8n encrypted them), ${workflows.length} workflows (${c.ms + w.ms} ms)`,
		];
	});
	if (!imported) return;

	for (const scenario of SCENARIOS) {
		await check(version, `n8n execute: ${scenario.title}`, async () => {
			resetServices(services);
			const execute = async () => {
				const result = await n8n(env, ['execute', `--id=${workflowId(scenario)}`, '--rawOutput']);
				noLoadProblems(outputOf(result));
				if (result.code !== 0)
					fail(`n8n execute exited ${result.code}:\n${outputOf(result).slice(-4000)}`);
				const view: RunView = viewOfRun(parseRawOutput(result.stdout));
				view.binaryBytes = binaryReader(userFolder);
				return { view, ms: result.ms };
			};
			const first = await execute();
			const facts = await scenario.check(first.view, services);
			facts.push(`n8n execute took ${seconds(first.ms)}`);
			if (scenario.recheck) {
				const second = await execute();
				facts.push(
					...(await scenario.recheck(second.view, services, services.trigger.deliveries.length)),
				);
			}
			return facts;
		});
	}

	await hostilePhase({
		services,
		check: (name, body) => check(version, name, body),
		reset: () => resetServices(services),
		execute: async (id) => {
			const result = await n8n(env, ['execute', `--id=${id}`, '--rawOutput'], true);
			return { output: outputOf(result), ms: result.ms, peakRssMb: result.peakRssMb };
		},
	});

	await serverPhase(env, services);
}

async function serverPhase(env: Env, services: Services): Promise<void> {
	const { version } = env.target;
	let server: Background | undefined;
	let rest: Rest | undefined;
	try {
		const started = await check(
			version,
			'n8n start (scheduled workflow published), owner setup, login',
			async () => {
				for (const id of [SCHEDULED.id, STOP_WORKFLOW.id]) {
					const activate = await n8n(env, env.target.activate(id));
					if (activate.code !== 0)
						fail(
							`${env.target.activate(id).join(' ')} failed:\n${outputOf(activate).slice(-2000)}`,
						);
				}
				resetServices(services);
				const t0 = Date.now();
				({ rest, server } = await startN8n(env.runtime, version, env.vars, {
					email: 'e2e@triptych.test',
					password: 'E2e-Passw0rd-Triptych',
					firstName: 'E2E',
					lastName: 'Owner',
				}));
				return [`listening on ${rest.base} after ${seconds(Date.now() - t0)}; owner logged in`];
			},
		);
		if (!started || !rest || !server) return;
		const api = rest;
		const app = server;

		await check(
			version,
			'the package loads: nodes, Tool variants and credential type listed, no load errors',
			async () => {
				// seen once on 2.41.1 right after login: an answer that was not the JSON list yet; ask again briefly
				const nodes = await waitFor(
					'the node types list (/types/nodes.json)',
					20_000,
					async () => {
						const answer = await api.call('GET', '/types/nodes.json');
						return answer.status === 200 && Array.isArray(answer.json) ? answer : undefined;
					},
					app,
				);
				const names = new Set((nodes.json as Array<{ name: string }>).map((n) => n.name));
				const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
					n8n: { nodes: string[] };
				};
				const expected = manifest.n8n.nodes.flatMap((file) => {
					const base = path.basename(file, '.node.js');
					const name = base.charAt(0).toLowerCase() + base.slice(1);
					return [`${PACKAGE}.${name}`, `${PACKAGE}.${name}Tool`];
				});
				const missing = expected.filter((name) => !names.has(name));
				if (missing.length) fail(`missing from n8n's node list: ${missing.join(', ')}`);
				const credentials = await api.call('GET', '/types/credentials.json');
				const credentialNames = Array.isArray(credentials.json)
					? credentials.json.map((c: { name: string }) => c.name)
					: [];
				if (!credentialNames.includes(CREDENTIAL_TYPE))
					fail(`credential type ${CREDENTIAL_TYPE} is not in /types/credentials.json`);
				noLoadProblems(app.output());
				return [
					`listed: ${expected.join(', ')}`,
					`credential type ${CREDENTIAL_TYPE} listed; n8n's log has no load error`,
				];
			},
		);

		await check(
			version,
			'credential test endpoint: good key OK, bad key rejected with its message',
			async () => {
				const test = async (apiKey: string) => {
					const credential = {
						...CREDENTIALS.main,
						type: CREDENTIAL_TYPE,
						data: credentialData(services, 'main', apiKey),
					};
					const answer = await api.call('POST', '/rest/credentials/test', {
						credentials: credential,
					});
					if (answer.status !== 200)
						fail(
							`POST /rest/credentials/test answered ${answer.status}: ${answer.text.slice(0, 500)}`,
						);
					return (answer.json?.data ?? answer.json) as { status: string; message: string };
				};
				services.museum.reset();
				const good = await test(services.apiKey);
				if (good.status !== 'OK') fail(`the good key was not accepted: ${JSON.stringify(good)}`);
				const bad = await test('not-the-key');
				if (bad.status !== 'Error') fail(`the bad key was accepted: ${JSON.stringify(bad)}`);
				const expected = credentialTestMessage(
					credentialData(services, 'main', 'not-the-key'),
					401,
				);
				if (bad.message !== expected)
					fail(`the bad key's message is "${bad.message}", expected "${expected}"`);
				const probes = services.museum.requests.filter((r) => r.path === '/object');
				if (probes.length < 2)
					fail(`the museum service got ${probes.length} test requests, expected at least 2`);
				return [
					`good key → ${good.status} "${good.message}"`,
					`bad key → ${bad.status} "${bad.message}" (the test function's own message, on every n8n version)`,
					`${probes.length} GET /object?limit=1 probes reached the museum service`,
				];
			},
		);

		await check(
			version,
			`Schedule Trigger fires in the running n8n (Tag digest every ${SCHEDULED.seconds} s)`,
			async () => {
				const execution = await waitFor(
					'a scheduled execution of the published Tag digest copy',
					60_000,
					async () =>
						(await api.executions(SCHEDULED.id)).find(
							(e) =>
								e.mode === 'trigger' &&
								(e.status === 'success' || e.status === 'error' || e.finished),
						),
					app,
				);
				if (execution.status !== 'success' && !execution.finished)
					fail(`the scheduled execution ended with status ${execution.status}`);
				const tagRequests = services.quotes.requests.filter((r) => r.path === '/tags');
				if (tagRequests.length === 0)
					fail('the quotes service got no request from the scheduled run');
				return [
					`execution ${execution.id}: mode=${execution.mode}, status=${execution.status ?? 'finished'}; the quotes service got ${tagRequests.length} GET /tags`,
				];
			},
		);
		await stopChecks({
			services,
			rest: api,
			check: (name, body) => check(version, name, body),
			reset: () => resetServices(services),
		});
	} finally {
		if (server) await (server as Background).stop();
	}
}

// ------------------------------------------------------------------------------------------------ main

async function main(): Promise<number> {
	const args = process.argv.slice(2);
	const versions = (
		args.find((a) => a.startsWith('--n8n='))?.slice(6) ??
		process.env.E2E_N8N_VERSIONS ??
		DEFAULT_VERSIONS.join(',')
	)
		.split(',')
		.map((v) => v.trim())
		.filter(Boolean);
	const keep = args.includes('--keep');
	const started = Date.now();
	fs.mkdirSync(WORK, { recursive: true });

	log(`End-to-end check of ${PACKAGE} in n8n ${versions.join(', ')}`);
	let tarball = '';
	if (!(await check('-', 'npm pack', async () => [path.basename((tarball = await pack(WORK)))])))
		return report(started);
	const services = await startServices();
	log(
		`  services: museum ${services.museum.url}, images ${services.images.url}, quotes ${services.quotes.url}, trigger ${services.trigger.url}, failing ${services.failing.url}`,
	);
	try {
		for (const version of versions) {
			try {
				await runVersion(version, tarball, services);
			} catch (error) {
				checks.push({ version, name: 'run', ok: false });
				log(String((error as Error).stack ?? error));
			}
		}
	} finally {
		await services.close();
		killAll();
		// a version's user folder (logs: n8n-cli.log, n8n-start.log) stays when one of its checks failed
		for (const version of versions) {
			const failedHere = checks.some((c) => c.version === version && !c.ok);
			const folder = path.join(WORK, `n8n-${version}`);
			if (!keep && !failedHere) fs.rmSync(folder, { recursive: true, force: true });
			else if (fs.existsSync(folder))
				log(`  kept ${path.relative(ROOT, folder)} (logs: n8n-cli.log, n8n-start.log)`);
		}
	}
	return report(started);
}

function report(started: number): number {
	const failed = checks.filter((c) => !c.ok);
	log('\n=== Summary ===');
	for (const version of new Set(checks.map((c) => c.version))) {
		const own = checks.filter((c) => c.version === version);
		log(`n8n ${version}: ${own.filter((c) => c.ok).length}/${own.length} checks passed`);
	}
	for (const c of failed) log(`FAIL  [n8n ${c.version}] ${c.name}`);
	log(
		`${checks.length - failed.length} passed, ${failed.length} failed in ${seconds(Date.now() - started)}`,
	);
	return failed.length || checks.length === 0 ? 1 : 0;
}

main().then(
	(code) => process.exit(code),
	(error) => {
		console.error(error);
		killAll();
		process.exit(1);
	},
);
