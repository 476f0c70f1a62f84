/** Shared helpers of the Museum Object Search tests: credentials, a one-node workflow, dumps for leak checks. */
import type { IDataObject, INodeExecutionData, IPairedItemData } from 'n8n-workflow';

import { chain, logs, manualTrigger, node, runWorkflow, type RunResult } from '../harness/engine';
import { DEFAULT_API_KEY } from '../servers';

export const KEY = DEFAULT_API_KEY;
export const TRIGGER = 'When clicking Execute';
export const NODE = 'Museum';
/** Retry settings that keep failure tests fast. */
export const FAST = { retryDelay: 5, maxRetryWait: 5 };

export interface RunOptions {
	/** The museum service's base address (credentials "Museum URL") */
	museumUrl: string;
	/** Several input items for the node (pinned on the trigger) */
	items?: IDataObject[];
	/** Node settings, e.g. { continueOnFail: true } */
	extra?: IDataObject;
	credentials?: IDataObject;
}

export async function runSearch(params: IDataObject, options: RunOptions): Promise<RunResult> {
	const wf = chain(
		manualTrigger(TRIGGER),
		node('museumObjectSearch', NODE, params, options.extra ?? {}),
	);
	return await runWorkflow(wf, {
		credentials: {
			triptychApi: { apiKey: KEY, museumUrl: options.museumUrl, ...options.credentials },
		},
		pinData: options.items ? { [TRIGGER]: options.items } : undefined,
	});
}

export const jsonOf = (result: RunResult) => result.output(NODE).map((i) => i.json);

export const pairedTo = (items: INodeExecutionData[], n: number) =>
	items.filter((i) => (i.pairedItem as IPairedItemData).item === n);

/** The whole run (errors with their message and stack) as text, to search for the key. */
export function dump(result: RunResult): string {
	return JSON.stringify(result.run, (_k, v: unknown) =>
		v instanceof Error ? { ...v, message: v.message, stack: v.stack } : v,
	);
}

/** Where the key shows in a run (its output, errors and their details) or the captured logs, as is or URL-encoded. */
export function keySightings(result: RunResult, key: string): string[] {
	const text = dump(result) + JSON.stringify(logs);
	return [key, encodeURIComponent(key)].filter((form) => text.includes(form));
}
