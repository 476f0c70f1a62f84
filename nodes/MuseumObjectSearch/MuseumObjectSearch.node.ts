import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { checkItems, forEachItem } from '../shared/execute';
import { fetchAllPages } from '../shared/paging';
import { TriptychClient } from '../shared/transport';
import { museumObjectSearchProperties } from './description';
import { downloadImage } from './images';
import { readPlan, type SearchPlan } from './plan';
import { imageUrlOf, isRecord, pick, readPage, recordKey, simplify } from './records';

/** The largest page the service hands out (Harvard-style services cap `size`/`limit` at 100). */
const MAX_PAGE_SIZE = 100;
/** Images downloaded at the same time. */
const IMAGE_CONCURRENCY = 4;

export class MuseumObjectSearch implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Museum Object Search',
		name: 'museumObjectSearch',
		icon: { light: 'file:museum.svg', dark: 'file:museum.dark.svg' },
		group: ['input'],
		version: 1,
		subtitle: '={{$parameter["q"] ? "Search: " + $parameter["q"] : "All objects"}}',
		description: "Search a museum's artworks by text, artist, classification, period or color",
		defaults: { name: 'Museum Object Search' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'triptychApi', required: true }],
		properties: museumObjectSearchProperties,
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const client = new TriptychClient(this);
		// As an AI agent's tool the node returns small JSON only: no binary data (tools cannot pass it on).
		const asTool = /Tool$/.test(this.getNode().type);

		const plans = checkItems(this, (i) => readPlan(this, i, asTool));

		const imageBudget = { used: 0 };
		return await forEachItem(this, async (i) => {
			const plan = plans[i];
			if (plan instanceof Error) throw plan;
			const { items, images } = await search(this, client, plan, i);
			if (images) await attachImages(this, client, plan, items, images, i, imageBudget);
			return items;
		});
	}
}

/** A record's primary image and its id (Download Images). */
interface ImageRef {
	url: string;
	objectId: unknown;
}

/** One item's search: all its pages, each record turned into its output as soon as its page arrives. */
async function search(
	ctx: IExecuteFunctions,
	client: TriptychClient,
	plan: SearchPlan,
	i: number,
): Promise<{ items: INodeExecutionData[]; images?: Array<ImageRef | undefined> }> {
	const node = ctx.getNode();
	const convert =
		plan.output === 'simplified'
			? simplify
			: plan.output === 'raw'
				? (record: IDataObject) => record
				: (record: IDataObject) => pick(record, plan.selected!);
	// Only with Download Images: each output item's image, by position (nothing is kept per record otherwise)
	const images: Array<ImageRef | undefined> | undefined = plan.images ? [] : undefined;
	const pairedItem = { item: i };

	const result = await fetchAllPages<unknown, INodeExecutionData>({
		limit: plan.limit,
		maxPageSize: MAX_PAGE_SIZE,
		startPage: plan.startPage,
		maxPages: plan.maxPages,
		// The service may hand out overlapping pages (a record added or removed while paging shifts them):
		// a record already output from an earlier page is dropped, by its objectid.
		key: recordKey,
		fetchPage: async ({ page, size, url }) => {
			const response = await client.request(
				url
					? { service: 'museum', method: 'GET', url, repeatable: true }
					: {
							service: 'museum',
							method: 'GET',
							path: '/object',
							qs: { ...plan.qs, limit: size, page },
							repeatable: true,
						},
				plan.settings,
				i,
			);
			const answer = readPage(response.data);
			if (typeof answer === 'string') {
				throw new NodeApiError(node, { message: 'unexpected body shape' } as JsonObject, {
					message: `The museum service answered with ${answer} where a list of object records was expected [item ${i}]`,
					description:
						'Expected {"status": "success", "data": {"info": {...}, "records": [...]}}, "data" as a list of records, or a bare list. Check the Museum URL in the Triptych API credentials.',
					itemIndex: i,
				});
			}
			return answer;
		},
		map: (record, index) => {
			if (!isRecord(record)) {
				throw new NodeApiError(node, { message: 'record is not an object' } as JsonObject, {
					message: `The museum service sent result ${index + 1} as ${Array.isArray(record) ? 'a list' : record === null ? 'null' : `a ${typeof record}`} instead of an object [item ${i}]`,
					description:
						'Check the Museum URL in the Triptych API credentials: it must point at the object search API.',
					itemIndex: i,
				});
			}
			if (images) {
				const url = imageUrlOf(record);
				images.push(url ? { url, objectId: recordKey(record) } : undefined);
			}
			return { json: convert(record), pairedItem };
		},
		tooManyPages: (maxPages, kept) =>
			new NodeOperationError(
				node,
				`The search needs more than ${maxPages} pages (Max Pages): the museum service still had more results after ${kept} records [item ${i}]`,
				{
					itemIndex: i,
					description:
						'Nothing was returned rather than part of the results. Raise "Max Pages" in the options, narrow the search with filters, or turn off Return All and set a Limit.',
				},
			),
	});
	ctx.logger.debug(
		`Triptych: museum search of item ${i} fetched ${result.requests} page${result.requests === 1 ? '' : 's'} and ${result.items.length} records${result.duplicates ? `, dropped ${result.duplicates} repeated on later pages` : ''}`,
		{ itemIndex: i, pages: result.requests, duplicates: result.duplicates },
	);
	return { items: result.items, images };
}

/**
 * Download Images: each object's primary image becomes binary data, without the API key, up to Max Images per
 * run. Past the cap an object keeps its data, without binary, and says so in `binaryOmitted`. A failed download
 * fails the run, or with Continue On Fail turns that object's item into an error item.
 */
async function attachImages(
	ctx: IExecuteFunctions,
	client: TriptychClient,
	plan: SearchPlan,
	items: INodeExecutionData[],
	images: Array<ImageRef | undefined>,
	i: number,
	budget: { used: number },
): Promise<void> {
	const { property, maxImages } = plan.images!;
	const jobs: number[] = [];
	images.forEach((image, n) => {
		if (!image) return;
		if (budget.used >= maxImages) {
			items[n] = {
				json: {
					...items[n].json,
					binaryOmitted: `Max Images (${maxImages}) was reached in this run: the image was not downloaded`,
				},
				pairedItem: { item: i },
			};
			return;
		}
		budget.used++;
		jobs.push(n);
	});

	let next = 0;
	let stop: Error | undefined;
	const worker = async () => {
		while (stop === undefined && next < jobs.length) {
			const n = jobs[next++];
			const { url, objectId } = images[n]!;
			try {
				const binary = await downloadImage(ctx, client, url, objectId, plan.settings, i);
				items[n] = { json: items[n].json, binary: { [property]: binary }, pairedItem: { item: i } };
			} catch (error) {
				if (!ctx.continueOnFail()) {
					stop ??= error as Error;
					continue;
				}
				const e = error as NodeApiError;
				items[n] = {
					json: {
						error: e.message,
						...(e.description ? { description: e.description } : {}),
						...(e.httpCode ? { httpCode: e.httpCode } : {}),
						objectId: (objectId ?? null) as IDataObject[string],
						imageUrl: url,
					},
					pairedItem: { item: i },
				};
			}
		}
	};
	await Promise.all(Array.from({ length: Math.min(IMAGE_CONCURRENCY, jobs.length) }, worker));
	if (stop) throw stop;
}
