/** Fire Automation against the IFTTT Webhooks stand-in and a generic service answering text. */
import type { IDataObject } from 'n8n-workflow';

import { logs, useServer } from '../harness/engine';
import { startIftttServer, startTriggerServer } from '../servers';
import { keySightings } from '../museum/setup';
import { FAST, NODE, fields, runTrigger } from './helpers';

const KEY = 'ifttt+Key/42';
const IFTTT = { apiKey: KEY, triggerApi: 'iftttWebhooks' };
const ifttt = useServer(() => startIftttServer({ apiKey: KEY }));
const generic = useServer(() => startTriggerServer({ apiKey: KEY }));

const fire = async (params: IDataObject, credentials: IDataObject = IFTTT, opts = {}) =>
	await runTrigger(ifttt, { event: 'door_opened', ...params }, { credentials, ...opts });
const outputOf = (result: Awaited<ReturnType<typeof fire>>) =>
	result.output(NODE).map((i) => i.json);
const congratulations = (json = false) => ({
	accepted: true,
	statusCode: 200,
	text: `Congratulations! You've fired the door_opened${json ? ' JSON' : ''} event`,
});

describe('IFTTT Webhooks style', () => {
	test.each([
		['no payload: the classic route', {}, undefined, { route: 'classic', values: {} }],
		[
			'value1..value3: the classic route',
			fields({ value1: 'front', value2: '21' }),
			undefined,
			{ route: 'classic', values: { value1: 'front', value2: '21' } },
		],
		[
			'any other JSON: the JSON route',
			{ payload: 'json', jsonBody: '{"value1": "front", "temperature": 21}' },
			undefined,
			{ route: 'json', payload: { value1: 'front', temperature: 21 } },
		],
		[
			'Query and Limit go in the query string, whatever Query In says',
			{ ...fields({ value1: 'front' }), q: 'hall', options: { queryIn: 'body', limit: 5 } },
			{ q: 'hall', limit: '5' },
			{ route: 'classic', values: { value1: 'front' } },
		],
	])('%s', async (_name, params, query, delivery) => {
		const result = await fire(params);
		const json = delivery.route === 'json';
		expect(outputOf(result)).toEqual([congratulations(json)]);
		expect(ifttt.deliveries).toEqual([
			expect.objectContaining({ event: 'door_opened', ...delivery }),
		]);
		const [request] = ifttt.requests;
		expect(request.path).toBe(
			`/trigger/door_opened/${json ? 'json/' : ''}with/key/${encodeURIComponent(KEY)}`,
		);
		expect(request.query).toEqual(query ?? {});
		expect(request.headers.authorization).toBeUndefined();
		expect(keySightings(result, KEY)).toEqual([]);
	});

	test('the Event is required: checked for every item before any call', async () => {
		const params = { event: '={{ $json.event }}' };
		const items = [{ event: 'door_opened' }, { event: '' }];
		const stopped = await fire(params, IFTTT, { items });
		expect(stopped.error(NODE)?.message).toMatch(/^"Event" is empty.*IFTTT Webhooks.*\[item 1\]$/);
		expect(ifttt.requests).toHaveLength(0);

		const out = outputOf(await fire(params, IFTTT, { items, extra: { continueOnFail: true } }));
		expect(out[0]).toEqual(congratulations());
		expect(out[1].error).toMatch(/"Event" is empty/);
		expect(ifttt.deliveries).toHaveLength(1);

		// while batching, the item refused does not hold the windows after it
		const options = { batchSize: 1, batchInterval: 20 };
		const batched = [...items, { event: 'door_opened' }];
		const extra = { continueOnFail: true };
		const later = outputOf(await fire({ ...params, options }, IFTTT, { items: batched, extra }));
		expect(later.map((o) => o.error === undefined)).toEqual([true, false, true]);
	});

	test.each([
		[
			'a wrong key',
			() => ({ apiKey: 'wrong+key/1' }),
			'401',
			/You sent an invalid key\..*\[item 0\]$/,
		],
		[
			'a wrong path',
			() => ({ triggerUrl: `${ifttt.url}/maker` }),
			'404',
			/HTTP 404 with an HTML page/,
		],
	])('%s: a clear error, without the key', async (_name, change, status, message) => {
		const credentials = { ...IFTTT, ...change() };
		const result = await fire({}, credentials);
		const error = result.error(NODE)!;
		expect(error.httpCode).toBe(status);
		expect(error.message).toMatch(message);
		if (status === '401') expect(error.description).toMatch(/API Key.*Trigger API/);
		expect(ifttt.deliveries).toHaveLength(0);
		expect(keySightings(result, credentials.apiKey)).toEqual([]);
	});

	test.each([
		['HTTP 503 without Idempotency Key: not retried', { status: 503 }, {}, 1, 0],
		[
			'HTTP 503 with an Idempotency Key: retried, fired once',
			{ status: 503 },
			{ idempotency: 'auto' },
			2,
			1,
		],
		['HTTP 429: retried without a key, fired once', { status: 429 }, {}, 2, 1],
	])('%s', async (_name, fault, options, requests, deliveries) => {
		ifttt.fail({ kind: 'status', retryAfter: '0', ...fault });
		const result = await fire({ options: { ...FAST, ...options } });
		expect(ifttt.requests).toHaveLength(requests);
		expect(ifttt.deliveries).toHaveLength(deliveries);
		if (deliveries) expect(outputOf(result)).toEqual([congratulations()]);
		else expect(result.error(NODE)?.description).toMatch(/The node did not retry/);
		expect(keySightings(result, KEY)).toEqual([]);
	});
});

test('a generic trigger service answering text: accepted, fired once', async () => {
	generic.fail({ kind: 'notJson' });
	const result = await runTrigger(
		generic,
		{ event: 'door_opened' },
		{ credentials: { apiKey: KEY } },
	);
	expect(outputOf(result)).toEqual([
		{ accepted: true, statusCode: 200, text: "Congratulations! You've fired the event" },
	]);
	expect(generic.requests).toHaveLength(1);
	expect(generic.requests[0].headers.authorization).toBe(`Bearer ${KEY}`);
	expect(keySightings(result, KEY)).toEqual([]);
});
