import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { getOptions, readNumber, fieldError, isTool } from '../shared/fields';
import type { ItemOperation } from '../shared/items';
import { SERVICES, type TriggerRoutes } from '../shared/services';
import { type ApiResponse, type TriptychClient, excerpt } from '../shared/transport';
import { isPlainObject, listed } from '../shared/values';
import { BATCH_INTERVAL, BATCH_SIZE } from './description';
import { KEY_EXAMPLE, type TriggerRequest, buildRequest } from './request';

const NO_RETRY_ADVICE = `The node did not retry: without an Idempotency Key the service cannot tell a retry from a new call, and a retry could fire the automation twice. To make retries safe, set Options > Idempotency Key Mode to Automatic, or give a key unique per item, e.g. ${KEY_EXAMPLE} (the service must honour the Idempotency-Key header).`;

const EVENT_FOR_MODEL =
	'Nothing was fired: the event name is missing. Call this tool again with "event" set to the name of the event to fire, e.g. door_opened (letters, digits, "_", "-" and "." only).';

const IGNORED_OPTION =
	'Applet Trigger was ignored: it applies only to IFTTT Webhooks (Trigger API in the credential), and this trigger service has one route.';

const WEB = 'Receive a Web Request';
const JSON_ROUTE = 'Receive a Web Request with a JSON Payload';

/** POST {Trigger URL}/trigger/{Event} per item; within a batching window the client's gate paces the calls. */
export function fireAutomationOperation(
	ctx: IExecuteFunctions,
	client: TriptychClient,
): ItemOperation<TriggerRequest> {
	const windows = batchWindows(ctx, client);
	let routes: TriggerRoutes = SERVICES.trigger.styles.generic.trigger!;
	// an agent's tool whose model left the Event out: it is told so, and nothing is fired
	const forModel = (r: TriggerRequest) =>
		!r.event && isTool(ctx) && (routes.eventRequired || r.eventFromModel);
	// the routes Automatic took, and whether a style with one route ignored the Applet Trigger
	const taken = { web: 0, json: 0 };
	const ignoredFields = new Set<string>();
	let ignoredOption = false;
	return {
		read: (i) => buildRequest(ctx, i),

		// The style is known only once the credential is read: what it needs is checked then, still before any call
		async prepare(plans) {
			routes = (await client.styleEntry('trigger')).trigger ?? routes;
			return plans.map((r, n) => {
				const failed = r instanceof Error;
				const problem = failed || forModel(r) ? undefined : callProblem(ctx, r, routes, n);
				// an item that failed its fields or is refused never runs: its batch window does not wait for it
				if (failed || problem) windows.leave(n);
				return problem;
			});
		},

		async run(request, i): Promise<INodeExecutionData[]> {
			try {
				if (forModel(request)) return [{ json: { error: EVENT_FOR_MODEL } }];
				const { call, json, ignored } = wireRequest(request, routes);
				if (routes.jsonPayload === undefined) ignoredOption ||= request.applet !== 'auto';
				else if (request.applet === 'auto') {
					taken[json ? 'json' : 'web']++;
					for (const field of ignored) if (ignoredFields.size < 3) ignoredFields.add(field);
				}
				await windows.enter(i);
				return [{ json: toOutput(await client.request(call, request.settings, i)) }];
			} finally {
				windows.leave(i);
			}
		},

		hints() {
			const hints = ignoredOption ? [IGNORED_OPTION] : [];
			const { web, json } = taken;
			if (!web && !json) return hints;
			const kept = listed(routes.webRequestFields ?? []);
			const other = `fields other than ${kept} (${excerpt([...ignoredFields].join(', '), 200)})`;
			const chose = !json
				? `"${WEB}" (/trigger/{Event}/with/key/…): the payload has no fields but ${kept}`
				: !web
					? `"${JSON_ROUTE}" (/trigger/{Event}/json/with/key/…): the payload has ${other}`
					: `"${WEB}" for ${web} item(s), and "${JSON_ROUTE}" for ${json} item(s) whose payload has ${other}`;
			hints.push(
				`Applet Trigger (Automatic) chose ${chose}. An applet whose trigger is "${JSON_ROUTE}" gets an empty JsonPayload on the other route. Set Options > Applet Trigger to your applet's trigger to always use its route.`,
			);
			return hints;
		},
	};
}

/**
 * Batching windows as n8n's HTTP Request node has them (first item's options): window w+1 starts `interval` ms after
 * window w ends. Items enter in index order, so none waits on an unstarted one; on cancel all open (the client refuses).
 */
function batchWindows(ctx: IExecuteFunctions, client: TriptychClient) {
	const options = getOptions(ctx, 0);
	const size = readNumber(ctx, options, BATCH_SIZE, 0);
	const batching = options.batchSize !== undefined || options.batchInterval !== undefined;
	const interval = batching ? readNumber(ctx, options, BATCH_INTERVAL, 0) : 0;
	const count = interval > 0 ? ctx.getInputData().length : 0;
	const left: number[] = [];
	const finished: Array<() => void> = [];
	// gates[w]: window w + 1 may start
	const gates: Array<Promise<void>> = [];
	for (let w = 0; w * size < count; w++) {
		left.push(Math.min(size, count - w * size));
		const done = new Promise<void>((resolve) => finished.push(resolve));
		gates.push(done.then(async () => await client.wait(interval)));
	}
	if (count) client.cancel.subscribe(() => finished.forEach((open) => open()));
	const window = (i: number) => Math.floor(i / size);
	return {
		enter: async (i: number) => await gates[window(i) - 1],
		leave(i: number) {
			if (count && --left[window(i)] === 0) finished[window(i)]();
		},
	};
}

/** One item's call. Automatic takes the web-request route (IFTTT) unless the body has fields that route ignores. */
function wireRequest(request: TriggerRequest, routes: TriggerRoutes) {
	const hasParams = Object.keys(request.params).length > 0;
	const inBody = hasParams && request.paramsInBody && !routes.paramsInQuery;
	const body = inBody ? { ...request.payload, ...request.params } : request.payload;
	const kept = routes.webRequestFields;
	const ignored = kept ? Object.keys(body).filter((k) => !kept.includes(k)) : [];
	const json =
		routes.jsonPayload !== undefined &&
		(request.applet === 'jsonPayload' || (request.applet === 'auto' && ignored.length > 0));
	const event = encodeURIComponent(request.event);
	const key = request.idempotencyKey;
	const call = {
		service: 'trigger',
		method: 'POST',
		path: (json ? routes.jsonPayload! : routes.webRequest).replace('{event}', () => event),
		qs: hasParams && !inBody ? request.params : undefined,
		// JSON text: n8n copies an object body without __proto__, constructor and prototype (and drops an empty one)
		body: JSON.stringify(body),
		headers: { 'Content-Type': 'application/json', ...(key ? { 'Idempotency-Key': key } : {}) },
		repeatable: key !== undefined,
		noRetryAdvice: NO_RETRY_ADVICE,
		// a service that accepted the call may answer with text (IFTTT: "Congratulations! …")
		acceptText: true,
	} as const;
	return { call, json, ignored };
}

/** What stops one item's call once the style is known (still before any call). */
function callProblem(ctx: IExecuteFunctions, r: TriggerRequest, routes: TriggerRoutes, i: number) {
	if (routes.eventRequired && !r.event) {
		const fix = 'Give the name of the event whose applets to fire, e.g. door_opened.';
		return fieldError(ctx, '"Event"', i, 'is empty, but IFTTT Webhooks needs an event name', fix);
	}
	const { ignored } = wireRequest(r, routes);
	if (r.applet !== 'webRequest' || !routes.jsonPayload || !ignored.length) return undefined;
	const kept = listed(routes.webRequestFields ?? []);
	const problem = `is ${WEB}, which passes on only ${kept}: the payload's ${listed(ignored)} would be dropped`;
	const fix = `Send only ${kept}; or, if the applet's trigger is "${JSON_ROUTE}", choose that Applet Trigger (Options): the applet then gets the whole payload as JsonPayload.`;
	return fieldError(ctx, '"Applet Trigger"', i, problem, fix);
}

/** The envelope's `data` (its fields, when it is an object) and `message`; an answer in text, as text. */
function toOutput({ data, message, statusCode, text, cut }: ApiResponse): IDataObject {
	if (text !== undefined)
		return { accepted: true, statusCode, text, ...(cut ? { truncated: true } : {}) };
	const json = (isPlainObject(data) ? { ...data } : { data: data ?? null }) as IDataObject;
	if (message !== undefined && !('message' in json)) json.message = message;
	return json;
}
