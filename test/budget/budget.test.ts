/**
 * One budget per service in the n8n process, through n8n's engine against loopback services with real limiters,
 * counted at the server: shared by concurrent executions, remembered by the next run and forgotten when long unused,
 * each run with its own Stop and fair turns, paced by every quota-header shape (malformed ones ignored), and every
 * limiter shape without headers.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';

import type { IDataObject } from 'n8n-workflow';

import { chain, logs, manualTrigger, node, runWorkflow } from '../harness/engine';
import { type QuotesServer, startQuotesServer } from '../servers';
import type { RateLimit } from '../servers/ratelimit';

const TRIGGER = 'When clicking Execute';
const NODE = 'Tags';
const servers: QuotesServer[] = [];

/** A fresh service (a new origin: a new budget). */
async function service(rateLimit?: RateLimit, delayMs = 0): Promise<QuotesServer> {
	const server = await startQuotesServer();
	server.setMode({ rateLimit, delayMs });
	servers.push(server);
	return server;
}
afterAll(async () => await Promise.all(servers.map(async (s) => await s.close())));
afterEach(() => jest.restoreAllMocks());

/** Quote Tags, one request per item (`limit` tells the runs apart at the server). */
async function run(
	server: QuotesServer,
	items: number,
	limit = 1,
	onStart?: (stop: () => void) => void,
	options: IDataObject = {},
) {
	const params = { q: 'a', limit, options };
	const wf = chain(manualTrigger(TRIGGER), node('quoteTags', NODE, params));
	const result = await runWorkflow(wf, {
		credentials: { triptychApi: { apiKey: 'k', quotesUrl: server.url, sendKeyToQuotes: false } },
		pinData: { [TRIGGER]: Array.from({ length: items }, (_, n) => ({ n })) },
		onStart,
	});
	const failed = result.workflowError ? items : 0;
	return { result, failed, items: failed ? 0 : result.output(NODE).length };
}

const accepted = (server: QuotesServer) => server.requests.filter((r) => !r.rateLimited);

test('two concurrent executions share one allowance: before the first answer (400 ms away) it ramps up, turn by turn', async () => {
	// the ramp goes while n8n waits idle: Node.js's measure of it mocked to wall time, since work other test files
	// left running in this process would make it look busy
	jest
		.spyOn(performance as unknown as { eventLoopUtilization(): object }, 'eventLoopUtilization')
		.mockReturnValue({ idle: 1e9, active: 0, utilization: 0 });
	const server = await service(undefined, 400);
	const [a, b] = await Promise.all([run(server, 24, 1), run(server, 24, 2)]);
	expect([a.failed, b.failed]).toEqual([0, 0]);
	// a distant service is not asked one at a time: more go while the first answer is on its way, the two runs in
	// turns (one allowance for both)
	const early = server.requests.filter((r) => r.at < server.requests[0].at + 400);
	expect(early.length).toBeGreaterThan(2);
	expect(new Set(early.slice(0, 4).map((r) => r.query.limit))).toEqual(new Set(['1', '2']));
	expect(server.requests).toHaveLength(48);
});

test('a warm run starts where the last left off: what a cap of 8 in flight taught the first run, the second knows', async () => {
	const server = await service({ inFlight: 8 }, 50);
	expect((await run(server, 80)).failed).toBe(0);
	const refused = server.rateLimited;
	expect(refused).toBeGreaterThan(0);
	// one wave overshoots (after the first request, sent alone, as many as the service's distance allows); its lowest
	// refused level sets the allowance, which the next run starts from
	expect((await run(server, 40)).failed).toBe(0);
	expect(server.rateLimited).toBe(refused);
});

test('a budget unused for a quarter of an hour is forgotten: the next run learns the service anew', async () => {
	const server = await service({ inFlight: 8 }, 50);
	expect((await run(server, 80)).failed).toBe(0);
	const refused = server.rateLimited;
	expect(refused).toBeGreaterThan(0);
	const now = Date.now.bind(Date);
	const later = jest.spyOn(Date, 'now').mockImplementation(() => now() + 16 * 60_000);
	try {
		expect((await run(server, 80)).failed).toBe(0);
	} finally {
		later.mockRestore();
	}
	// it started from a few in flight again, and the cap refused it as it refused the first run
	expect(server.rateLimited).toBeGreaterThan(refused);
});

test('Stop of one execution: its waiting requests leave, the other execution goes on to the end', async () => {
	const server = await service({ fixed: 5, windowMs: 1000, headers: 'draft6' });
	let stop = () => {};
	const long = run(server, 60, 2, (s) => (stop = s));
	const short = run(server, 6, 1);
	while (!server.requests.some((r) => r.query.limit === '2'))
		await new Promise((resolve) => setTimeout(resolve, 20));
	const stopped = Date.now();
	stop();
	await long;
	expect(Date.now() - stopped).toBeLessThan(5000);
	const done = await short;
	expect(done).toMatchObject({ failed: 0, items: 6 });
	expect(accepted(server).filter((r) => r.query.limit === '2').length).toBeLessThan(30);
});

test('a distant service whose latency varies (one answer in four quick, the rest slow) is not held at 4 in flight', async () => {
	const server = await service(undefined, 15);
	server.fail(
		...Array.from({ length: 200 }, (_, i) => ({ kind: 'slow' as const, ms: i % 4 ? 150 : 0 })),
	);
	expect((await run(server, 200)).failed).toBe(0);
	expect(server.maxInFlight).toBeGreaterThan(16);
});

test("Concurrency's default: up to 512 in flight", async () => {
	// answers that take a second: a larger step of the allowance pays however busy the machine is
	const server = await service(undefined, 1000);
	expect((await run(server, 600)).failed).toBe(0);
	expect(server.maxInFlight).toBeGreaterThan(128);
	expect(server.maxInFlight).toBeLessThanOrEqual(512);
});

test('a Concurrency set in Options holds', async () => {
	const server = await service(undefined, 100);
	const { failed } = await run(server, 20, 1, undefined, { concurrency: 3 });
	expect(failed).toBe(0);
	expect(server.maxInFlight).toBe(3);
});

test('two budgets on one service (two queue-mode workers, or two credentials): both go on together, few refused', async () => {
	const limit = { perSecond: 20, burst: 10 };
	const server = await service(limit);
	const wf = (credential: string) =>
		chain(
			manualTrigger(TRIGGER),
			node(
				'quoteTags',
				NODE,
				{ q: 'a', limit: Number(credential), options: {} },
				{
					credentials: { triptychApi: { id: credential, name: credential } },
				},
			),
		);
	const started = Date.now();
	const results = await Promise.all(
		['1', '2'].map(async (credential) => {
			const result = await runWorkflow(wf(credential), {
				credentials: {
					triptychApi: { apiKey: 'k', quotesUrl: server.url, sendKeyToQuotes: false },
				},
				pinData: { [TRIGGER]: Array.from({ length: 100 }, (_, n) => ({ n })) },
			});
			return result.workflowError ? 0 : result.output(NODE).length;
		}),
	);
	// every item answered (the second asks for two tags each)
	expect(results).toEqual([100, 200]);
	// both went on together: each had a third of its requests accepted before the other's last
	const times = ['1', '2'].map((run) =>
		accepted(server)
			.filter((r) => r.query.limit === run)
			.map((r) => r.at),
	);
	for (const [mine, other] of [times, [...times].reverse()])
		expect(mine.filter((at) => at < Math.max(...other)).length).toBeGreaterThan(100 / 3);
	// 200 at 20/s after a burst of 10: 9.5 s at best; two learners take about 1.5 times that, far from the lowest pace
	// (2/s each: 50 s). Each probes past its share of the service, so each is refused more than one learner alone,
	// the more so the busier the machine; every refusal is retried, none is lost
	expect(Date.now() - started).toBeLessThan(3 * 9500);
	expect(server.rateLimited).toBeLessThanOrEqual(0.25 * 200);
});

test('fair turns: a run of 5 items is not stuck behind a run of 100', async () => {
	const server = await service({ fixed: 20, windowMs: 500, headers: 'draft6' });
	const [big, small] = await Promise.all([run(server, 100, 2), run(server, 5, 1)]);
	expect([big.failed, small.failed]).toEqual([0, 0]);
	const order = accepted(server).map((r) => r.query.limit);
	expect(order.lastIndexOf('1')).toBeLessThan(50);
});

test.each<[string, RateLimit]>([
	['draft-6 RateLimit-*, fixed window', { fixed: 10, windowMs: 1000, headers: 'draft6' }],
	['X-RateLimit-* (epoch reset), token bucket', { perSecond: 20, burst: 5, headers: 'xRateLimit' }],
	[
		'draft-11 RateLimit + RateLimit-Policy, sliding window',
		{ sliding: 10, windowMs: 1000, headers: 'draft11' },
	],
	[
		'Quotable: draft-6, Retry-After the whole window',
		{ fixed: 10, windowMs: 2000, headers: 'draft6', retryAfterWindow: true },
	],
])('%s: paced by the headers, at most one refusal', async (_, limit) => {
	const server = await service(limit);
	logs.length = 0;
	const { failed, result } = await run(server, 30, 1, undefined, { maxRetryWait: 1 });
	expect(failed).toBe(0);
	expect(server.rateLimited).toBeLessThanOrEqual(1);
	expect(accepted(server)).toHaveLength(30);
	// the waits the headers announced are said once, in the output pane, with their total
	const hints = result.run.data.resultData.runData[NODE][0].hints ?? [];
	expect(hints).toEqual([
		{
			message: expect.stringMatching(
				/^The service's rate-limit headers announced quota resets: this run waited \d+ s for them in all \(not retries\)\.$/,
			),
			location: 'outputPane',
		},
	]);
});

test.each<[string, Record<string, string>]>([
	[
		'more left than the limit',
		{ 'ratelimit-limit': '10', 'ratelimit-remaining': '20', 'ratelimit-reset': '3600' },
	],
	['a negative count', { 'x-ratelimit-remaining': '-1', 'x-ratelimit-reset': '3600' }],
	['a reset that is not a number', { 'ratelimit-remaining': '0', 'ratelimit-reset': 'soon' }],
	[
		'a structured field out of shape',
		{ ratelimit: '"default";r=0;t=1h', 'ratelimit-policy': '"default";q=x' },
	],
])('malformed or contradictory headers (%s) are ignored', async (_, headers) => {
	const server = await service({ perSecond: 1000, burst: 1000, headers });
	const { failed, items } = await run(server, 20);
	expect({ failed, items }).toEqual({ failed: 0, items: 20 });
});

test.each<[string, RateLimit]>([
	['token bucket', { perSecond: 40, burst: 5 }],
	['fixed window', { fixed: 10, windowMs: 500 }],
	['sliding window', { sliding: 10, windowMs: 500 }],
	['a cap of 4 in flight (503 beyond)', { inFlight: 4 }],
	[
		'a limit that drops mid-run',
		{ perSecond: 80, burst: 10, then: { ms: 400, limit: { perSecond: 20, burst: 5 } } },
	],
])(
	'without headers, %s: every item; after the first wave of refusals, few more',
	async (_, limit) => {
		const server = await service(limit, 20);
		const lag = monitorEventLoopDelay({ resolution: 10 });
		lag.enable();
		const { failed } = await run(server, 60, 1, undefined, { maxRetryWait: 10 });
		lag.disable();
		expect(failed).toBe(0);
		expect(accepted(server)).toHaveLength(60);
		// the first wave goes before any answer tells of the limit: as many as the first rounds let go, more the
		// later the first answers come on a busy machine; the pause it asks for ends it, and the pace keeps the rest
		const first = server.requests.find((r) => r.rateLimited)?.at ?? Infinity;
		const later = server.requests.filter((r) => r.rateLimited && r.at > first + 1000);
		// a process starved of the CPU (its timers a tenth of a second late) cannot keep any pace: what waited
		// through a stall goes at once, so there only every item, each once, is asserted
		if (lag.max < 100e6) expect(later.length).toBeLessThanOrEqual(5);
	},
);
