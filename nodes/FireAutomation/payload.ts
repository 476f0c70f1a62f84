import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { readChoice } from '../shared/fields';
import { fieldError, isPlainObject } from '../shared/validation';
import { PAYLOAD } from './description';

/** The JSON payload of one item, as the Payload field says; throws a field error naming the field and the item. */
export function getPayload(ctx: IExecuteFunctions, i: number): IDataObject {
	const mode = readChoice(ctx, ctx.getNodeParameter('payload', i, PAYLOAD.default), PAYLOAD, i);
	switch (mode) {
		case 'none':
			return {};
		case 'item':
			return ctx.getInputData()[i]?.json ?? {};
		case 'fields':
			return getFields(ctx, i);
		case 'json':
			return getJson(ctx, i);
	}
}

function getFields(ctx: IExecuteFunctions, i: number): IDataObject {
	const rows = ctx.getNodeParameter('fields.values', i, []) as Array<{
		name?: unknown;
		value?: unknown;
	}>;
	const body: IDataObject = {};
	rows.forEach((row, n) => {
		const name = typeof row.name === 'string' ? row.name.trim() : String(row.name ?? '').trim();
		if (!name) {
			throw fieldError(
				ctx,
				'"Fields"',
				i,
				`has a field without a name (field ${n + 1})`,
				'Give every field a name, e.g. value1, or remove it.',
			);
		}
		if (Object.prototype.hasOwnProperty.call(body, name)) {
			throw fieldError(
				ctx,
				'"Fields"',
				i,
				`has the name "${name}" twice`,
				'Each name may appear once in the JSON body.',
			);
		}
		// defined, not assigned: `body.__proto__ = …` would change the object's prototype and send nothing
		Object.defineProperty(body, name, {
			value: row.value ?? '',
			enumerable: true,
			writable: true,
			configurable: true,
		});
	});
	return body;
}

function getJson(ctx: IExecuteFunctions, i: number): IDataObject {
	const raw = ctx.getNodeParameter('jsonBody', i, '{}');
	let value: unknown = raw;
	if (typeof raw === 'string') {
		if (!raw.trim()) return {};
		try {
			value = JSON.parse(raw);
		} catch (error) {
			throw fieldError(
				ctx,
				'"JSON"',
				i,
				`is not valid JSON: ${(error as Error).message}`,
				'Check quotes and commas; an expression inside a string needs quotes around it, e.g. {"value1": "{{ $json.name }}"}.',
			);
		}
	}
	if (!isPlainObject(value)) {
		throw fieldError(
			ctx,
			'"JSON"',
			i,
			`must be a JSON object ({...}), not ${describe(value)}`,
			'Wrap other values in an object, e.g. {"items": [...]} or {"value1": 42}.',
		);
	}
	return value;
}

function describe(value: unknown): string {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'a list';
	return `a ${typeof value}`;
}
