import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { getOptions, readNumber } from '../shared/fields';
import type { ItemOperation } from '../shared/items';
import { getRequestSettings } from '../shared/options';
import { isPlainObject, isTool } from '../shared/validation';
import type {
	ApiResponse,
	RequestSettings,
	TriggerRoutes,
	TriptychClient,
} from '../shared/transport';
import { SERVICES } from '../shared/transport';
import { BatchWindows } from './batching';
import { BATCH_INTERVAL, BATCH_SIZE } from './description';
import { KEY_EXAMPLE, type TriggerRequest, buildRequest } from './request';
import { EVENT_FOR_MODEL, RouteLog, callProblem, wireRequest } from './route';

/** Shown when a call that may have fired is not retried (it carries no Idempotency Key). */
const NO_RETRY_ADVICE =
	'The node did not retry: without an Idempotency Key the service cannot tell a retry from a new call, and a ' +
	'retry could fire the automation twice. To make retries safe, set Options > Idempotency Key Mode to Automatic, ' +
	`or give a key unique per item, e.g. ${KEY_EXAMPLE} (the service must honour the Idempotency-Key header).`;

/** Batching windows of a run, from the first item's options (as n8n's HTTP Request node reads them). */
function batchWindows(ctx: IExecuteFunctions, client: TriptychClient): BatchWindows {
	const options = getOptions(ctx, 0);
	const size = readNumber(ctx, options, BATCH_SIZE, 0);
	const interval =
		options.batchSize === undefined && options.batchInterval === undefined
			? 0
			: readNumber(ctx, options, BATCH_INTERVAL, 0);
	return new BatchWindows(ctx.getInputData().length, size, interval, client.cancel);
}

type Plan = { request: TriggerRequest; settings: RequestSettings };

/** The operation, and the execution hints of its run (which route Automatic took), to add once it is done. */
export type FireOperation = ItemOperation<Plan> & { hints: RouteLog };

/**
 * Fire Automation: POST {Trigger URL}/trigger/{Event} per item (IFTTT Webhooks: the route of its applet trigger). A call
 * without an Idempotency Key is repeatable only where it surely did not arrive (the transport's rule). Batching
 * windows hold items back as the HTTP Request node's do; within a window the client's gate paces the calls.
 */
export function fireAutomationOperation(
	ctx: IExecuteFunctions,
	client: TriptychClient,
): FireOperation {
	const windows = batchWindows(ctx, client);
	const requests: TriggerRequest[] = [];
	const hints = new RouteLog();
	const stopOnFailure = !ctx.continueOnFail();
	const asTool = isTool(ctx);
	// an agent's tool whose model left the Event out: it is told so, and nothing is fired
	const forModel = (r: TriggerRequest, routes: TriggerRoutes) =>
		!r.event && asTool && (routes.eventRequired || r.eventFromModel);
	let ready: Promise<{ routes: TriggerRoutes; problem?: Error }> | undefined;
	return {
		hints,
		read: (i) => {
			const options = getOptions(ctx, i);
			requests[i] = buildRequest(ctx, i, options);
			return { request: requests[i], settings: getRequestSettings(ctx, i, options) };
		},

		async run({ request, settings }, i): Promise<INodeExecutionData[]> {
			// The style is known only once the credential is read: what it needs is checked then, still before any
			// call (without Continue On Fail one wrong item stops them all, as any wrong field does).
			ready ??= client.styleEntry('trigger').then((entry) => {
				const routes = entry.trigger ?? SERVICES.trigger.styles.generic.trigger!;
				if (!stopOnFailure) return { routes };
				for (const [n, r] of requests.entries()) {
					const problem = r && !forModel(r, routes) && callProblem(ctx, r, routes, n);
					if (problem) return { routes, problem };
				}
				return { routes };
			});
			const { routes, problem } = await ready;
			if (forModel(request, routes)) return [{ json: { error: EVENT_FOR_MODEL } }];
			const own = problem ?? (stopOnFailure ? undefined : callProblem(ctx, request, routes, i));
			if (own) throw own;
			const wire = wireRequest(request, routes);
			hints.note(request, routes, wire);
			await windows.enter(i);
			let answered = false;
			try {
				const response = await client.request(
					{
						service: 'trigger',
						method: 'POST',
						path: wire.path,
						...(wire.qs ? { qs: wire.qs } : {}),
						body: wire.body,
						headers: request.headers,
						repeatable: request.idempotencyKey !== undefined,
						noRetryAdvice: NO_RETRY_ADVICE,
						// a service that accepted the call may answer with text (IFTTT: "Congratulations! …")
						acceptText: true,
					},
					settings,
					i,
				);
				answered = true;
				return [{ json: toOutput(response) }];
			} finally {
				if (!answered && stopOnFailure) {
					// the node stops: nothing more is sent, and no item waits out a Batch Interval for nothing
					client.halt();
					windows.end();
				}
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
