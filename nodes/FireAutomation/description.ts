import type { INodeProperties } from 'n8n-workflow';

import type { ChoiceOption, NumberOption } from '../shared/fields';
import { choiceProperty, numberProperty, optionsCollection, textProperty } from '../shared/fields';
import { bounded, CONCURRENCY, MAX_ATTEMPTS_FIRE, requestOptions } from '../shared/options';

const rows = <V extends string>(...list: Array<[string, V, string]>) =>
	list.map(([name, value, description]) => ({ name, value, description }));

export const PAYLOAD: ChoiceOption<'none' | 'item' | 'fields' | 'json'> = {
	displayName: 'Payload',
	name: 'payload',
	default: 'none',
	description: 'What to send as the JSON body of the request',
	options: rows(
		['Fields', 'fields', 'Name/value pairs, e.g. value1, value2 and value3'],
		['Input Item JSON', 'item', 'The whole incoming item, as it is'],
		['JSON', 'json', 'A JSON object written by hand, expressions allowed'],
		['None', 'none', 'An empty JSON object, {}'],
	),
};

export const QUERY_IN: ChoiceOption<'query' | 'body'> = {
	displayName: 'Send Query and Limit As',
	name: 'queryIn',
	default: 'query',
	description: 'Where "q" and "limit" go in the request',
	options: rows(
		['Query Parameters', 'query', 'In the address: /trigger/{Event}?q=…&limit=…'],
		[
			'JSON Body Fields',
			'body',
			'As "q" and "limit" fields of the JSON body, replacing payload fields of the same name',
		],
	),
};

export const KEY_MODE: ChoiceOption<'none' | 'auto' | 'custom'> = {
	displayName: 'Idempotency Key Mode',
	name: 'idempotency',
	default: 'none',
	description:
		'Sent as the Idempotency-Key header: a key unique per call lets the service ignore repeats, so the node may retry after a timeout, a dropped connection or a 502/503/504. Without a key those failures are not retried.',
	options: rows(
		[
			'Automatic',
			'auto',
			'Made from the execution, the node, its run and the item: unique per call and per item (also for each call of an AI agent), the same when n8n retries the node',
		],
		['Custom', 'custom', 'A value you give, e.g. from the input data'],
		['None', 'none', 'No key: calls that may have arrived are not retried'],
	),
};

export const APPLET_TRIGGER: ChoiceOption<'auto' | 'webRequest' | 'jsonPayload'> = {
	displayName: 'Applet Trigger',
	name: 'appletTrigger',
	default: 'auto',
	description:
		'The trigger of the IFTTT applet to fire, which decides the address called. Only for IFTTT Webhooks (Trigger API in the credential); a Generic trigger service has one address and ignores it.',
	options: rows(
		[
			'Automatic',
			'auto',
			'Receive a Web Request when the payload has no fields but value1, value2 and value3, else Receive a Web Request with a JSON Payload; the run says which it took',
		],
		[
			'Receive a Web Request',
			'webRequest',
			"IFTTT's classic route, /trigger/{Event}/with/key/…: the applet gets value1, value2 and value3 only; a payload with other fields is refused before any call",
		],
		[
			'Receive a Web Request with a JSON Payload',
			'jsonPayload',
			"IFTTT's route for JSON payloads: the applet gets the whole payload as JsonPayload, whatever its fields",
		],
	),
};

export const BATCH_SIZE: NumberOption = {
	...bounded('Items per Batch', 'batchSize', 50, 1),
	description: 'Items sent in each batch before waiting "Batch Interval (ms)" (1000 if not set)',
};

export const BATCH_INTERVAL: NumberOption = {
	...bounded('Batch Interval (ms)', 'batchInterval', 1000, 0),
	description:
		'Wait between two batches, in milliseconds, counted from the end of a batch. 0 turns batching off. Batches have "Items per Batch" items (50 if not set).',
};

export const LIMIT: NumberOption = {
	...bounded('Limit', 'limit', 50, 1),
	description: 'A number sent to the trigger service as "limit" (its meaning is up to the service)',
	hint: 'Sent as "limit" only when this option is added',
};

/** The Event of the node as an AI agent's tool: n8n shows it there instead of Event. */
export const TOOL_EVENT = 'toolEvent';

export const fireAutomationProperties: INodeProperties[] = [
	textProperty('Event', 'event', 'e.g. door_opened', {
		description:
			'Name of the event to fire, sent as the last part of the address: POST {Trigger URL}/trigger/{Event}. Letters, digits, "_", "-" and "." only. Leave empty to call POST {Trigger URL}/trigger/.',
		displayOptions: { hide: { '@tool': [true] } },
	}),
	{
		displayName: 'Event',
		name: TOOL_EVENT,
		type: 'string',
		default:
			"={{ $fromAI('event', 'Name of the event to fire, e.g. door_opened: letters, digits, _, - and . only', 'string') }}",
		description:
			'Name of the event to fire. The model chooses it; put a fixed name here to always fire the same event.',
		displayOptions: { show: { '@tool': [true] } },
	},
	textProperty('Query', 'q', 'e.g. living room', {
		description:
			'Text sent as "q" (a query parameter unless Options > Send Query and Limit As says otherwise). Leave empty to not send it.',
	}),
	{ ...choiceProperty(PAYLOAD), noDataExpression: true },
	{
		displayName: 'Fields',
		name: 'fields',
		type: 'fixedCollection',
		placeholder: 'Add Field',
		typeOptions: { multipleValues: true },
		default: {},
		displayOptions: { show: { payload: ['fields'] } },
		description: 'Fields of the JSON body. Names must be unique and not empty.',
		options: [
			{
				displayName: 'Field',
				name: 'values',
				values: [
					textProperty('Name', 'name', 'e.g. value1', {
						description: 'Name of the field in the JSON body',
					}),
					textProperty('Value', 'value', 'e.g. {{ $json.temperature }}', {
						description:
							'Value of the field. An expression that yields a number, boolean, object or list is sent as that type.',
					}),
				],
			},
		],
	},
	{
		displayName: 'JSON',
		name: 'jsonBody',
		type: 'json',
		default: '{\n  "value1": "",\n  "value2": "",\n  "value3": ""\n}',
		displayOptions: { show: { payload: ['json'] } },
		description:
			'JSON object to send as the body. Expressions in {{ }} are filled in for each item; put quotes around those that yield text.',
	},
	optionsCollection([
		choiceProperty(APPLET_TRIGGER),
		numberProperty(BATCH_INTERVAL),
		numberProperty(BATCH_SIZE),
		choiceProperty(KEY_MODE),
		textProperty('Idempotency Key', 'idempotencyKey', 'e.g. order-{{ $json.orderNumber }}', {
			hint: 'Unique per call and per item, e.g. from the data; or set Idempotency Key Mode to Automatic',
			description:
				'The key sent as the Idempotency-Key header when Idempotency Key Mode is Custom (or not set). Plain ASCII, at most 255 characters.',
		}),
		numberProperty(LIMIT),
		choiceProperty(QUERY_IN),
		...requestOptions(MAX_ATTEMPTS_FIRE, {
			...CONCURRENCY,
			description: `${CONCURRENCY.description} Concurrent calls may reach the service in another order than the items; output order is always the items'.`,
		}),
	]),
];
