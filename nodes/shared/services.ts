import type { IDataObject } from 'n8n-workflow';

import { listed } from './values';

/** The three services, said once: the credential's fields, the client, `authenticate` and the Test read this table. */
export type Service = 'trigger' | 'museum' | 'quotes';
type Style = 'generic' | 'harvard' | 'artic' | 'cleveland' | 'iftttWebhooks';

/** The query parameter that carries the key in `query` styles (a Harvard-style `info.next` link carries it too) */
export const KEY_PARAMETER = 'apikey';

export interface StyleEntry {
	name: string;
	description: string;
	/** `Authorization: Bearer <key>`, the `apikey` parameter, URL-encoded after `after`, or never (an open service) */
	key: { in: 'bearer' | 'query' | 'none' } | { in: 'path'; after: string[] };
	/** The credential Test's request below the base address (it never changes anything there), and its verdict */
	test: { path: string; qs?: IDataObject; verdict: 'json' | 'reachable' | 'keyPage' };
	pageSize?: 'limit' | 'size';
	/** Museum: the service lists its classifications and periods (GET /classification, /period) */
	lists?: boolean;
	/** Museum: colours match exactly on a palette of channels multiples of `step` up to `max`; hues go in `q` */
	palette?: { step: number; max: number; hueField: string };
	/** Museum: image addresses take `?width=` to send a smaller image */
	imageWidthQuery?: boolean;
	/** Headers every request to the service carries (AIC asks clients to name themselves) */
	headers?: Record<string, string>;
	/** The requests a minute the service allows (it sends no rate-limit headers): paced at from the first request */
	perMinute?: number;
	trigger?: TriggerRoutes;
}

/** How a trigger service style takes a call (Fire Automation reads it; the node never names a style). */
export interface TriggerRoutes {
	/** The path of a call below the Trigger URL (`{event}`: the URL-encoded Event) */
	webRequest: string;
	/** Hands the whole JSON body on (IFTTT's "with a JSON Payload" applet trigger) */
	jsonPayload?: string;
	/** The body fields the web-request route passes on, when it ignores any other */
	webRequestFields?: string[];
	eventRequired?: boolean;
	/** q and limit always go in the query string (the body belongs to the applet) */
	paramsInQuery?: boolean;
}

interface ServiceEntry {
	field: string;
	label: string;
	name: string;
	placeholder: string;
	description: string;
	/** The credential field that chooses how the service takes the key, when there is a choice */
	styleField?: string;
	styleDescription?: string;
	styles: { generic: StyleEntry } & Partial<Record<Style, StyleEntry>>;
	/** A credential switch that must be on for the key to be sent at all */
	keySwitch?: { name: string; displayName: string; description: string };
}

// one object per placement: services on one origin share the key only if theirs is the same object
const BEARER: StyleEntry['key'] = { in: 'bearer' };
const NO_KEY: StyleEntry['key'] = { in: 'none' };
const OPEN = 'No key: the API Key may be empty, and it is never sent to this service.';

export const SERVICES: Record<Service, ServiceEntry> = {
	trigger: {
		field: 'triggerUrl',
		label: 'Trigger URL',
		name: 'trigger service',
		placeholder: 'e.g. https://automations.example.com',
		description:
			'Base address of the trigger service, e.g. https://maker.ifttt.com for IFTTT. Leave empty if you do not use Fire Automation.',
		styleField: 'triggerApi',
		styleDescription: 'How the trigger service expects the API key and its calls',
		styles: {
			generic: {
				name: 'Generic',
				description:
					'POST {Trigger URL}/trigger/{Event} with "Authorization: Bearer <key>". The credential test calls only the root address, never /trigger/.',
				key: BEARER,
				test: { path: '/', verdict: 'reachable' },
				trigger: { webRequest: '/trigger/{event}' },
			},
			iftttWebhooks: {
				name: 'IFTTT Webhooks',
				description:
					"IFTTT's Maker Webhooks: the key (from IFTTT's Webhooks settings) goes in the address, /trigger/{Event}/with/key/{key}, never in a header. The credential test opens the key's page, /use/{key}, which fires nothing.",
				key: { in: 'path', after: ['/with/key/', '/use/'] },
				test: { path: '/use/', verdict: 'keyPage' },
				trigger: {
					webRequest: '/trigger/{event}/with/key/',
					jsonPayload: '/trigger/{event}/json/with/key/',
					webRequestFields: ['value1', 'value2', 'value3'],
					eventRequired: true,
					paramsInQuery: true,
				},
			},
		},
	},
	museum: {
		field: 'museumUrl',
		label: 'Museum URL',
		name: 'museum service',
		placeholder: 'e.g. https://museum-api.example.edu',
		description:
			'Base address of the museum service, e.g. https://api.harvardartmuseums.org, https://api.artic.edu/api/v1 or https://openaccess-api.clevelandart.org/api. Leave empty if you do not use Museum Object Search.',
		styleField: 'museumApi',
		styleDescription: 'How the museum service expects the API key and its pages',
		styles: {
			generic: {
				name: 'Generic',
				description:
					'GET {Museum URL}/object with "Authorization: Bearer <key>", pages of "limit" records',
				key: BEARER,
				test: { path: '/object', qs: { limit: 1 }, verdict: 'json' },
				pageSize: 'limit',
			},
			harvard: {
				name: 'Harvard Art Museums API',
				description:
					'GET {Museum URL}/object?apikey=<key>: the key only as the "apikey" query parameter, never in a header; pages of "size" (at most 100) records',
				key: { in: 'query' },
				test: { path: '/object', qs: { size: 1 }, verdict: 'json' },
				pageSize: 'size',
				lists: true,
				palette: { step: 25, max: 250, hueField: 'colors.hue' },
				imageWidthQuery: true,
			},
			artic: {
				name: 'Art Institute of Chicago API',
				description: `GET {Museum URL}/artworks/search (Museum URL https://api.artic.edu/api/v1), pages of "limit" (at most 100) records, the first 1,000 results of a search. ${OPEN}`,
				key: NO_KEY,
				test: { path: '/artworks/search', qs: { limit: 1, fields: 'id' }, verdict: 'json' },
				pageSize: 'limit',
				perMinute: 60,
				// who the client is, as AIC asks (the package's name and version; a test keeps it in step)
				headers: {
					'AIC-User-Agent':
						'n8n-nodes-triptych/0.1.0 (https://github.com/triptych-nodes/n8n-nodes-triptych#readme)',
				},
			},
			cleveland: {
				name: 'Cleveland Museum of Art Open Access API',
				description: `GET {Museum URL}/artworks/ (Museum URL https://openaccess-api.clevelandart.org/api), pages of "limit" records from "skip". ${OPEN}`,
				key: NO_KEY,
				test: { path: '/artworks/', qs: { limit: 1 }, verdict: 'json' },
				pageSize: 'limit',
			},
		},
	},
	quotes: {
		field: 'quotesUrl',
		label: 'Quotes URL',
		name: 'quotes service',
		placeholder: 'e.g. https://quoteslate.vercel.app/api',
		description:
			'Base address of the quotes service; the node calls GET {Quotes URL}/tags. E.g. your own Quotable (http://localhost:4000), the Quotable rewrite (https://api.quotable.kurokeita.dev/api) or QuoteSlate (https://quoteslate.vercel.app/api). Leave empty if you do not use Quote Tags.',
		styles: {
			generic: {
				name: 'Generic',
				description: 'GET {Quotes URL}/tags',
				key: BEARER,
				test: { path: '/tags', qs: { limit: 1 }, verdict: 'json' },
			},
		},
		keySwitch: {
			name: 'sendKeyToQuotes',
			displayName: 'Send API Key to Quotes Service',
			description:
				'Whether to send the API key to the quotes service too, as "Authorization: Bearer <key>". Quotable and most quote services take no key: leave this off unless it asks for one.',
		},
	},
};

export const SERVICE_NAMES = Object.keys(SERVICES) as Service[];

/** The style the credential chooses for a service (`generic` when it has no choice or an unknown value). */
export function styleOf(credentials: IDataObject, service: Service): Style {
	const chosen = chosenStyle(credentials, service);
	return typeof chosen === 'string' && Object.keys(SERVICES[service].styles).includes(chosen)
		? (chosen as Style)
		: 'generic';
}

const chosenStyle = (credentials: IDataObject, service: Service): unknown =>
	SERVICES[service].styleField ? credentials[SERVICES[service].styleField!] : undefined;

/** The name of the credential field that chooses a service's style: "Museum API" */
export const styleLabel = (service: Service) =>
	`${SERVICES[service].label.replace(/ URL$/, '')} API`;

/** That field with its choices: "Museum API (Generic or Harvard Art Museums API)" */
export function styleChoices(service: Service): string {
	const names = Object.values(SERVICES[service].styles).map((style) => style!.name);
	return `${styleLabel(service)} (${listed(names, 'or')})`;
}

/** A style value this version does not know (a credential saved by another one): no key goes by guesswork. */
export function unknownStyle(credentials: IDataObject, service: Service): string | undefined {
	const chosen = chosenStyle(credentials, service);
	if (chosen === undefined || chosen === '' || styleOf(credentials, service) === chosen)
		return undefined;
	return `The ${styleChoices(service)} in the Triptych API credentials holds an unknown value, "${String(chosen)}": choose one of these.`;
}

/** Whether the key goes to the service at all: not to an open service, nor past a switch left off. */
export function sendsKey(credentials: IDataObject, service: Service): boolean {
	const { keySwitch, styles } = SERVICES[service];
	if (styles[styleOf(credentials, service)]!.key.in === 'none') return false;
	return !keySwitch || credentials[keySwitch.name] === true;
}
