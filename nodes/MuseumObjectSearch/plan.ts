import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { getLimit, getOptions, readChoice, readNumber } from '../shared/fields';
import { getRequestSettings } from '../shared/options';
import type { RequestSettings } from '../shared/transport';
import { fieldError, show, toList, toText } from '../shared/validation';
import {
	COMMON_FIELDS,
	MAX_IMAGE_SIZE,
	MAX_IMAGES,
	MAX_PAGES,
	OUTPUT,
	type Output,
	PAGE,
	SORT_ORDER,
} from './description';
import { FILTERS, type Filter, filterByKey } from './filters';
import { parameter } from '../shared/parameters';

/** Everything one input item asks for, checked before any request is sent. */
export interface SearchPlan {
	/** Query parameters of every page request, without limit and page */
	qs: IDataObject;
	/** Records wanted; undefined = all */
	limit?: number;
	startPage: number;
	maxPages: number;
	output: Output;
	/** Output = Selected Fields: each field as its path */
	selected?: Array<{ name: string; path: string[] }>;
	/** Download Images on (and not used as a tool) */
	images?: { property: string; maxImages: number; maxBytes: number };
	settings: RequestSettings;
}

/** Names the node always sends itself: Additional Query Parameters may not use them. */
const PAGER_PARAMETERS = ['limit', 'size', 'page'];

/** Filter Parameter Names: the renamed filters, each at most once. */
function readFilterNames(ctx: IExecuteFunctions, i: number): Map<Filter, string> {
	const entries = parameter(ctx, 'filterNames.names', i, []) as IDataObject[];
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
		names.set(
			filter,
			toText(ctx, entry.parameter, `Filter Parameter Names: ${filter.label}`, i, true),
		);
	}
	return names;
}

/** Selected Fields and Other Fields, with the record's ID first whatever was chosen. */
function readSelection(ctx: IExecuteFunctions, i: number): string[] {
	const chosen: unknown = parameter(ctx, 'selectedFieldList', i, []);
	const list = Array.isArray(chosen) ? chosen : [chosen];
	for (const name of list) {
		if (!COMMON_FIELDS.includes(name as string)) {
			throw fieldError(
				ctx,
				'"Selected Fields"',
				i,
				`has ${show(name)}, which is not one of ${COMMON_FIELDS.join(', ')}`,
				'Put other record fields in Other Fields.',
			);
		}
	}
	const names = [
		...(list as string[]),
		...toList(ctx, parameter(ctx, 'otherFields', i, ''), 'Other Fields', i),
	];
	return names.length ? [...new Set(['objectid', ...names])] : [];
}

/** Reads and checks one item's parameters. Throws a NodeOperationError naming the field and the item. */
export function readPlan(ctx: IExecuteFunctions, i: number, asTool: boolean): SearchPlan {
	const q = toText(ctx, parameter(ctx, 'q', i, ''), 'Search', i);
	const limit = getLimit(ctx, i);
	const options = getOptions(ctx, i);
	const settings = getRequestSettings(ctx, i, options);
	const filters = parameter(ctx, 'filters', i, {}) as IDataObject;
	const filterNames = readFilterNames(ctx, i);

	const qs: IDataObject = {};
	/** Who sends each parameter name, to refuse clashes instead of silently replacing a value. */
	const owners = new Map<string, string>(
		PAGER_PARAMETERS.map((name) => [name, 'the pager (Limit, Page)']),
	);
	const claim = (name: string, owner: string, value: string) => {
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
		qs[name] = value;
	};

	if (q) claim('q', 'Search', q);
	for (const filter of FILTERS) {
		const value = filter.read(ctx, filters[filter.key], i);
		if (value !== undefined)
			claim(filterNames.get(filter) ?? filter.parameter, filter.label, value);
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

	const extra = parameter(ctx, 'additionalQuery.parameters', i, []) as IDataObject[];
	extra.forEach((entry, n) => {
		const name = toText(
			ctx,
			entry.name,
			`Additional Query Parameters: Name of parameter ${n + 1}`,
			i,
			true,
		);
		const value = toText(ctx, entry.value, `Additional Query Parameters: Value of "${name}"`, i);
		claim(name, `Additional Query Parameters: ${name}`, value);
	});

	const output = readChoice(ctx, parameter(ctx, OUTPUT.name, i, OUTPUT.default), OUTPUT, i);
	let selected: SearchPlan['selected'];
	if (output === 'selected') {
		const names = readSelection(ctx, i);
		if (!names.length) {
			throw fieldError(
				ctx,
				'"Selected Fields"',
				i,
				'is empty while Output is Selected Fields',
				'List the record fields to keep, e.g. objectid, title, people, or choose another Output.',
			);
		}
		selected = names.map((name) => ({ name, path: name.split('.') }));
	}

	let images: SearchPlan['images'];
	if (!asTool && parameter(ctx, 'downloadImages', i, false) === true) {
		const property = toText(
			ctx,
			parameter(ctx, 'binaryPropertyName', i, 'data'),
			'Put Output File in Field',
			i,
			true,
		);
		const read = (option: typeof MAX_IMAGES) =>
			readNumber(ctx, { [option.name]: parameter(ctx, option.name, i, option.default) }, option, i);
		images = {
			property,
			maxImages: read(MAX_IMAGES),
			maxBytes: read(MAX_IMAGE_SIZE) * 1024 * 1024,
		};
	}

	return {
		qs,
		limit,
		startPage: readNumber(ctx, options, PAGE, i),
		maxPages: readNumber(ctx, options, MAX_PAGES, i),
		output,
		selected,
		images,
		settings,
	};
}
