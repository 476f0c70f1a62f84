/**
 * n8n's SSRF protection in the real n8n. With it on, its default blocked ranges include loopback, where the
 * stand-ins listen: Quote Tags must fail at once with the package's own message and the stand-in get nothing, and
 * the credential Test in a started n8n must say the same. With the loopback range allowed, the workflow must run.
 */
import fs from 'node:fs';
import path from 'node:path';

import {
	CREDENTIAL_TYPE,
	type Services,
	type WorkflowJson,
	credentialData,
	oneNodeWorkflow,
	viewOfRun,
} from './scenarios';
import { type Check, ensure, seconds } from './checks';
import { type Env, startN8n } from './instance';

type Credential = { id: string; name: string };
type RunDocument = Parameters<typeof viewOfRun>[0] & {
	data: {
		resultData: { error?: { message?: string; description?: string; node?: { name?: string } } };
	};
};

/** The workflow `n8n execute` runs: Manual Trigger → Quote Tags, retries allowed (a blocked request takes none). */
const WORKFLOW = { id: 'e2eSsrfQuoteTag0', node: 'SSRF Quote Tags', limit: 3, maxAttempts: 5 };

const PROTECTED = { N8N_SSRF_PROTECTION_ENABLED: 'true' };
const ALLOWED = { ...PROTECTED, N8N_SSRF_ALLOWED_IP_RANGES: '127.0.0.0/8' };

/** Whether this n8n reads the SSRF protection settings (older versions have none). */
export function hasSsrfProtection(n8nBin: string): boolean {
	const n8n = path.resolve(n8nBin, '../..');
	return [path.join(n8n, 'node_modules'), path.resolve(n8n, '..')]
		.map((modules) => path.join(modules, '@n8n/config/dist/configs'))
		.filter((configs) => fs.existsSync(configs))
		.some((configs) =>
			fs
				.readdirSync(configs)
				.filter((file) => file.endsWith('.js'))
				.some((file) =>
					fs.readFileSync(path.join(configs, file), 'utf8').includes('N8N_SSRF_PROTECTION_ENABLED'),
				),
		);
}

export function ssrfWorkflows(main: Credential): WorkflowJson[] {
	const { id, node, limit, maxAttempts } = WORKFLOW;
	const parameters = { limit, options: { maxAttempts } };
	return [
		oneNodeWorkflow(
			`${id}`,
			`e2e ssrf: ${id}`,
			{ name: node, type: 'quoteTags', parameters },
			{
				triptychApi: main,
			},
		),
	];
}

/** Runs the SSRF checks of one n8n version. */
export async function ssrfPhase(r: {
	services: Services;
	check: Check;
	/** The prepared n8n, for an `n8n start` with the protection on */
	instance: Env;
	/** The credential the workflow uses, for the credential test endpoint */
	credential: Credential;
	/** `n8n execute` of a workflow with extra environment: its exit code, n8n's whole output and time */
	execute(
		id: string,
		env: Record<string, string>,
	): Promise<{ code: number | null; output: string; stdout: string; ms: number }>;
	/** The run `n8n execute --rawOutput` printed (a failed run too: n8n prints it after "Execution error:") */
	parse(stdout: string): RunDocument;
}): Promise<void> {
	const { quotes } = r.services;
	const host = new URL(quotes.url).hostname;
	const settings = (env: Record<string, string>) =>
		Object.entries(env)
			.map(([key, value]) => `${key}=${value}`)
			.join(' ');

	await r.check(
		'SSRF protection on: Quote Tags on loopback fails at once, the stand-in gets nothing',
		async () => {
			quotes.reset();
			const run = await r.execute(WORKFLOW.id, PROTECTED);
			const tail = run.output.slice(-3000);
			ensure(run.code !== 0, `n8n execute exited ${run.code}, expected a failed run:\n${tail}`);
			const error = r.parse(run.stdout).data.resultData.error;
			const blocked = `n8n's SSRF protection blocked the request to ${host}`;
			ensure(
				error?.node?.name === WORKFLOW.node && error.message?.startsWith(blocked),
				`the run's error is not "${blocked}…" of ${WORKFLOW.node}: ${JSON.stringify(error?.message)}\n${tail}`,
			);
			for (const words of [
				'N8N_SSRF_ALLOWED_HOSTNAMES or N8N_SSRF_ALLOWED_IP_RANGES',
				'It was not retried.',
			])
				ensure(
					error.description?.includes(words),
					`the error's description lacks "${words}": ${JSON.stringify(error.description)}`,
				);
			ensure(
				quotes.requests.length === 0,
				`the quotes stand-in got ${quotes.requests.length} request(s): ${quotes.requests.map((q) => `${q.method} ${q.path}`)}`,
			);
			return [
				`${settings(PROTECTED)}: ${WORKFLOW.node} failed with "${error.message}"`,
				`description names N8N_SSRF_ALLOWED_IP_RANGES, says not retried (Max Attempts ${WORKFLOW.maxAttempts}); the stand-in got 0 requests; n8n execute took ${seconds(run.ms)}`,
			];
		},
	);

	await r.check('SSRF protection on, 127.0.0.0/8 allowed: the same workflow runs', async () => {
		quotes.reset();
		const run = await r.execute(WORKFLOW.id, ALLOWED);
		ensure(run.code === 0, `n8n execute exited ${run.code}:\n${run.output.slice(-3000)}`);
		const view = viewOfRun(r.parse(run.stdout));
		ensure(view.error === undefined, `the workflow failed: ${view.error}`);
		const items = view.items(WORKFLOW.node);
		ensure(items.length === WORKFLOW.limit, `${items.length} tags, expected ${WORKFLOW.limit}`);
		const asked = quotes.requests.map((q) => `${q.method} ${q.path}`);
		ensure(
			asked.length === 1 && asked[0] === 'GET /tags',
			`the quotes stand-in got ${asked.join(', ') || 'nothing'}, expected one GET /tags`,
		);
		return [
			`${settings(ALLOWED)}: ${items.length} tags (${items.map((i) => i.json.name).join(', ')}); the stand-in got one GET /tags`,
		];
	});

	await r.check(
		'SSRF protection on in n8n start: the credential Test says the same, nothing sent',
		async () => {
			const t0 = Date.now();
			const { rest, server } = await startN8n(
				{ ...r.instance, vars: { ...r.instance.vars, ...PROTECTED } },
				'E2e',
			);
			try {
				const started = seconds(Date.now() - t0);
				const { museum, trigger } = r.services;
				const all = [museum, quotes, trigger];
				all.forEach((service) => service.reset());
				const answer = await rest.call('POST', '/rest/credentials/test', {
					credentials: {
						...r.credential,
						type: CREDENTIAL_TYPE,
						data: credentialData(r.services, 'main'),
					},
				});
				ensure(answer.status === 200, `credentials/test answered ${answer.status}: ${answer.text}`);
				const verdict = (answer.json?.data ?? answer.json) as { status: string; message: string };
				const blocked = `n8n's SSRF protection blocked the request to ${host}`;
				const labels = ['Museum URL', 'Quotes URL', 'Trigger URL'];
				ensure(
					verdict.status === 'Error' &&
						labels.every((label) => verdict.message.includes(`${label}: ${blocked}`)) &&
						verdict.message.includes('N8N_SSRF_ALLOWED_IP_RANGES'),
					`the credential Test → ${JSON.stringify(verdict)}`,
				);
				const sent = all.map((service) => service.requests.length);
				ensure(
					sent.every((n) => n === 0),
					`requests at the museum, quotes, trigger stand-ins: ${sent}`,
				);
				return [
					`n8n start with ${settings(PROTECTED)} (listening after ${started})`,
					`Test → ${verdict.status}, for each of ${labels.join(', ')}: "${blocked}"; no stand-in got a request`,
				];
			} finally {
				await server.stop();
			}
		},
	);
}
