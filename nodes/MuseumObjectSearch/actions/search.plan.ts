import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { getLimit, readChoice, readNumber } from '../../shared/fields';
import { fieldError, show, toList, toText } from '../../shared/validation';
import type { Colors } from '../color';
import { FILTERS, type Filter, filterByKey } from '../filters';
import { MAX_PAGES, PAGE, SORT_ORDER } from './search.description';

/** A search, checked; what depends on the service's style (page size, colours) is added when it runs. */
export interface SearchPlan {
	/** Query parameters of every page request, without q, colours, page size and page */
	qs: IDataObject;
	/** Search */
	q?: string;
	/** The Color filter and the parameter it goes under */
	colors?: Colors & { parameter: string };
	/** Records wanted; undefined = all */
	limit?: number;
	startPage: number;
	maxPages: number;
}

/** Names the node always sends itself: Additional Query Parameters may not use them. */
const PAGER_PARAMETERS = ['limit', 'size', 'page'];

/** Filter Parameter Names: the renamed filters, each at most once. */
function readFilterNames(ctx: IExecuteFunctions, options: IDataObject, i: number) {
	const entries = ((options.filterNames as IDataObject)?.names ?? []) as IDataObject[];
	const names = new Map<Filter, string>();
	for (const entry of entries) {
		const filter = filterByKey(entry.filter);
		if (!filter) {
			throw fieldError(
				ctx,
				'"Filter Parameter Names"',
				i,
				`names an unknown filter ${show(entry.filter)}`,
			);
		}
		if (names.has(filter)) {
			throw fieldError(
				ctx,
				'"Filter Parameter Names"',
				i,
				`renames the ${filter.label} filter twice`,
				'Keep one entry per filter.',
			);
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
	/** Who sends each parameter name, to refuse clashes instead of silently replacing a value. */
	const owners = new Map<string, string>(
		PAGER_PARAMETERS.map((name) => [name, 'the pager (Limit, Page)']),
	);
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

	if (q) claim('q', 'Search', undefined);
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
