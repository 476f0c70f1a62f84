import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { RequestSettings } from './transport';

/** A field with a wrong value: the message names the field and the item, before any request is sent. */
export function fieldError(
	ctx: IExecuteFunctions,
	field: string,
	itemIndex: number,
	problem: string,
	description?: string,
): NodeOperationError {
	return new NodeOperationError(ctx.getNode(), `${field} ${problem} [item ${itemIndex}]`, {
		itemIndex,
		description,
	});
}

function show(value: unknown): string {
	if (typeof value === 'string') return `"${value}"`;
	try {
		return JSON.stringify(value) ?? String(value);
	} catch {
		return String(value);
	}
}

/** A whole number within bounds (expressions can yield anything: text, fractions, negatives). */
export function toInteger(
	ctx: IExecuteFunctions,
	value: unknown,
	field: string,
	itemIndex: number,
	min: number,
	max = Number.MAX_SAFE_INTEGER,
): number {
	const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max) {
		const range = max === Number.MAX_SAFE_INTEGER ? `of ${min} or more` : `from ${min} to ${max}`;
		throw fieldError(
			ctx,
			`"${field}"`,
			itemIndex,
			`must be a whole number ${range}, not ${show(value)}`,
		);
	}
	return n;
}

/** A text field; `required` rejects empty text. */
export function toText(
	ctx: IExecuteFunctions,
	value: unknown,
	field: string,
	itemIndex: number,
	required = false,
): string {
	if (value === undefined || value === null) value = '';
	if (typeof value === 'number' || typeof value === 'boolean') value = String(value);
	if (typeof value !== 'string') {
		throw fieldError(ctx, `"${field}"`, itemIndex, `must be text, not ${show(value)}`);
	}
	const text = value.trim();
	if (required && !text)
		throw fieldError(
			ctx,
			`"${field}"`,
			itemIndex,
			'is empty',
			'Fill it in, or map it from the input item.',
		);
	return text;
}

/** Return All / Limit of one item: `undefined` means all. */
export function getLimit(ctx: IExecuteFunctions, itemIndex: number): number | undefined {
	if (ctx.getNodeParameter('returnAll', itemIndex, false) === true) return undefined;
	return toInteger(ctx, ctx.getNodeParameter('limit', itemIndex, 50), 'Limit', itemIndex, 1);
}

/** The Options collection's timeout and retry settings, checked. */
export function getRequestSettings(ctx: IExecuteFunctions, itemIndex: number): RequestSettings {
	const options = ctx.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const pick = (name: string, fallback: number) =>
		options[name] === undefined ? fallback : options[name];
	return {
		timeout: toInteger(ctx, pick('timeout', 30000), 'Timeout (Ms)', itemIndex, 1),
		maxAttempts: toInteger(ctx, pick('maxAttempts', 3), 'Max Attempts', itemIndex, 1, 10),
		retryDelay: toInteger(ctx, pick('retryDelay', 500), 'Initial Retry Delay (Ms)', itemIndex, 0),
		maxRetryWait:
			toInteger(ctx, pick('maxRetryWait', 30), 'Max Retry Wait (Seconds)', itemIndex, 0) * 1000,
	};
}
