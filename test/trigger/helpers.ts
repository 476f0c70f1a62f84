/** Fire Automation tests: a one-node workflow against a trigger server. */
import type { IDataObject } from 'n8n-workflow';

import { runNode } from '../harness/engine';
import { DEFAULT_API_KEY } from '../servers';

export const KEY = DEFAULT_API_KEY;
export const NODE = 'Fire Automation';
/** Retry settings that keep every backoff in the milliseconds */
export const FAST = { retryDelay: 1, maxRetryWait: 2 };

export const runTrigger = (
	server: { url: string },
	params: IDataObject,
	{
		credentials,
		type = 'fireAutomation',
		...opts
	}: Parameters<typeof runNode>[3] & { type?: string } = {},
) =>
	runNode(type, NODE, params, {
		...opts,
		credentials: { apiKey: KEY, triggerUrl: server.url, ...credentials },
	});

/** `count` input items {n: 0}, {n: 1}, ... */
export function numbered(
	count: number,
	extra: (n: number) => IDataObject = () => ({}),
): IDataObject[] {
	return Array.from({ length: count }, (_, n) => ({ n, ...extra(n) }));
}

/** Payload Fields with these names and values */
export const fields = (values: Record<string, string>) => ({
	payload: 'fields',
	fields: { values: Object.entries(values).map(([name, value]) => ({ name, value })) },
});
