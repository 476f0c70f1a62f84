import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { ItemOperation } from '../shared/items';
import type { StyleEntry, TriptychClient } from '../shared/transport';
import { isTool } from '../shared/validation';
import { getObject } from './actions/get';
import { searchObjects } from './actions/search';
import { attachImages } from './images';
import { imageOf } from './imageSize';
import { type Found, type Plan, readPlan } from './plan';
import { pick, simplify } from './records';

/** What the run learned, said once at its end in the output pane. */
interface RunNotes {
	/** Searches cut short by Max Pages: objects left in all, and the Max Pages of the first */
	cut: { searches: number; left: number; maxPages: number };
	images: { used: number; omitted: number; max: number };
}

/** The Museum Object Search router: one input item's operation (Search or Get), then its images. */
export interface MuseumOperation extends ItemOperation<Plan> {
	/** Execution hints for what the whole run learned (call once, after every item) */
	finish(): void;
}

export function museumOperation(
	ctx: IExecuteFunctions,
	client: TriptychClient,
	continueOnFail: boolean,
): MuseumOperation {
	const asTool = isTool(ctx);
	const notes: RunNotes = {
		cut: { searches: 0, left: 0, maxPages: 0 },
		images: { used: 0, omitted: 0, max: 0 },
	};
	let style: StyleEntry | undefined;
	return {
		read: (i) => readPlan(ctx, i, asTool),
		async run(plan, i) {
			style ??= await client.styleEntry('museum');
			const convert =
				plan.output === 'simplified'
					? simplify
					: plan.output === 'raw'
						? (record: IDataObject) => record
						: (record: IDataObject) => pick(record, plan.selected!);
			const width = plan.images?.width;
			const map = (record: IDataObject): Found => ({
				item: { json: convert(record) },
				image: plan.images ? imageOf(record, width, style!) : undefined,
			});
			let found: Found[];
			if (plan.operation === 'get') {
				found = await getObject(ctx, client, plan, map, i);
			} else {
				const result = await searchObjects(ctx, client, plan, style, map, i);
				found = result.found;
				if (result.left !== undefined) {
					notes.cut.searches++;
					notes.cut.left += result.left;
					notes.cut.maxPages ||= plan.search!.maxPages;
				}
			}
			const items = found.map((entry) => entry.item);
			if (plan.images) {
				notes.images.max = plan.images.maxImages;
				const images = found.map((entry) => entry.image);
				await attachImages(
					ctx,
					client,
					plan.images,
					plan.settings,
					items,
					images,
					i,
					notes.images,
					continueOnFail,
				);
			}
			return items;
		},
		finish: () => addHints(ctx, notes),
	};
}

function addHints(ctx: IExecuteFunctions, { cut, images }: RunNotes): void {
	// n8n 1.x before execution hints: nothing to add them to
	if (typeof ctx.addExecutionHints !== 'function') return;
	const hints: string[] = [];
	if (cut.searches) {
		const which = cut.searches === 1 ? 'A search' : `${cut.searches} searches`;
		hints.push(
			`${which} reached Max Pages (${cut.maxPages}) before Limit: ${cut.left} more matching object${cut.left === 1 ? ' was' : 's were'} not returned. Raise "Max Pages" in the options to get them.`,
		);
	}
	if (images.omitted) {
		hints.push(
			`Max Images (${images.max}) was reached: ${images.omitted} object${images.omitted === 1 ? '' : 's'} got no image. Raise "Max Images" to download more.`,
		);
	}
	if (hints.length) {
		ctx.addExecutionHints(
			...hints.map((message) => ({ message, location: 'outputPane' as const })),
		);
	}
}
