import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { getOptions, readChoice } from '../shared/fields';
import { addHint, type ItemOperation } from '../shared/items';
import { getRequestSettings } from '../shared/options';
import type { RequestSettings, StyleEntry, TriptychClient } from '../shared/transport';
import { fieldError, isTool, show, toList } from '../shared/validation';
import { getObject, readObjectId } from './actions/get';
import { type SearchPlan, readSearchPlan, searchObjects } from './actions/search';
import { COMMON_FIELDS, OPERATION, OUTPUT, type Operation } from './description';
import { attachImages } from './images';
import { type ImageRef, type ImagesPlan, imageOf, readImages } from './imageSize';
import { pick, simplify } from './records';

/** Everything one input item asks for, checked before any request is sent. */
export interface Plan {
	operation: Operation;
	search?: SearchPlan;
	objectId?: string;
	/** A record as Output says */
	convert: (record: IDataObject) => IDataObject;
	/** Download Images, when on (never as a tool: an AI agent cannot pass binary data on) */
	images?: ImagesPlan;
	settings: RequestSettings;
}

/** One object as output: its item, and its image to download. */
export interface Found {
	item: INodeExecutionData;
	image?: ImageRef;
}

/** What an operation found and, when Max Pages cut a Limit short, how many more objects matched. */
export interface Result {
	found: Found[];
	left?: number;
}

/** The router: one input item's operation (Search or Get), then its images; `finish` adds the run's hints. */
export interface MuseumOperation extends ItemOperation<Plan> {
	finish(): void;
}

/** Output: the whole record, the simplified one, or Selected Fields (the record's ID first, always). */
function readOutput(ctx: IExecuteFunctions, i: number): Plan['convert'] {
	const param = (name: string, fallback: unknown) =>
		ctx.getNodeParameter(name, i, fallback as string) as unknown;
	const output = readChoice(ctx, param(OUTPUT.name, OUTPUT.default), OUTPUT, i);
	if (output !== 'selected') return output === 'raw' ? (record) => record : simplify;
	const chosen = param('selectedFieldList', []);
	const list = (Array.isArray(chosen) ? chosen : [chosen]) as string[];
	const wrong = list.findIndex((name) => !COMMON_FIELDS.includes(name));
	if (wrong >= 0) {
		throw fieldError(
			ctx,
			'"Selected Fields"',
			i,
			`has ${show(list[wrong])}, which is not one of ${COMMON_FIELDS.join(', ')}`,
			'Put other record fields in Other Fields.',
		);
	}
	const names = [...list, ...toList(ctx, param('otherFields', ''), 'Other Fields', i)];
	if (!names.length) {
		throw fieldError(
			ctx,
			'"Selected Fields"',
			i,
			'is empty while Output is Selected Fields',
			'List the record fields to keep, e.g. objectid, title, people, or choose another Output.',
		);
	}
	const selected = [...new Set(['objectid', ...names])].map((name) => ({
		name,
		path: name.split('.'),
	}));
	return (record) => pick(record, selected);
}

export function museumOperation(ctx: IExecuteFunctions, client: TriptychClient): MuseumOperation {
	const asTool = isTool(ctx);
	/** Searches cut short by Max Pages: objects left in all, and the Max Pages of the first */
	const cut = { searches: 0, left: 0, maxPages: 0 };
	const budget = { used: 0, omitted: 0, max: 0 };
	let style: StyleEntry | undefined;
	return {
		read(i) {
			const operation = readChoice(
				ctx,
				ctx.getNodeParameter('operation', i, 'search'),
				OPERATION,
				i,
			);
			const options = getOptions(ctx, i);
			const settings = getRequestSettings(ctx, i, options);
			const convert = readOutput(ctx, i);
			const images =
				!asTool && ctx.getNodeParameter('downloadImages', i, false) === true
					? readImages(ctx, i)
					: undefined;
			return {
				operation,
				...(operation === 'get'
					? { objectId: readObjectId(ctx, i, asTool) }
					: { search: readSearchPlan(ctx, i, options, asTool) }),
				convert,
				images,
				settings,
			};
		},
		async run(plan, i) {
			style ??= await client.styleEntry('museum');
			const map = (record: IDataObject): Found => ({
				item: { json: plan.convert(record) },
				image: plan.images ? imageOf(record, plan.images.width, style!) : undefined,
			});
			const { found, left } =
				plan.operation === 'get'
					? await getObject(ctx, client, plan, map, i)
					: await searchObjects(ctx, client, plan, style, map, i);
			if (left !== undefined) {
				cut.searches++;
				cut.left += left;
				cut.maxPages ||= plan.search!.maxPages;
			}
			if (!plan.images) return found.map(({ item }) => item);
			budget.max = plan.images.maxImages;
			return await attachImages(ctx, client, plan.images, plan.settings, found, i, budget);
		},
		finish() {
			if (cut.searches) {
				const which = cut.searches === 1 ? 'A search' : `${cut.searches} searches`;
				addHint(
					ctx,
					`${which} reached Max Pages (${cut.maxPages}) before Limit: ${cut.left} more matching object${cut.left === 1 ? ' was' : 's were'} not returned. Raise "Max Pages" in the options to get them.`,
				);
			}
			if (budget.omitted) {
				addHint(
					ctx,
					`Max Images (${budget.max}) was reached: ${budget.omitted} object${budget.omitted === 1 ? '' : 's'} got no image. Raise "Max Images" to download more.`,
				);
			}
		},
	};
}
