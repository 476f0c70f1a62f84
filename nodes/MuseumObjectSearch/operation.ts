import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { getOptions, readChoice, isTool } from '../shared/fields';
import type { ItemOperation } from '../shared/items';
import { getRequestSettings } from '../shared/options';
import type { StyleEntry, TriptychClient } from '../shared/transport';
import { getObject, readObjectId } from './actions/get';
import { readSearchPlan, searchObjects } from './actions/search';
import { OPERATION } from './description';
import { attachImages, imageOf, readImages } from './images';
import { readOutput } from './records';
import type { Found } from './types';

/** Everything one input item asks for, checked before any request is sent. */
function readPlan(ctx: IExecuteFunctions, i: number, asTool: boolean) {
	const operation = readChoice(ctx, ctx.getNodeParameter('operation', i, 'search'), OPERATION, i);
	const options = getOptions(ctx, i);
	const settings = getRequestSettings(ctx, i, options);
	const convert = readOutput(ctx, i);
	// As an AI agent's tool the node returns small JSON only: no binary data (tools cannot pass it on).
	const download = !asTool && ctx.getNodeParameter('downloadImages', i, false) === true;
	const plan = { convert, images: download ? readImages(ctx, i) : undefined, settings };
	return operation === 'get'
		? { ...plan, objectId: readObjectId(ctx, i, asTool) }
		: { ...plan, search: readSearchPlan(ctx, i, options, asTool) };
}

/** The router: one input item's operation (Search or Get), then its images; `hints`: the run's. */
export function museumOperation(
	ctx: IExecuteFunctions,
	client: TriptychClient,
): ItemOperation<ReturnType<typeof readPlan>> {
	const asTool = isTool(ctx);
	/** Searches cut short by Max Pages, for the run's hint */
	const cut = { searches: 0, left: 0, maxPages: 0 };
	const budget = { used: 0, omitted: 0, max: 0 };
	let style: StyleEntry | undefined;
	return {
		read: (i) => readPlan(ctx, i, asTool),
		async run(plan, i) {
			style ??= await client.styleEntry('museum');
			const { images, settings } = plan;
			const map = (record: IDataObject): Found => ({
				item: { json: plan.convert(record) },
				image: images ? imageOf(record, images.width, style!) : undefined,
			});
			const call = { ctx, client, settings, style, map, i };
			const found =
				'search' in plan
					? await searchObjects(call, plan.search, cut)
					: await getObject(call, plan.objectId);
			if (!images) return found.map(({ item }) => item);
			budget.max = images.maxImages;
			return await attachImages(call, images, found, budget);
		},
		hints() {
			const hints: string[] = [];
			if (cut.searches) {
				const which = cut.searches === 1 ? 'A search' : `${cut.searches} searches`;
				hints.push(
					`${which} reached Max Pages (${cut.maxPages}) before Limit: ${cut.left} more matching object${cut.left === 1 ? ' was' : 's were'} not returned. Raise "Max Pages" in the options to get them.`,
				);
			}
			if (budget.omitted)
				hints.push(
					`Max Images (${budget.max}) was reached: ${budget.omitted} object${budget.omitted === 1 ? '' : 's'} got no image. Raise "Max Images" to download more.`,
				);
			return hints;
		},
	};
}
