import { randomUUID } from 'crypto';
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { getOptions, readChoice, readNumber, fieldError, toText } from '../shared/fields';
import { getRequestSettings } from '../shared/options';
import { isPlainObject, present } from '../shared/values';
import { APPLET_TRIGGER, KEY_MODE, LIMIT, PAYLOAD, QUERY_IN, TOOL_EVENT } from './description';

/** Visible ASCII and spaces: anything else cannot be sent in an HTTP header. */
const HEADER_VALUE = /^[\x20-\x7E]+$/;
const MAX_IDEMPOTENCY_KEY = 255;

export const KEY_EXAMPLE = 'order-{{ $json.orderNumber }}';

/** Everything one item sends, checked before anything is sent. */
export type TriggerRequest = ReturnType<typeof buildRequest>;

export function buildRequest(ctx: IExecuteFunctions, i: number) {
	const options = getOptions(ctx, i);
	// an AI agent's tool has its own Event field, which asks the model for the name
	const asTool = ctx.getNodeParameter(TOOL_EVENT, i, null, { rawExpressions: true });
	const raw = ctx.getNodeParameter(asTool === null ? 'event' : TOOL_EVENT, i, '');
	const event = toText(ctx, raw, 'Event', i);
	const refuse = (problem: string, fix: string) => fieldError(ctx, '"Event"', i, problem, fix);
	if (/^\.+$/.test(event))
		throw refuse(
			`may not be made only of dots ("${event}")`,
			'"." and ".." would send the call to another address than {Trigger URL}/trigger/{Event}. Use e.g. door_opened.',
		);
	// what the best-known service of this kind accepts
	if (event && !/^[A-Za-z0-9_.-]+$/.test(event))
		throw refuse(
			`may only contain letters, digits, "_", "-" and ".", not "${event}"`,
			'The event name is the last part of the address. Use e.g. door_opened, or leave it empty.',
		);
	const q = toText(ctx, ctx.getNodeParameter('q', i, ''), 'Query', i);
	const params: IDataObject = {};
	if (q) params.q = q;
	if (present(options.limit)) params.limit = readNumber(ctx, options, LIMIT, i);
	return {
		event,
		payload: getPayload(ctx, i),
		params,
		paramsInBody: readChoice(ctx, options.queryIn, QUERY_IN, i) === 'body',
		idempotencyKey: getIdempotencyKey(ctx, options, i),
		applet: readChoice(ctx, options.appletTrigger, APPLET_TRIGGER, i),
		// as a tool: whether the model was asked for the Event (it may send none)
		eventFromModel: typeof asTool === 'string' && /\$fromAI\(/i.test(asTool),
		settings: getRequestSettings(ctx, i, options),
	};
}

const executionKeys = new WeakMap<object, string>();

function getIdempotencyKey(ctx: IExecuteFunctions, options: IDataObject, i: number) {
	const custom = toText(ctx, options.idempotencyKey, 'Idempotency Key', i);
	const given =
		options.idempotency === undefined ? (custom ? 'custom' : 'none') : options.idempotency;
	const mode = readChoice(ctx, given, KEY_MODE, i);
	if (mode === 'none') return undefined;
	if (mode === 'auto') {
		// per execution, node, run and item: every call (an AI agent's calls are runs of their own) and item gets its
		// own key, and Retry On Fail, which repeats the run, sends it again. Some test runs have no execution id.
		let execution = String(ctx.getExecutionId() ?? '') || executionKeys.get(ctx);
		if (!execution) executionKeys.set(ctx, (execution = randomUUID()));
		const run = Number(ctx.evaluateExpression('={{ $runIndex }}', i)) || 0;
		return `n8n-${execution}-${ctx.getNode().id ?? 'node'}-${run}-${i}`;
	}
	const refuse = (problem: string, fix: string) =>
		fieldError(ctx, '"Idempotency Key"', i, problem, fix);
	if (!custom)
		throw refuse(
			'is empty while Idempotency Key Mode is Custom',
			`Give a value unique per call and per item, e.g. ${KEY_EXAMPLE}, or choose Automatic.`,
		);
	if (!HEADER_VALUE.test(custom) || custom.length > MAX_IDEMPOTENCY_KEY)
		throw refuse(
			`must be at most ${MAX_IDEMPOTENCY_KEY} characters of plain ASCII text (it is sent as a header)`,
			`Build it from ids and numbers, e.g. ${KEY_EXAMPLE}.`,
		);
	return custom;
}

function getPayload(ctx: IExecuteFunctions, i: number): IDataObject {
	const mode = readChoice(ctx, ctx.getNodeParameter('payload', i, PAYLOAD.default), PAYLOAD, i);
	if (mode === 'none') return {};
	if (mode === 'item') return ctx.getInputData()[i]?.json ?? {};
	if (mode === 'fields') return getFields(ctx, i);
	const raw = ctx.getNodeParameter('jsonBody', i, '{}');
	if (typeof raw === 'string' && !raw.trim()) return {};
	const refuse = (problem: string, fix: string) => fieldError(ctx, '"JSON"', i, problem, fix);
	let value: unknown = raw;
	try {
		if (typeof raw === 'string') value = JSON.parse(raw);
	} catch (error) {
		throw refuse(
			`is not valid JSON: ${(error as Error).message}`,
			'Check quotes and commas; an expression inside a string needs quotes around it, e.g. {"value1": "{{ $json.name }}"}.',
		);
	}
	if (isPlainObject(value)) return value;
	const kind = value === null ? 'null' : Array.isArray(value) ? 'a list' : `a ${typeof value}`;
	throw refuse(
		`must be a JSON object ({...}), not ${kind}`,
		'Wrap other values in an object, e.g. {"items": [...]} or {"value1": 42}.',
	);
}

function getFields(ctx: IExecuteFunctions, i: number): IDataObject {
	const rows = ctx.getNodeParameter('fields.values', i, []) as IDataObject[];
	const names = new Set<string>();
	const refuse = (problem: string, fix: string) => fieldError(ctx, '"Fields"', i, problem, fix);
	const fields = rows.map((row, n) => {
		const name = String(row.name ?? '').trim();
		if (!name) throw refuse(`has a field without a name (field ${n + 1})`, 'Name it or remove it.');
		if (names.has(name)) throw refuse(`has the name "${name}" twice`, 'Each name may appear once.');
		names.add(name);
		return [name, row.value ?? ''];
	});
	// defined, not assigned: `body.__proto__ = …` would change the object's prototype and send nothing
	return Object.fromEntries(fields) as IDataObject;
}
