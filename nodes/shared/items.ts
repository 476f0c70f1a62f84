import type { IExecuteFunctions, INodeExecutionData, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { CONCURRENCY } from './options';
import { pool } from './pool';
import { TriptychClient } from './transport';
import { getOptions, isTool, readNumber } from './fields';

/** What a node does per input item: read (and check) its fields, then do its work. */
export interface ItemOperation<P> {
	/** Reads and checks one item's fields; throws a NodeOperationError naming the field and the item */
	read(itemIndex: number): P;
	/** Checks that need the credential, after every read (an Error: it failed), before any request: per item, a refusal */
	prepare?(plans: Array<P | Error>): Promise<Array<Error | undefined>>;
	/** One item's work: its output items (pairedItem is set by the caller) */
	run(plan: P, itemIndex: number): Promise<INodeExecutionData[]>;
	hints?(): string[];
}

/**
 * A node's `execute()`. Every item is read and checked before the first request (with Continue On Fail a wrong value
 * becomes that item's error item). Output keeps input order; without Continue On Fail the first error halts the run.
 */
export async function runNode<P>(
	ctx: IExecuteFunctions,
	makeOperation: (client: TriptychClient) => ItemOperation<P>,
): Promise<INodeExecutionData[][]> {
	// An AI agent's tool: "[item 0]" means nothing to the model reading the error
	const numbered = !isTool(ctx);
	const asItemError = (error: unknown, itemIndex: number) => {
		const known = error instanceof NodeApiError || error instanceof NodeOperationError;
		const message = (error as Error)?.message || String(error);
		const e = known ? error : new NodeOperationError(ctx.getNode(), message, { itemIndex });
		if (numbered) e.message = `${e.message} [item ${itemIndex}]`;
		return e;
	};
	// the run's own settings, read once from the first item's options, are checked before anything else
	let concurrency: number, client: TriptychClient, operation: ItemOperation<P>;
	try {
		concurrency = readNumber(ctx, getOptions(ctx, 0), CONCURRENCY, 0);
		client = new TriptychClient(ctx, concurrency);
		operation = makeOperation(client);
	} catch (error) {
		throw asItemError(error, 0);
	}
	// in the output pane (n8n 1.x without execution hints: nothing)
	const addHint = (message: string) => ctx.addExecutionHints?.({ message, location: 'outputPane' });
	const continueOnFail = ctx.continueOnFail();
	const count = ctx.getInputData().length;
	const plans = Array.from({ length: count }, (_, i) => {
		try {
			return operation.read(i);
		} catch (error) {
			const failed = asItemError(error, i);
			if (continueOnFail) return failed;
			throw failed;
		}
	});

	const refused = plans.some((plan) => !(plan instanceof Error))
		? await operation.prepare?.(plans).catch((error) => Promise.reject(asItemError(error, 0)))
		: undefined;
	refused?.forEach((problem, i) => {
		if (problem && !(plans[i] instanceof Error)) plans[i] = asItemError(problem, i);
	});
	const first = plans.find((plan) => plan instanceof Error);
	if (first && !continueOnFail) throw first;

	const results: INodeExecutionData[][] = new Array(count);
	try {
		await pool(count, concurrency, async (i) => {
			const plan = plans[i];
			try {
				if (plan instanceof Error) throw plan;
				const produced = await operation.run(plan, i);
				results[i] = produced.map((item) => ({ ...item, pairedItem: { item: i } }));
			} catch (failure) {
				const error = failure === plan ? plan : asItemError(failure, i);
				if (!continueOnFail) {
					client.halt();
					throw error;
				}
				results[i] = [errorItem(error, i)];
			}
		});
	} finally {
		const waited = Math.ceil(client.announcedMs / 1000);
		const hint = `The service's rate-limit headers announced quota resets: this run waited ${waited} s for them in all (not retries).`;
		if (waited > 0) addHint(hint);
	}
	operation.hints?.().forEach(addHint);
	return [results.flatMap((produced) => produced ?? [])];
}

/** Continue On Fail: an error as an output item, paired to its input item. */
export function errorItem(error: unknown, itemIndex: number, extra: JsonObject = {}) {
	const e = error as NodeApiError;
	const json: JsonObject = { error: e.message };
	if (e.description) json.description = e.description;
	if (e.httpCode) json.httpCode = e.httpCode;
	return { json: { ...json, ...extra }, pairedItem: { item: itemIndex } };
}
