import { type IDataObject, type IExecuteFunctions, NodeOperationError } from 'n8n-workflow';

/** A field with a wrong value: the message names the field and the item, before any request is sent. */
export function fieldError(
	ctx: IExecuteFunctions,
	field: string,
	itemIndex: number,
	problem: string,
	description?: string,
): NodeOperationError {
	return new NodeOperationError(ctx.getNode(), `${field} ${problem}`, { itemIndex, description });
}

/** A value as the user would recognise it in a message. */
export const show = (value: unknown): string =>
	typeof value === 'string' ? `"${value}"` : plainText(value);

/** A service's value as text, whatever it is: JSON can hold an object whose "toString" is not a function. */
export function plainText(value: unknown): string {
	if (typeof value === 'string') return value;
	if (typeof value !== 'object' || value === null) return String(value);
	try {
		return JSON.stringify(value);
	} catch {
		return '';
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
	if (typeof n === 'number' && Number.isInteger(n) && n >= min && n <= max) return n;
	const range = max === Number.MAX_SAFE_INTEGER ? `of ${min} or more` : `from ${min} to ${max}`;
	const problem = `must be a whole number ${range}, not ${show(value)}`;
	throw fieldError(ctx, `"${field}"`, itemIndex, problem);
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
	if (typeof value !== 'string')
		throw fieldError(ctx, `"${field}"`, itemIndex, `must be text, not ${show(value)}`);
	const text = value.trim();
	if (text || !required) return text;
	const fix = 'Fill it in, or map it from the input item.';
	throw fieldError(ctx, `"${field}"`, itemIndex, 'is empty', fix);
}

/** true/false, also as 1/0 or text (what expressions hand over). */
export function toBoolean(
	ctx: IExecuteFunctions,
	value: unknown,
	field: string,
	itemIndex: number,
) {
	const given = typeof value === 'string' ? value.trim().toLowerCase() : value;
	if (given === true || given === 1 || given === 'true' || given === '1') return true;
	if (given === false || given === 0 || given === 'false' || given === '0') return false;
	throw fieldError(ctx, `"${field}"`, itemIndex, `must be true or false, not ${show(value)}`);
}

/** A comma-separated list of names (empty entries dropped). */
export function toList(ctx: IExecuteFunctions, value: unknown, field: string, itemIndex: number) {
	return toText(ctx, value, field, itemIndex)
		.split(',')
		.map((s) => s.trim())
		.filter(Boolean);
}

export function isPlainObject(value: unknown): value is IDataObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What a service sent where something else was expected, in a few words ("a list", "an object with the keys a, b"). */
export function describeValue(value: unknown): string {
	if (value === undefined || value === '') return 'an empty body';
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'a list';
	if (typeof value === 'string') return `a string (${value.slice(0, 40)})`;
	if (typeof value !== 'object') return `a ${typeof value}`;
	const keys = Object.keys(value);
	if (!keys.length) return 'an empty object';
	return `an object with the keys ${keys.slice(0, 8).join(', ')}${keys.length > 8 ? ', …' : ''}`;
}

/** Whether the node runs as an AI agent's tool: n8n's own signal where the version has one, else the type name. */
export function isTool(ctx: IExecuteFunctions): boolean {
	return ctx.isToolExecution?.() || /Tool$/.test(ctx.getNode().type);
}
