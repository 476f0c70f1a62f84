import type { INodeProperties } from 'n8n-workflow';

import { requestOptions } from '../../shared/descriptions';

/** Options: limit, idempotency, where q/limit go, batching, concurrency, and the shared time/retry settings. */
export const optionsProperties: INodeProperties[] = [
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Batch Interval (Ms)',
				name: 'batchInterval',
				type: 'number',
				typeOptions: { minValue: 0 },
				default: 1000,
				description:
					'Wait between two batches, in milliseconds, counted from the end of a batch. 0 turns batching off. Batches have "Items per Batch" items (50 if not set).',
			},
			{
				displayName: 'Concurrency',
				name: 'concurrency',
				type: 'number',
				typeOptions: { minValue: 1, maxValue: 32 },
				default: 1,
				description:
					'Number of requests in flight at the same time (1 to 32). Output items keep the order of the input items.',
			},
			{
				displayName: 'Idempotency Key',
				name: 'idempotencyKey',
				type: 'string',
				default: '',
				placeholder: 'e.g. order-{{ $json.orderNumber }}',
				hint: 'Unique per item, e.g. {{ $execution.id }}-{{ $itemIndex }} (safe for retries within one run) or a value from the data (safe across runs)',
				description:
					'Sent as the Idempotency-Key header: a value unique per item lets the service ignore repeats, so the node may retry after a timeout, a dropped connection or a 502/503/504. Without it those failures are not retried.',
			},
			{
				displayName: 'Items per Batch',
				name: 'batchSize',
				type: 'number',
				typeOptions: { minValue: 1 },
				default: 50,
				description:
					'Items sent in each batch before waiting "Batch Interval (Ms)" (1000 if not set)',
			},
			{
				displayName: 'Limit',
				name: 'limit',
				type: 'number',
				typeOptions: { minValue: 1 },
				default: 50,
				description: 'Max number of results to return',
				hint: 'Sent as "limit" only when this option is added',
			},
			{
				displayName: 'Send Query and Limit As',
				name: 'queryIn',
				type: 'options',
				default: 'query',
				description: 'Where "q" and "limit" go in the request',
				options: [
					{
						name: 'Query Parameters',
						value: 'query',
						description: 'In the address: /trigger/{Event}?q=…&limit=…',
					},
					{
						name: 'JSON Body Fields',
						value: 'body',
						description:
							'As "q" and "limit" fields of the JSON body, replacing payload fields of the same name',
					},
				],
			},
			...requestOptions,
		],
	},
];
