import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { RequestSettings } from './transport';
import { ANNOUNCED_WAIT_MS, MAX_RATE_LIMITED } from './transport/retry';
import type { NumberOption } from './fields';
import { numberProperty, readNumber } from './fields';

const TIMEOUT: NumberOption = {
	displayName: 'Timeout (ms)',
	name: 'timeout',
	default: 30000,
	min: 1,
	max: 3_600_000,
	description:
		'Time limit of one attempt, in milliseconds: connecting, every redirect, the headers and the whole answer must arrive within it',
};

const MAX_RETRY_WAIT: NumberOption = {
	displayName: 'Max Retry Wait (Seconds)',
	name: 'maxRetryWait',
	default: 30,
	min: 0,
	max: 3600,
	description: `Most time to spend waiting between attempts of one request. If the service asks to wait longer (Retry-After), the node stops with an error instead. A quota reset that the service announces in its rate-limit headers is not a retry: it is waited for up to ${ANNOUNCED_WAIT_MS / 60_000} minutes (or this, when longer).`,
};

const RETRY_DELAY: NumberOption = {
	displayName: 'Initial Retry Delay (ms)',
	name: 'retryDelay',
	default: 500,
	min: 0,
	max: 600_000,
	description:
		'Wait before the first retry, in milliseconds; doubled on each further retry, with jitter. A Retry-After header from the service takes precedence.',
};

const MAX_RESPONSE_SIZE: NumberOption = {
	displayName: 'Max Response Size (MB)',
	name: 'maxResponseSize',
	default: 16,
	min: 1,
	max: 1024,
	description:
		'Largest answer accepted from the service, in megabytes, measured after decompression. A larger answer stops the node with an error and is not retried.',
};

export const CONCURRENCY: NumberOption = {
	displayName: 'Concurrency',
	name: 'concurrency',
	default: 256,
	min: 1,
	max: 256,
	description:
		'Most requests in flight at once for this node. Every run of every workflow in this n8n process that calls the same service with the same credential shares one allowance, which adapts to the service: more while that brings answers faster, fewer when it pushes back (429, 503, timeouts), paced by its rate-limit headers when it sends them. 1 sends one request at a time, in item order.',
};

/** Max Attempts as it is true for a GET: everything transient is retried. */
export const MAX_ATTEMPTS_READ: NumberOption = {
	displayName: 'Max Attempts',
	name: 'maxAttempts',
	default: 3,
	min: 1,
	max: 10,
	description: `Attempts per request, the first included; 1 turns retries off. 502/503/504 answers, timeouts and broken connections are retried. Rate limits (429) are retried within Max Retry Wait, up to ${MAX_RATE_LIMITED} times, and do not count.`,
};

/** Max Attempts as it is true for Fire Automation, whose retries could fire an automation twice. */
export const MAX_ATTEMPTS_FIRE: NumberOption = {
	...MAX_ATTEMPTS_READ,
	description: `Attempts per call, the first included; 1 turns retries off. Refused connections are retried; 502/503/504, timeouts and broken connections only with an Idempotency Key (else it could fire twice). 429s: within Max Retry Wait, up to ${MAX_RATE_LIMITED} times, not counted.`,
};

/** Timeout, retries and size limit: the fields of every node's Options, in alphabetical order. */
export const requestOptions = (maxAttempts: NumberOption, concurrency = CONCURRENCY) =>
	[concurrency, RETRY_DELAY, maxAttempts, MAX_RESPONSE_SIZE, MAX_RETRY_WAIT, TIMEOUT].map(
		numberProperty,
	);

/** The Options collection's timeout, retry and size settings of one item, checked. */
export function getRequestSettings(
	ctx: IExecuteFunctions,
	itemIndex: number,
	options = ctx.getNodeParameter('options', itemIndex, {}) as IDataObject,
): RequestSettings {
	return {
		timeout: readNumber(ctx, options, TIMEOUT, itemIndex),
		maxAttempts: readNumber(ctx, options, MAX_ATTEMPTS_READ, itemIndex),
		retryDelay: readNumber(ctx, options, RETRY_DELAY, itemIndex),
		maxRetryWait: readNumber(ctx, options, MAX_RETRY_WAIT, itemIndex) * 1000,
		maxResponseBytes: readNumber(ctx, options, MAX_RESPONSE_SIZE, itemIndex) * 1024 * 1024,
	};
}

/** Concurrency, read once per run (from the first item). */
export function getConcurrency(ctx: IExecuteFunctions): number {
	return readNumber(ctx, ctx.getNodeParameter('options', 0, {}) as IDataObject, CONCURRENCY, 0);
}
