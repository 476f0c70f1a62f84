/**
 * Museum Return All at 50 ms service latency over ≥ 40 pages (4,500 generated records, pages of 100), through
 * n8n's engine, next to n8n's HTTP Request node paging by itself (Options → Pagination, "Update a Parameter in Each
 * Request": page = {{ $pageCount + 1 }}, limit 100, complete when the answer's records are empty: one request more
 * than there are pages) and a bare keep-alive loop, pages one after another (following the next links) and pages
 * in parallel (page 1, then the rest by number, at the best of a few fixed concurrencies). Every run is checked:
 * the requests the server counted, and every variant's records (4,500). Also the node's peak RSS Δ against the
 * JSON size of the records (target ≤ 2×).
 */
import { DEFAULT_API_KEY } from '../../test/servers';
import { type Variant, collapseBest, oneNode, runCase, runEngine } from './compare';
import { barePagesVariant, memoryNotes, returnAllVariant } from './museum';
import type { ServerProcess } from './museumServer';
import { HTTP_REQUEST_VERSION } from './trigger';
import type { BenchRow, Target } from './util';

export const LATENCY_MS = 50;
export const PAGING_CASE = `Museum Return All, 4,500 records, pages of 100, ${LATENCY_MS} ms latency`;
const PARALLEL = [4, 8, 16, 32, 64];
const V = {
	sequential: 'bare keep-alive loop, pages one after another',
	parallel: 'bare keep-alive loop, pages in parallel, best fixed concurrency',
	node: 'Museum Object Search node, Return All (defaults)',
	http: `HTTP Request node v${HTTP_REQUEST_VERSION}, its own pagination`,
};

export const pagingTargets: Target[] = [
	{ case: PAGING_CASE, variant: V.node, baseline: V.http, maxRatio: 0.5 },
];

/** HTTP Request's pagination as a user would set it for this service (the shape of HttpRequestV3's options). */
function httpPagination(url: string) {
	return {
		method: 'GET',
		url: `${url}/object`,
		sendQuery: true,
		queryParameters: { parameters: [{ name: 'limit', value: '100' }] },
		sendHeaders: true,
		headerParameters: {
			parameters: [{ name: 'Authorization', value: `Bearer ${DEFAULT_API_KEY}` }],
		},
		options: {
			pagination: {
				pagination: {
					paginationMode: 'updateAParameterInEachRequest',
					parameters: {
						parameters: [{ type: 'qs', name: 'page', value: '={{ $pageCount + 1 }}' }],
					},
					paginationCompleteWhen: 'other',
					completeExpression: '={{ $response.body.data.records.length === 0 }}',
					limitPagesFetched: false,
					requestInterval: 0,
				},
			},
		},
	};
}

export async function pagingCase(server: ServerProcess, repeats: number): Promise<BenchRow[]> {
	const { info } = server;
	const pages = Math.ceil(info.total / 100);
	if (pages < 40) throw new Error(`the paging case needs ≥ 40 pages, the server has ${pages}`);
	const http = oneNode('n8n-nodes-base.httpRequest', 'HTTP Request', httpPagination(info.url), {
		typeVersion: HTTP_REQUEST_VERSION,
	});
	const httpVariant: Variant = {
		name: V.http,
		notes: 'one output item per page',
		run: async (warm) => ({
			...(await runEngine(
				{
					workflow: http,
					output: 'HTTP Request',
					records: (out) =>
						out.reduce(
							(n, item) => n + ((item.json.data as { records?: unknown[] })?.records?.length ?? 0),
							0,
						),
				},
				warm,
			)),
			requests: pages + 1,
			expectServer: pages + 1,
		}),
	};
	const bestOf = new Map([[V.parallel, PARALLEL]]);
	server.mode = { delayMs: LATENCY_MS };
	const rows = await runCase({
		case: PAGING_CASE,
		items: info.total,
		server,
		repeats,
		records: info.total,
		variants: [
			barePagesVariant(V.sequential, info, true, 1, 'follows the next links'),
			...PARALLEL.map((c) => barePagesVariant(`${V.parallel} @${c}`, info, true, c)),
			returnAllVariant(V.node, info, {}, 'Output Simplified'),
			httpVariant,
		],
	});
	server.mode = {};
	return memoryNotes(collapseBest(rows, bestOf), info, [V.node]);
}
