import type { IDataObject, IExecuteFunctions, INodeExecutionData, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { ItemOperation } from '../shared/items';
import { fetchAllPages } from '../shared/paging';
import type { TriptychClient } from '../shared/transport';
import { describeValue, isPlainObject, isTool } from '../shared/validation';
import { type ImageRef, attachImages } from './images';
import { type SearchPlan, readPlan } from './plan';
import { imageUrlOf, pick, readPage, recordKey, simplify } from './records';

/** The largest page the service hands out (the Harvard Art Museums API caps `size` at 100). */
const MAX_PAGE_SIZE = 100;
/**
 * Pages of one search asked for at once: enough to hide the latency of a distant service in a few round trips, few
 * enough that pages arriving out of order never hold much memory.
 */
const PAGES_AT_ONCE = 16;

/**
 * Museum Object Search: GET {Museum URL}/object per item, all its pages (concurrently once the first page says
 * how many there are; every page and item shares the client's gate), and optionally each object's image.
 */
export function museumOperation(
	ctx: IExecuteFunctions,
	client: TriptychClient,
	continueOnFail: boolean,
): ItemOperation<SearchPlan> {
	// As an AI agent's tool the node returns small JSON only: no binary data (tools cannot pass it on).
	const asTool = isTool(ctx);
	const imageBudget = { used: 0 };
	return {
		read: (i) => readPlan(ctx, i, asTool),
		async run(plan, i) {
			const found = await search(ctx, client, plan, i);
			const items = found.map((entry) => entry.item);
			if (plan.images) {
				const images = found.map((entry) => entry.image);
				await attachImages(ctx, client, plan, items, images, i, imageBudget, continueOnFail);
			}
			return items;
		},
	};
}

/** One item's search: all its pages, each record turned into its output as soon as its page's turn comes. */
async function search(
	ctx: IExecuteFunctions,
	client: TriptychClient,
	plan: SearchPlan,
	i: number,
): Promise<Array<{ item: INodeExecutionData; image?: ImageRef }>> {
	const node = ctx.getNode();
	const convert =
		plan.output === 'simplified'
			? simplify
			: plan.output === 'raw'
				? (record: IDataObject) => record
				: (record: IDataObject) => pick(record, plan.selected!);

	// Harvard Art Museums API: pages of `size` (it ignores `limit`); its next links carry the key, which the
	// credential strips and adds again
	const sizeParameter = (await client.styleEntry('museum')).pageSize ?? 'limit';
	const result = await fetchAllPages({
		limit: plan.limit,
		maxPageSize: MAX_PAGE_SIZE,
		startPage: plan.startPage,
		maxPages: plan.maxPages,
		concurrency: Math.min(PAGES_AT_ONCE, client.maxInFlight('museum')),
		// The service may hand out overlapping pages (a record added or removed while paging shifts them):
		// a record already output from an earlier page is dropped, by its objectid.
		key: recordKey,
		fetchPage: async ({ page, size, url }) => {
			const response = await client.request(
				url
					? { service: 'museum', method: 'GET', url, repeatable: true }
					: {
							service: 'museum',
							method: 'GET',
							path: '/object',
							qs: { ...plan.qs, [sizeParameter]: size, page },
							repeatable: true,
						},
				plan.settings,
				i,
			);
			const answer = readPage(response.data);
			if (typeof answer === 'string') {
				throw new NodeApiError(node, { message: 'unexpected body shape' } as JsonObject, {
					message: `The museum service answered with ${answer} where a list of object records was expected [item ${i}]`,
					description:
						'Expected {"info": {...}, "records": [...]} (alone or as the "data" of {"status": "success", "data": ...}), a list of records, or such a list as "data". Check the Museum URL in the Triptych API credentials.',
					itemIndex: i,
				});
			}
			return answer;
		},
		map: (record: unknown, index: number) => {
			if (!isPlainObject(record)) {
				throw new NodeApiError(node, { message: 'record is not an object' } as JsonObject, {
					message: `The museum service sent result ${index + 1} as ${describeValue(record)} instead of an object [item ${i}]`,
					description:
						'Check the Museum URL in the Triptych API credentials: it must point at the object search API.',
					itemIndex: i,
				});
			}
			const url = plan.images ? imageUrlOf(record) : undefined;
			return {
				item: { json: convert(record) } as INodeExecutionData,
				image: url ? { url, objectId: recordKey(record) } : undefined,
			};
		},
		tooManyPages: (maxPages, kept) =>
			new NodeOperationError(
				node,
				`The search needs more than ${maxPages} pages (Max Pages): the museum service still had more results after ${kept} records [item ${i}]`,
				{
					itemIndex: i,
					description:
						'Nothing was returned rather than part of the results. Raise "Max Pages" in the options, narrow the search with filters, or turn off Return All and set a Limit.',
				},
			),
	});
	ctx.logger.debug(
		`Triptych: museum search of item ${i} fetched ${result.requests} page${result.requests === 1 ? '' : 's'} and ${result.items.length} records${result.duplicates ? `, dropped ${result.duplicates} repeated on later pages` : ''}`,
		{ itemIndex: i, pages: result.requests, duplicates: result.duplicates },
	);
	return result.items;
}
