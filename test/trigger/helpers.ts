/** Fire Automation tests: a one-node workflow against a trigger server. */
import type { IDataObject } from 'n8n-workflow';

import { chain, manualTrigger, node, runWorkflow } from '../harness/engine';
import { DEFAULT_API_KEY, type TriggerServer } from '../servers';

export const KEY = DEFAULT_API_KEY;
export const START = 'When clicking Execute';
export const NODE = 'Trigger Call';
/** Retry settings that keep every backoff in the milliseconds */
export const FAST = { retryDelay: 1, maxRetryWait: 2 };

export function creds(server: { url: string }, overrides: IDataObject = {}) {
	return {
		triptychApi: {
			apiKey: KEY,
			triggerUrl: server.url,
			museumUrl: '',
			quotesUrl: '',
			sendKeyToQuotes: false,
			...overrides,
		},
	};
}

export interface RunOptions {
	items?: IDataObject[];
	/** Node settings, e.g. {continueOnFail: true} */
	extra?: IDataObject;
	credentials?: IDataObject;
}

export async function runTrigger(
	server: TriggerServer | { url: string },
	params: IDataObject,
	opts: RunOptions = {},
) {
	const wf = chain(manualTrigger(START), node('fireAutomation', NODE, params, opts.extra ?? {}));
	return await runWorkflow(wf, {
		credentials: creds(server, opts.credentials),
		pinData: opts.items ? { [START]: opts.items } : undefined,
	});
}

/** `count` input items {n: 0}, {n: 1}, ... */
export function numbered(
	count: number,
	extra: (n: number) => IDataObject = () => ({}),
): IDataObject[] {
	return Array.from({ length: count }, (_, n) => ({ n, ...extra(n) }));
}
