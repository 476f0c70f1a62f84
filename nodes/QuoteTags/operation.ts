import type { IDataObject, IExecuteFunctions, INodeExecutionData, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { getLimit, getOptions, readChoice } from '../shared/fields';
import type { ItemOperation } from '../shared/items';
import { getRequestSettings } from '../shared/options';
import type { RequestSettings, TriptychClient } from '../shared/transport';
import { describeValue, isPlainObject, toText } from '../shared/validation';
import { ORDER, SORT_BY, type SortField } from './description';
import { parameter } from '../shared/parameters';

export interface TagSearch {
	qs: IDataObject;
	/** Search, as compared with tag names */
	q?: string;
	limit?: number;
	/** Set when the user asked for an order: the node sorts the answer itself */
	sort?: { by: SortField; order: 'asc' | 'desc' };
	settings: RequestSettings;
}

/** Quote Tags: GET {Quotes URL}/tags per item, sorted as asked, cut to Limit. */
export function quoteTagsOperation(
	ctx: IExecuteFunctions,
	client: TriptychClient,
): ItemOperation<TagSearch> {
	return {
		read(i) {
			const q = toText(ctx, parameter(ctx, 'q', i, ''), 'Search', i);
			const limit = getLimit(ctx, i);
			const options = getOptions(ctx, i);
			const qs: IDataObject = {};
			if (q) qs.q = q;
			if (limit !== undefined) qs.limit = limit;
			let sort: TagSearch['sort'];
			if (options.sortBy !== undefined || options.order !== undefined) {
				const by = readChoice(ctx, options.sortBy, SORT_BY, i);
				const order =
					options.order === undefined
						? by === 'name'
							? 'asc'
							: 'desc'
						: readChoice(ctx, options.order, ORDER, i);
				if (options.sortBy !== undefined) qs.sortBy = by;
				if (options.order !== undefined) qs.order = order;
				sort = { by, order };
			}
			return {
				qs,
				...(q ? { q: words(q) } : {}),
				limit,
				sort,
				settings: getRequestSettings(ctx, i, options),
			};
		},

		async run(search, i): Promise<INodeExecutionData[]> {
			const response = await client.request(
				{ service: 'quotes', method: 'GET', path: '/tags', qs: search.qs, repeatable: true },
				search.settings,
				i,
			);
			const tags = tagList(response.data);
			if (!tags) {
				throw new NodeApiError(ctx.getNode(), { message: 'unexpected shape' } as JsonObject, {
					message: `The quotes service answered with ${describeValue(response.data ?? undefined)} where a list of tags was expected [item ${i}]`,
					description:
						'Expected a JSON array of tags, {"results": [...]}, or an envelope whose data is one of those. Check the Quotes URL.',
					itemIndex: i,
				});
			}
			let objects = tags.map((tag) =>
				typeof tag === 'object' && tag !== null ? (tag as IDataObject) : { name: tag as string },
			);
			// The service may ignore q, sorting and limit (the best-known one, Quotable, has none but sorting): the node
			// keeps the tags whose name or slug has the search text, sorts and cuts itself.
			const q = search.q;
			if (q)
				objects = objects.filter((tag) =>
					[tag.name, tag.slug].some((v) => typeof v === 'string' && words(v).includes(q)),
				);
			if (search.sort) sortTags(objects, search.sort.by, search.sort.order);
			const kept = search.limit === undefined ? objects : objects.slice(0, search.limit);
			return kept.map((json) => ({ json }));
		},
	};
}

/** Sorts in place, stably; tags without the field go last. Counts compare as numbers, dates as dates. */
export function sortTags(tags: IDataObject[], by: SortField, order: 'asc' | 'desc'): void {
	const key = (tag: IDataObject): number | string | undefined => {
		const value = tag[by];
		if (value === undefined || value === null || value === '') return undefined;
		if (by === 'quoteCount') return Number(value);
		if (by === 'name') return String(value).toLowerCase();
		const time = Date.parse(String(value));
		return Number.isNaN(time) ? String(value) : time;
	};
	const sign = order === 'asc' ? 1 : -1;
	const keyed = tags.map((tag, index) => ({ tag, index, key: key(tag) }));
	keyed.sort((a, b) => {
		if (a.key === undefined || b.key === undefined) {
			return a.key === b.key ? a.index - b.index : a.key === undefined ? 1 : -1;
		}
		if (a.key < b.key) return -sign;
		if (a.key > b.key) return sign;
		return a.index - b.index;
	});
	keyed.forEach((entry, n) => (tags[n] = entry.tag));
}

/** Lower-case words without accents: "Famous Quotes", "famous-quotes" and "famousQuotes" all become "famous quotes". */
function words(text: string): string {
	return text
		.replace(/([a-z0-9])([A-Z])/g, '$1 $2')
		.normalize('NFKD')
		.replace(/[\u0300-\u036f]/g, '')
		.toLowerCase()
		.replace(/[^\p{L}\p{N}]+/gu, ' ')
		.trim();
}

function tagList(data: unknown): unknown[] | undefined {
	if (Array.isArray(data)) return data;
	if (isPlainObject(data)) {
		for (const key of ['results', 'tags', 'data']) {
			const inner = data[key];
			if (Array.isArray(inner)) return inner;
		}
	}
	return undefined;
}
