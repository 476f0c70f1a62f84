import type { INodeProperties } from 'n8n-workflow';

/** Event (the optional path segment) and the search-style parameters of the API, `q`. */
export const eventProperties: INodeProperties[] = [
	{
		displayName: 'Event',
		name: 'event',
		type: 'string',
		default: '',
		placeholder: 'e.g. door_opened',
		description:
			'Name of the event to fire, sent as the last part of the address: POST {Trigger URL}/trigger/{Event}. Letters, digits, "_", "-" and "." only. Leave empty to call POST {Trigger URL}/trigger/.',
	},
	{
		displayName: 'Query',
		name: 'q',
		type: 'string',
		default: '',
		placeholder: 'e.g. living room',
		description:
			'Text sent as "q" (a query parameter unless Options > Send Query and Limit As says otherwise). Leave empty to not send it.',
	},
];
