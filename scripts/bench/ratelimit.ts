/**
 * A rate-limited trigger service: token bucket of 20 requests per second, burst 10 (the servers' `rateLimit` mode:
 * a request without a token gets 429 with Retry-After in whole seconds and is not processed). 200 items, without
 * extra latency and with every answer 50 ms late. Ideal time: items ÷ rate = 10 s. Also reported, not a target: a fast
 * limit with a small burst (100/s, burst 20, 20 ms away, 1,000 items), where pacing is hardest.
 *
 * - Fire Automation with Options → Idempotency Key Mode = Automatic, otherwise defaults (On Error: stop). Targets:
 *   no failed item, every item delivered exactly once (the server fires once per Idempotency-Key and answers a
 *   repeated key from its memory), time ≤ 1.3× ideal, 429 answers ≤ 25% of the successful requests.
 * - n8n's HTTP Request node v4.5, as a user would set it: defaults with On Error → Continue (regular output), so
 *   that it finishes and its error items can be counted; Batching 10 items per 500 ms (= 20/s, the bucket's rate,
 *   its burst per batch) with On Error → Continue; and Retry On Fail (5 tries, 5 s apart, the most n8n allows) with
 *   On Error: stop — n8n then re-runs the whole node, every item again, without idempotency keys.
 *
 *   npx tsx scripts/bench/ratelimit.ts
 */
import { startTriggerServer } from '../../test/servers';
import { type EngineVariant, itemsCase } from './compare';
import { HTTP_REQUEST_VERSION, triggerBenchServer, triggerCalls, triggerItems } from './trigger';
import { type BenchRow, type Verdict, table } from './util';

const ITEMS = 200;
const RATE = { perSecond: 20, burst: 10 };
const IDEAL_MS = (ITEMS / RATE.perSecond) * 1000;
/** Not a target of the issue: a fast limit with a small burst, where pacing is hardest (reported, not checked) */
const FAST = { rate: { perSecond: 100, burst: 20 }, items: 1000, latency: 20 };
const caseName = (latency: number, rate = RATE, items = ITEMS) =>
	`Rate-limited trigger (${rate.perSecond}/s, burst ${rate.burst}), ${items} items, ${latency ? `${latency} ms latency` : 'no extra latency'}`;
const NODE = 'Fire Automation node (Idempotency Key Mode Automatic)';
const H = `HTTP Request node v${HTTP_REQUEST_VERSION}`;
const batching = { batching: { batch: { batchSize: 10, batchInterval: 500 } } };
const retry = { retryOnFail: true, maxTries: 5, waitBetweenTries: 5000 };

function httpVariants(latency: number): EngineVariant[] {
	const list: EngineVariant[] = [
		{
			name: `${H} (defaults, On Error → Continue)`,
			settings: { onError: 'continueRegularOutput' },
		},
		{
			name: `${H} (Batching 10 per 500 ms, On Error → Continue)`,
			options: batching,
			settings: { onError: 'continueRegularOutput' },
		},
		{
			name: `${H} (Batching 10 per 500 ms, Retry On Fail 5 × 5 s)`,
			options: batching,
			settings: retry,
			mayStop: true,
		},
	];
	// defaults with Retry On Fail: shown once (it takes ~20 s)
	if (!latency)
		list.push({ name: `${H} (defaults, Retry On Fail 5 × 5 s)`, settings: retry, mayStop: true });
	return list;
}

async function rateLimited(
	latency: number,
	rate = RATE,
	items = ITEMS,
	http: EngineVariant[] = httpVariants(latency),
): Promise<BenchRow[]> {
	const server = await startTriggerServer();
	const idealMs = (items / rate.perSecond) * 1000;
	try {
		const calls = triggerCalls(server);
		const rows = await itemsCase({
			case: caseName(latency, rate, items),
			items: triggerItems(items),
			expectServer: null,
			sameRecords: false,
			server: {
				...triggerBenchServer(server, {
					rateLimit: rate,
					...(latency ? { delayMs: latency } : {}),
				}),
				stats: () => {
					const items = new Set(server.deliveries.map((d) => (d.body as { n?: number } | null)?.n));
					return {
						rateLimited: server.rateLimited,
						successful: server.requests.length - server.rateLimited,
						deliveries: server.deliveries.length,
						distinctItems: items.size,
						keys: new Set(server.deliveries.map((d) => d.idempotencyKey).filter(Boolean)).size,
					};
				},
			},
			node: {
				...calls.node,
				variants: [{ name: NODE, options: { idempotency: 'auto' }, mayStop: true }],
			},
			http: { typeVersion: HTTP_REQUEST_VERSION, params: calls.http, variants: http },
		});
		return rows.map((row) =>
			row.failed || !row.extra ? row : { ...row, notes: `${figures(row, idealMs)}; ${row.notes}` },
		);
	} finally {
		await server.close();
	}
}

function figures(row: BenchRow, idealMs = IDEAL_MS): string {
	const x = row.extra!;
	const share = x.successful ? ((100 * x.rateLimited) / x.successful).toFixed(1) : '∞';
	return [
		`${x.failed} failed items${x.stopped ? ' (the node stopped)' : ''}`,
		`${x.deliveries} deliveries of ${x.distinctItems} distinct items`,
		`${x.rateLimited} × 429 vs ${x.successful} successful requests (${share}%)`,
		`${(row.wallMs / idealMs).toFixed(2)}× ideal ${idealMs / 1000} s`,
	].join('; ');
}

export async function run(): Promise<BenchRow[]> {
	return [
		...(await rateLimited(0)),
		...(await rateLimited(50)),
		// the HTTP Request node with On Error → Continue only, for what it does here
		...(await rateLimited(
			FAST.latency,
			FAST.rate,
			FAST.items,
			httpVariants(FAST.latency).slice(0, 1),
		)),
	];
}

/** The fast-limit case's node row, as a line among the verdicts (reported, not a target). */
function fastLimitNote(rows: BenchRow[]): Verdict[] {
	const row = rows.find(
		(r) => r.case === caseName(FAST.latency, FAST.rate, FAST.items) && r.variant === NODE,
	);
	if (!row) return [];
	const figure =
		row.failed || !row.extra
			? `no figure (${row.failed})`
			: figures(row, (FAST.items / FAST.rate.perSecond) * 1000);
	return [{ ok: true, text: `· ${row.case}: ${NODE}: ${figure} (reported, not a target)` }];
}

/** The targets of the Fire Automation rows. */
export function checks(rows: BenchRow[]): Verdict[] {
	const verdicts = [0, 50].flatMap((latency): Verdict[] => {
		const name = `${caseName(latency)}: ${NODE}`;
		const row = rows.find((r) => r.case === caseName(latency) && r.variant === NODE);
		if (!row || row.failed || !row.extra)
			return [{ ok: false, text: `✗ ${name}: no figure (${row?.failed ?? 'missing row'})` }];
		const x = row.extra;
		const list: Array<[boolean, string]> = [
			[x.failed === 0, `${x.failed} failed items (target 0)`],
			[
				x.deliveries === ITEMS && x.distinctItems === ITEMS,
				`${x.deliveries} deliveries of ${x.distinctItems} distinct items (target exactly ${ITEMS}, each once)`,
			],
			[
				row.wallMs <= 1.3 * IDEAL_MS,
				`${(row.wallMs / 1000).toFixed(1)} s = ${(row.wallMs / IDEAL_MS).toFixed(2)}× ideal (target ≤ 1.3×)`,
			],
			[
				x.rateLimited <= 0.25 * x.successful,
				`${x.rateLimited} × 429 = ${x.successful ? ((100 * x.rateLimited) / x.successful).toFixed(1) : '∞'}% of ${x.successful} successful requests (target ≤ 25%)`,
			],
		];
		return list.map(([ok, text]) => ({ ok, text: `${ok ? '✓' : '✗'} ${name}: ${text}` }));
	});
	return [...verdicts, ...fastLimitNote(rows)];
}

if (require.main === module) {
	void run().then((rows) => {
		console.log(table(rows));
		const v = checks(rows);
		console.log(`\n${v.map((l) => l.text).join('\n')}`);
		process.exit(v.every((l) => l.ok) ? 0 : 1);
	});
}
