/** Field reading (nodes/shared/parameters.ts) gives what n8n's own evaluation gives. */
import { ExecuteContext } from 'n8n-core';
import type { IDataObject } from 'n8n-workflow';

import { chain, manualTrigger, node, runWorkflow, useServer } from '../harness/engine';
import { startQuotesServer } from '../servers';
import { hasExpression, jsonPath } from '../../nodes/shared/parameters';

const TRIGGER = 'When clicking Execute';

const server = useServer(() => startQuotesServer());

const ITEMS: IDataObject[] = [
	{ q: 'love', nest: { q: 'deep' }, 'a name': 'spaced' },
	{ q: 42, nest: { q: 7 }, 'a name': true },
	{ q: true, nest: { q: false }, 'a name': 0 },
	{ q: '', nest: {}, 'a name': '' },
	{ q: 'say "hi" \\ there', nest: { q: 'x' }, 'a name': "it's" },
	{ q: null, nest: null, 'a name': null },
	{},
	{ q: { nested: 1 }, nest: { q: { deeper: 1 } }, 'a name': { x: 1 } },
	{ q: ['x'], nest: ['q'], 'a name': ['y'] },
	{ q: 'wis', nest: 'not an object', 'a name': 'life' },
];

async function run(q: string) {
	server.reset();
	// n8n-core's ExecuteContext binds getNodeParameter per instance to its inherited _getNodeParameter: counted there
	const prototype = ExecuteContext.prototype as unknown as {
		_getNodeParameter: (name: string) => unknown;
	};
	const spy = jest.spyOn(prototype, '_getNodeParameter');
	try {
		const result = await runWorkflow(
			chain(
				manualTrigger(TRIGGER),
				node('quoteTags', 'Tags', { q, limit: 2 }, { continueOnFail: true }),
			),
			{
				credentials: { triptychApi: { apiKey: 'k', quotesUrl: server.url } },
				pinData: { [TRIGGER]: ITEMS },
			},
		);
		expect(result.workflowError).toBeUndefined();
		const reads = (name: string) => spy.mock.calls.filter((call) => call[0] === name).length;
		return {
			output: result
				.output('Tags')
				.map((item) => ({ json: item.json, pairedItem: item.pairedItem })),
			// the requests arrive in any order (items run concurrently): compared as a sorted list
			queries: server.requests.map((req) => JSON.stringify(req.query)).sort(),
			reads: { q: reads('q'), limit: reads('limit'), options: reads('options') },
		};
	} finally {
		spy.mockRestore();
	}
}

const primitive = (value: unknown) => ['string', 'number', 'boolean'].includes(typeof value);

describe.each([
	['$json.q', '={{ $json.q }}', '={{ ($json.q) }}', (item: IDataObject) => item.q],
	[
		'$json.nest.q',
		'={{ $json.nest.q }}',
		'={{ ($json.nest.q) }}',
		(item: IDataObject) => (item.nest as IDataObject | null)?.q,
	],
	[
		'$json["a name"]',
		'={{ $json["a name"] }}',
		'={{ ($json["a name"]) }}',
		(item: IDataObject) => item['a name'],
	],
])('a field mapped as %s', (_, mapped, evaluated, value) => {
	test('gives the same requests, output items and errors as n8n evaluating it', async () => {
		const direct = await run(mapped);
		const byN8n = await run(evaluated);
		expect(direct.output).toEqual(byN8n.output);
		expect(direct.queries).toEqual(byN8n.queries);
		expect(direct.output).toHaveLength(
			byN8n.output.length, // and the comparison covers something: answers and error items
		);
		expect(direct.output.some((item) => item.json.error)).toBe(true);
		expect(direct.output.some((item) => item.json.name)).toBe(true);
		// n8n evaluated the expression for every item; the direct look-up only where it holds no text, number or boolean
		expect(byN8n.reads.q).toBe(ITEMS.length);
		expect(direct.reads.q).toBe(ITEMS.filter((item) => !primitive(value(item))).length);
		expect(direct.reads.q).toBeLessThan(ITEMS.length);
	});
});

test('fields without an expression are read once per run, fields with one per item', async () => {
	const direct = await run('={{ $json.q }}');
	expect(direct.reads.limit).toBe(1);
	// Concurrency (read in execute()) and every item's Options: one read
	expect(direct.reads.options).toBe(1);

	server.reset();
	const result = await runWorkflow(
		chain(
			manualTrigger(TRIGGER),
			node('quoteTags', 'Tags', {
				q: 'o',
				limit: '={{ $json.n }}',
				options: { timeout: '={{ $json.t }}' },
			}),
		),
		{
			credentials: { triptychApi: { apiKey: 'k', quotesUrl: server.url } },
			pinData: {
				[TRIGGER]: [
					{ n: 1, t: 5000 },
					{ n: 2, t: 5000 },
					{ n: 3, t: 'soon' },
				],
			},
		},
	);
	// the third item's Timeout is wrong: the node stops before any request, naming the field and the item
	expect(result.error('Tags')?.message).toMatch(/Timeout.*\[item 2\]/);
	expect(server.requests).toHaveLength(0);
});

describe('recognising a drag-and-drop mapping', () => {
	test.each([
		['={{ $json.q }}', ['q']],
		['={{$json.q}}', ['q']],
		['={{ $json.a.b_2.$c }}', ['a', 'b_2', '$c']],
		['={{ $json["a name"] }}', ['a name']],
		["={{ $json['it'].x }}", ['it', 'x']],
		['={{ $json.a["b c"].d }}', ['a', 'b c', 'd']],
	])('%s → %j', (expression, path) => expect(jsonPath(expression)).toEqual(path));

	test.each([
		'{{ $json.q }}', // no "=": plain text
		'={{ $json.q }} ', // text around the expression makes it text
		'=x {{ $json.q }}',
		'={{ $json }}',
		'={{ $json.q.toUpperCase() }}',
		'={{ $json.q || "x" }}',
		'={{ $json[0] }}',
		'={{ $json[""] }}',
		'={{ $json["a\\"b"] }}',
		'={{ $json.q }}{{ $json.r }}',
		'={{ $("Start").item.json.q }}',
		'={{ ($json.q) }}',
	])('%s is left to n8n', (expression) => expect(jsonPath(expression)).toBeUndefined());

	test('expressions anywhere in a value', () => {
		expect(hasExpression('=x')).toBe(true);
		expect(hasExpression({ a: [{ b: '={{ 1 }}' }] })).toBe(true);
		expect(hasExpression({ a: [{ b: 'x=1' }], c: 3, d: null })).toBe(false);
		expect(hasExpression('plain')).toBe(false);
	});
});
