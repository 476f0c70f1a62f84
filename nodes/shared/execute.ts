import type { IExecuteFunctions, INodeExecutionData, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

/**
 * Runs `handle` for every input item and keeps n8n's contracts: output in input order, `pairedItem` on every
 * item, and "Continue On Fail" turning an item's error into an output item (paired to it) instead of stopping.
 * `concurrency` > 1 runs that many items at once (order of the output is still the input's).
 */
export async function forEachItem(
	ctx: IExecuteFunctions,
	handle: (itemIndex: number) => Promise<INodeExecutionData[]>,
	concurrency = 1,
): Promise<INodeExecutionData[][]> {
	const count = ctx.getInputData().length;
	const results: INodeExecutionData[][] = new Array(count);
	let next = 0;
	let stop: unknown;

	const worker = async () => {
		while (stop === undefined && next < count) {
			const itemIndex = next++;
			try {
				const produced = await handle(itemIndex);
				results[itemIndex] = produced.map((item) => ({ ...item, pairedItem: { item: itemIndex } }));
			} catch (error) {
				if (ctx.continueOnFail()) {
					results[itemIndex] = [errorItem(error, itemIndex)];
				} else {
					stop ??= asNodeError(ctx, error, itemIndex);
				}
			}
		}
	};
	await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, count)) }, worker));
	if (stop !== undefined) throw stop;

	const out: INodeExecutionData[] = [];
	for (const produced of results) if (produced) for (const item of produced) out.push(item);
	return [out];
}

/**
 * Reads and checks every item's fields before the first request, so a wrong value stops the node before anything
 * was sent. With Continue On Fail the wrong item's error is kept (as an Error in its slot, for `forEachItem`'s
 * handler to throw) and the other items still run.
 */
export function checkItems<T>(
	ctx: IExecuteFunctions,
	read: (itemIndex: number) => T,
): Array<T | Error> {
	const count = ctx.getInputData().length;
	const checked: Array<T | Error> = [];
	for (let i = 0; i < count; i++) {
		try {
			checked.push(read(i));
		} catch (error) {
			const nodeError = asNodeError(ctx, error, i);
			if (!ctx.continueOnFail()) throw nodeError;
			checked.push(nodeError);
		}
	}
	return checked;
}

function errorItem(error: unknown, itemIndex: number): INodeExecutionData {
	const e = error as NodeApiError;
	const json: JsonObject = { error: e.message };
	if (e.description) json.description = e.description;
	if (e.httpCode) json.httpCode = e.httpCode;
	return { json, pairedItem: { item: itemIndex } };
}

/** n8n errors pass through; anything else becomes a NodeOperationError for that item. */
export function asNodeError(ctx: IExecuteFunctions, error: unknown, itemIndex: number) {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	const message = (error as Error)?.message || String(error);
	return new NodeOperationError(ctx.getNode(), `${message} [item ${itemIndex}]`, { itemIndex });
}
