import { randomUUID } from 'crypto';
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { getOptions, readChoice, readNumber } from '../shared/fields';
import { fieldError, isPlainObject, toText } from '../shared/validation';
import { KEY_MODE, LIMIT, PAYLOAD, QUERY_IN } from './description';
import { parameter } from '../shared/parameters';

/** Event names: letters, digits, "_", "-" and "." (what the best-known service of this kind accepts). */
export const EVENT_PATTERN = /^[A-Za-z0-9_.-]+$/;

/** Visible ASCII and spaces: anything else cannot be sent in an HTTP header. */
const HEADER_VALUE = /^[\x20-\x7E]+$/;
const MAX_IDEMPOTENCY_KEY = 255;

/** A custom key that is unique per call and per item, for messages. */
export const KEY_EXAMPLE = 'order-{{ $json.orderNumber }}';

/** Everything one item sends, checked before anything is sent. */
export interface TriggerRequest {
	event: string;
	/** The JSON payload, without q and limit */
	payload: IDataObject;
	/** q and limit, those given */
	params: IDataObject;
	/** Query In: JSON Body Fields */
	paramsInBody: boolean;
	headers: IDataObject;
	idempotencyKey?: string;
}

/** IFTTT's classic route takes these fields (its ingredients Value1..Value3); any other body needs its /json/ route. */
const IFTTT_VALUES = /^value[123]$/;

/**
 * Path, query and body of one call. IFTTT Webhooks: the path ends in /with/key/ (the credential adds the key), and
 * q and limit always go in the query string, which IFTTT ignores, so they never decide the route.
 */
export function wireRequest(
	request: TriggerRequest,
	ifttt: boolean,
): { path: string; qs?: IDataObject; body: IDataObject | string } {
	const hasParams = Object.keys(request.params).length > 0;
	const inBody = hasParams && request.paramsInBody && !ifttt;
	const body = inBody ? { ...request.payload, ...request.params } : request.payload;
	const keys = Object.keys(body);
	const event = encodeURIComponent(request.event);
	const path = !ifttt
		? `/trigger/${event}`
		: `/trigger/${event}/${keys.every((k) => IFTTT_VALUES.test(k)) ? '' : 'json/'}with/key/`;
	// "{}" as text: n8n drops an empty object body and would send nothing
	return {
		path,
		...(hasParams && !inBody ? { qs: request.params } : {}),
		body: keys.length ? body : '{}',
	};
}

function describe(value: unknown): string {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'a list';
	return `a ${typeof value}`;
}

/** Reads and checks the fields of one item and builds its request; throws a NodeOperationError naming the field. */
export function buildRequest(
	ctx: IExecuteFunctions,
	i: number,
	options: IDataObject = getOptions(ctx, i),
): TriggerRequest {
	const event = toText(ctx, parameter(ctx, 'event', i, ''), 'Event', i);
	if (event && !EVENT_PATTERN.test(event)) {
		throw fieldError(
			ctx,
			'"Event"',
			i,
			`may only contain letters, digits, "_", "-" and ".", not "${event}"`,
			'The event name is the last part of the address (POST {Trigger URL}/trigger/{Event}). Use e.g. door_opened, or leave it empty.',
		);
	}
	const q = toText(ctx, parameter(ctx, 'q', i, ''), 'Query', i);
	const limit =
		options.limit === undefined || options.limit === null || options.limit === ''
			? undefined
			: readNumber(ctx, options, LIMIT, i);
	const idempotencyKey = getIdempotencyKey(ctx, options, i);

	const params: IDataObject = {};
	if (q) params.q = q;
	if (limit !== undefined) params.limit = limit;
	const headers: IDataObject = { 'Content-Type': 'application/json' };
	if (idempotencyKey) headers['Idempotency-Key'] = idempotencyKey;
	return {
		event,
		payload: getPayload(ctx, i),
		params,
		paramsInBody: readChoice(ctx, options.queryIn, QUERY_IN, i) === 'body',
		headers,
		...(idempotencyKey ? { idempotencyKey } : {}),
	};
}

/** In IFTTT style the event is part of the address: without it there is nothing to call. */
export function eventRequired(ctx: IExecuteFunctions, i: number): Error {
	return fieldError(
		ctx,
		'"Event"',
		i,
		'is empty, but IFTTT Webhooks needs an event name',
		'IFTTT fires the applets of an event: give its name, e.g. door_opened (Trigger API is IFTTT Webhooks in the credential).',
	);
}

const executionKeys = new WeakMap<object, string>();

/** The execution's id; where there is none (some test runs), a random id for this node run. */
function executionKey(ctx: IExecuteFunctions): string {
	const id = ctx.getExecutionId();
	if (id) return String(id);
	let key = executionKeys.get(ctx);
	if (!key) executionKeys.set(ctx, (key = randomUUID()));
	return key;
}

/**
 * The Idempotency-Key of one item. Automatic: execution, node, run and item, so every call (each call of an AI
 * agent is a run of its own) and every item gets its own key, and n8n's Retry On Fail, which repeats the same run,
 * sends the same key again.
 */
function getIdempotencyKey(
	ctx: IExecuteFunctions,
	options: IDataObject,
	i: number,
): string | undefined {
	const custom = toText(ctx, options.idempotencyKey, 'Idempotency Key', i);
	const mode =
		options.idempotency === undefined
			? custom
				? 'custom'
				: 'none'
			: readChoice(ctx, options.idempotency, KEY_MODE, i);
	if (mode === 'none') return undefined;
	if (mode === 'auto') {
		const run = Number(ctx.evaluateExpression('={{ $runIndex }}', i)) || 0;
		return `n8n-${executionKey(ctx)}-${ctx.getNode().id ?? 'node'}-${run}-${i}`;
	}
	if (!custom) {
		throw fieldError(
			ctx,
			'"Idempotency Key"',
			i,
			'is empty while Idempotency Key Mode is Custom',
			`Give a value unique per call and per item, e.g. ${KEY_EXAMPLE}, or choose Automatic.`,
		);
	}
	if (!HEADER_VALUE.test(custom) || custom.length > MAX_IDEMPOTENCY_KEY) {
		throw fieldError(
			ctx,
			'"Idempotency Key"',
			i,
			`must be at most ${MAX_IDEMPOTENCY_KEY} characters of plain ASCII text (it is sent as a header)`,
			`Build it from ids and numbers, e.g. ${KEY_EXAMPLE}.`,
		);
	}
	return custom;
}

function getPayload(ctx: IExecuteFunctions, i: number): IDataObject {
	const mode = readChoice(ctx, parameter(ctx, 'payload', i, PAYLOAD.default), PAYLOAD, i);
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
	const rows = parameter(ctx, 'fields.values', i, []) as Array<{
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
	const raw = parameter(ctx, 'jsonBody', i, '{}');
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
