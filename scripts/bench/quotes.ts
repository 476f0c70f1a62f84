/**
 * Quote Tags: 1,000 input items, one GET /tags?q=…&limit=5 each, through n8n's engine — next to a bare keep-alive
 * axios loop making the same requests and n8n's own HTTP Request node configured the way a user would.
 */
import { chain, manualTrigger, node, runWorkflow } from '../../test/harness/engine';
import { loadQuoteTags, startQuotesServer } from '../../test/servers';
import { type BenchRow, type Target, keepAliveClient, measure, table, verdicts } from './util';

const N = 1000;
const CASE = `Quote Tags, ${N.toLocaleString('en-US')} items`;

export const targets: Target[] = [
	{ case: CASE, variant: 'Quote Tags node', baseline: 'bare axios loop', maxRatio: 1.2 },
	{ case: CASE, variant: 'Quote Tags node', baseline: 'HTTP Request node (defaults)', maxRatio: 1 },
];

export async function run(): Promise<BenchRow[]> {
	const server = await startQuotesServer();
	const names = loadQuoteTags().map((t) => t.slug.slice(0, 3));
	const items = Array.from({ length: N }, (_, i) => ({ q: names[i % names.length] }));
	const credentials = { triptychApi: { apiKey: 'unused', quotesUrl: server.url } };
	const trigger = 'Start';
	const rows: BenchRow[] = [];
	try {
		const viaNode = chain(manualTrigger(trigger), node('quoteTags', 'Tags', { q: '={{ $json.q }}', limit: 5 }));
		const viaHttp = chain(
			manualTrigger(trigger),
			node(
				'n8n-nodes-base.httpRequest',
				'HTTP',
				{
					method: 'GET',
					url: `${server.url}/tags`,
					sendQuery: true,
					queryParameters: { parameters: [{ name: 'q', value: '={{ $json.q }}' }, { name: 'limit', value: '5' }] },
					options: {},
				},
				{ typeVersion: 4.2 },
			),
		);
		// warm-up: load the package and n8n's modules once, outside the measurements
		await runWorkflow(viaNode, { credentials, pinData: { [trigger]: items.slice(0, 5) } });
		await runWorkflow(viaHttp, { pinData: { [trigger]: items.slice(0, 5) } });

		server.reset();
		const client = keepAliveClient();
		const bare = await measure(async () => {
			let count = 0;
			for (const item of items) {
				const res = await client.get(`${server.url}/tags`, { params: { q: item.q, limit: 5 } });
				count += (res.data as unknown[]).length;
			}
			return count;
		});
		rows.push({ case: CASE, variant: 'bare axios loop', items: N, requests: N, serverRequests: server.requests.length, wallMs: bare.wallMs, peakRssMb: bare.peakRssMb, notes: `${bare.result} tags` });

		server.reset();
		const cold = keepAliveClient(false);
		const fresh = await measure(async () => {
			for (const item of items) await cold.get(`${server.url}/tags`, { params: { q: item.q, limit: 5 } });
		});
		rows.push({ case: CASE, variant: 'bare axios loop, new connection per request', items: N, requests: N, serverRequests: server.requests.length, wallMs: fresh.wallMs, peakRssMb: fresh.peakRssMb, notes: 'what n8n\'s request helper does' });

		server.reset();
		const ours = await measure(() => runWorkflow(viaNode, { credentials, pinData: { [trigger]: items } }));
		const ourCount = ours.result.output('Tags').length;
		rows.push({ case: CASE, variant: 'Quote Tags node', items: N, requests: N, serverRequests: server.requests.length, wallMs: ours.wallMs, peakRssMb: ours.peakRssMb, notes: `${ourCount} tags` });

		server.reset();
		const theirs = await measure(() => runWorkflow(viaHttp, { pinData: { [trigger]: items } }));
		rows.push({ case: CASE, variant: 'HTTP Request node (defaults)', items: N, requests: N, serverRequests: server.requests.length, wallMs: theirs.wallMs, peakRssMb: theirs.peakRssMb, notes: `${theirs.result.output('HTTP').length} items` });

		if (ourCount !== bare.result) throw new Error(`the node returned ${ourCount} tags, the bare loop ${bare.result}`);
	} finally {
		await server.close();
	}
	return rows;
}

if (require.main === module) {
	run().then((rows) => {
		console.log(table(rows));
		const v = verdicts(rows, targets);
		console.log(v.lines.join('\n'));
		process.exit(v.ok ? 0 : 1);
	});
}
