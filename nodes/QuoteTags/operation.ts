import type { IDataObject, IExecuteFunctions, INodeExecutionData, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { getLimit, getOptions, readChoice, toText } from '../shared/fields';
import type { ItemOperation } from '../shared/items';
import { getRequestSettings } from '../shared/options';
import type { TriptychClient } from '../shared/transport';
import { describeValue, isPlainObject, plainText, present } from '../shared/values';
import { ORDER, SORT_BY, type SortField } from './description';

/** The fields of each sort: Quotable's, then its rewrite's (QuoteSlate and They Said So have no counts or dates). */
const SORT_FIELDS: Record<SortField, string[]> = {
	name: ['name'],
	quoteCount: ['quoteCount', 'quotesCount'],
	dateAdded: ['dateAdded', 'createdAt'],
	dateModified: ['dateModified', 'updatedAt'],
};

/** Keys under which the services wrap their list (They Said So: contents.categories) */
const ENVELOPES = ['results', 'tags', 'categories', 'data', 'contents'];

/** Keys of an error body, never taken for a map of tag names */
const ERROR_KEYS = ['error', 'message', 'status', 'statusMessage'];

/**
 * GET {Quotes URL}/tags per item, filtered, sorted and cut by the node: services' sort parameters disagree (Quotable:
 * sortBy=quoteCount; its rewrite: quotesCount; QuoteSlate: none). A sort sends no `limit`: a list cut first loses tags.
 */
export function quoteTagsOperation(
	ctx: IExecuteFunctions,
	client: TriptychClient,
): ItemOperation<ReturnType<typeof readSearch>> {
	const tally: Partial<Record<SortField, { sorted: number; lacking: number }>> = {};
	return {
		read: (i) => readSearch(ctx, i),

		async run({ qs, q, limit, sort, settings }, i): Promise<INodeExecutionData[]> {
			const { data } = await client.request(
				{ service: 'quotes', method: 'GET', path: '/tags', qs, repeatable: true },
				settings,
				i,
			);
			let tags = tagList(data);
			if (!tags)
				throw new NodeApiError(ctx.getNode(), { message: 'unexpected shape' } as JsonObject, {
					message: `The quotes service answered with ${describeValue(data ?? undefined)} where a list of tags was expected`,
					description:
						'Expected a JSON list of tags (objects or names), an object of names and descriptions, or one of those under "results", "tags", "categories", "data" or "contents". Check the Quotes URL.',
					itemIndex: i,
				});
			// Most services ignore q: the node keeps the tags whose name or slug has the search text
			if (q)
				tags = tags.filter((tag) =>
					[tag.name, tag.slug].some((v) => typeof v === 'string' && words(v).includes(q)),
				);
			if (sort) {
				const count = (tally[sort.by] ??= { sorted: 0, lacking: 0 });
				count.lacking += sortTags(tags, sort.by, sort.order);
				count.sorted += tags.length;
			}
			return tags.slice(0, limit).map((json) => ({ json }));
		},

		hints() {
			const lines = (Object.keys(tally) as SortField[]).flatMap((by) => {
				const { sorted, lacking } = tally[by]!;
				if (!lacking) return [];
				const fields = SORT_FIELDS[by].map((f) => `"${f}"`).join(' or ');
				const label = SORT_BY.options.find((o) => o.value === by)!.name.toLowerCase();
				return lacking === sorted
					? `None of the ${sorted} tags has a ${label} (${fields}): this quotes service does not give one, so the tags keep its order.`
					: `${lacking} of ${sorted} tags have no ${label} (${fields}): they come last.`;
			});
			return lines.length ? [lines.join(' ')] : [];
		},
	};
}

function readSearch(ctx: IExecuteFunctions, i: number) {
	const q = toText(ctx, ctx.getNodeParameter('q', i, ''), 'Search', i);
	const limit = getLimit(ctx, i);
	const options = getOptions(ctx, i);
	const by = readChoice(ctx, options.sortBy, SORT_BY, i);
	const given = options.order === undefined ? (by === 'name' ? 'asc' : 'desc') : options.order;
	const order = readChoice(ctx, given, ORDER, i);
	const sort =
		options.sortBy !== undefined || options.order !== undefined ? { by, order } : undefined;
	const qs: IDataObject = {};
	if (q) qs.q = q;
	if (limit !== undefined && !sort) qs.limit = limit;
	return { qs, q: words(q), limit, sort, settings: getRequestSettings(ctx, i, options) };
}

/** Sorts in place, stably, tags without the field last (in the order they came); returns how many lacked it. */
export function sortTags(tags: IDataObject[], by: SortField, order: 'asc' | 'desc'): number {
	const key = (tag: IDataObject): number | string | undefined => {
		const value = SORT_FIELDS[by].map((field) => tag[field]).find(present);
		if (!present(value)) return undefined;
		const text = plainText(value);
		if (by === 'quoteCount') return Number(text);
		if (by === 'name') return text.toLowerCase();
		const time = Date.parse(text);
		return Number.isNaN(time) ? text : time;
	};
	const sign = order === 'asc' ? 1 : -1;
	const keyed = tags.map((tag) => ({ tag, key: key(tag) }));
	// Array.prototype.sort is stable: a 0 keeps the order the tags came in
	keyed.sort((a, b) => {
		if (a.key === undefined || b.key === undefined)
			return Number(a.key === undefined) - Number(b.key === undefined);
		return a.key < b.key ? -sign : a.key > b.key ? sign : 0;
	});
	keyed.forEach((entry, n) => (tags[n] = entry.tag));
	return keyed.filter((entry) => entry.key === undefined).length;
}

/** Lower-case words without accents: "Famous Quotes", "famous-quotes" and "famousQuotes" all become "famous quotes". */
const words = (text: string): string =>
	text
		.replace(/([a-z0-9])([A-Z])/g, '$1 $2')
		.normalize('NFKD')
		.replace(/[\u0300-\u036f]/g, '')
		.toLowerCase()
		.replace(/[^\p{L}\p{N}]+/gu, ' ')
		.trim();

/** One object per tag, from a list of objects or names, a map of names to descriptions, or either in an envelope. */
export function tagList(data: unknown, depth = 0): IDataObject[] | undefined {
	if (Array.isArray(data))
		return data.filter(present).map((tag) => (isPlainObject(tag) ? tag : { name: plainText(tag) }));
	if (!isPlainObject(data)) return undefined;
	const entries = Object.entries(data);
	const named =
		entries.length > 0 &&
		entries.every(([key, value]) => typeof value === 'string' && !ERROR_KEYS.includes(key));
	if (named) return entries.map(([name, description]) => ({ name, description }));
	if (depth >= 2) return undefined;
	return ENVELOPES.map((key) => tagList(data[key], depth + 1)).find(Boolean);
}
