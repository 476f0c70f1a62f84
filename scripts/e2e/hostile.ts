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
		nodeType: 'triggerCall',
		parameters: { event: 'e2e_hostile' },
		credential: 'main',
	},
};

/** The hostile workflows as n8n imports them: Manual Trigger → one node of the package. */
export function hostileWorkflows(
	packageName: string,
	credentials: Record<'main' | 'quotesKeyed', { id: string; name: string }>,
): WorkflowJson[] {
	return Object.values(HOSTILE_WORKFLOWS).map((w) => {
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
