import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { checkItems, forEachItem } from '../shared/execute';
import type { ApiResponse } from '../shared/transport';
import { TriptychClient } from '../shared/transport';
import { getRequestSettings, toInteger } from '../shared/validation';
import { BatchWindows } from './batching';
import { triggerCallProperties } from './description';
import { KEY_EXAMPLE, buildRequest } from './request';

const MAX_CONCURRENCY = 32;

/** Shown when a call that may have fired is not retried (it carries no Idempotency Key). */
const NO_RETRY_ADVICE =
	'The node did not retry: without an Idempotency Key the service cannot tell a retry from a new call, and a ' +
	'retry could fire the automation twice. To make retries safe, set Options > Idempotency Key to a value unique ' +
	`per item, e.g. ${KEY_EXAMPLE} (the service must honour the Idempotency-Key header).`;

/**
 * Fires an automation: POST {Trigger URL}/trigger/{Event} with a JSON body, once per input item. An action,
 * not a trigger node (the name must not end in "Trigger" and the group is "output").
 */
export class TriggerCall implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Trigger Call',
		name: 'triggerCall',
		icon: { light: 'file:triggerCall.svg', dark: 'file:triggerCall.dark.svg' },
		group: ['output'],
		version: 1,
		subtitle: '={{$parameter["event"] ? "Fire: " + $parameter["event"] : "POST /trigger/"}}',
		description: 'Fire an automation trigger with an event name and a JSON payload',
		defaults: { name: 'Trigger Call' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'triptychApi', required: true }],
		properties: triggerCallProperties,
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const options = this.getNodeParameter('options', 0, {}) as IDataObject;
		const concurrency = toInteger(
			this,
			options.concurrency ?? 1,
			'Concurrency',
			0,
			1,
			MAX_CONCURRENCY,
		);
		const batchSize = toInteger(this, options.batchSize ?? 50, 'Items per Batch', 0, 1);
		const batchInterval =
			options.batchSize === undefined && options.batchInterval === undefined
				? 0
				: toInteger(this, options.batchInterval ?? 1000, 'Batch Interval (Ms)', 0, 0);

		const prepared = checkItems(this, (i) => ({
			request: buildRequest(this, i),
			settings: getRequestSettings(this, i),
		}));

		const client = new TriptychClient(this);
		const windows = new BatchWindows(items.length, batchSize, batchInterval);
		let stopped = false;
		return await forEachItem(
			this,
			async (i) => {
				await windows.enter(i);
				let succeeded = false;
				try {
					if (stopped) {
						const message = `Not sent: an earlier item failed [item ${i}]`;
						throw new NodeOperationError(this.getNode(), message, { itemIndex: i });
					}
					const entry = prepared[i];
					if (entry instanceof Error) throw entry;
					const { request, settings } = entry;
					const response = await client.request(
						{
							service: 'trigger',
							method: 'POST',
							path: request.path,
							qs: request.qs,
							// a string for "{}": n8n would drop an empty object and send no body at all
							body: request.body as IDataObject,
							headers: request.headers,
							repeatable: request.idempotencyKey !== undefined,
							noRetryAdvice: NO_RETRY_ADVICE,
						},
						settings,
						i,
					);
					succeeded = true;
					return [{ json: toOutput(response), pairedItem: { item: i } }];
				} finally {
					// after a failure that stops the node, items still waiting for their turn are not sent
					if (!succeeded && !this.continueOnFail()) stopped = true;
					windows.leave(i);
				}
			},
			concurrency,
		);
	}
}

/** The envelope's `data` (its fields, when it is an object) and `message`. */
function toOutput(response: ApiResponse): IDataObject {
	const { data, message } = response;
	const json: IDataObject =
		typeof data === 'object' && data !== null && !Array.isArray(data)
			? { ...(data as IDataObject) }
			: { data: data === undefined ? null : (data as IDataObject[string]) };
	if (message !== undefined && !Object.prototype.hasOwnProperty.call(json, 'message'))
		json.message = message;
	return json;
}
