import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { getOptions, readNumber } from '../shared/fields';
import type { ItemOperation } from '../shared/items';
import { getRequestSettings } from '../shared/options';
import { isPlainObject } from '../shared/validation';
import type { ApiResponse, RequestSettings, TriptychClient } from '../shared/transport';
import { BatchWindows } from './batching';
import { BATCH_INTERVAL, BATCH_SIZE } from './description';
import {
	KEY_EXAMPLE,
	type TriggerRequest,
	buildRequest,
	eventRequired,
	wireRequest,
} from './request';

/** Shown when a call that may have fired is not retried (it carries no Idempotency Key). */
const NO_RETRY_ADVICE =
	'The node did not retry: without an Idempotency Key the service cannot tell a retry from a new call, and a ' +
	'retry could fire the automation twice. To make retries safe, set Options > Idempotency Key Mode to Automatic, ' +
	`or give a key unique per item, e.g. ${KEY_EXAMPLE} (the service must honour the Idempotency-Key header).`;

/** Batching windows of a run, from the first item's options (as n8n's HTTP Request node reads them). */
export function batchWindows(ctx: IExecuteFunctions): BatchWindows {
	const options = getOptions(ctx, 0);
	const size = readNumber(ctx, options, BATCH_SIZE, 0);
	const interval =
		options.batchSize === undefined && options.batchInterval === undefined
			? 0
			: readNumber(ctx, options, BATCH_INTERVAL, 0);
	return new BatchWindows(ctx.getInputData().length, size, interval);
}

/**
 * Fire Automation: POST {Trigger URL}/trigger/{Event} per item (IFTTT Webhooks: its classic or JSON route). A call
 * without an Idempotency Key is repeatable only where it surely did not arrive (the transport's rule). Batching
 * windows hold items back as the HTTP Request node's do; within a window the client's gate paces the calls.
 */
export function fireAutomationOperation(
	ctx: IExecuteFunctions,
	client: TriptychClient,
	windows: BatchWindows,
): ItemOperation<{ request: TriggerRequest; settings: RequestSettings }> {
	const requests: TriggerRequest[] = [];
	let ifttt: Promise<boolean> | undefined;
	return {
		read: (i) => {
			const options = getOptions(ctx, i);
			requests[i] = buildRequest(ctx, i, options);
			return { request: requests[i], settings: getRequestSettings(ctx, i, options) };
		},

		async run({ request, settings }, i): Promise<INodeExecutionData[]> {
			ifttt ??= client.style('trigger').then((style) => style === 'iftttWebhooks');
			if (await ifttt) {
				// The style is known only once the credential is read: the Event is checked then, still before any
				// call (without Continue On Fail one missing Event stops them all, as any wrong field does).
				const missing = ctx.continueOnFail()
					? request.event
						? -1
						: i
					: requests.findIndex((r) => r && !r.event);
				if (missing >= 0) throw eventRequired(ctx, missing);
			}
			const wire = wireRequest(request, await ifttt);
			await windows.enter(i);
			try {
				const response = await client.request(
					{
						service: 'trigger',
						method: 'POST',
						...wire,
						headers: request.headers,
						repeatable: request.idempotencyKey !== undefined,
						noRetryAdvice: NO_RETRY_ADVICE,
						// a service that accepted the call may answer with text (IFTTT: "Congratulations! …")
						acceptText: true,
					},
					settings,
					i,
				);
				return [{ json: toOutput(response) }];
			} finally {
				windows.leave(i);
			}
		},
	};
}

/** The envelope's `data` (its fields, when it is an object) and `message`; an answer in text, as text. */
function toOutput(response: ApiResponse): IDataObject {
	const { data, message, statusCode, text } = response;
	if (text !== undefined)
		return { accepted: true, statusCode, text, ...(response.cut ? { truncated: true } : {}) };
	const json: IDataObject = isPlainObject(data)
		? { ...data }
		: { data: data === undefined ? null : (data as IDataObject[string]) };
	if (message !== undefined && !Object.prototype.hasOwnProperty.call(json, 'message'))
		json.message = message;
	return json;
}
