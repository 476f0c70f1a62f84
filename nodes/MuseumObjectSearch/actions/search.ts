import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { getLimit, readChoice, readNumber } from '../../shared/fields';
import { fetchAllPages } from '../../shared/paging';
import type { StyleEntry, TriptychClient } from '../../shared/transport';
import {
	describeValue,
	fieldError,
	isPlainObject,
	show,
	toList,
	toText,
} from '../../shared/validation';
import { type Colors, FILTERS, type Filter, colorQuery } from '../filters';
import type { Found, Plan, Result } from '../operation';
import { answerError, readPage, recordKey } from '../records';
import { MAX_PAGES, PAGE, SORT_ORDER } from './search.description';

/** The largest page the service hands out (the Harvard Art Museums API caps `size` at 100). */
const MAX_PAGE_SIZE = 100;
/**
 * Pages of one search asked for at once: enough to hide the latency of a distant service in a few round trips, few
 * enough that pages arriving out of order never hold much memory.
 */
const PAGES_AT_ONCE = 16;
/** Names the node always sends itself: Additional Query Parameters may not use them. */
const PAGER_PARAMETERS = ['limit', 'size', 'page'];

/** A search, checked; what depends on the service's style (page size, colours) is added when it runs. */
export interface SearchPlan {
	/** Query parameters of every page request, without q, colours, page size and page */
	qs: IDataObject;
	q?: string;
	/** The Color filter and the parameter it goes under */
	colors?: Colors & { parameter: string };
	/** Records wanted; undefined = all */
	limit?: number;
	startPage: number;
	maxPages: number;
}

/** Filter Parameter Names: the renamed filters, each at most once. */
function readFilterNames(ctx: IExecuteFunctions, options: IDataObject, i: number) {
	const names = new Map<Filter, string>();
	for (const entry of ((options.filterNames as IDataObject)?.names ?? []) as IDataObject[]) {
		const filter = FILTERS.find(({ key }) => key === entry.filter);
		const field = '"Filter Parameter Names"';
		if (!filter) throw fieldError(ctx, field, i, `names an unknown filter ${show(entry.filter)}`);
		if (names.has(filter)) {
			const problem = `renames the ${filter.label} filter twice`;
			throw fieldError(ctx, field, i, problem, 'Keep one entry per filter.');
		}
		const label = `Filter Parameter Names: ${filter.label}`;
		names.set(filter, toText(ctx, entry.parameter, label, i, true));
	}
	return names;
}

export function readSearchPlan(
	ctx: IExecuteFunctions,
	i: number,
	options: IDataObject,
	asTool: boolean,
): SearchPlan {
	const q = toText(ctx, ctx.getNodeParameter('q', i, ''), 'Search', i);
	const limit = getLimit(ctx, i);
	const filters = ctx.getNodeParameter('filters', i, {}) as IDataObject;
	const filterNames = readFilterNames(ctx, options, i);
	const qs: IDataObject = {};
	let colors: SearchPlan['colors'];
	// Who sends each parameter name, to refuse clashes instead of silently replacing a value.
	const owners = new Map(PAGER_PARAMETERS.map((name) => [name, 'the pager (Limit, Page)']));
	const claim = (name: string, owner: string, value?: string) => {
		const taken = owners.get(name);
		if (taken) {
			throw fieldError(
				ctx,
				`"${owner}"`,
				i,
				`would send the parameter "${name}", which ${taken} already sends`,
				'Use another parameter name, or clear one of the two fields.',
			);
		}
		owners.set(name, owner);
		if (value !== undefined) qs[name] = value;
	};

	if (q) claim('q', 'Search');
	for (const filter of FILTERS) {
		const read = filter.read(ctx, filters[filter.key], i);
		const parameter = filterNames.get(filter) ?? filter.parameter;
		if (read.value !== undefined) claim(parameter, filter.label, read.value);
		if (read.colors) {
			claim(parameter, filter.label);
			colors = { ...read.colors, parameter };
		}
	}
	if (asTool && !q && !Object.keys(qs).length && !colors) {
		throw new NodeOperationError(
			ctx.getNode(),
			'Nothing to search for: give the search text (for example an artist, a title word or a subject) or a filter',
			{ itemIndex: i },
		);
	}

	const sort = toText(ctx, options.sort, 'Sort', i);
	if (sort) claim('sort', 'Sort', sort);
	if (options.sortOrder !== undefined) {
		claim('sortorder', 'Sort Order', readChoice(ctx, options.sortOrder, SORT_ORDER, i));
	}
	const fields = toList(ctx, options.fields, 'Fields', i);
	if (fields.length) {
		// Pages may overlap: objectid is what recognises a record seen on an earlier page.
		if (!fields.includes('objectid')) fields.push('objectid');
		claim('fields', 'Fields', fields.join(','));
	}
	const extra = ((options.additionalQuery as IDataObject)?.parameters ?? []) as IDataObject[];
	extra.forEach((entry, n) => {
		const label = `Additional Query Parameters: Name of parameter ${n + 1}`;
		const name = toText(ctx, entry.name, label, i, true);
		const value = toText(ctx, entry.value, `Additional Query Parameters: Value of "${name}"`, i);
		claim(name, `Additional Query Parameters: ${name}`, value);
	});
	return {
		qs,
		...(q ? { q } : {}),
		colors,
		limit,
		startPage: readNumber(ctx, options, PAGE, i),
		maxPages: readNumber(ctx, options, MAX_PAGES, i),
	};
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
): Promise<Result> {
	const node = ctx.getNode();
	const search = plan.search!;
	const qs: IDataObject = { ...search.qs };
	const color = search.colors ? colorQuery(ctx, search.colors, i, style) : {};
	if (color.color) qs[search.colors!.parameter] = color.color;
	const text = search.q ?? (qs.q as string | undefined);
	if (color.q) qs.q = text ? `(${text}) AND ${color.q}` : color.q;
	else if (text) qs.q = text;
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
			const where = url
				? { url }
				: { path: '/object', qs: { ...qs, [style.pageSize ?? 'limit']: pageSize, page } };
			const response = await client.request(
				{ service: 'museum', method: 'GET', ...where, repeatable: true },
				plan.settings,
				i,
			);
			const answer = readPage(response.data);
			if (typeof answer === 'string') {
				throw answerError(
					node,
					'unexpected body shape',
					`The museum service answered with ${answer} where a list of object records was expected [item ${i}]`,
					'Expected {"info": {...}, "records": [...]} (alone or as the "data" of {"status": "success", "data": ...}), a list of records, or such a list as "data". Check the Museum URL in the Triptych API credentials.',
					i,
				);
			}
			total ??= answer.total;
			return answer;
		},
		map: (record: unknown, index: number) => {
			if (isPlainObject(record)) return map(record);
			throw answerError(
				node,
				'record is not an object',
				`The museum service sent result ${index + 1} as ${describeValue(record)} instead of an object [item ${i}]`,
				'Check the Museum URL in the Triptych API credentials: it must point at the object search API.',
				i,
			);
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
	const { items: found, requests, duplicates } = result;
	ctx.logger.debug(
		`Triptych: museum search of item ${i} fetched ${requests} page${requests === 1 ? '' : 's'} and ${found.length} records${duplicates ? `, dropped ${duplicates} repeated on later pages` : ''}`,
		{ itemIndex: i, pages: requests, duplicates },
	);
	if (!cut || found.length < cap) return { found };
	const skipped = (search.startPage - 1) * size;
	const matching = total === undefined ? search.limit! : Math.min(search.limit!, total - skipped);
	const left = matching - found.length;
	return left > 0 ? { found, left } : { found };
}
