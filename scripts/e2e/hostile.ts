/** Hostile services in the real n8n: another origin, a trickle, a gzip bomb, and Stop. */
import { GIB, type KeyCatcher, type TestServer, startKeyCatcher } from '../../test/servers';
import { PACKAGE, type Services, type WorkflowJson, resetServices } from '../../test/scenarios';
import { type Check, ensure, sleep, waitFor } from './checks';
import type { Rest } from './instance';

type Credential = { id: string; name: string };
/** Credentials the hostile workflows use (besides the main one). */
export const HOSTILE_CREDENTIAL = { id: 'e2eTriptychKeyQ1', name: 'Triptych (e2e, key to quotes)' };
/** The workflow the Stop checks start through its production webhook and then stop through n8n's REST API. */
export const STOP_WORKFLOW = { id: 'e2eHostileStopWh', path: 'e2e-stop' };

const TIMEOUT = 3000;
/** The ids of the workflows `n8n execute` runs: Manual Trigger → one node of the package */
const HOSTILE = {
	museum: 'e2eHostileMuseum',
	museumTimeout: 'e2eHostileMusTim',
	quotes: 'e2eHostileQuotes',
	fire: 'e2eHostileFire00',
};

/** The hostile workflows as n8n imports them: a trigger → one node of the package. */
export function hostileWorkflows(credentials: { main: Credential; quotesKeyed: Credential }) {
	const manual = { name: 'When clicking Execute', type: 'n8n-nodes-base.manualTrigger' };
	const webhook = {
		name: 'Webhook',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		webhookId: '5f1c2b8e-0e2d-4d6f-9b1a-e2e000000001',
		parameters: { path: STOP_WORKFLOW.path, httpMethod: 'GET', responseMode: 'onReceived' },
	};
	const museumTimeout = { limit: 3, options: { timeout: TIMEOUT, maxAttempts: 1 } };
	const stop = { limit: 3, options: { timeout: 60000, maxAttempts: 3, maxRetryWait: 60 } };
	const { main, quotesKeyed } = credentials;
	return (
		[
			[HOSTILE.museum, manual, 'museumObjectSearch', { limit: 3 }, main],
			[HOSTILE.museumTimeout, manual, 'museumObjectSearch', museumTimeout, main],
			[HOSTILE.quotes, manual, 'quoteTags', { limit: 3 }, quotesKeyed],
			[HOSTILE.fire, manual, 'fireAutomation', { event: 'e2e_hostile' }, main],
			[STOP_WORKFLOW.id, webhook, 'museumObjectSearch', stop, main],
		] as const
	).map(([id, start, nodeType, parameters, credential]): WorkflowJson => {
		const name = `Hostile ${nodeType}`;
		return {
			id,
			name: `e2e hostile: ${id}`,
			active: false,
			nodes: [
				{ id: `${id}-start`, typeVersion: 1, position: [0, 0], parameters: {}, ...start },
				{
					id: `${id}-node`,
					name,
					type: `${PACKAGE}.${nodeType}`,
					typeVersion: 1,
					position: [220, 0],
					parameters,
					credentials: { triptychApi: credential },
				},
			],
			connections: { [start.name]: { main: [[{ node: name, type: 'main', index: 0 }]] } },
			settings: {},
		};
	});
}

export interface Runner {
	services: Services;
	check: Check;
}

/**
 * Stop, as the editor's Stop button does it (POST /rest/executions/:id/stop), while the node waits for an answer
 * that trickles and while it waits out a Retry-After: the request must end and no retry may follow.
 */
export async function stopChecks(r: Runner & { rest: Rest }): Promise<void> {
	const { museum } = r.services;
	const startAndStop = async () => {
		const hook = await fetch(`${r.rest.base}/webhook/${STOP_WORKFLOW.path}`, {
			signal: AbortSignal.timeout(30_000),
		});
		ensure(hook.ok, `the Stop workflow's webhook answered ${hook.status}: ${await hook.text()}`);
		const id = await waitFor(
			'a running execution of the Stop workflow',
			10_000,
			async () =>
				(await r.rest.executions(STOP_WORKFLOW.id)).find(
					(e) => e.status === 'running' || e.status === 'new',
				)?.id,
		);
		await waitFor('a request at the museum service', 10_000, async () =>
			museum.requests.length > 0 ? true : undefined,
		);
		await sleep(1500);
		const stopAt = Date.now();
		const stop = await r.rest.call('POST', `/rest/executions/${id}/stop`);
		ensure(stop.status === 200, `stop answered ${stop.status}: ${stop.text.slice(0, 300)}`);
		return { id, stopAt };
	};

	await r.check(
		'Stop: a request in flight (a trickling answer, Timeout 60 s) ends with the execution',
		async () => {
			resetServices(r.services);
			museum.fail({ kind: 'trickle', intervalMs: 500 });
			const { id, stopAt } = await startAndStop();
			const goneAt = await waitFor(
				'n8n to hang up on the trickling answer',
				5000,
				async () => museum.requests[0].clientGoneAt,
			);
			const after = goneAt - stopAt;
			ensure(after <= 4000, `n8n hung up ${after} ms after Stop`);
			return [`execution ${id}: the service saw n8n hang up ${Math.max(0, after)} ms after Stop`];
		},
	);

	await r.check(
		'Stop: a retry wait (503, Retry-After 5 s) ends with the execution, no retry follows',
		async () => {
			resetServices(r.services);
			museum.fail({ kind: 'status', status: 503, retryAfter: '5' });
			const { id } = await startAndStop();
			await sleep(5000);
			ensure(museum.requests.length === 1, `${museum.requests.length} requests: a retry followed`);
			return [`execution ${id}: stopped 1.5 s into a 5 s Retry-After; no retry in the next 5 s`];
		},
	);
}

/** Runs the hostile checks of one n8n version. */
export async function hostilePhase(
	r: Runner & {
		/** `n8n execute` of a hostile workflow: n8n's whole output, its time and the process's peak RSS (MiB) */
		execute(id: string): Promise<{ output: string; ms: number; peakRssMb?: number }>;
	},
): Promise<void> {
	const { museum, quotes, trigger } = r.services;
	let catcher: KeyCatcher | undefined;
	try {
		const other = (catcher = await startKeyCatcher({ apiKey: r.services.apiKey }));
		await r.check(
			'hostile: a redirect to another origin is not followed, the key never reaches it',
			async () => {
				const cases: Array<[string, TestServer, string, 302 | 307, string]> = [
					['Museum Object Search (302)', museum, HOSTILE.museum, 302, '/object'],
					['Quote Tags with the key (302)', quotes, HOSTILE.quotes, 302, '/tags'],
					['Fire Automation (307)', trigger, HOSTILE.fire, 307, '/trigger/e2e_hostile'],
				];
				for (const [label, server, id, status, path] of cases) {
					resetServices(r.services);
					other.reset();
					server.fail({ kind: 'redirect', status, location: `${other.url}${path}` });
					const run = await r.execute(id);
					ensure(
						run.output.includes(
							`redirected the request to another origin (${other.url}); it was not followed`,
						),
						`${label}: n8n's output lacks the redirect error:\n${run.output.slice(-2500)}`,
					);
					ensure(
						other.requests.length === 0 && other.sawKey === 0,
						`${label}: the other origin got ${other.requests.length} requests, saw the key ${other.sawKey} times`,
					);
					ensure(
						server.requests.length === 1,
						`${label}: ${server.requests.length} requests, not 1`,
					);
				}
				ensure(trigger.deliveries.length === 0, 'the redirected trigger call was delivered');
				return [
					`${cases.length} nodes stopped with the redirect error; the other origin got nothing`,
				];
			},
		);

		await r.check(
			`hostile: an answer that trickles ends at Timeout (${TIMEOUT / 1000} s)`,
			async () => {
				resetServices(r.services);
				museum.fail({ kind: 'trickle', intervalMs: 500 });
				const run = await r.execute(HOSTILE.museumTimeout);
				ensure(
					run.output.includes(`did not answer in full within the Timeout (${TIMEOUT / 1000} s)`),
					`n8n's output lacks the timeout error:\n${run.output.slice(-2500)}`,
				);
				const request = museum.requests[0];
				ensure(request?.clientGoneAt, 'the service never saw n8n hang up');
				const held = request.clientGoneAt - request.at;
				ensure(held <= TIMEOUT + 3000, `n8n held the answer ${held} ms (Timeout ${TIMEOUT} ms)`);
				return [`n8n hung up ${held} ms after the request; n8n execute took ${run.ms} ms`];
			},
		);

		await r.check(
			'hostile: a gzip bomb (1 MB → 1 GiB) stops at Max Response Size, n8n memory bounded',
			async () => {
				resetServices(r.services);
				const normal = await r.execute(HOSTILE.museum);
				const error = normal.output.split('\n').find((l) => l.includes('"error"')) ?? '';
				ensure(!/error/i.test(error), 'the normal search failed');
				resetServices(r.services);
				museum.fail({ kind: 'gzipBomb', inflatedBytes: GIB });
				const bomb = await r.execute(HOSTILE.museum);
				ensure(
					bomb.output.includes('larger than the Max Response Size (16 MB)'),
					`n8n's output lacks the size error:\n${bomb.output.slice(-2500)}`,
				);
				ensure(museum.requests.length === 1, `${museum.requests.length} requests, not 1`);
				const grew = (bomb.peakRssMb ?? 0) - (normal.peakRssMb ?? 0);
				ensure(
					bomb.peakRssMb === undefined || grew < 256,
					`n8n's peak RSS grew by ${grew.toFixed(0)} MiB on the bomb`,
				);
				return [`n8n's peak RSS grew by ${grew.toFixed(0)} MiB on the bomb; 1 request`];
			},
		);
	} finally {
		await catcher?.close();
	}
}
