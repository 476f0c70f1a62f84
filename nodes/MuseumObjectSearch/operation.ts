import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { getOptions, isTool, readChoice } from '../shared/fields';
import type { ItemOperation } from '../shared/items';
import { getRequestSettings } from '../shared/options';
import type { StyleEntry } from '../shared/services';
import type { TriptychClient } from '../shared/transport';
import { checkObjectId, getObject, readObjectId } from './actions/get';
import { newCut, readSearchPlan, searchObjects, searchQuery } from './actions/search';
import { OPERATION } from './description';
import { attachImages, readImages } from './images';
import { museumOf } from './museums';
import { readOutput, recordKey } from './records';
import type { Found } from './types';

/** Everything one input item asks for, checked before any request is sent. */
function readPlan(ctx: IExecuteFunctions, i: number, asTool: boolean) {
	const operation = readChoice(ctx, ctx.getNodeParameter('operation', i, 'search'), OPERATION, i);
	const settings = getRequestSettings(ctx, i, getOptions(ctx, i));
	const convert = readOutput(ctx, i);
	// As an AI agent's tool the node returns small JSON only: no binary data (tools cannot pass it on).
	const download = !asTool && ctx.getNodeParameter('downloadImages', i, false) === true;
	const plan = { convert, images: download ? readImages(ctx, i) : undefined, settings };
	return operation === 'get'
		? { ...plan, objectId: readObjectId(ctx, i, asTool) }
		: { ...plan, search: readSearchPlan(ctx, i, asTool) };
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The router: one input item's operation (Search or Get), then its images; `hints`: the run's. */
export function museumOperation(
	ctx: IExecuteFunctions,
	client: TriptychClient,
): ItemOperation<ReturnType<typeof readPlan>> {
	const asTool = isTool(ctx);
	const cut = newCut();
	const budget = { used: 0, omitted: 0, max: 0, refused: 0, missing: 0 };
	/** Each search's query, in the museum's terms: worked out (or refused) before any request */
	const queries = new Map<number, IDataObject>();
	let style: StyleEntry;
	return {
		read: (i) => readPlan(ctx, i, asTool),
		async prepare(plans) {
			style = await client.styleEntry('museum');
			const refused: Array<Error | undefined> = [];
			for (const [i, plan] of plans.entries()) {
				if (plan instanceof Error) continue;
				try {
					if ('search' in plan) queries.set(i, searchQuery(ctx, plan.search, style, i));
					else checkObjectId(ctx, plan.objectId, style, i);
				} catch (error) {
					refused[i] = error as Error;
				}
			}
			return refused;
		},
		async run(plan, i) {
			const museum = museumOf(style);
			const { images, settings } = plan;
			const map = (record: IDataObject, context?: IDataObject): Found => {
				const image = images && museum.image(record, images.width, style, context);
				return {
					item: { json: plan.convert(record, (r) => museum.simplify(r, context)) },
					image: image ? { ...image, objectId: recordKey(record) } : undefined,
				};
			};
			const call = { ctx, client, settings, style, map, i };
			const found =
				'search' in plan
					? await searchObjects(call, plan.search, queries.get(i)!, cut)
					: await getObject(call, plan.objectId);
			if (!images) return found.map(({ item }) => item);
			budget.max = images.maxImages;
			return await attachImages(call, images, found, budget);
		},
		hints() {
			const which = (n: number) => (n === 1 ? 'A search' : `${n} searches`);
			const more = (n: number) =>
				`${plural(n, 'more matching object was', 'more matching objects were')} not returned`;
			const lost = (n: number) =>
				`${n === 1 ? 'that object has' : 'those objects have'} no binary data; the other objects are complete.`;
			const { pages, results } = cut;
			return [
				pages.searches &&
					`${which(pages.searches)} reached Max Pages (${pages.max}) before Limit: ${more(pages.left)}. Raise "Max Pages" in the options to get them.`,
				results.searches &&
					`${which(results.searches)} reached the first ${results.max.toLocaleString('en-US')} results, the most the ${style.name} answers for a search: ${more(results.left)}. Narrow the search with filters to reach them.`,
				budget.omitted &&
					`Max Images (${budget.max}) was reached: ${plural(budget.omitted, 'object')} got no image. Raise "Max Images" to download more.`,
				budget.refused &&
					`The image host refused ${plural(budget.refused, 'download')} (HTTP 403): ${lost(budget.refused)}`,
				budget.missing &&
					`The image host had no image at ${plural(budget.missing, 'address', 'addresses')} (HTTP 404 or 410): ${lost(budget.missing)}`,
			].filter((hint) => typeof hint === 'string');
		},
	};
}
