import type { IDataObject, IExecuteFunctions, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { fetchAllPages } from '../../shared/paging';
import type { StyleEntry, TriptychClient } from '../../shared/transport';
import { describeValue, isPlainObject } from '../../shared/validation';
import { colorQuery } from '../color';
import type { Found, Plan } from '../plan';
import { readPage, recordKey } from '../records';
import type { SearchPlan } from './search.plan';

/** The largest page the service hands out (the Harvard Art Museums API caps `size` at 100). */
const MAX_PAGE_SIZE = 100;
/**
 * Pages of one search asked for at once: enough to hide the latency of a distant service in a few round trips, few
 * enough that pages arriving out of order never hold much memory.
 */
const PAGES_AT_ONCE = 16;

/** What one search returned and, when Max Pages cut a Limit short, how many more objects matched. */
export interface SearchResult {
	found: Found[];
	/** Max Pages was reached before Limit: matching objects not returned (undefined when not cut) */
	left?: number;
}

/** The query of every page: the plan's, with the colours and hues as this service takes them. */
function finalQuery(ctx: IExecuteFunctions, search: SearchPlan, style: StyleEntry, i: number) {
	const qs: IDataObject = { ...search.qs };
	const { colors } = search;
	const color = colors ? colorQuery(ctx, colors, i, style) : {};
	if (color.color) qs[colors!.parameter] = color.color;
	const text = search.q ?? (qs.q as string | undefined);
	if (color.q) qs.q = text ? `(${text}) AND ${color.q}` : color.q;
	else if (text) qs.q = text;
	return qs;
}

/**
 * Search: GET {Museum URL}/object, all its pages (concurrently once the first page says how many there are; every
 * page and item shares the client's gate), each record turned into its output as soon as its page's turn comes.
 * With a Limit that needs more than Max Pages the search returns what those pages hold and says how many are left.
 */
export async function searchObjects(
	ctx: IExecuteFunctions,
	client: TriptychClient,
	plan: Plan,
	style: StyleEntry,
	map: (record: IDataObject) => Found,
	i: number,
): Promise<SearchResult> {
	const node = ctx.getNode();
	const search = plan.search!;
	const qs = finalQuery(ctx, search, style, i);
	const sizeParameter = style.pageSize ?? 'limit';
	const size = Math.min(search.limit ?? MAX_PAGE_SIZE, MAX_PAGE_SIZE);
	const cap = search.maxPages * size;
	const cut = search.limit !== undefined && search.limit > cap;
	let total: number | undefined;
	const result = await fetchAllPages({
		limit: cut ? cap : search.limit,
		maxPageSize: MAX_PAGE_SIZE,
		startPage: search.startPage,
		maxPages: search.maxPages,
		concurrency: Math.min(PAGES_AT_ONCE, client.maxInFlight('museum')),
		// The service may hand out overlapping pages (a record added or removed while paging shifts them):
		// a record already output from an earlier page is dropped, by its objectid.
		key: recordKey,
		fetchPage: async ({ page, size: pageSize, url }) => {
			const response = await client.request(
				url
					? { service: 'museum', method: 'GET', url, repeatable: true }
					: {
							service: 'museum',
							method: 'GET',
							path: '/object',
							qs: { ...qs, [sizeParameter]: pageSize, page },
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
			total ??= answer.total;
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
			return map(record);
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
	const found = result.items;
	if (!cut || found.length < cap) return { found };
	const skipped = (search.startPage - 1) * size;
	const matching = total === undefined ? search.limit! : Math.min(search.limit!, total - skipped);
	const left = matching - found.length;
	return left > 0 ? { found, left } : { found };
}
