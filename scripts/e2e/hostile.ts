/**
 * The end-to-end check's hostile services, run in the real n8n of each version with `n8n execute`: a redirect to
 * another origin (all three nodes: the key must never reach it), an answer that trickles past Timeout, and a gzip
 * bomb (1 MB that inflates to 1 GiB) whose size limit must keep n8n's own memory bounded (peak RSS measured).
 */
import { GIB, type KeyCatcher, startKeyCatcher } from '../../test/servers';
import type { Services, WorkflowJson } from '../../test/scenarios';

/** Credentials the hostile workflows use (besides the main one). */
export const HOSTILE_CREDENTIAL = { id: 'e2eTriptychKeyQ1', name: 'Triptych (e2e, key to quotes)' };

interface HostileWorkflow {
	id: string;
	nodeType: string;
	parameters: Record<string, unknown>;
	credential: 'main' | 'quotesKeyed';
}

const TIMEOUT = 3000;

export const HOSTILE_WORKFLOWS: Record<string, HostileWorkflow> = {
	museum: {
		id: 'e2eHostileMuseum',
		nodeType: 'museumObjectSearch',
		parameters: { limit: 3 },
		credential: 'main',
	},
	museumTimeout: {
		id: 'e2eHostileMusTim',
		nodeType: 'museumObjectSearch',
		parameters: { limit: 3, options: { timeout: TIMEOUT, maxAttempts: 1 } },
		credential: 'main',
	},
	quotes: {
		id: 'e2eHostileQuotes',
		nodeType: 'quoteTags',
		parameters: { limit: 3 },
		credential: 'quotesKeyed',
	},
	fire: {
		id: 'e2eHostileFire00',
		nodeType: 'fireAutomation',
		parameters: { event: 'e2e_hostile' },
		credential: 'main',
	},
};

/** The workflow the Stop checks start through its production webhook and then stop through n8n's REST API. */
export const STOP_WORKFLOW = { id: 'e2eHostileStopWh', path: 'e2e-stop' };

function stopWorkflow(packageName: string, credential: { id: string; name: string }): WorkflowJson {
	const hook = 'Webhook';
	const search = 'Slow Museum Search';
	return {
		id: STOP_WORKFLOW.id,
		name: 'e2e hostile: Stop',
		active: false,
		nodes: [
			{
				id: 'e2e-stop-hook',
				name: hook,
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
				webhookId: '5f1c2b8e-0e2d-4d6f-9b1a-e2e000000001',
				parameters: { path: STOP_WORKFLOW.path, httpMethod: 'GET', responseMode: 'onReceived' },
			},
			{
				id: 'e2e-stop-search',
				name: search,
				type: `${packageName}.museumObjectSearch`,
				typeVersion: 1,
				position: [220, 0],
				parameters: { limit: 3, options: { timeout: 60000, maxAttempts: 3, maxRetryWait: 60 } },
				credentials: { triptychApi: credential },
			},
		],
		connections: { [hook]: { main: [[{ node: search, type: 'main', index: 0 }]] } },
		settings: {},
	} as unknown as WorkflowJson;
}

/** The hostile workflows as n8n imports them: Manual Trigger → one node of the package, and the Stop workflow. */
export function hostileWorkflows(
	packageName: string,
	credentials: Record<'main' | 'quotesKeyed', { id: string; name: string }>,
): WorkflowJson[] {
	const single = Object.values(HOSTILE_WORKFLOWS).map((w) => {
		const start = 'When clicking Execute';
		const name = `Hostile ${w.nodeType}`;
		return {
			id: w.id,
			name: `e2e hostile: ${w.id}`,
			active: false,
			nodes: [
				{
					id: `${w.id}-start`,
					name: start,
					type: 'n8n-nodes-base.manualTrigger',
					typeVersion: 1,
					position: [0, 0],
					parameters: {},
				},
				{
					id: `${w.id}-node`,
					name,
					type: `${packageName}.${w.nodeType}`,
					typeVersion: 1,
					position: [220, 0],
					parameters: w.parameters,
					credentials: { triptychApi: credentials[w.credential] },
				},
			],
			connections: { [start]: { main: [[{ node: name, type: 'main', index: 0 }]] } },
			settings: {},
		} as unknown as WorkflowJson;
	});
	return [...single, stopWorkflow(packageName, credentials.main)];
}

export interface StopRunner {
	services: Services;
	/** http://127.0.0.1:<port> of the running n8n */
	base: string;
	check(name: string, body: () => Promise<string[]>): Promise<boolean>;
	rest(
		method: string,
		route: string,
		body?: unknown,
	): Promise<{ status: number; json: any; text: string }>;
	reset(): void;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Stop, as the editor's Stop button does it (POST /rest/executions/:id/stop), while the node waits for an answer
 * that trickles and while it waits out a Retry-After: the request must end and no retry may follow.
 */
export async function stopChecks(r: StopRunner): Promise<void> {
	const { museum } = r.services;
	const startAndStop = async () => {
		const hook = await fetch(`${r.base}/webhook/${STOP_WORKFLOW.path}`, {
			signal: AbortSignal.timeout(30_000),
		});
		expect(
			hook.ok,
			`the Stop workflow's webhook answered ${hook.status}: ${(await hook.text()).slice(0, 300)}`,
		);
		let id: string | undefined;
		for (let i = 0; i < 100 && !id; i++) {
			const filter = encodeURIComponent(JSON.stringify({ workflowId: STOP_WORKFLOW.id }));
			const list = await r.rest('GET', `/rest/executions?filter=${filter}`);
			const results = (list.json?.data?.results ?? list.json?.data ?? []) as Array<{
				id: string;
				status?: string;
			}>;
			id = results.find((e) => e.status === 'running' || e.status === 'new')?.id;
			if (!id) await pause(100);
		}
		expect(id, 'no running execution of the Stop workflow appeared');
		for (let i = 0; i < 100 && museum.requests.length === 0; i++) await pause(100);
		expect(museum.requests.length > 0, 'the museum service got no request');
		await pause(1500);
		const stopAt = Date.now();
		const stop = await r.rest('POST', `/rest/executions/${id}/stop`);
		expect(stop.status === 200, `stop answered ${stop.status}: ${stop.text.slice(0, 300)}`);
		return { id, stopAt, stopMs: Date.now() - stopAt };
	};

	await r.check(
		'Stop: a request in flight (a trickling answer, Timeout 60 s) ends with the execution',
		async () => {
			r.reset();
			museum.fail({ kind: 'trickle', intervalMs: 500 });
			const { id, stopAt } = await startAndStop();
			const request = museum.requests[0] as { clientGoneAt?: number };
			for (let i = 0; i < 50 && !request.clientGoneAt; i++) await pause(100);
			expect(request.clientGoneAt, 'n8n kept reading the trickling answer 5 s after Stop');
			const after = request.clientGoneAt - stopAt;
			expect(after <= 2000, `n8n hung up ${after} ms after Stop`);
			return [
				`execution ${id}: the service saw n8n hang up ${Math.max(0, after)} ms after the Stop request`,
			];
		},
	);

	await r.check(
		'Stop: a retry wait (503, Retry-After 5 s) ends with the execution, no retry follows',
		async () => {
			r.reset();
			museum.fail({ kind: 'status', status: 503, retryAfter: '5' });
			const { id } = await startAndStop();
			await pause(5000);
			expect(
				museum.requests.length === 1,
				`${museum.requests.length} requests: a retry was sent after Stop`,
			);
			return [
				`execution ${id}: stopped 1.5 s into a 5 s Retry-After; no retry reached the service in the next 5 s`,
			];
		},
	);
}

export interface HostileRunner {
	services: Services;
	check(name: string, body: () => Promise<string[]>): Promise<boolean>;
	/** `n8n execute` of a hostile workflow: n8n's whole output, its time and the process's peak RSS (MiB) */
	execute(id: string): Promise<{ output: string; ms: number; peakRssMb?: number }>;
	reset(): void;
}

function expect(condition: unknown, message: string): asserts condition {
	if (!condition) throw new Error(message);
}

/** Runs the hostile checks of one n8n version. */
export async function hostilePhase(r: HostileRunner): Promise<void> {
	const { museum, quotes, trigger } = r.services;
	let catcher: KeyCatcher | undefined;
	try {
		catcher = await startKeyCatcher({ apiKey: r.services.apiKey });
		const other = catcher;
		await r.check(
			'hostile: a redirect to another origin is not followed, the key never reaches it',
			async () => {
				const facts: string[] = [];
				const cases = [
					{
						label: 'Museum Object Search (302)',
						server: museum,
						workflow: HOSTILE_WORKFLOWS.museum,
						status: 302 as const,
						path: '/object',
					},
					{
						label: 'Quote Tags with the key (302)',
						server: quotes,
						workflow: HOSTILE_WORKFLOWS.quotes,
						status: 302 as const,
						path: '/tags',
					},
					{
						label: 'Fire Automation (307)',
						server: trigger,
						workflow: HOSTILE_WORKFLOWS.fire,
						status: 307 as const,
						path: '/trigger/e2e_hostile',
					},
				];
				for (const c of cases) {
					r.reset();
					other.reset();
					c.server.fail({ kind: 'redirect', status: c.status, location: `${other.url}${c.path}` });
					const run = await r.execute(c.workflow.id);
					expect(
						run.output.includes(
							`redirected the request to another origin (${other.url}); it was not followed`,
						),
						`${c.label}: n8n's output lacks the redirect error:\n${run.output.slice(-2500)}`,
					);
					expect(
						other.sawKey === 0,
						`${c.label}: the other origin saw the key ${other.sawKey} time(s)`,
					);
					expect(
						other.requests.length === 0,
						`${c.label}: the other origin got ${other.requests.length} request(s)`,
					);
					expect(
						c.server.requests.length === 1,
						`${c.label}: ${c.server.requests.length} requests at the service (expected 1, not retried)`,
					);
					facts.push(
						`${c.label}: stopped with the redirect error; other origin: 0 requests, key seen 0 times`,
					);
				}
				expect(trigger.deliveries.length === 0, 'the redirected trigger call was delivered');
				return facts;
			},
		);

		await r.check(
			`hostile: an answer that trickles ends at Timeout (${TIMEOUT / 1000} s)`,
			async () => {
				r.reset();
				museum.fail({ kind: 'trickle', intervalMs: 500 });
				const run = await r.execute(HOSTILE_WORKFLOWS.museumTimeout.id);
				expect(
					run.output.includes(`did not answer in full within the Timeout (${TIMEOUT / 1000} s)`),
					`n8n's output lacks the timeout error:\n${run.output.slice(-2500)}`,
				);
				const request = museum.requests[0] as { at: number; clientGoneAt?: number } | undefined;
				expect(request, 'the museum service got no request');
				expect(request.clientGoneAt, 'the service never saw n8n hang up');
				const held = request.clientGoneAt - request.at;
				expect(
					held <= TIMEOUT + 1000,
					`n8n held the trickling answer ${held} ms (Timeout ${TIMEOUT} ms)`,
				);
				return [
					`n8n hung up ${held} ms after the request (Timeout ${TIMEOUT} ms); n8n execute took ${run.ms} ms`,
				];
			},
		);

		await r.check(
			'hostile: a gzip bomb (1 MB → 1 GiB) stops at Max Response Size, n8n memory bounded',
			async () => {
				r.reset();
				const normal = await r.execute(HOSTILE_WORKFLOWS.museum.id);
				expect(
					!/error/i.test(normal.output.split('\n').find((l) => l.includes('"error"')) ?? ''),
					'the normal search failed',
				);
				r.reset();
				museum.fail({ kind: 'gzipBomb', inflatedBytes: GIB });
				const bomb = await r.execute(HOSTILE_WORKFLOWS.museum.id);
				expect(
					bomb.output.includes('larger than the Max Response Size (16 MB)'),
					`n8n's output lacks the size error:\n${bomb.output.slice(-2500)}`,
				);
				expect(
					museum.requests.length === 1,
					`${museum.requests.length} requests (expected 1: not retried)`,
				);
				const mb = (v?: number) => (v === undefined ? '?' : `${v.toFixed(0)} MiB`);
				const grew = (bomb.peakRssMb ?? 0) - (normal.peakRssMb ?? 0);
				expect(
					bomb.peakRssMb === undefined || grew < 256,
					`n8n's peak RSS grew by ${grew.toFixed(0)} MiB on the bomb`,
				);
				return [
					`n8n's peak RSS: ${mb(normal.peakRssMb)} on a normal search, ${mb(bomb.peakRssMb)} on the bomb (Δ ${grew.toFixed(0)} MiB); 1 request, took ${bomb.ms} ms`,
				];
			},
		);
	} finally {
		await catcher?.close();
	}
}
