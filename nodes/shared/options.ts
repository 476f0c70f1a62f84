import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { MAX_RATE_LIMITED, MAX_WAIT_MS } from './transport';
import { type NumberOption, numberProperty, readNumber } from './fields';

export function bounded(label: string, name: string, initial: number, min: number, max?: number) {
	return { displayName: label, name, default: initial, min, max };
}

const TIMEOUT: NumberOption = {
	...bounded('Timeout (ms)', 'timeout', 30000, 1, 3_600_000),
	description:
		'Time limit of one attempt, in milliseconds: connecting, every redirect, the headers and the whole answer must arrive within it',
};

const MAX_RETRY_WAIT: NumberOption = {
	...bounded('Max Retry Wait (Seconds)', 'maxRetryWait', 30, 0, 3600),
	description: `Most time to spend waiting between attempts of one request. If the service asks to wait longer (Retry-After), the node stops with an error instead. A quota reset that the service announces in its rate-limit headers is not a retry: it is waited for up to ${MAX_WAIT_MS / 60_000} minutes (or this, when longer).`,
};

const RETRY_DELAY: NumberOption = {
	...bounded('Initial Retry Delay (ms)', 'retryDelay', 500, 0, 600_000),
	description:
		'Wait before the first retry, in milliseconds; doubled on each further retry, with jitter. A Retry-After header from the service takes precedence.',
};

const MAX_RESPONSE_SIZE: NumberOption = {
	...bounded('Max Response Size (MB)', 'maxResponseSize', 16, 1, 1024),
	description:
		'Largest answer accepted from the service, in megabytes, measured after decompression. A larger answer stops the node with an error and is not retried.',
};

export const CONCURRENCY: NumberOption = {
	...bounded('Concurrency', 'concurrency', 512, 1, 512),
	description:
		'Most requests in flight at once for this node. Every run of every workflow in this n8n process that calls the same service with the same credential shares one allowance, which adapts to the service: more while that brings answers faster, fewer when it pushes back (429, 503, timeouts), paced by its rate-limit headers when it sends them. 1 sends one request at a time, in item order.',
};

/** Max Attempts as it is true for a GET: everything transient is retried. */
export const MAX_ATTEMPTS_READ: NumberOption = {
	...bounded('Max Attempts', 'maxAttempts', 3, 1, 10),
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
export const getRequestSettings = (ctx: IExecuteFunctions, i: number, options: IDataObject) => ({
	timeout: readNumber(ctx, options, TIMEOUT, i),
	maxAttempts: readNumber(ctx, options, MAX_ATTEMPTS_READ, i),
	retryDelay: readNumber(ctx, options, RETRY_DELAY, i),
	maxRetryWait: readNumber(ctx, options, MAX_RETRY_WAIT, i) * 1000,
	maxResponseBytes: readNumber(ctx, options, MAX_RESPONSE_SIZE, i) * 1024 * 1024,
});
