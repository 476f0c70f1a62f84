import type { INodeProperties } from 'n8n-workflow';

/** Return All / Limit, as n8n's own list operations have them. */
export function returnAllOrLimit(maxValue?: number): INodeProperties[] {
	return [
		{
			displayName: 'Return All',
			name: 'returnAll',
			type: 'boolean',
			default: false,
			description: 'Whether to return all results or only up to a given limit',
		},
		{
			displayName: 'Limit',
			name: 'limit',
			type: 'number',
			typeOptions: { minValue: 1, ...(maxValue ? { maxValue } : {}) },
			default: 50,
			displayOptions: { show: { returnAll: [false] } },
			description: 'Max number of results to return',
		},
	];
}

/** A Sort Order option (ascending / descending), sent under the name the service uses. */
export function sortOrderOption(name: string, description: string): INodeProperties {
	return {
		displayName: 'Sort Order',
		name,
		type: 'options',
		default: 'asc',
		description,
		options: [
			{ name: 'Ascending', value: 'asc' },
			{ name: 'Descending', value: 'desc' },
		],
	};
}

/** Time limit and retry settings, shared by the three nodes' Options collections. */
export const requestOptions: INodeProperties[] = [
	{
		displayName: 'Initial Retry Delay (Ms)',
		name: 'retryDelay',
		type: 'number',
		typeOptions: { minValue: 0 },
		default: 500,
		description:
			'Wait before the first retry, in milliseconds; doubled on each further retry, with jitter. A Retry-After header from the service takes precedence.',
	},
	{
		displayName: 'Max Attempts',
		name: 'maxAttempts',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: 10 },
		default: 3,
		description:
			'Attempts per request in all, the first included. Rate limits (429), 502/503/504 answers and connection failures are retried; 1 turns retries off.',
	},
	{
		displayName: 'Max Retry Wait (Seconds)',
		name: 'maxRetryWait',
		type: 'number',
		typeOptions: { minValue: 0 },
		default: 30,
		description:
			'Most time to spend waiting between attempts of one request. If the service asks to wait longer (Retry-After), the node stops with an error instead.',
	},
	{
		displayName: 'Timeout (Ms)',
		name: 'timeout',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 30000,
		description: 'Time limit of one attempt, in milliseconds',
	},
];
