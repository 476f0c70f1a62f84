import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import {
	getLimit,
	getOptions,
	readChoice,
	readNumber,
	fieldError,
	show,
	toList,
	toText,
} from '../../shared/fields';
import { fetchAllPages } from '../../shared/paging';
import type { StyleEntry } from '../../shared/services';
import { describeValue, isPlainObject } from '../../shared/values';
import { FILTERS, type Filter, colorQuery } from '../filters';
import type { Call, Found } from '../types';
import { museumOf, pageQuery } from '../museums';
import { answerError, museumGet, recordKey } from '../records';
import { MAX_PAGES, PAGE, SORT_ORDER } from './searchFields';

/** Pages hold at most 100 (Harvard caps `size`); 16 at once hide a service's latency yet hold little out of order. */
const MAX_PAGE_SIZE = 100;
const PAGES_AT_ONCE = 16;

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

/** A search, checked; its parameters depend on the museum's style and are worked out by `searchQuery`. */
export function readSearchPlan(ctx: IExecuteFunctions, i: number, asTool: boolean) {
	const options = getOptions(ctx, i);
	const q = toText(ctx, ctx.getNodeParameter('q', i, ''), 'Search', i);
	const given = ctx.getNodeParameter('filters', i, {}) as IDataObject;
	const read = FILTERS.map((filter) => ({ filter, ...filter.read(ctx, given[filter.key], i) }));
	const filters = read.filter(({ value, colors }) => value !== undefined || colors);
	if (asTool && !q && !filters.length) {
		const message =
			'Nothing to search for: give the search text (for example an artist, a title word or a subject) or a filter';
		throw new NodeOperationError(ctx.getNode(), message, { itemIndex: i });
	}
	const extra = ((options.additionalQuery as IDataObject)?.parameters ?? []) as IDataObject[];
	return {
		q,
		filters,
		filterNames: readFilterNames(ctx, options, i),
		sort: toText(ctx, options.sort, 'Sort', i),
		sortOrder:
			options.sortOrder === undefined ? '' : readChoice(ctx, options.sortOrder, SORT_ORDER, i),
		fields: toList(ctx, options.fields, 'Fields', i),
		extra: extra.map((entry, n) => {
			const label = `Additional Query Parameters: Name of parameter ${n + 1}`;
			const name = toText(ctx, entry.name, label, i, true);
			const value = toText(ctx, entry.value, `Additional Query Parameters: Value of "${name}"`, i);
			return [name, value] as const;
		}),
		limit: getLimit(ctx, i),
		startPage: readNumber(ctx, options, PAGE, i),
		maxPages: readNumber(ctx, options, MAX_PAGES, i),
	};
}
type SearchPlan = ReturnType<typeof readSearchPlan>;

/** `query[bool][filter][0][term][is_public_domain]=true`: AIC's clauses as PHP reads a query string (none: nothing). */
function brackets(value: unknown, key: string, put: (name: string, value: string) => void) {
	if (typeof value !== 'object' || value === null) put(key, String(value));
	else for (const [k, v] of Object.entries(value)) brackets(v, `${key}[${k}]`, put);
}

/** The search's query parameters in the museum's own terms; what it cannot honour is refused, before any request. */
export function searchQuery(
	ctx: IExecuteFunctions,
	search: SearchPlan,
	style: StyleEntry,
	i: number,
) {
	const museum = museumOf(style);
	const qs: IDataObject = {};
	// Who sends each parameter name, to refuse clashes instead of silently replacing a value.
	const pager = museum.filters
		? [style.pageSize ?? 'limit', museum.search.skip ? 'skip' : 'page']
		: ['limit', 'size', 'page'];
	const owners = new Map(pager.map((name) => [name, 'the pager (Limit, Page)']));
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
	const refuse = (label: string, fix: string, why = '') =>
		fieldError(ctx, `"${label}"`, i, `cannot be used with the ${style.name}${why}`, fix);

	if (search.q) claim('q', 'Search', search.q);
	const clauses: IDataObject[] = [];
	for (const { filter, value, colors } of search.filters) {
		const encode = museum.filters?.[filter.key];
		if (encode && value !== undefined) {
			const sent = encode(value);
			if (museum.dsl) clauses.push(sent);
			else for (const [name, v] of Object.entries(sent)) claim(name, filter.label, String(v));
		} else if (museum.filters || !filter.parameter) {
			const why = `: ${filter.unsupported ?? 'it has no such filter'}`;
			throw refuse(filter.label, 'Remove it, or use a museum service that has it.', why);
		} else if (colors) {
			const parameter = search.filterNames.get(filter) ?? filter.parameter;
			claim(parameter, filter.label);
			const color = colorQuery(ctx, colors, i, style);
			if (color.color) qs[parameter] = color.color;
			if (color.q) qs.q = qs.q ? `(${qs.q as string}) AND ${color.q}` : color.q;
		} else claim(search.filterNames.get(filter) ?? filter.parameter, filter.label, value);
	}
	brackets({ bool: { filter: clauses } }, 'query', (name, v) => claim(name, 'Filters', v));

	const options: Array<[string, string, unknown]> = [
		['sort', 'Sort', search.sort],
		['sortOrder', 'Sort Order', search.sortOrder],
		['filterNames', 'Filter Parameter Names', search.filterNames.size],
	];
	for (const [key, label, set] of options)
		if (set && !museum.options?.includes(key)) throw refuse(label, 'Clear it in the options.');
	if (search.sort) claim('sort', 'Sort', search.sort);
	if (search.sortOrder) claim('sortorder', 'Sort Order', search.sortOrder);
	// Pages may overlap: the record's ID is what recognises one seen on an earlier page.
	const id = museum.filters ? 'id' : 'objectid';
	const fields = [...new Set([...(museum.search.fields ?? []), ...search.fields])];
	if (search.fields.length && !fields.includes(id)) fields.push(id);
	if (fields.length)
		claim('fields', search.fields.length ? 'Fields' : 'the node', fields.join(','));
	for (const [name, value] of search.extra)
		claim(name, `Additional Query Parameters: ${name}`, value);
	return qs;
}

/** Searches cut short, for the run's hints: by Max Pages, and by a service that pages no deeper (AIC). */
export const newCut = () => ({
	pages: { searches: 0, left: 0, max: 0 },
	results: { searches: 0, left: 0, max: 0 },
});

/** Search: every page asked for; a Limit past Max Pages or past the service's deepest page returns what they hold. */
export async function searchObjects(
	{ ctx, client, settings, style, map, i }: Call,
	search: SearchPlan,
	qs: IDataObject,
	cut: ReturnType<typeof newCut>,
): Promise<Found[]> {
	const node = ctx.getNode();
	const museum = museumOf(style);
	const size = Math.min(search.limit ?? MAX_PAGE_SIZE, MAX_PAGE_SIZE);
	const skipped = (search.startPage - 1) * size;
	const deepest = museum.search.maxResults;
	// the service refuses a page reaching past its deepest result: no such page is asked for
	const room = deepest === undefined ? Infinity : Math.floor(deepest / size) * size - skipped;
	if (room <= 0) {
		const problem = `starts past the first ${deepest} results, the most the ${style.name} answers for a search`;
		const fix = 'Use a lower Page, or narrow the search with filters.';
		throw fieldError(ctx, '"Page"', i, problem, fix);
	}
	const wanted = search.limit ?? Infinity;
	const pagesCap = search.limit === undefined ? Infinity : search.maxPages * size;
	const limit = Math.min(wanted, room, pagesCap);
	let total: number | undefined;
	let context: IDataObject | undefined;
	const { items, requests, duplicates } = await fetchAllPages({
		limit: Number.isFinite(limit) ? limit : undefined,
		maxPageSize: MAX_PAGE_SIZE,
		startPage: search.startPage,
		maxPages: search.maxPages,
		concurrency: Math.min(PAGES_AT_ONCE, client.maxInFlight('museum')),
		// Pages shift when a record is added or removed while paging: one seen before is dropped.
		key: recordKey,
		fetchPage: async ({ page, size: pageSize, url }) => {
			const where = url
				? { url }
				: { path: museum.search.path, qs: { ...qs, ...pageQuery(style, page, pageSize) } };
			const answer = museum.read(await museumGet(client, where, settings, i));
			if (typeof answer === 'string') {
				const message = `The museum service answered with ${answer} where a list of object records was expected`;
				const fix = `${museum.shape} Check the Museum URL and Museum API in the Triptych API credentials.`;
				throw answerError(node, 'unexpected body shape', message, fix, i);
			}
			total ??= answer.total;
			context ??= answer.context;
			const pages = answer.total === undefined ? undefined : Math.ceil(answer.total / pageSize);
			return { ...answer, pages: answer.pages ?? pages };
		},
		map: (record: unknown, index: number) => {
			if (isPlainObject(record)) return map(record, context);
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
	const left = Math.min(wanted, (total ?? Infinity) - skipped) - items.length;
	if (items.length < limit || !(left > 0) || !Number.isFinite(left)) return items;
	const which = limit === room ? cut.results : cut.pages;
	which.searches++;
	which.left += left;
	which.max ||= limit === room ? deepest! : search.maxPages;
	return items;
}
