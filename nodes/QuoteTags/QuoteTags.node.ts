import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeConnectionTypes } from 'n8n-workflow';

import { checkItems, forEachItem } from '../shared/execute';
import { TriptychClient } from '../shared/transport';
import { fieldError, getLimit, getRequestSettings, toText } from '../shared/validation';
import { quoteTagsProperties } from './description';

export class QuoteTags implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Quote Tags',
		name: 'quoteTags',
		icon: { light: 'file:quoteTags.svg', dark: 'file:quoteTags.dark.svg' },
		group: ['input'],
		version: 1,
		subtitle: '={{$parameter["q"] ? "Search: " + $parameter["q"] : "All tags"}}',
		description:
			'List the tags (categories) that classify quotations, with their quote counts, optionally filtered by a search text',
		defaults: { name: 'Quote Tags' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'triptychApi', required: true }],
		properties: quoteTagsProperties,
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const client = new TriptychClient(this);
		const searches = checkItems(this, (i) => readSearch(this, i));
		return await forEachItem(this, async (i) => {
			const search = searches[i];
			if (search instanceof Error) throw search;
			const response = await client.request(
				{ service: 'quotes', method: 'GET', path: '/tags', qs: search.qs, repeatable: true },
				search.settings,
				i,
			);
			const tags = tagList(response.data);
			if (!tags) {
				throw new NodeApiError(this.getNode(), { message: 'unexpected shape' } as JsonObject, {
					message: `The quotes service answered with ${describeShape(response.data)} where a list of tags was expected [item ${i}]`,
					description:
						'Expected a JSON array of tags, {"results": [...]}, or an envelope whose data is one of those. Check the Quotes URL.',
					itemIndex: i,
				});
			}
			// The service may ignore "limit" (the best-known one does): the node still returns at most Limit tags.
			const kept = search.limit === undefined ? tags : tags.slice(0, search.limit);
			return kept.map((tag) => ({
				json:
					typeof tag === 'object' && tag !== null ? (tag as IDataObject) : { name: tag as string },
				pairedItem: { item: i },
			}));
		});
	}
}

const SORT_FIELDS = ['name', 'quoteCount', 'dateAdded', 'dateModified'];
const SORT_ORDERS = ['asc', 'desc'];

/** One item's fields, checked, as the query to send. */
function readSearch(ctx: IExecuteFunctions, i: number) {
	const q = toText(ctx, ctx.getNodeParameter('q', i, ''), 'Search', i);
	const limit = getLimit(ctx, i);
	const settings = getRequestSettings(ctx, i);
	const options = ctx.getNodeParameter('options', i, {}) as IDataObject;
	const qs: IDataObject = {};
	if (q) qs.q = q;
	if (limit !== undefined) qs.limit = limit;
	if (options.sortBy !== undefined)
		qs.sortBy = oneOf(ctx, options.sortBy, SORT_FIELDS, 'Sort By', i);
	if (options.order !== undefined)
		qs.order = oneOf(ctx, options.order, SORT_ORDERS, 'Sort Order', i);
	return { qs, limit, settings };
}

function oneOf(
	ctx: IExecuteFunctions,
	value: unknown,
	allowed: string[],
	field: string,
	i: number,
) {
	if (typeof value === 'string' && allowed.includes(value)) return value;
	throw fieldError(
		ctx,
		`"${field}"`,
		i,
		`must be one of ${allowed.join(', ')}, not ${JSON.stringify(value)}`,
	);
}

function tagList(data: unknown): unknown[] | undefined {
	if (Array.isArray(data)) return data;
	if (typeof data === 'object' && data !== null) {
		for (const key of ['results', 'tags', 'data']) {
			const inner = (data as IDataObject)[key];
			if (Array.isArray(inner)) return inner;
		}
	}
	return undefined;
}

function describeShape(data: unknown): string {
	if (data === undefined || data === null) return 'an empty body';
	if (typeof data !== 'object') return `a ${typeof data}`;
	return `an object with the keys ${Object.keys(data).slice(0, 6).join(', ') || '(none)'}`;
}
