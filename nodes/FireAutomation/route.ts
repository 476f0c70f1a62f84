import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { fieldError } from '../shared/validation';
import type { TriggerRoutes } from '../shared/transport';
import type { TriggerRequest } from './request';

export type AppletTrigger = 'auto' | 'webRequest' | 'jsonPayload';
type Route = 'webRequest' | 'jsonPayload';

/** The applet triggers by their names in IFTTT (and in the Applet Trigger option). */
export const APPLET_NAMES: Record<Route, string> = {
	webRequest: 'Receive a Web Request',
	jsonPayload: 'Receive a Web Request with a JSON Payload',
};

/** One call as it goes out: the style's route it takes, and the payload fields its web-request route ignores. */
export interface Wire {
	path: string;
	qs?: IDataObject;
	body: string;
	route: Route;
	ignored: string[];
}

/**
 * Path, query and body of one call on the style's routes. A style with a JSON-payload route (IFTTT Webhooks) takes
 * the route the Applet Trigger names; Automatic takes the web-request route unless the payload has fields that
 * route ignores. Where the style keeps q and limit in the query string, they never decide the route.
 */
export function wireRequest(request: TriggerRequest, routes: TriggerRoutes): Wire {
	const hasParams = Object.keys(request.params).length > 0;
	const inBody = hasParams && request.paramsInBody && !routes.paramsInQuery;
	const body = inBody ? { ...request.payload, ...request.params } : request.payload;
	const keys = Object.keys(body);
	const kept = routes.webRequestFields;
	const ignored = kept ? keys.filter((k) => !kept.includes(k)) : [];
	const json =
		routes.jsonPayload !== undefined &&
		(request.applet === 'jsonPayload' || (request.applet === 'auto' && ignored.length > 0));
	const event = encodeURIComponent(request.event);
	const path = (json ? routes.jsonPayload! : routes.webRequest).replace('{event}', () => event);
	// JSON text, not an object: n8n copies an object body without the fields __proto__, constructor and prototype
	// (and drops an empty one), which the payload may well have
	return {
		path,
		...(hasParams && !inBody ? { qs: request.params } : {}),
		body: JSON.stringify(body),
		route: json ? 'jsonPayload' : 'webRequest',
		ignored,
	};
}

/** What stops one item's call once the style is known (still before any call); undefined when nothing does. */
export function callProblem(
	ctx: IExecuteFunctions,
	request: TriggerRequest,
	routes: TriggerRoutes,
	i: number,
): Error | undefined {
	if (routes.eventRequired && !request.event) return eventRequired(ctx, i);
	if (request.applet !== 'webRequest' || routes.jsonPayload === undefined) return undefined;
	const { ignored } = wireRequest(request, routes);
	if (!ignored.length) return undefined;
	const kept = listed(routes.webRequestFields ?? []);
	return fieldError(
		ctx,
		'"Applet Trigger"',
		i,
		`is ${APPLET_NAMES.webRequest}, which passes on only ${kept}: the payload's ${listed(ignored)} would be dropped`,
		`Send only ${kept}; or, if the applet's trigger is "${APPLET_NAMES.jsonPayload}", choose that Applet Trigger (Options): the applet then gets the whole payload as JsonPayload.`,
	);
}

/** Where the Event is part of the address, there is nothing to call without it. */
function eventRequired(ctx: IExecuteFunctions, i: number): Error {
	return fieldError(
		ctx,
		'"Event"',
		i,
		'is empty, but IFTTT Webhooks needs an event name',
		'IFTTT fires the applets of an event: give its name, e.g. door_opened (Trigger API is IFTTT Webhooks in the credential).',
	);
}

/** What the model reads when it called the tool without an Event. */
export const EVENT_FOR_MODEL =
	'Nothing was fired: the event name is missing. Call this tool again with "event" set to the name of the event to fire, e.g. door_opened (letters, digits, "_", "-" and "." only).';

/** "a", "a and b", "a, b and c" */
function listed(names: string[]): string {
	return names.length < 2
		? names.join('')
		: `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

/**
 * The routes a run took, told once per run as an execution hint: which route Automatic chose and why, or that the
 * Applet Trigger was ignored by a style with one route.
 */
export class RouteLog {
	private readonly taken: Record<Route, number> = { webRequest: 0, jsonPayload: 0 };
	private ignoredFields = new Set<string>();
	private ignoredOption = false;
	private fields: string[] = [];

	note(request: TriggerRequest, routes: TriggerRoutes, wire: Wire): void {
		if (routes.jsonPayload === undefined) {
			this.ignoredOption ||= request.applet !== 'auto';
			return;
		}
		if (request.applet !== 'auto') return;
		this.fields = routes.webRequestFields ?? [];
		this.taken[wire.route]++;
		for (const field of wire.ignored)
			if (this.ignoredFields.size < 3) this.ignoredFields.add(field);
	}

	hints(): string[] {
		const hints: string[] = [];
		if (this.ignoredOption)
			hints.push(
				'Applet Trigger was ignored: it applies only to IFTTT Webhooks (Trigger API in the credential), and this trigger service has one route.',
			);
		const { webRequest, jsonPayload } = this.taken;
		if (webRequest || jsonPayload) {
			const kept = listed(this.fields);
			const other = `fields other than ${kept} (${[...this.ignoredFields].join(', ')})`;
			const chose = !jsonPayload
				? `"${APPLET_NAMES.webRequest}" (/trigger/{Event}/with/key/…): the payload has no fields but ${kept}`
				: !webRequest
					? `"${APPLET_NAMES.jsonPayload}" (/trigger/{Event}/json/with/key/…): the payload has ${other}`
					: `"${APPLET_NAMES.webRequest}" for ${webRequest} item(s), and "${APPLET_NAMES.jsonPayload}" for ${jsonPayload} item(s) whose payload has ${other}`;
			hints.push(
				`Applet Trigger (Automatic) chose ${chose}. An applet whose trigger is "${APPLET_NAMES.jsonPayload}" gets an empty JsonPayload on the other route. Set Options > Applet Trigger to your applet's trigger to always use its route.`,
			);
		}
		return hints;
	}
}
