import type {
	IDataObject,
	IExecuteFunctions,
	INodeParameters,
	NodeParameterValueType,
} from 'n8n-workflow';

import { isPlainObject } from './validation';

type Value = NodeParameterValueType | object;

/** What a field is, known from its raw value (the same for every item of a run). */
interface Field {
	/** As set in the node, expressions unevaluated; undefined when absent */
	raw: unknown;
	/** Whether n8n evaluates something in it */
	perItem: boolean;
	/** A plain `{{ $json.… }}` mapping: the path into the item's JSON */
	path?: string[];
}

/** Per node run: the node's parameters as set, what each field read is, and the values read once. */
interface RunParameters {
	raw: INodeParameters;
	fields: Map<string, Field>;
	values: Map<string, Value>;
}

const runs = new WeakMap<IExecuteFunctions, RunParameters>();

/**
 * A parameter's value for one item, as `getNodeParameter` gives it, at a fraction of its cost. n8n evaluates and
 * deep-copies a parameter on every call and builds an expression's data proxy anew each time: for a node whose
 * service answers at once, the largest part of an item's own work.
 * - A parameter with no expression in it has the same value for every item: it is read from n8n once per node
 *   run and handed to every item.
 * - A field mapped from the input the way the editor's drag and drop writes it, `{{ $json.name }}`,
 *   `{{ $json.a.b }}` or `{{ $json["a name"] }}`, is looked up in the item's JSON directly when it holds text, a
 *   number or a boolean (n8n gives exactly that value for a whole-field expression); anything else (absent, null,
 *   an object) is left to n8n, with its own result and errors.
 * - Every other expression is evaluated by n8n per item, as before.
 * Callers must not change what they get (it may be shared between items).
 */
export function parameter(
	ctx: IExecuteFunctions,
	name: string,
	itemIndex: number,
	fallback: Value,
): Value {
	let run = runs.get(ctx);
	if (!run) {
		run = { raw: ctx.getNode().parameters ?? {}, fields: new Map(), values: new Map() };
		runs.set(ctx, run);
	}
	let field = run.fields.get(name);
	if (!field) {
		const raw = at(run.raw, name);
		const path = typeof raw === 'string' ? jsonPath(raw) : undefined;
		field = { raw, perItem: hasExpression(raw), ...(path ? { path } : {}) };
		run.fields.set(name, field);
	}
	if (field.perItem) {
		if (field.path) {
			// read anew each time: never a stale copy of the input
			const mapped = lookUp(ctx.getInputData()[itemIndex]?.json, field.path);
			if (mapped !== undefined) return mapped;
		}
		return ctx.getNodeParameter(name, itemIndex, fallback);
	}
	let key = name;
	if (field.raw === undefined) {
		// an absent parameter gives the caller's fallback, evaluated like the parameter would be
		if (hasExpression(fallback)) return ctx.getNodeParameter(name, itemIndex, fallback);
		key = `${name}\u0000${JSON.stringify(fallback)}`;
	}
	let value = run.values.get(key);
	if (value === undefined) {
		value = ctx.getNodeParameter(name, itemIndex, fallback);
		run.values.set(key, value);
	}
	return value;
}

/** The raw value at a dotted path (`fields.values`), as n8n looks it up. */
function at(parameters: INodeParameters, path: string): unknown {
	let value: unknown = parameters;
	for (const part of path.split('.')) {
		if (typeof value !== 'object' || value === null) return undefined;
		value = (value as Record<string, unknown>)[part];
	}
	return value;
}

/** Whether n8n would evaluate something in it: a string starting with "=", anywhere inside. */
export function hasExpression(value: unknown): boolean {
	if (typeof value === 'string') return value.startsWith('=');
	if (typeof value !== 'object' || value === null) return false;
	for (const inner of Object.values(value)) if (hasExpression(inner)) return true;
	return false;
}

const MAPPING =
	/^=\{\{\s*\$json((?:\s*\.\s*[A-Za-z_$][\w$]*|\s*\[\s*(?:"[^"\\]*"|'[^'\\]*')\s*\])+)\s*\}\}$/;
const STEP = /\.\s*([A-Za-z_$][\w$]*)|\[\s*(?:"([^"\\]*)"|'([^'\\]*)')\s*\]/g;

/** `={{ $json.a["b c"] }}` → ['a', 'b c']; undefined for anything else. */
export function jsonPath(expression: string): string[] | undefined {
	const match = MAPPING.exec(expression);
	if (!match) return undefined;
	const path: string[] = [];
	for (const step of match[1].matchAll(STEP)) path.push(step[1] ?? step[2] ?? step[3]);
	return path.every((part) => part.length > 0) ? path : undefined;
}

/** The text, number or boolean at the path, through the item's own properties only; undefined otherwise. */
function lookUp(
	json: IDataObject | undefined,
	path: string[],
): string | number | boolean | undefined {
	let value: unknown = json;
	for (const part of path) {
		if (!isPlainObject(value)) return undefined;
		if (!Object.prototype.hasOwnProperty.call(value, part)) return undefined;
		value = (value as IDataObject)[part];
	}
	return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
		? value
		: undefined;
}
