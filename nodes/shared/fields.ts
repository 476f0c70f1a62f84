import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { plainText, present } from './values';

/** A field with a wrong value (expressions can yield anything): the message names the field and the item. */
export const fieldError = (
	ctx: IExecuteFunctions,
	field: string,
	itemIndex: number,
	problem: string,
	description?: string,
) => new NodeOperationError(ctx.getNode(), `${field} ${problem}`, { itemIndex, description });

/** A value as the user would recognise it in a message. */
export const show = (value: unknown): string =>
	typeof value === 'string' ? `"${value}"` : plainText(value);

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
	const given = value ?? '';
	if (!['string', 'number', 'boolean'].includes(typeof given))
		throw fieldError(ctx, `"${field}"`, itemIndex, `must be text, not ${show(value)}`);
	const text = String(given).trim();
	if (text || !required) return text;
	const fix = 'Fill it in, or map it from the input item.';
	throw fieldError(ctx, `"${field}"`, itemIndex, 'is empty', fix);
}

/** true/false, also as 1/0 or text (what expressions hand over). */
export function toBoolean(ctx: IExecuteFunctions, value: unknown, field: string, i: number) {
	const given = typeof value === 'string' ? value.trim().toLowerCase() : value;
	if (given === true || given === 1 || given === 'true' || given === '1') return true;
	if (given === false || given === 0 || given === 'false' || given === '0') return false;
	throw fieldError(ctx, `"${field}"`, i, `must be true or false, not ${show(value)}`);
}

/** A comma-separated list of names (empty entries dropped). */
export const toList = (ctx: IExecuteFunctions, value: unknown, field: string, i: number) =>
	toText(ctx, value, field, i)
		.split(',')
		.map((s) => s.trim())
		.filter(Boolean);

/** Whether the node runs as an AI agent's tool: n8n's own signal where the version has one, else the type name. */
export const isTool = (ctx: IExecuteFunctions): boolean =>
	ctx.isToolExecution?.() || /Tool$/.test(ctx.getNode().type);

/** A number option defined once, so its field and the code that reads it cannot drift apart. */
export interface NumberOption {
	displayName: string;
	name: string;
	default: number;
	min: number;
	max?: number;
	description: string;
	hint?: string;
}

export function numberProperty({ min, max, ...field }: NumberOption): INodeProperties {
	const typeOptions = { minValue: min, ...(max !== undefined ? { maxValue: max } : {}) };
	return { ...field, type: 'number', typeOptions };
}

/** The option's value in an Options collection, checked (its default when the option is not added). */
export function readNumber(
	ctx: IExecuteFunctions,
	options: IDataObject,
	option: NumberOption,
	itemIndex: number,
): number {
	const value = present(options[option.name]) ? options[option.name] : option.default;
	return toInteger(ctx, value, option.displayName, itemIndex, option.min, option.max);
}

/** A choice defined once: its field and the check of what an expression may hand over. */
export interface ChoiceOption<V extends string = string> {
	displayName: string;
	name: string;
	default: V;
	description?: string;
	options: Array<{ name: string; value: V; description?: string }>;
}

export function choiceProperty(choice: ChoiceOption): INodeProperties {
	const options = [...choice.options].sort((a, b) => a.name.localeCompare(b.name));
	return { ...choice, type: 'options', options };
}

/** A choice's value, checked against its allowed values (its default when empty). */
export function readChoice<V extends string>(
	ctx: IExecuteFunctions,
	value: unknown,
	option: ChoiceOption<V>,
	itemIndex: number,
): V {
	if (!present(value)) return option.default;
	const allowed = option.options.map((o) => o.value);
	if (typeof value === 'string' && (allowed as string[]).includes(value)) return value as V;
	const problem = `must be one of ${allowed.join(', ')}, not ${show(value)}`;
	const choices = option.options.map((o) => o.name).join(', ');
	throw fieldError(ctx, `"${option.displayName}"`, itemIndex, problem, `Choose ${choices}.`);
}

/** A Sort Order choice (ascending / descending), sent under the name the service uses. */
export const sortOrder = (name: string, description: string): ChoiceOption<'asc' | 'desc'> => ({
	displayName: 'Sort Order',
	name,
	default: 'asc',
	description,
	options: [
		{ name: 'Ascending', value: 'asc' },
		{ name: 'Descending', value: 'desc' },
	],
});

/** The Limit field (its default written out: n8n's linter reads it from the source). */
const LIMIT: INodeProperties = {
	displayName: 'Limit',
	name: 'limit',
	type: 'number',
	typeOptions: { minValue: 1 },
	default: 50,
	displayOptions: { show: { returnAll: [false] } },
	description: 'Max number of results to return',
};

/** Return All / Limit, as n8n's own list operations have them. */
export const returnAllOrLimit = (): INodeProperties[] => [
	{
		displayName: 'Return All',
		name: 'returnAll',
		type: 'boolean',
		default: false,
		description: 'Whether to return all results or only up to a given limit',
	},
	{ ...LIMIT },
];

/** Return All / Limit of one item: `undefined` means all. */
export function getLimit(ctx: IExecuteFunctions, itemIndex: number): number | undefined {
	if (ctx.getNodeParameter('returnAll', itemIndex, false) === true) return undefined;
	const value = ctx.getNodeParameter('limit', itemIndex, LIMIT.default);
	return toInteger(ctx, value, LIMIT.displayName, itemIndex, 1);
}

export const getOptions = (ctx: IExecuteFunctions, itemIndex: number) =>
	ctx.getNodeParameter('options', itemIndex, {}) as IDataObject;

/** Fields in alphabetical order of their labels, as n8n lists a collection's options. */
export const sorted = (fields: INodeProperties[]) =>
	[...fields].sort((a, b) => a.displayName.localeCompare(b.displayName));

export const optionsCollection = (fields: INodeProperties[]): INodeProperties => ({
	displayName: 'Options',
	name: 'options',
	type: 'collection',
	placeholder: 'Add Option',
	default: {},
	options: sorted(fields),
});

export const textProperty = (
	displayName: string,
	name: string,
	placeholder: string,
	more: Partial<INodeProperties> = {},
): INodeProperties => ({ displayName, name, type: 'string', default: '', placeholder, ...more });
