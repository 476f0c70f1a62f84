import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { RequestSettings } from '../shared/transport';
import { fieldError, getLimit, getRequestSettings, toInteger, toText } from '../shared/validation';
import { FILTER_LABELS, FILTER_PARAMETERS, type FilterName } from './filters';
import { DEFAULT_MAX_IMAGES, DEFAULT_MAX_PAGES } from './options';

export type Output = 'simplified' | 'raw' | 'selected';

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
	images?: { property: string; maxImages: number };
	settings: RequestSettings;
}

/** Names the node always sends itself: Additional Query Parameters may not use them. */
const PAGER_PARAMETERS = ['limit', 'page'];

const FILTER_ORDER: FilterName[] = ['person', 'classification', 'period', 'color', 'hasImage'];

function show(value: unknown): string {
	return typeof value === 'string' ? `"${value}"` : (JSON.stringify(value) ?? String(value));
}

/**
 * A colour for the service: lower-case `#rrggbb`. Accepts what n8n's colour picker gives (`#RRGGBB`, or
 * `#RRGGBBAA` when it shows transparency), `#rgb`, hex without `#`, and `rgb()`/`rgba()`; several joined by `|`.
 */
export function toHexColor(
	ctx: IExecuteFunctions,
	value: unknown,
	itemIndex: number,
): string | undefined {
	if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) {
		return undefined;
	}
	const bad = () =>
		fieldError(
			ctx,
			'"Color"',
			itemIndex,
			`must be a hex color such as #afaf4b or #abc, not ${show(value)}`,
			'Pick a colour with the colour picker, or type its hex value.',
		);
	if (typeof value !== 'string') throw bad();
	return value
		.split('|')
		.map((part) => {
			const text = part.trim();
			const hex = /^#?([0-9a-f]{3}|[0-9a-f]{6}|[0-9a-f]{8})$/i.exec(text);
			if (hex) {
				let digits = hex[1].toLowerCase();
				if (digits.length === 3) digits = digits.replace(/./g, '$&$&');
				return `#${digits.slice(0, 6)}`;
			}
			const rgb =
				/^rgba?\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d{1,3})\s*(?:,\s*[\d.]+%?\s*)?\)$/i.exec(
					text,
				);
			if (rgb) {
				const channels = rgb.slice(1, 4).map(Number);
				if (channels.every((c) => c <= 255)) {
					return `#${channels.map((c) => c.toString(16).padStart(2, '0')).join('')}`;
				}
			}
			throw bad();
		})
		.join('|');
}

function toBoolean(
	ctx: IExecuteFunctions,
	value: unknown,
	field: string,
	itemIndex: number,
): boolean {
	if (typeof value === 'boolean') return value;
	if (value === 1 || value === 0) return value === 1;
	if (typeof value === 'string' && /^(true|false|1|0)$/i.test(value.trim())) {
		return /^(true|1)$/i.test(value.trim());
	}
	throw fieldError(ctx, `"${field}"`, itemIndex, `must be true or false, not ${show(value)}`);
}

/** A comma-separated list of names (empty entries dropped). */
function toList(
	ctx: IExecuteFunctions,
	value: unknown,
	field: string,
	itemIndex: number,
): string[] {
	return toText(ctx, value, field, itemIndex)
		.split(',')
		.map((s) => s.trim())
		.filter(Boolean);
}

/** Filter Parameter Names: the renamed filters, each at most once. */
function readFilterNames(ctx: IExecuteFunctions, i: number): Partial<Record<FilterName, string>> {
	const entries = ctx.getNodeParameter('filterNames.names', i, []) as IDataObject[];
	const names: Partial<Record<FilterName, string>> = {};
	for (const entry of entries) {
		const filter = entry.filter as FilterName;
		if (!(filter in FILTER_PARAMETERS)) {
			throw fieldError(
				ctx,
				'"Filter Parameter Names"',
				i,
				`names an unknown filter ${show(entry.filter)}`,
			);
		}
		const label = FILTER_LABELS[filter];
		if (names[filter] !== undefined) {
			throw fieldError(
				ctx,
				'"Filter Parameter Names"',
				i,
				`renames the ${label} filter twice`,
				'Keep one entry per filter.',
			);
		}
		names[filter] = toText(ctx, entry.parameter, `Filter Parameter Names: ${label}`, i, true);
	}
	return names;
}

/** Reads and checks one item's parameters. Throws a NodeOperationError naming the field and the item. */
export function readPlan(ctx: IExecuteFunctions, i: number, asTool: boolean): SearchPlan {
	const q = toText(ctx, ctx.getNodeParameter('q', i, ''), 'Search', i);
	const limit = getLimit(ctx, i);
	const settings = getRequestSettings(ctx, i);
	const options = ctx.getNodeParameter('options', i, {}) as IDataObject;
	const filters = ctx.getNodeParameter('filters', i, {}) as IDataObject;
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

	for (const filter of FILTER_ORDER) {
		const label = FILTER_LABELS[filter];
		const raw = filters[filter];
		let value: string | undefined;
		if (filter === 'color') {
			value = toHexColor(ctx, raw, i);
		} else if (filter === 'hasImage') {
			value = raw === undefined ? undefined : toBoolean(ctx, raw, label, i) ? '1' : '0';
		} else {
			value = toText(ctx, raw, label, i) || undefined;
		}
		if (value === undefined) continue;
		claim(filterNames[filter] ?? FILTER_PARAMETERS[filter], label, value);
	}

	const sort = toText(ctx, options.sort, 'Sort', i);
	if (sort) claim('sort', 'Sort', sort);
	if (options.sortOrder !== undefined) {
		if (options.sortOrder !== 'asc' && options.sortOrder !== 'desc') {
			throw fieldError(
				ctx,
				'"Sort Order"',
				i,
				`must be asc or desc, not ${show(options.sortOrder)}`,
			);
		}
		claim('sortorder', 'Sort Order', options.sortOrder as string);
	}
	const fields = toList(ctx, options.fields, 'Fields', i);
	if (fields.length) {
		// Pages may overlap: objectid is what recognises a record seen on an earlier page.
		if (!fields.includes('objectid')) fields.push('objectid');
		claim('fields', 'Fields', fields.join(','));
	}

	const extra = ctx.getNodeParameter('additionalQuery.parameters', i, []) as IDataObject[];
	extra.forEach((parameter, n) => {
		const name = toText(
			ctx,
			parameter.name,
			`Additional Query Parameters: Name of parameter ${n + 1}`,
			i,
			true,
		);
		const value = toText(
			ctx,
			parameter.value,
			`Additional Query Parameters: Value of "${name}"`,
			i,
		);
		claim(name, `Additional Query Parameters: ${name}`, value);
	});

	const startPage = toInteger(ctx, options.page ?? 1, 'Page', i, 1);
	const maxPages = toInteger(ctx, options.maxPages ?? DEFAULT_MAX_PAGES, 'Max Pages', i, 1);

	const output = (options.output ?? 'simplified') as Output;
	if (!['simplified', 'raw', 'selected'].includes(output)) {
		throw fieldError(
			ctx,
			'"Output"',
			i,
			`must be simplified, raw or selected, not ${show(output)}`,
		);
	}
	let selected: SearchPlan['selected'];
	if (output === 'selected') {
		const names = toList(ctx, options.selectedFields, 'Selected Fields', i);
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
	if (!asTool && ctx.getNodeParameter('downloadImages', i, false) === true) {
		const property = toText(
			ctx,
			ctx.getNodeParameter('binaryPropertyName', i, 'data'),
			'Put Output File in Field',
			i,
			true,
		);
		const maxImages = toInteger(
			ctx,
			ctx.getNodeParameter('maxImages', i, DEFAULT_MAX_IMAGES),
			'Max Images',
			i,
			0,
		);
		images = { property, maxImages };
	}

	return { qs, limit, startPage, maxPages, output, selected, images, settings };
}
