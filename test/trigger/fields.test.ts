/** Fire Automation: each field onto the request, the payload modes, the output, bad values. */
import type { IDataObject } from 'n8n-workflow';

import { loadPackage, useServer } from '../harness/engine';
import { startTriggerServer } from '../servers';
import { KEY, NODE, numbered, runTrigger } from './helpers';

const server = useServer(() => startTriggerServer());

function header(i: number, name: string) {
	return server.requests[i].headers[name.toLowerCase()];
}

/** Items run concurrently, so requests may arrive in any order: compare the bodies as sorted lists. */
function sorted<T>(values: T[]): T[] {
	return [...values].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
}

function sentInAnyOrder() {
	return sorted(server.requests.map((r) => r.json));
}

describe('node description', () => {
	test('is an action usable as an AI tool, not a trigger node', async () => {
		const { pkg } = await loadPackage();
		const type = pkg.nodeTypes.fireAutomation.type as unknown as {
			description: IDataObject & { group: string[]; codex?: { alias?: string[] } };
		};
		const d = type.description;
		expect(d.name).toBe('fireAutomation');
		expect(d.displayName).toBe('Fire Automation');
		expect(d.defaults).toEqual({ name: 'Fire Automation' });
		expect(d.group).toEqual(['output']); // no node named "trigger": test/package/package.test.ts
		// usable as an AI agent's tool, with a description written for the model
		expect(d.usableAsTool).toEqual({
			replacements: {
				description: expect.stringMatching(/^Fire an automation .*event name and a JSON payload/),
			},
		});
		expect(d.description).toBe(
			'Fire an "if this then that" automation with an event name and a JSON payload',
		);
		expect(type.constructor.name).toBe('FireAutomation');
		expect(d.codex?.alias).toEqual(expect.arrayContaining(['IFTTT', 'webhook', 'triptych']));
		// names, types, defaults and choices of every parameter: test/surface/surface.test.ts
		const options = (d.properties as IDataObject[]).find((p) => p.name === 'options')!
			.options as IDataObject[];
		const option = (name: string) => options.find((o) => o.name === name)!;
		expect(option('concurrency')).toMatchObject({
			displayName: 'Concurrency',
			typeOptions: { minValue: 1, maxValue: 512 },
		});
		expect(option('maxResponseSize')).toMatchObject({
			displayName: 'Max Response Size (MB)',
			typeOptions: { minValue: 1, maxValue: 1024 },
		});
		expect(option('timeout').displayName).toBe('Timeout (ms)');
		expect(option('retryDelay').displayName).toBe('Initial Retry Delay (ms)');
		expect(option('batchInterval').displayName).toBe('Batch Interval (ms)');
		expect(option('idempotency').displayName).toBe('Idempotency Key Mode');
	});
});

describe('request mapping', () => {
	test('Event becomes the path; Bearer key, JSON content type and an empty JSON object by default', async () => {
		const result = await runTrigger(server, { event: 'door_opened' });
		expect(result.workflowError).toBeUndefined();
		expect(server.requests).toHaveLength(1);
		const req = server.requests[0];
		expect(req.method).toBe('POST');
		expect(req.path).toBe('/trigger/door_opened');
		expect(req.query).toEqual({});
		expect(req.body).toBe('{}');
		expect(header(0, 'Authorization')).toBe(`Bearer ${KEY}`);
		expect(header(0, 'Content-Type')).toBe('application/json');
		expect(header(0, 'Idempotency-Key')).toBeUndefined();
		expect(server.deliveries).toHaveLength(1);
		expect(server.deliveries[0]).toMatchObject({
			event: 'door_opened',
			q: null,
			limit: null,
			body: {},
		});
	});

	test('an empty Event calls /trigger/; the name is trimmed and may use "_", "-" and "."', async () => {
		await runTrigger(server, { event: '' });
		await runTrigger(server, { event: '  front-door.v2_ok ' });
		expect(server.requests.map((r) => r.path)).toEqual(['/trigger/', '/trigger/front-door.v2_ok']);
		expect(server.deliveries.map((d) => d.event)).toEqual(['', 'front-door.v2_ok']);
	});

	test('Event from an expression, per item', async () => {
		const result = await runTrigger(
			server,
			{ event: '={{ $json.kind }}_{{ $itemIndex }}' },
			{ items: [{ kind: 'door' }, { kind: 'window' }, { kind: 'motion' }] },
		);
		expect(result.workflowError).toBeUndefined();
		// items run concurrently: the requests may arrive in any order, each item's output is its own call's
		expect(server.requests.map((r) => r.path).sort()).toEqual([
			'/trigger/door_0',
			'/trigger/motion_2',
			'/trigger/window_1',
		]);
		expect(result.output(NODE).map((o) => o.json.event)).toEqual([
			'door_0',
			'window_1',
			'motion_2',
		]);
	});

	test('Query and Limit are query parameters by default; not sent when empty or not added', async () => {
		await runTrigger(server, { event: 'e', q: 'living room', options: { limit: 5 } });
		await runTrigger(server, { event: 'e', q: 'only q' });
		await runTrigger(server, { event: 'e', options: { limit: 7 } });
		expect(server.requests.map((r) => r.query)).toEqual([
			{ q: 'living room', limit: '5' },
			{ q: 'only q' },
			{ limit: '7' },
		]);
		expect(server.requests.map((r) => r.body)).toEqual(['{}', '{}', '{}']);
		expect(server.deliveries.map((d) => [d.q, d.limit])).toEqual([
			['living room', 5],
			['only q', null],
			[null, 7],
		]);
	});

	test('"Send Query and Limit As: JSON Body Fields" moves them into the body, over payload fields of that name', async () => {
		const result = await runTrigger(server, {
			event: 'e',
			q: 'hall',
			payload: 'json',
			jsonBody: '{"value1": "a", "q": "from payload", "nested": {"x": 1}}',
			options: { limit: 2, queryIn: 'body' },
		});
		expect(result.workflowError).toBeUndefined();
		expect(server.requests[0].query).toEqual({});
		expect(server.requests[0].json).toEqual({ value1: 'a', q: 'hall', nested: { x: 1 }, limit: 2 });
		expect(server.deliveries[0]).toMatchObject({ q: 'hall', limit: 2 });
	});

	test('Idempotency Key from an expression becomes the Idempotency-Key header, one per item', async () => {
		const result = await runTrigger(
			server,
			{ event: 'e', options: { idempotencyKey: '={{ $execution.id }}-{{ $itemIndex }}' } },
			{ items: numbered(3) },
		);
		expect(result.workflowError).toBeUndefined();
		const keys = server.requests.map((r) => r.headers['idempotency-key'] as string);
		expect(keys).toHaveLength(3);
		expect(new Set(keys).size).toBe(3);
		expect(server.deliveries.map((d) => d.idempotencyKey)).toEqual(keys);
		// each item's call carried its own key (the service echoes it back)
		const echoed = result.output(NODE).map((o) => o.json.idempotencyKey as string);
		echoed.forEach((key, i) => expect(key).toMatch(new RegExp(`^\\d+-${i}$`)));
		expect([...echoed].sort()).toEqual([...keys].sort());
	});
});

describe('payload modes', () => {
	const items = [
		{ name: 'kitchen', temp: 21.5, on: true, tags: ['a', 'b'] },
		{ name: 'cellar', temp: 12, on: false, tags: [] },
		{ name: 'attic', temp: -3, on: true, tags: ['c'], extra: { deep: { x: 1 } } },
	];

	test('None sends {}', async () => {
		await runTrigger(server, { event: 'e', payload: 'none' }, { items });
		expect(server.requests.map((r) => r.body)).toEqual(['{}', '{}', '{}']);
	});

	test('Input Item JSON sends each whole item', async () => {
		const result = await runTrigger(server, { event: 'e', payload: 'item' }, { items });
		expect(result.workflowError).toBeUndefined();
		expect(sentInAnyOrder()).toEqual(sorted(items));
		expect(result.output(NODE).map((o) => o.json.received)).toEqual(items);
	});

	test('Input Item JSON with q in the body does not change the input item', async () => {
		const result = await runTrigger(
			server,
			{ event: 'e', payload: 'item', q: '={{ $json.name }}', options: { queryIn: 'body' } },
			{ items },
		);
		const sent = items.map((it) => ({ ...it, q: it.name }));
		expect(sentInAnyOrder()).toEqual(sorted(sent));
		expect(result.output(NODE).map((o) => o.json.received)).toEqual(sent);
		// the input items, as the next node would see them through $('When clicking Execute'), are untouched
		const trigger = result.output('When clicking Execute').map((o) => o.json);
		expect(trigger).toEqual(items);
	});

	test('Fields with expressions: value1..value3, types kept', async () => {
		const result = await runTrigger(
			server,
			{
				event: 'e',
				payload: 'fields',
				fields: {
					values: [
						{ name: 'value1', value: '={{ $json.name }}' },
						{ name: 'value2', value: '={{ $json.temp }}' },
						{ name: 'value3', value: '={{ $json.on }}' },
						{ name: 'tags', value: '={{ $json.tags }}' },
						{ name: 'label', value: 'room {{ $itemIndex }}' },
						{ name: ' padded ', value: 'fixed text' },
					],
				},
			},
			{ items },
		);
		expect(result.workflowError).toBeUndefined();
		const sent = items.map((it) => ({
			value1: it.name,
			value2: it.temp,
			value3: it.on,
			tags: it.tags,
			label: 'room {{ $itemIndex }}', // not an expression without the leading "="
			padded: 'fixed text',
		}));
		expect(sentInAnyOrder()).toEqual(sorted(sent));
		expect(result.output(NODE).map((o) => o.json.received)).toEqual(sent);
	});

	test('Fields: an empty list sends {}', async () => {
		await runTrigger(server, { event: 'e', payload: 'fields', fields: {} });
		expect(server.requests[0].body).toBe('{}');
	});

	test('JSON with expressions, per item', async () => {
		const result = await runTrigger(
			server,
			{
				event: 'e',
				payload: 'json',
				jsonBody:
					'={\n  "value1": "{{ $json.name }}",\n  "value2": {{ $json.temp }},\n  "value3": {{ JSON.stringify($json.tags) }},\n  "meta": {"item": {{ $itemIndex }}}\n}',
			},
			{ items },
		);
		expect(result.workflowError).toBeUndefined();
		const sent = items.map((it, i) => ({
			value1: it.name,
			value2: it.temp,
			value3: it.tags,
			meta: { item: i },
		}));
		expect(sentInAnyOrder()).toEqual(sorted(sent));
		expect(result.output(NODE).map((o) => o.json.received)).toEqual(sent);
	});

	test('JSON given as an expression that yields an object', async () => {
		const result = await runTrigger(
			server,
			{
				event: 'e',
				payload: 'json',
				jsonBody: '={{ { room: $json.name, hot: $json.temp > 20 } }}',
			},
			{ items },
		);
		const sent = items.map((it) => ({ room: it.name, hot: it.temp > 20 }));
		expect(sentInAnyOrder()).toEqual(sorted(sent));
		expect(result.output(NODE).map((o) => o.json.received)).toEqual(sent);
	});

	test('JSON: the default template and an empty editor', async () => {
		await runTrigger(server, { event: 'e', payload: 'json' });
		await runTrigger(server, { event: 'e', payload: 'json', jsonBody: '  ' });
		expect(server.requests[0].json).toEqual({ value1: '', value2: '', value3: '' });
		expect(server.requests[1].body).toBe('{}');
	});
});

describe('output items', () => {
	test('one item per input item: the envelope data fields plus message, paired to its input', async () => {
		const result = await runTrigger(server, { event: 'ping', q: 'x' }, { items: numbered(3) });
		const out = result.output(NODE);
		expect(out).toHaveLength(3);
		expect(server.deliveries).toHaveLength(3);
		// each output item carries the id of its own delivery (they may arrive in any order)
		expect(out.map((o) => o.json.id).sort()).toEqual(server.deliveries.map((d) => d.id).sort());
		out.forEach((item, i) => {
			expect(item.pairedItem).toEqual({ item: i });
			expect(item.json).toEqual({
				event: 'ping',
				id: expect.any(String),
				received: {},
				q: 'x',
				limit: null,
				duplicate: false,
				message: 'Fired ping',
			});
		});
	});

	test('data that is not an object is wrapped as "data"; a "message" field of the data is kept', async () => {
		server.fail(
			{ kind: 'status', status: 200, body: { status: 'success', data: [1, 2], message: 'queued' } },
			{ kind: 'status', status: 200, body: { status: 'success', data: 'ok', message: 'fine' } },
			{ kind: 'status', status: 200, body: { status: 'success', data: null } },
			{
				kind: 'status',
				status: 200,
				body: { status: 'success', data: { message: 'own' }, message: 'envelope' },
			},
			{ kind: 'status', status: 200, body: { accepted: true } },
		);
		// one fault per request in arrival order: one call at a time, so item n gets fault n
		const result = await runTrigger(
			server,
			{ event: 'e', options: { concurrency: 1 } },
			{ items: numbered(5) },
		);
		expect(result.output(NODE).map((o) => o.json)).toEqual([
			{ data: [1, 2], message: 'queued' },
			{ data: 'ok', message: 'fine' },
			{ data: null },
			{ message: 'own' },
			{ accepted: true },
		]);
	});
});

describe('bad values are refused before any request', () => {
	async function refused(params: IDataObject, items?: IDataObject[]) {
		const result = await runTrigger(server, params, { items });
		const error = result.error(NODE);
		expect(error).toBeDefined();
		expect(server.requests).toHaveLength(0);
		return error!;
	}

	test.each(['door opened', 'a/b', 'tür', 'x?y=1', '%41'])('Event "%s"', async (event) => {
		const error = await refused({ event });
		expect(error.message).toMatch(/^"Event" may only contain letters, digits, "_", "-" and "\."/);
		expect(error.message).toMatch(/\[item 0\]$/);
	});

	test('a bad Event in the third item stops the node before the first item is sent', async () => {
		const error = await refused({ event: '={{ $json.e }}' }, [
			{ e: 'ok' },
			{ e: 'fine' },
			{ e: 'not ok' },
		]);
		expect(error.message).toContain('"Event"');
		expect(error.message).toContain('[item 2]');
		expect(server.deliveries).toHaveLength(0);
	});

	test('invalid JSON names the field and the item', async () => {
		const error = await refused(
			{ event: 'e', payload: 'json', jsonBody: '={ "value1": {{ $json.v }} }' },
			[{ v: 1 }, { v: '"quoted"' }, { v: 'bare words' }],
		);
		expect(error.message).toMatch(/^"JSON" is not valid JSON: .+ \[item 2\]$/);
		expect(error.description).toContain('quotes');
	});

	test.each([
		['[1, 2]', 'a list'],
		['"text"', 'a string'],
		['42', 'a number'],
		['null', 'null'],
	])('JSON %s is not an object', async (jsonBody, kind) => {
		const error = await refused({ event: 'e', payload: 'json', jsonBody });
		expect(error.message).toBe(`"JSON" must be a JSON object ({...}), not ${kind} [item 0]`);
	});

	test('Fields: a field without a name, and a name used twice', async () => {
		const noName = await refused({
			event: 'e',
			payload: 'fields',
			fields: {
				values: [
					{ name: 'value1', value: 'a' },
					{ name: '  ', value: 'b' },
				],
			},
		});
		expect(noName.message).toBe('"Fields" has a field without a name (field 2) [item 0]');
		const twice = await refused({
			event: 'e',
			payload: 'fields',
			fields: {
				values: [
					{ name: 'value1', value: 'a' },
					{ name: 'value1 ', value: 'b' },
				],
			},
		});
		expect(twice.message).toBe('"Fields" has the name "value1" twice [item 0]');
	});

	test.each([0, -1, 2.5, 'many'])('Limit %p', async (limit) => {
		const error = await refused({ event: 'e', options: { limit } });
		expect(error.message).toMatch(/^"Limit" must be a whole number of 1 or more/);
	});

	test.each([
		['concurrency', 0, '"Concurrency" must be a whole number from 1 to 512, not 0 [item 0]'],
		['concurrency', 513, '"Concurrency" must be a whole number from 1 to 512, not 513 [item 0]'],
		['batchSize', 0, '"Items per Batch" must be a whole number of 1 or more'],
		[
			'batchInterval',
			-5,
			'"Batch Interval (ms)" must be a whole number of 0 or more, not -5 [item 0]',
		],
		['timeout', 0, '"Timeout (ms)" must be a whole number from 1 to 3600000, not 0 [item 0]'],
		[
			'retryDelay',
			-1,
			'"Initial Retry Delay (ms)" must be a whole number from 0 to 600000, not -1 [item 0]',
		],
		[
			'maxResponseSize',
			0,
			'"Max Response Size (MB)" must be a whole number from 1 to 1024, not 0 [item 0]',
		],
		[
			'maxResponseSize',
			1025,
			'"Max Response Size (MB)" must be a whole number from 1 to 1024, not 1025 [item 0]',
		],
	])('%s %p', async (name, value, message) => {
		const error = await refused({ event: 'e', options: { [name]: value } });
		expect(error.message).toContain(message);
	});

	test.each([
		[{ q: '={{ { a: 1 } }}' }, '"Query" must be text, not {"a":1} [item 0]'],
		[{ payload: 'xml' }, '"Payload" must be one of fields, item, json, none, not "xml" [item 0]'],
		[
			{ options: { queryIn: '={{ "header" }}' } },
			'"Send Query and Limit As" must be one of query, body, not "header" [item 0]',
		],
		[
			{ options: { idempotency: '={{ "always" }}' } },
			'"Idempotency Key Mode" must be one of auto, custom, none, not "always" [item 0]',
		],
		[
			{ options: { idempotency: 'custom' } },
			'"Idempotency Key" is empty while Idempotency Key Mode is Custom [item 0]',
		],
		[
			{ options: { idempotency: 'custom', idempotencyKey: '  ' } },
			'"Idempotency Key" is empty while Idempotency Key Mode is Custom [item 0]',
		],
	])('%j', async (params, message) => {
		const error = await refused({ event: 'e', ...params });
		expect(error.message).toBe(message);
	});

	test('an Idempotency Key that cannot be a header', async () => {
		const error = await refused({ event: 'e', options: { idempotencyKey: '={{ "a\\nb" }}' } });
		expect(error.message).toMatch(
			/^"Idempotency Key" must be at most 255 characters of plain ASCII text/,
		);
		const long = await refused({ event: 'e', options: { idempotencyKey: 'k'.repeat(256) } });
		expect(long.message).toContain('"Idempotency Key"');
	});

	test('an empty Trigger URL in the credentials', async () => {
		const result = await runTrigger(server, { event: 'e' }, { credentials: { triggerUrl: '' } });
		expect(result.error(NODE)?.message).toBe('The Trigger URL is empty [item 0]');
		expect(server.requests).toHaveLength(0);
	});
});

describe('Continue On Fail', () => {
	test('a bad item becomes an error item in its place; the others are sent', async () => {
		const result = await runTrigger(
			server,
			{ event: '={{ $json.e }}', payload: 'json', jsonBody: '={{ $json.body }}' },
			{
				items: [
					{ e: 'one', body: '{"a": 1}' },
					{ e: 'bad event', body: '{}' },
					{ e: 'three', body: '{oops' },
					{ e: 'four', body: '{"d": 4}' },
				],
				extra: { continueOnFail: true },
			},
		);
		expect(result.workflowError).toBeUndefined();
		const out = result.output(NODE);
		expect(out.map((o) => o.pairedItem)).toEqual([0, 1, 2, 3].map((item) => ({ item })));
		expect(out[0].json).toMatchObject({ event: 'one', received: { a: 1 } });
		expect(out[1].json.error).toMatch(/^"Event" may only contain .* \[item 1\]$/);
		expect(out[2].json.error).toMatch(/^"JSON" is not valid JSON: .* \[item 2\]$/);
		expect(out[3].json).toMatchObject({ event: 'four', received: { d: 4 } });
		expect(server.requests.map((r) => r.path).sort()).toEqual(['/trigger/four', '/trigger/one']);
	});

	test('a service error becomes an error item with the HTTP code', async () => {
		server.fail({
			kind: 'status',
			status: 400,
			body: { status: 'fail', data: null, message: 'limit too large' },
		});
		// one call at a time, so the fault meets item 0
		const result = await runTrigger(
			server,
			{ event: 'e', options: { concurrency: 1 } },
			{ items: numbered(2), extra: { continueOnFail: true } },
		);
		const out = result.output(NODE);
		expect(out[0].json).toMatchObject({ httpCode: '400' });
		expect(out[0].json.error).toContain('limit too large');
		expect(out[1].json).toMatchObject({ event: 'e', duplicate: false });
		expect(server.deliveries).toHaveLength(1);
	});

	test('the API key never shows in an error item', async () => {
		server.setMode({ echoHeaders: true });
		const result = await runTrigger(server, { event: 'e' }, { extra: { continueOnFail: true } });
		const text = JSON.stringify(result.output(NODE));
		expect(text).toContain('Request rejected');
		expect(text).not.toContain(KEY);
	});
});
