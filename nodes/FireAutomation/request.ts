import { randomUUID } from 'crypto';
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { getOptions, readChoice, readNumber } from '../shared/fields';
import { fieldError, toText } from '../shared/validation';
import { APPLET_TRIGGER, KEY_MODE, LIMIT, QUERY_IN, TOOL_EVENT } from './description';
import { getPayload } from './payload';
import type { AppletTrigger } from './route';

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
	/** Options > Applet Trigger (for a style with a JSON-payload route) */
	applet: AppletTrigger;
	/** As a tool: whether the model was asked for the Event (it may send none) */
	eventFromModel: boolean;
}

/** Reads and checks the fields of one item and builds its request; throws a NodeOperationError naming the field. */
export function buildRequest(
	ctx: IExecuteFunctions,
	i: number,
	options: IDataObject = getOptions(ctx, i),
): TriggerRequest {
	// an AI agent's tool has its own Event field, which asks the model for the name
	const asTool = ctx.getNodeParameter(TOOL_EVENT, i, null, { rawExpressions: true });
	const raw =
		asTool === null
			? ctx.getNodeParameter('event', i, '')
			: ctx.getNodeParameter(TOOL_EVENT, i, '');
	const event = toText(ctx, raw, 'Event', i);
	if (/^\.+$/.test(event)) {
		throw fieldError(
			ctx,
			'"Event"',
			i,
			`may not be made only of dots ("${event}")`,
			'In an address "." and ".." stand for this folder and the one above it: the call would go to another address than {Trigger URL}/trigger/{Event}. Use a name such as door_opened.',
		);
	}
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
		applet: readChoice(ctx, options.appletTrigger, APPLET_TRIGGER, i),
		eventFromModel: hasFromAI(asTool),
	};
}

/** Whether a raw parameter value asks the model for it (n8n's `$fromAI`, in any spelling n8n accepts). */
function hasFromAI(raw: unknown): boolean {
	return typeof raw === 'string' && /\$fromAI\(/i.test(raw);
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
