/**
 * End-to-end check in a real n8n app (`npm run test:e2e`; docs/development.md, "End to end in a real n8n"). For
 * each n8n version (default: the newest 2.x that installs here and the oldest 1.x the package supports): n8n
 * installed once into ~/.cache/triptych-e2e; the packed package installed into a private user folder as n8n's
 * community-package installer does; the loopback services; `n8n import:credentials` and `import:workflow` (the
 * example workflows, a scheduled copy, the hostile ones), `n8n execute` of each with its output and what the
 * services received checked; Museum Object Search's keyless styles (AIC, Cleveland) against their stand-ins; n8n's SSRF protection (an execute with it on, then with loopback allowed); then
 * `n8n start`: the node list, the credential test endpoint, n8n's log, the scheduler, and Stop. Options:
 * --n8n=2.41.1,1.85.4 (or E2E_N8N_VERSIONS), --only=ssrf,server (some of the phases after the import: scenarios,
 * features, museums, hostile, ssrf, server), --keep (keep .tmp/e2e).
 */
import fs from 'node:fs';
import path from 'node:path';

import manifest from '../package.json';
import { type Check, Checks, fail, log, runMain, seconds, waitFor } from './e2e/checks';
import {
	HOSTILE_CREDENTIAL,
	STOP_WORKFLOW,
	hostilePhase,
	hostileWorkflows,
	stopChecks,
} from './e2e/hostile';
import {
	FEATURE_CREDENTIALS,
	type FeatureServices,
	featureCredentials,
	featurePhase,
	featureWorkflows,
	startFeatureServices,
} from './e2e/features';
import { type Env, type Rest, pack, prepare, startN8n, writeJson } from './e2e/instance';
import {
	type MuseumRunDocument,
	type MuseumStandIns,
	museumCredentials,
	museumPhase,
	museumWorkflows,
	startMuseumStandIns,
} from './e2e/museums';
import { hasSsrfProtection, ssrfPhase, ssrfWorkflows } from './e2e/ssrf';
import { credentialTestMessage, installN8n, killAll, n8nBin, run } from './e2e/n8n';
import {
	type Item,
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

const checks = new Checks('  ');

const PHASES = ['scenarios', 'features', 'museums', 'hostile', 'ssrf', 'server'] as const;
type Phase = (typeof PHASES)[number];

// ------------------------------------------------------------------------------------------------ n8n commands

/** An n8n CLI command in the user folder: its exit code, output (stdout, then stderr), time and peak memory. */
async function n8n(env: Env, args: string[], sampleMemory = false) {
	const result = await run(env.runtime.node, [n8nBin(env.target.version), ...args], {
		env: env.vars,
		cwd: env.userFolder,
		timeoutMs: CLI_TIMEOUT,
		logFile: path.join(env.userFolder, 'n8n-cli.log'),
		sampleMemory,
	});
	if (result.timedOut) fail(`n8n ${args.join(' ')} timed out after ${seconds(CLI_TIMEOUT)}`);
	return { ...result, output: `${result.stdout}\n${result.stderr}` };
}

const LOAD_PROBLEM =
	/Unrecognized node type|Unrecognized credential type|(error|failed).{0,80}(n8n-nodes-triptych|community package|loading package)|n8n-nodes-triptych.{0,80}(error|failed)|Class could not be found/i;

/** Fails with the lines of n8n's output that say the package did not load, if any. */
function noLoadProblems(output: string): void {
	const problems = output.split('\n').filter((line) => LOAD_PROBLEM.test(line));
	if (problems.length) fail(`n8n reported load problems:\n${problems.slice(0, 10).join('\n')}`);
}

/** How a command ended: its exit code, or the signal that ended it. */
const exitOf = (result: { code: number | null; signal: NodeJS.Signals | null }) =>
	result.code ?? `on ${result.signal ?? 'an unknown signal'}`;

/**
 * `n8n execute` of n8n 2.41.1 on Node 24 now and then ends on SIGSEGV after it has printed the whole finished run
 * (the top-level document's closing "status" and "finished"): such a run counts by the run it printed, exit code 0 for
 * a successful run and 1 for another, and the crash is logged. Any other end on a signal stays a failure.
 */
function crashAfterRun<
	T extends { code: number | null; signal: NodeJS.Signals | null; stdout: string },
>(result: T): T {
	if (result.code !== null || result.signal !== 'SIGSEGV') return result;
	const status = /\n {2}"status": "(\w+)",\n {2}"finished": (?:true|false)\n\}/.exec(
		result.stdout,
	)?.[1];
	if (!status) return result;
	log(`        (n8n execute ended on SIGSEGV after printing its finished run, status "${status}")`);
	return { ...result, code: status === 'success' ? 0 : 1 };
}

/** The JSON document `n8n execute --rawOutput` printed (after n8n's own log lines). */
function parseRawOutput<T = Parameters<typeof viewOfRun>[0]>(stdout: string): T {
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
	const start =
		wf.nodes.find((n) => n.name === scenario.trigger) ??
		fail(`${scenario.file} has no node "${scenario.trigger}"`);
	if (id === SCHEDULED.id) {
		wf.name = `${wf.name} (e2e: every ${SCHEDULED.seconds} s)`;
		start.parameters = {
			rule: { interval: [{ field: 'seconds', secondsInterval: SCHEDULED.seconds }] },
		};
	} else if (start.type !== 'n8n-nodes-base.manualTrigger') {
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

/** An item's binary data: inline, or in n8n's file store (.n8n/storage in 2.x, .n8n/binaryData in 1.x). */
function binaryReader(userFolder: string) {
	return (item: Item, property: string): Buffer | undefined => {
		const binary = item.binary?.[property];
		if (binary?.data && !binary.id && !/^filesystem(-v2)?$/.test(binary.data))
			return Buffer.from(binary.data, 'base64');
		const match = /^filesystem(?:-v2)?:(.+)$/.exec(binary?.id ?? '');
		const file = ['storage', 'binaryData']
			.map((dir) => match && path.join(userFolder, '.n8n', dir, match[1]))
			.find((f) => f && fs.existsSync(f));
		return file ? fs.readFileSync(file) : undefined;
	};
}

// ------------------------------------------------------------------------------------------------ one version

async function runVersion(
	version: string,
	tarball: string,
	services: Services,
	features: FeatureServices,
	museums: MuseumStandIns,
	phases: readonly Phase[],
): Promise<void> {
	const check: Check = (name, body) => checks.run(`n8n ${version}`, name, body);
	log(`\n=== n8n ${version} ===`);
	let n8nInstall: Awaited<ReturnType<typeof installN8n>> | undefined;
	let prepared: Env | undefined;
	await check(`install n8n ${version} (cached in ~/.cache/triptych-e2e)`, async () => {
		const { runtime, cached } = (n8nInstall = await installN8n(version, log));
		return [`Node ${runtime.version}; ${cached ? 'cached install reused' : 'installed now'}`];
	});
	if (!n8nInstall) return;
	const installed = n8nInstall;
	await check('install the packed package into the user folder', async () => {
		const ready = await prepare(installed, tarball, path.join(WORK, `n8n-${version}`));
		return (prepared = ready).installed;
	});
	if (!prepared) return;
	const cli = prepared;

	const imported = await check('n8n import:credentials and import:workflow', async () => {
		const credentials: Array<{ id: string; name: string; type: string; data: object }> = (
			Object.keys(CREDENTIALS) as Array<keyof typeof CREDENTIALS>
		).map((kind) => ({
			...CREDENTIALS[kind],
			type: CREDENTIAL_TYPE,
			data:
				kind === 'quotesKeyed'
					? { ...credentialData(services, 'main'), sendKeyToQuotes: true }
					: credentialData(services, kind),
		}));
		credentials.push(...featureCredentials(services, features), ...museumCredentials(museums));
		const workflows = [
			...SCENARIOS.map((scenario) => staged(scenario)),
			...featureWorkflows(CREDENTIALS.main),
			...museumWorkflows(FEATURE_CREDENTIALS.harvardIfttt),
			staged(SCENARIOS.find((s) => s.key === SCHEDULED.scenario)!, SCHEDULED.id),
			...hostileWorkflows(CREDENTIALS),
			...ssrfWorkflows(CREDENTIALS.main),
		];
		let ms = 0;
		for (const [command, what, list] of [
			['import:credentials', 'credential', credentials],
			['import:workflow', 'workflow', workflows],
		] as const) {
			const file = path.join(cli.userFolder, `${what}s.json`);
			writeJson(file, list);
			const result = await n8n(cli, [command, `--input=${file}`]);
			const done = new RegExp(`imported ${list.length} ${what}`, 'i').test(result.output);
			if (result.code !== 0 || !done) fail(`${command} failed:\n${result.output.slice(-3000)}`);
			noLoadProblems(result.output);
			ms += result.ms;
		}
		return [
			`${credentials.length} credentials (n8n encrypted them), ${workflows.length} workflows (${ms} ms)`,
		];
	});
	if (!imported) return;

	const execute = async (id: string, sampleMemory = false, env: Record<string, string> = {}) =>
		crashAfterRun(
			await n8n(
				{ ...cli, vars: { ...cli.vars, ...env } },
				['execute', `--id=${id}`, '--rawOutput'],
				sampleMemory,
			),
		);
	for (const scenario of phases.includes('scenarios') ? SCENARIOS : []) {
		await check(`n8n execute: ${scenario.title}`, async () => {
			resetServices(services);
			const runOnce = async () => {
				const result = await execute(workflowId(scenario));
				noLoadProblems(result.output);
				if (result.code !== 0)
					fail(`n8n execute exited ${exitOf(result)}:\n${result.output.slice(-4000)}`);
				const view = viewOfRun(parseRawOutput(result.stdout));
				view.binaryBytes = binaryReader(cli.userFolder);
				return { view, ms: result.ms };
			};
			const first = await runOnce();
			const facts = await scenario.check(first.view, services);
			facts.push(`n8n execute took ${seconds(first.ms)}`);
			if (scenario.recheck) {
				const { view } = await runOnce();
				facts.push(...(await scenario.recheck(view, services, services.trigger.deliveries.length)));
			}
			return facts;
		});
	}

	if (phases.includes('features'))
		await featurePhase({
			services,
			features,
			check,
			async run(id) {
				const result = await execute(id);
				noLoadProblems(result.output);
				if (result.code !== 0)
					fail(`n8n execute exited ${exitOf(result)}:\n${result.output.slice(-4000)}`);
				return viewOfRun(parseRawOutput(result.stdout));
			},
		});
	/** The museum phase's credential Test and request-log checks, run in the server phase's n8n when it starts one */
	let museumsLast: ((app?: { rest: Rest }) => Promise<void>) | undefined;
	if (phases.includes('museums'))
		museumsLast = await museumPhase({
			standIns: museums,
			check,
			instance: cli,
			otherKey: services.apiKey,
			harvard: features.harvard,
			async run(id) {
				const result = await execute(id);
				noLoadProblems(result.output);
				if (result.code !== 0)
					fail(`n8n execute exited ${exitOf(result)}:\n${result.output.slice(-4000)}`);
				const document = parseRawOutput<MuseumRunDocument & Parameters<typeof viewOfRun>[0]>(
					result.stdout,
				);
				const view = viewOfRun(document);
				view.binaryBytes = binaryReader(cli.userFolder);
				return { view, document, ms: result.ms };
			},
		});
	if (phases.includes('hostile'))
		await hostilePhase({ services, check, execute: (id) => execute(id, true) });
	if (phases.includes('ssrf') && !hasSsrfProtection(n8nBin(version)))
		log(`  (n8n ${version} has no SSRF protection settings: those checks do not apply)`);
	else if (phases.includes('ssrf'))
		await ssrfPhase({
			services,
			check,
			instance: cli,
			credential: CREDENTIALS.main,
			execute: (id, env) => execute(id, false, env),
			parse: parseRawOutput,
		});
	const lastMuseumChecks = (app?: { rest: Rest }) => {
		const last = museumsLast;
		museumsLast = undefined;
		return last?.(app);
	};
	if (phases.includes('server')) await serverPhase(cli, services, check, lastMuseumChecks);
	await lastMuseumChecks();
}

async function serverPhase(
	env: Env,
	services: Services,
	check: Check,
	/** Checks of an earlier phase that need a running n8n (they start their own when they do not run here) */
	inRunningN8n: (app: { rest: Rest }) => Promise<void> | undefined,
): Promise<void> {
	let n8nApp = undefined as Awaited<ReturnType<typeof startN8n>> | undefined;
	await check('n8n start (scheduled workflow published), owner setup, login', async () => {
		for (const id of [SCHEDULED.id, STOP_WORKFLOW.id]) {
			const activate = await n8n(env, env.target.activate(id));
			if (activate.code !== 0)
				fail(`${env.target.activate(id).join(' ')} failed:\n${activate.output.slice(-2000)}`);
		}
		resetServices(services);
		const t0 = Date.now();
		n8nApp = await startN8n(env, 'E2e');
		return [`listening on ${n8nApp.base} after ${seconds(Date.now() - t0)}; owner logged in`];
	});
	if (!n8nApp) return;
	const { rest, server } = n8nApp;
	try {
		await check(
			'the package loads: nodes, Tool variants and credential type listed, no load errors',
			async () => {
				// seen once on 2.41.1 right after login: an answer that was not the JSON list yet; ask again briefly
				const nodes = await waitFor(
					'the node types list (/types/nodes.json)',
					20_000,
					async () => {
						const answer = await rest.call('GET', '/types/nodes.json');
						return answer.status === 200 && Array.isArray(answer.json) ? answer : undefined;
					},
					server,
				);
				const credentials = await rest.call('GET', '/types/credentials.json');
				const listed = [...nodes.json, ...(credentials.json ?? [])].map((n) => n.name as string);
				const expected = manifest.n8n.nodes.flatMap((file) => {
					const base = path.basename(file, '.node.js');
					const name = `${PACKAGE}.${base[0].toLowerCase()}${base.slice(1)}`;
					return [name, `${name}Tool`];
				});
				const missing = [...expected, CREDENTIAL_TYPE].filter((name) => !listed.includes(name));
				if (missing.length) fail(`missing from /types/nodes.json, credentials.json: ${missing}`);
				noLoadProblems(server.output());
				return [
					`listed: ${expected.join(', ')}`,
					`credential type ${CREDENTIAL_TYPE} listed; n8n's log has no load error`,
				];
			},
		);

		await check(
			'credential test endpoint: good key OK, bad key rejected, each service reported',
			async () => {
				const test = async (apiKey: string) => {
					const answer = await rest.call('POST', '/rest/credentials/test', {
						credentials: {
							...CREDENTIALS.main,
							type: CREDENTIAL_TYPE,
							data: credentialData(services, 'main', apiKey),
						},
					});
					const { status, text } = answer;
					if (status !== 200) fail(`credentials/test answered ${status}: ${text.slice(0, 500)}`);
					return (answer.json?.data ?? answer.json) as { status: string; message: string };
				};
				resetServices(services);
				const good = await test(services.apiKey);
				if (good.status !== 'OK') fail(`the good key was not accepted: ${JSON.stringify(good)}`);
				const wrong = 'not-the-key';
				const bad = await test(wrong);
				// the museum and the trigger service take the key (Bearer) and reject a wrong one; quotes takes none
				const data = credentialData(services, 'main', wrong);
				const expected = [
					`Museum URL: ${credentialTestMessage(data, 401)}`,
					`Quotes URL: ${credentialTestMessage(data, 200, 'quotes')}`,
					`Trigger URL: ${credentialTestMessage(data, 401, 'trigger')}`,
				].join(' ');
				if (bad.status !== 'Error' || bad.message !== expected)
					fail(`the bad key → ${JSON.stringify(bad)}, expected Error "${expected}"`);
				const probes = [
					services.museum.requests.filter((r) => r.path === '/object').length,
					services.quotes.requests.filter((r) => r.path === '/tags').length,
					services.trigger.requests.filter((r) => r.path === '/').length,
				];
				if (probes.some((n) => n < 2))
					fail(`test requests (museum, quotes, trigger): ${probes}, expected 2 each`);
				if (services.trigger.deliveries.length) fail('the credential test fired an automation');
				return [
					`good key → ${good.status} "${good.message}"`,
					`bad key → ${bad.status} "${bad.message}" (the test function's own words per service)`,
					`probes per test: GET /object?limit=1, GET /tags?limit=1, GET / (trigger root); nothing fired`,
				];
			},
		);

		await check(
			`Schedule Trigger fires in the running n8n (Tag digest every ${SCHEDULED.seconds} s)`,
			async () => {
				const execution = await waitFor(
					'a scheduled execution of the published Tag digest copy',
					60_000,
					async () =>
						(await rest.executions(SCHEDULED.id)).find(
							(e) =>
								e.mode === 'trigger' &&
								(e.status === 'success' || e.status === 'error' || e.finished),
						),
					server,
				);
				if (execution.status !== 'success' && !execution.finished)
					fail(`the scheduled execution ended with status ${execution.status}`);
				const tags = services.quotes.requests.filter((r) => r.path === '/tags').length;
				if (!tags) fail('the quotes service got no request from the scheduled run');
				return [
					`execution ${execution.id}: mode=${execution.mode}, status=${execution.status ?? 'finished'}; the quotes service got ${tags} GET /tags`,
				];
			},
		);
		await stopChecks({ services, rest, check });
		await inRunningN8n({ rest });
	} finally {
		await server.stop();
	}
}

// ------------------------------------------------------------------------------------------------ main

async function main(): Promise<number> {
	const args = process.argv.slice(2);
	const asked = args.find((a) => a.startsWith('--n8n='))?.slice(6) ?? process.env.E2E_N8N_VERSIONS;
	const versions =
		asked
			?.split(',')
			.map((v) => v.trim())
			.filter(Boolean) ?? DEFAULT_VERSIONS;
	const only = args
		.find((a) => a.startsWith('--only='))
		?.slice(7)
		.split(',');
	const unknown = only?.filter((phase) => !PHASES.includes(phase as Phase));
	if (unknown?.length) fail(`--only: unknown phase(s) ${unknown}; known: ${PHASES.join(', ')}`);
	const phases = (only as Phase[] | undefined) ?? PHASES;
	fs.mkdirSync(WORK, { recursive: true });

	log(`End-to-end check of ${PACKAGE} in n8n ${versions.join(', ')}`);
	let tarball = '';
	if (
		!(await checks.run('', 'npm pack', async () => [path.basename((tarball = await pack(WORK)))]))
	)
		return checks.summary();
	const services = await startServices();
	const features = await startFeatureServices(services.apiKey);
	const museums = await startMuseumStandIns();
	log(
		`  services: museum ${services.museum.url}, images ${services.images.url}, quotes ${services.quotes.url}, trigger ${services.trigger.url}, failing ${services.failing.url}, AIC ${museums.aic.apiUrl}, Cleveland ${museums.cleveland.apiUrl}`,
	);
	try {
		for (const version of versions) {
			await runVersion(version, tarball, services, features, museums, phases).catch(
				(error: Error) =>
					checks.run(`n8n ${version}`, 'run', () =>
						Promise.reject(new Error(error.stack ?? String(error))),
					),
			);
		}
	} finally {
		await services.close();
		await features.close();
		await museums.close();
		killAll();
		// a version's user folder (logs: n8n-cli.log, n8n-start.log) stays when one of its checks failed
		for (const version of versions) {
			const folder = path.join(WORK, `n8n-${version}`);
			if (!args.includes('--keep') && !checks.failed(`n8n ${version}`))
				fs.rmSync(folder, { recursive: true, force: true });
			else if (fs.existsSync(folder))
				log(`  kept ${path.relative(ROOT, folder)} (logs: n8n-cli.log, n8n-start.log)`);
		}
	}
	return checks.summary();
}

runMain(main);
