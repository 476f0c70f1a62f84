import type { INodeProperties } from 'n8n-workflow';

/** What goes into the JSON body. */
export const payloadProperties: INodeProperties[] = [
	{
		displayName: 'Payload',
		name: 'payload',
		type: 'options',
		noDataExpression: true,
		default: 'none',
		description: 'What to send as the JSON body of the request',
		options: [
			{
				name: 'Fields',
				value: 'fields',
				description: 'Name/value pairs, e.g. value1, value2 and value3',
			},
			{
				name: 'Input Item JSON',
				value: 'item',
				description: 'The whole incoming item, as it is',
			},
			{
				name: 'JSON',
				value: 'json',
				description: 'A JSON object written by hand, expressions allowed',
			},
			{
				name: 'None',
				value: 'none',
				description: 'An empty JSON object, {}',
			},
		],
	},
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
					{
						displayName: 'Name',
						name: 'name',
						type: 'string',
						default: '',
						placeholder: 'e.g. value1',
						description: 'Name of the field in the JSON body',
					},
					{
						displayName: 'Value',
						name: 'value',
						type: 'string',
						default: '',
						placeholder: 'e.g. {{ $json.temperature }}',
						description:
							'Value of the field. An expression that yields a number, boolean, object or list is sent as that type.',
					},
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
];
