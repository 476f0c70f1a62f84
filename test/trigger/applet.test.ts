/** Fire Automation: IFTTT's two applet triggers (Options > Applet Trigger), event names, payload field names, tool mode. */
import type { IDataObject, INodeType } from 'n8n-workflow';

import { loadPackage, useServer } from '../harness/engine';
import { startIftttServer, startTriggerServer } from '../servers';
import { NODE, fields, runTrigger } from './helpers';

const KEY = 'ifttt-key-42';
const IFTTT = { apiKey: KEY, triggerApi: 'iftttWebhooks' };
const ifttt = useServer(() => startIftttServer({ apiKey: KEY }));
const generic = useServer(() => startTriggerServer({ apiKey: KEY }));

type Result = Awaited<ReturnType<typeof runTrigger>>;
const fire = async (params: IDataObject, opts: Parameters<typeof runTrigger>[2] = {}) =>
	await runTrigger(ifttt, { event: 'door_opened', ...params }, { credentials: IFTTT, ...opts });
/** The execution hints of the node's run (n8n shows them above its output). */
const hintsOf = (result: Result) =>
	(result.run.data.resultData.runData[NODE]?.[0]?.hints ?? []).map((h) => h.message);
const CLASSIC = `/trigger/door_opened/with/key/${KEY}`;
const JSON_ROUTE = `/trigger/door_opened/json/with/key/${KEY}`;

describe('Applet Trigger', () => {
	test.each([
		['Receive a Web Request, value1 only', 'webRequest', { value1: 'front' }, CLASSIC],
		['with a JSON Payload, value1 only', 'jsonPayload', { value1: 'front' }, JSON_ROUTE],
		['with a JSON Payload, no payload', 'jsonPayload', undefined, JSON_ROUTE],
		['Automatic, value1 only', 'auto', { value1: 'front' }, CLASSIC],
		['Automatic, another field', 'auto', { value1: 'front', temperature: '21' }, JSON_ROUTE],
	])('%s: its route', async (_name, appletTrigger, values, path) => {
		const result = await fire({
			...(values ? fields(values) : {}),
			options: { appletTrigger },
		});
		expect(result.error(NODE)).toBeUndefined();
		expect(ifttt.requests.map((r) => r.path)).toEqual([path]);
		const [delivery] = ifttt.deliveries;
		if (path === JSON_ROUTE) {
			// the JSON-payload applet gets the whole payload, as sent
			expect(JSON.parse(delivery.jsonPayload)).toEqual(values ?? {});
		} else {
			expect(delivery).toMatchObject({ values, ignored: [], jsonPayload: '' });
		}
		const hints = hintsOf(result);
		if (appletTrigger !== 'auto') expect(hints).toEqual([]);
		else {
			// once per run: which route, and why
			expect(hints).toHaveLength(1);
			expect(hints[0]).toMatch(
				path === CLASSIC
					? /^Applet Trigger \(Automatic\) chose "Receive a Web Request" .*no fields but value1, value2 and value3/
					: /^Applet Trigger \(Automatic\) chose "Receive a Web Request with a JSON Payload" .*\(temperature\)/,
			);
		}
	});

	test('Automatic, items on both routes: one hint for the run, counting them', async () => {
		const items = [{ t: '' }, { t: '21' }, { t: '' }];
		const params = { payload: 'json', jsonBody: '={{ $json.t ? {temperature: $json.t} : {} }}' };
		const result = await fire(params, { items });
		expect(ifttt.requests.map((r) => r.path).sort()).toEqual([JSON_ROUTE, CLASSIC, CLASSIC]);
		expect(hintsOf(result)).toEqual([
			expect.stringMatching(/for 2 item\(s\), and .* JSON Payload" for 1 item\(s\)/),
		]);
	});

	test('Automatic: field names of any length make a hint of bounded length', async () => {
		const long = 'n'.repeat(100_000);
		const params = { payload: 'json', jsonBody: `={{ { value1: "a", "${long}": 1, other: 2 } }}` };
		const result = await fire(params);
		expect(result.error(NODE)).toBeUndefined();
		const [hint] = hintsOf(result);
		expect(hint).toMatch(
			/^Applet Trigger \(Automatic\) chose "Receive a Web Request with a JSON Payload"/,
		);
		expect(hint.length).toBeLessThan(1000);
	});

	test('Receive a Web Request refuses a payload IFTTT would drop, before any call', async () => {
		const items = [{ extra: '' }, { extra: 'x' }];
		const params = {
			payload: 'json',
			jsonBody: '={{ $json.extra ? {value1: "a", door: "x", temperature: 3} : {value1: "a"} }}',
			options: { appletTrigger: 'webRequest' },
		};
		const result = await fire(params, { items });
		expect(result.error(NODE)?.message).toBe(
			`"Applet Trigger" is Receive a Web Request, which passes on only value1, value2 and value3: the payload's door and temperature would be dropped [item 1]`,
		);
		expect(ifttt.requests).toHaveLength(0);
	});

	test('the IFTTT stand-in: a JSON-payload applet fired on the classic route gets nothing', async () => {
		await fetch(`${ifttt.url}${CLASSIC}`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ value1: 'a', temperature: 3 }),
		});
		expect(ifttt.deliveries).toEqual([
			expect.objectContaining({
				route: 'classic',
				values: { value1: 'a' },
				ignored: ['temperature'],
				jsonPayload: '',
			}),
		]);
	});

	test.each([
		['auto', []],
		['jsonPayload', [expect.stringMatching(/^Applet Trigger was ignored/)]],
	])('Generic style, %s: one route, the option ignored', async (appletTrigger, hints) => {
		const params = { event: 'door_opened', ...fields({ temperature: '21' }) };
		const result = await runTrigger(
			generic,
			{ ...params, options: { appletTrigger } },
			{ credentials: { apiKey: KEY } },
		);
		expect(generic.requests.map((r) => r.path)).toEqual(['/trigger/door_opened']);
		expect(hintsOf(result)).toEqual(hints);
	});
});

describe('field names the address or the body could lose', () => {
	test.each([
		['Generic', '.'],
		['Generic', '..'],
		['IFTTT', '..'],
		['IFTTT', '...'],
	])('%s: an Event of "%s" is refused before any call', async (style, dots) => {
		const items = [{ e: 'ok' }, { e: dots }];
		const server = style === 'IFTTT' ? ifttt : generic;
		const credentials = style === 'IFTTT' ? IFTTT : { apiKey: KEY };
		const result = await runTrigger(server, { event: '={{ $json.e }}' }, { credentials, items });
		expect(result.error(NODE)?.message).toBe(
			`"Event" may not be made only of dots ("${dots}") [item 1]`,
		);
		expect(server.requests).toHaveLength(0);
	});

	test('Fields named __proto__, constructor and prototype are sent as written', async () => {
		const written = [
			['__proto__', 'p'],
			['constructor', 'c'],
			['prototype', 'x'],
			['value1', 'v'],
		].map(([name, value]) => ({ name, value }));
		const params = { event: 'e', payload: 'fields', fields: { values: written } };
		await runTrigger(generic, params, { credentials: { apiKey: KEY } });
		expect(generic.requests[0].body).toBe(
			'{"__proto__":"p","constructor":"c","prototype":"x","value1":"v"}',
		);
		// IFTTT: fields other than value1..value3, so the JSON route, with all of them
		await fire({ payload: 'fields', fields: { values: written } });
		expect(ifttt.requests[0].path).toBe(JSON_ROUTE);
		expect(ifttt.deliveries[0].jsonPayload).toBe(generic.requests[0].body);
	});
});

describe("as an AI agent's tool", () => {
	// the tool variant n8n makes of the node (name + "Tool"); n8n shows the tool's own Event field there
	beforeAll(async () => {
		const { pkg } = await loadPackage();
		const node = pkg.nodeTypes.fireAutomation.type as INodeType;
		const description = { ...node.description, name: 'fireAutomationTool' };
		const type = Object.assign(Object.create(node) as INodeType, { description });
		pkg.nodeTypes.fireAutomationTool = { type, sourcePath: '' };
	});
	const tool = async (args: IDataObject) =>
		await runTrigger(ifttt, {}, { credentials: IFTTT, items: [args], type: 'fireAutomationTool' });

	test('the model chooses the Event ($fromAI, prefilled)', async () => {
		const result = await tool({ event: 'door_opened' });
		expect(result.error(NODE)).toBeUndefined();
		expect(ifttt.requests.map((r) => r.path)).toEqual([CLASSIC]);
	});

	test('the model sent no Event: it is told so, nothing fires, the run does not fail', async () => {
		const result = await tool({});
		expect(result.error(NODE)).toBeUndefined();
		expect(result.output(NODE).map((i) => i.json)).toEqual([
			{ error: expect.stringMatching(/^Nothing was fired: the event name is missing\. /) },
		]);
		expect(ifttt.requests).toHaveLength(0);
	});
});

test.each([
	[
		'sometimes',
		/^"Applet Trigger" must be one of auto, webRequest, jsonPayload, not "sometimes" \[item 0\]$/,
	],
	['={{ 42 }}', /^"Applet Trigger" must be one of .*, not 42 \[item 0\]$/],
])('Applet Trigger %j is refused before any request', async (appletTrigger, message) => {
	const result = await fire({ options: { appletTrigger } });
	expect(result.error(NODE)?.message).toMatch(message);
	expect(ifttt.requests).toHaveLength(0);
});
