import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { fieldError, toInteger, toText } from '../shared/validation';

/** Event names: letters, digits, "_", "-" and "." (what the best-known service of this kind accepts). */
export const EVENT_PATTERN = /^[A-Za-z0-9_.-]+$/;

/** Visible ASCII and spaces: anything else cannot be sent in an HTTP header. */
const HEADER_VALUE = /^[\x20-\x7E]+$/;
const MAX_IDEMPOTENCY_KEY = 255;

export const KEY_EXAMPLE = '{{ $execution.id }}-{{ $itemIndex }}';

/** Everything one item sends, checked before anything is sent. */
export interface TriggerRequest {
	path: string;
	qs?: IDataObject;
	/** The JSON body; "{}" as text when empty, because n8n drops an empty object body and would send nothing */
	body: IDataObject | string;
	headers: IDataObject;
	idempotencyKey?: string;
}

type Payload = 'none' | 'item' | 'fields' | 'json';

function isPlainObject(value: unknown): value is IDataObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'a list';
	return `a ${typeof value}`;
}

/** Reads and checks the fields of one item and builds its request; throws a NodeOperationError naming the field. */
export function buildRequest(ctx: IExecuteFunctions, i: number): TriggerRequest {
	const event = toText(ctx, ctx.getNodeParameter('event', i, ''), 'Event', i);
	if (event && !EVENT_PATTERN.test(event)) {
		throw fieldError(
			ctx,
			'"Event"',
			i,
			`may only contain letters, digits, "_", "-" and ".", not "${event}"`,
			'The event name is the last part of the address (POST {Trigger URL}/trigger/{Event}). Use e.g. door_opened, or leave it empty.',
		);
	}
	const q = toText(ctx, ctx.getNodeParameter('q', i, ''), 'Query', i);
	const options = ctx.getNodeParameter('options', i, {}) as IDataObject;
	const limit =
		options.limit === undefined || options.limit === null || options.limit === ''
			? undefined
			: toInteger(ctx, options.limit, 'Limit', i, 1);
	const idempotencyKey = getIdempotencyKey(ctx, options.idempotencyKey, i);

	const params: IDataObject = {};
	if (q) params.q = q;
	if (limit !== undefined) params.limit = limit;
	const queryIn = options.queryIn ?? 'query';
	if (queryIn !== 'query' && queryIn !== 'body') {
		throw fieldError(
			ctx,
			'"Send Query and Limit As"',
			i,
			`must be query or body, not ${JSON.stringify(queryIn)}`,
			'Choose Query Parameters or JSON Body Fields.',
		);
	}
	const inBody = queryIn === 'body';

	let body = getPayload(ctx, i);
	if (inBody && Object.keys(params).length) body = { ...body, ...params };

	const headers: IDataObject = { 'Content-Type': 'application/json' };
	if (idempotencyKey) headers['Idempotency-Key'] = idempotencyKey;
	return {
		path: '/trigger/' + encodeURIComponent(event),
		...(!inBody && Object.keys(params).length ? { qs: params } : {}),
		body: Object.keys(body).length ? body : '{}',
		headers,
		...(idempotencyKey ? { idempotencyKey } : {}),
	};
}

function getIdempotencyKey(ctx: IExecuteFunctions, raw: unknown, i: number): string | undefined {
	const key = toText(ctx, raw, 'Idempotency Key', i);
	if (!key) return undefined;
	if (!HEADER_VALUE.test(key) || key.length > MAX_IDEMPOTENCY_KEY) {
		throw fieldError(
			ctx,
			'"Idempotency Key"',
			i,
			`must be at most ${MAX_IDEMPOTENCY_KEY} characters of plain ASCII text (it is sent as a header)`,
			`Build it from ids and numbers, e.g. ${KEY_EXAMPLE}.`,
		);
	}
	return key;
}

function getPayload(ctx: IExecuteFunctions, i: number): IDataObject {
	const mode = ctx.getNodeParameter('payload', i, 'none') as Payload;
	switch (mode) {
		case 'none':
			return {};
		case 'item':
			return ctx.getInputData()[i]?.json ?? {};
		case 'fields':
			return getFields(ctx, i);
		case 'json':
			return getJson(ctx, i);
		default:
			throw fieldError(
				ctx,
				'"Payload"',
				i,
				`has an unknown value "${String(mode)}"`,
				'Choose None, Input Item JSON, Fields or JSON.',
			);
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
		body[name] = (row.value ?? '') as IDataObject[string];
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
