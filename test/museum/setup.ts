/** Shared helpers of the Museum Object Search tests: credentials, a one-node workflow, dumps for leak checks. */
import type { IDataObject, INodeExecutionData, IPairedItemData } from 'n8n-workflow';

import { logs, runNode, type RunResult } from '../harness/engine';
import { DEFAULT_API_KEY } from '../servers';
import { keyPieces } from './keys';

export const KEY = DEFAULT_API_KEY;
export const NODE = 'Museum';
/** Retry settings that keep failure tests fast. */
export const FAST = { retryDelay: 5, maxRetryWait: 5 };

export const runSearch = (
	params: IDataObject,
	{ museumUrl, credentials, ...opts }: Parameters<typeof runNode>[3] & { museumUrl: string },
) =>
	runNode('museumObjectSearch', NODE, params, {
		...opts,
		credentials: { apiKey: KEY, museumUrl, ...credentials },
	});

export const jsonOf = (result: RunResult) => result.output(NODE).map((i) => i.json);

export const pairedTo = (items: INodeExecutionData[], n: number) =>
	items.filter((i) => (i.pairedItem as IPairedItemData).item === n);

/** The whole run (errors with their message and stack) as text, to search for the key. */
export function dump(result: RunResult): string {
	return JSON.stringify(result.run, (_k, v: unknown) =>
		v instanceof Error ? { ...v, message: v.message, stack: v.stack } : v,
	);
}

/**
 * Where the key shows in a run (its output, errors and their details) or the captured logs: any piece of it (see
 * keyPieces) in any of its forms.
 */
export function keySightings(result: RunResult, key: string): string[] {
	return keyPieces(dump(result) + JSON.stringify(logs), key);
}

/** The execution hints the node added to its run (shown in n8n's output pane). */
export const hintsOf = (result: RunResult, node = NODE) =>
	result.run.data.resultData.runData[node]?.[0]?.hints ?? [];
