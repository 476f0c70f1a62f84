import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import {
	getLimit,
	readChoice,
	readNumber,
	fieldError,
	show,
	toList,
	toText,
} from '../../shared/fields';
import { fetchAllPages } from '../../shared/paging';
import { describeValue, isPlainObject } from '../../shared/transport';
import { type Colors, FILTERS, type Filter, colorQuery } from '../filters';
import type { Call, Found } from '../types';
import { answerError, readPage, recordKey } from '../records';
import { MAX_PAGES, PAGE, SORT_ORDER } from './searchFields';

/** The largest page the service hands out (the Harvard Art Museums API caps `size` at 100). */
const MAX_PAGE_SIZE = 100;
/** Pages asked for at once: enough to hide a distant service's latency, few enough to hold little out of order */
const PAGES_AT_ONCE = 16;
/** Names the node always sends itself: Additional Query Parameters may not use them. */
const PAGER_PARAMETERS = ['limit', 'size', 'page'];

function readFilterNames(ctx: IExecuteFunctions, options: IDataObject, i: number) {
	const names = new Map<Filter, string>();
	const field = '"Filter Parameter Names"';
	for (const entry of ((options.filterNames as IDataObject)?.names ?? []) as IDataObject[]) {
		const filter = FILTERS.find(({ key }) => key === entry.filter);
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

/** A search, checked; colours, page size and page depend on the service's style and are added when it runs. */
export function readSearchPlan(
	ctx: IExecuteFunctions,
	i: number,
	options: IDataObject,
	asTool: boolean,
) {
	const q = toText(ctx, ctx.getNodeParameter('q', i, ''), 'Search', i);
	const limit = getLimit(ctx, i);
	const filters = ctx.getNodeParameter('filters', i, {}) as IDataObject;
	const filterNames = readFilterNames(ctx, options, i);
	const qs: IDataObject = {};
	let colors: (Colors & { parameter: string }) | undefined;
	// Who sends each parameter name, to refuse clashes instead of silently replacing a value.
	const owners = new Map(PAGER_PARAMETERS.map((name) => [name, 'the pager (Limit, Page)']));
	const claim = (name: string, owner: string, value?: string) => {
		const taken = owners.get(name);
		if (taken) {
			const problem = `would send the parameter "${name}", which ${taken} already sends`;
			const fix = 'Use another parameter name, or clear one of the two fields.';
			throw fieldError(ctx, `"${owner}"`, i, problem, fix);
		}
		owners.set(name, owner);
		if (value !== undefined) qs[name] = value;
	};

	if (q) claim('q', 'Search', q);
	for (const filter of FILTERS) {
		const read = filter.read(ctx, filters[filter.key], i);
		const parameter = filterNames.get(filter) ?? filter.parameter;
		if (read.value !== undefined) claim(parameter, filter.label, read.value);
		if (read.colors) {
			claim(parameter, filter.label);
			colors = { ...read.colors, parameter };
		}
	}
	if (asTool && !Object.keys(qs).length && !colors) {
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
		colors,
		limit,
		startPage: readNumber(ctx, options, PAGE, i),
		maxPages: readNumber(ctx, options, MAX_PAGES, i),
	};
}

/** Search: GET {Museum URL}/object, all its pages; a Limit past Max Pages returns what they hold, counted in `cut`. */
export async function searchObjects(
	{ ctx, client, settings, style, map, i }: Call,
	search: ReturnType<typeof readSearchPlan>,
	cut: { searches: number; left: number; maxPages: number },
): Promise<Found[]> {
	const node = ctx.getNode();
	const qs: IDataObject = { ...search.qs };
	const color = search.colors ? colorQuery(ctx, search.colors, i, style) : {};
	if (color.color) qs[search.colors!.parameter] = color.color;
	if (color.q) qs.q = qs.q ? `(${qs.q as string}) AND ${color.q}` : color.q;
	const size = Math.min(search.limit ?? MAX_PAGE_SIZE, MAX_PAGE_SIZE);
	const cap = search.maxPages * size;
	const limited = search.limit !== undefined && search.limit > cap;
	let total: number | undefined;
	const { items, requests, duplicates } = await fetchAllPages({
		limit: limited ? cap : search.limit,
		maxPageSize: MAX_PAGE_SIZE,
		startPage: search.startPage,
		maxPages: search.maxPages,
		concurrency: Math.min(PAGES_AT_ONCE, client.maxInFlight('museum')),
		// Pages shift when a record is added or removed while paging: one seen before is dropped.
		key: recordKey,
		fetchPage: async ({ page, size: pageSize, url }) => {
			const where = url
				? { url }
				: { path: '/object', qs: { ...qs, [style.pageSize ?? 'limit']: pageSize, page } };
			const request = { service: 'museum', method: 'GET', ...where, repeatable: true } as const;
			const answer = readPage((await client.request(request, settings, i)).data);
			if (typeof answer === 'string') {
				const message = `The museum service answered with ${answer} where a list of object records was expected`;
				const fix =
					'Expected {"info": {...}, "records": [...]} (alone or as the "data" of {"status": "success", "data": ...}), a list of records, or such a list as "data". Check the Museum URL in the Triptych API credentials.';
				throw answerError(node, 'unexpected body shape', message, fix, i);
			}
			total ??= answer.total;
			return answer;
		},
		map: (record: unknown, index: number) => {
			if (isPlainObject(record)) return map(record);
			const message = `The museum service sent result ${index + 1} as ${describeValue(record)} instead of an object`;
			const fix =
				'Check the Museum URL in the Triptych API credentials: it must point at the object search API.';
			throw answerError(node, 'record is not an object', message, fix, i);
		},
		tooManyPages: (maxPages, kept) => {
			const message = `The search needs more than ${maxPages} pages (Max Pages): the museum service still had more results after ${kept} records`;
			const description =
				'Nothing was returned rather than part of the results. Raise "Max Pages" in the options, narrow the search with filters, or turn off Return All and set a Limit.';
			return new NodeOperationError(node, message, { itemIndex: i, description });
		},
	});
	ctx.logger.debug(
		`Triptych: museum search of item ${i} fetched ${requests} page${requests === 1 ? '' : 's'} and ${items.length} records${duplicates ? `, dropped ${duplicates} repeated on later pages` : ''}`,
		{ itemIndex: i, pages: requests, duplicates },
	);
	if (!limited || items.length < cap) return items;
	const skipped = (search.startPage - 1) * size;
	const matching = total === undefined ? search.limit! : Math.min(search.limit!, total - skipped);
	const left = matching - items.length;
	if (left > 0) {
		cut.searches++;
		cut.left += left;
		cut.maxPages ||= search.maxPages;
	}
	return items;
}
