/**
 * The newer features in the real n8n, each against the stand-in of the service it was made for: Museum Object
 * Search's Get by ID and by a Harvard page's address, Fire Automation's two IFTTT applet triggers, and Quote Tags
 * over the tag lists of the Quotable rewrite and QuoteSlate. Each workflow is Manual Trigger → one node, run with
 * `n8n execute`; the output and what the stand-in received are checked.
 */
import assert from 'node:assert/strict';

import {
	type IftttServer,
	type MuseumServer,
	type QuotesServiceServer,
	loadMuseumRecords,
	loadQuoteTags,
	startHarvardServer,
	startIftttServer,
	startQuotableRewrite,
	startQuoteSlate,
} from '../../test/servers';
import {
	type CredentialKind,
	type RunView,
	type Services,
	CREDENTIAL_TYPE,
	PACKAGE,
	type WorkflowJson,
	credentialData,
	resetServices,
} from '../../test/scenarios';
import type { Check } from './checks';

type Credential = { id: string; name: string };

/** The credentials of these workflows: Harvard museum, IFTTT trigger, the rewrite's quotes; QuoteSlate's quotes. */
export const FEATURE_CREDENTIALS = {
	harvardIfttt: { id: 'e2eTriptychHvIf1', name: 'Triptych (e2e, Harvard, IFTTT, rewrite)' },
	quoteSlate: { id: 'e2eTriptychQSl01', name: 'Triptych (e2e, QuoteSlate)' },
} as const;

const IDS = {
	getById: 'e2eFeatGetById00',
	getByUrl: 'e2eFeatGetByUrl0',
	appletClassic: 'e2eFeatIftttCls0',
	appletJson: 'e2eFeatIftttJson',
	rewrite: 'e2eFeatRewrite00',
	quoteSlate: 'e2eFeatQuoteSlat',
};

export interface FeatureServices {
	harvard: MuseumServer;
	ifttt: IftttServer;
	rewrite: QuotesServiceServer;
	quoteSlate: QuotesServiceServer;
	close(): Promise<void>;
}

export async function startFeatureServices(apiKey: string): Promise<FeatureServices> {
	const harvard = await startHarvardServer({
		apiKey,
		records: loadMuseumRecords({ source: 'fixture' }),
	});
	const ifttt = await startIftttServer({ apiKey });
	const rewrite = await startQuotableRewrite();
	const quoteSlate = await startQuoteSlate();
	return {
		harvard,
		ifttt,
		rewrite,
		quoteSlate,
		async close() {
			await Promise.all([harvard, ifttt, rewrite, quoteSlate].map((s) => s.close()));
		},
	};
}

const reset = (f: FeatureServices) =>
	[f.harvard, f.ifttt, f.rewrite, f.quoteSlate].forEach((s) => s.reset());

/** The credentials as `n8n import:credentials` takes them. */
export function featureCredentials(s: Services, f: FeatureServices) {
	const main = credentialData(s, 'main' as CredentialKind);
	return [
		{
			...FEATURE_CREDENTIALS.harvardIfttt,
			type: CREDENTIAL_TYPE,
			data: {
				...main,
				museumUrl: f.harvard.url,
				museumApi: 'harvard',
				quotesUrl: `${f.rewrite.url}/api`,
				triggerUrl: f.ifttt.url,
				triggerApi: 'iftttWebhooks',
			},
		},
		{
			...FEATURE_CREDENTIALS.quoteSlate,
			type: CREDENTIAL_TYPE,
			data: { ...main, quotesUrl: `${f.quoteSlate.url}/api` },
		},
	];
}

/** The object both Gets ask for: the fixture's first (both museum stand-ins serve the fixture). */
const harvardObject = () => loadMuseumRecords({ source: 'fixture' })[0];

/** The workflows: Manual Trigger → one node of the package. */
export function featureWorkflows(main: Credential): WorkflowJson[] {
	const { harvardIfttt, quoteSlate } = FEATURE_CREDENTIALS;
	const id = String(harvardObject().objectid);
	const ifttt = (applet: string, payload: Record<string, unknown>) => ({
		event: 'artwork_ready',
		...payload,
		options: { appletTrigger: applet },
	});
	const list: Array<[string, string, Record<string, unknown>, Credential]> = [
		[
			IDS.getById,
			'museumObjectSearch',
			{ operation: 'get', objectId: { __rl: true, mode: 'id', value: id }, options: {} },
			main,
		],
		[
			IDS.getByUrl,
			'museumObjectSearch',
			{
				operation: 'get',
				objectId: {
					__rl: true,
					mode: 'url',
					value: `https://harvardartmuseums.org/collections/object/${id}`,
				},
				options: {},
			},
			harvardIfttt,
		],
		[
			IDS.appletClassic,
			'fireAutomation',
			ifttt('webRequest', {
				payload: 'fields',
				fields: {
					values: [
						{ name: 'value1', value: '={{ $json.title }}' },
						{ name: 'value2', value: 'Harvard' },
						{ name: 'value3', value: '={{ 1 + 2 }}' },
					],
				},
			}),
			harvardIfttt,
		],
		[
			IDS.appletJson,
			'fireAutomation',
			ifttt('jsonPayload', {
				payload: 'json',
				jsonBody: '={ "title": "{{ $json.title }}", "tags": ["a", "b"], "nested": { "n": 1 } }',
			}),
			harvardIfttt,
		],
		[
			IDS.rewrite,
			'quoteTags',
			{ q: '', returnAll: true, options: { sortBy: 'quoteCount', order: 'desc' } },
			harvardIfttt,
		],
		[
			IDS.quoteSlate,
			'quoteTags',
			{ q: '', returnAll: true, options: { sortBy: 'name' } },
			quoteSlate,
		],
	];
	return list.map(([wfId, nodeType, parameters, credential]) => {
		const name = `Feature ${nodeType}`;
		const start = 'When clicking Execute';
		const setName = 'Item';
		return {
			id: wfId,
			name: `e2e feature: ${wfId}`,
			active: false,
			nodes: [
				{
					id: `${wfId}-start`,
					name: start,
					type: 'n8n-nodes-base.manualTrigger',
					typeVersion: 1,
					position: [0, 0],
					parameters: {},
				},
				{
					id: `${wfId}-set`,
					name: setName,
					type: 'n8n-nodes-base.set',
					typeVersion: 3.4,
					position: [200, 0],
					parameters: {
						mode: 'raw',
						jsonOutput: '{ "title": "Self-Portrait" }',
						options: {},
					},
				},
				{
					id: `${wfId}-node`,
					name,
					type: `${PACKAGE}.${nodeType}`,
					typeVersion: 1,
					position: [420, 0],
					parameters,
					credentials: { triptychApi: credential },
				},
			],
			connections: {
				[start]: { main: [[{ node: setName, type: 'main', index: 0 }]] },
				[setName]: { main: [[{ node: name, type: 'main', index: 0 }]] },
			},
			settings: { executionOrder: 'v1' },
		};
	});
}

/** Runs the feature checks of one n8n version. */
export async function featurePhase(r: {
	services: Services;
	features: FeatureServices;
	check: Check;
	/** `n8n execute` of a workflow: its run, or the reason it failed */
	run(id: string): Promise<RunView>;
}): Promise<void> {
	const { services, features: f, check } = r;
	const object = harvardObject();
	const node = (type: string) => `Feature ${type}`;
	const fresh = async (id: string) => {
		resetServices(services);
		reset(f);
		const view = await r.run(id);
		assert.equal(view.error, undefined, `the workflow failed: ${view.error}`);
		return view;
	};

	await check('feature: Museum Object Search, Get by ID (generic museum)', async () => {
		const run = await fresh(IDS.getById);
		const out = run.items(node('museumObjectSearch'));
		assert.equal(out.length, 1, 'Get should output one item');
		assert.equal(out[0].json.id, object.objectid, 'the item is another object');
		assert.equal(out[0].json.title, object.title);
		const requests = services.museum.requests;
		assert.deepEqual(
			requests.map((q) => `${q.method} ${q.path}`),
			[`GET /object/${object.objectid}`],
			'Get should make one GET /object/{id}',
		);
		assert.equal(requests[0].headers.authorization, `Bearer ${services.apiKey}`);
		return [
			`GET /object/${object.objectid} with the Bearer key → "${out[0].json.title}" (id ${out[0].json.id})`,
		];
	});

	await check(
		'feature: Museum Object Search, Get by URL (a Harvard page, Harvard API)',
		async () => {
			const run = await fresh(IDS.getByUrl);
			const out = run.items(node('museumObjectSearch'));
			assert.equal(out.length, 1, 'Get should output one item');
			assert.equal(out[0].json.id, object.objectid, 'the item is another object');
			const requests = f.harvard.requests;
			assert.deepEqual(
				requests.map((q) => `${q.method} ${q.path}`),
				[`GET /object/${object.objectid}`],
				'Get should make one GET /object/{id} from the page address',
			);
			assert.equal(requests[0].query.apikey, services.apiKey, 'the key as the apikey parameter');
			assert.equal(requests[0].headers.authorization, undefined, 'no key in a header to Harvard');
			return [
				`https://harvardartmuseums.org/collections/object/${object.objectid} → GET /object/${object.objectid}?apikey=… → "${out[0].json.title}"`,
			];
		},
	);

	/** Runs a Fire Automation workflow: one output item, one delivery on `route`, no key in a header. */
	const fired = async (id: string, route: 'classic' | 'json') => {
		const run = await fresh(id);
		assert.equal(run.items(node('fireAutomation')).length, 1, 'one output item');
		const [delivery, ...more] = f.ifttt.deliveries;
		assert.ok(delivery && !more.length, `${f.ifttt.deliveries.length} deliveries, not 1`);
		assert.equal(delivery.route, route);
		assert.equal(delivery.event, 'artwork_ready');
		const headers = f.ifttt.requests.map((r) => r.headers.authorization);
		assert.deepEqual(headers, [undefined], 'IFTTT takes the key in the path, never in a header');
		return delivery;
	};

	await check('feature: Fire Automation, IFTTT "Receive a Web Request" (value1..3)', async () => {
		const delivery = await fired(IDS.appletClassic, 'classic');
		assert.deepEqual(delivery.values, {
			value1: 'Self-Portrait',
			value2: 'Harvard',
			value3: '3',
		});
		assert.deepEqual(delivery.ignored, []);
		const [request] = f.ifttt.requests;
		assert.equal(request.path, `/trigger/artwork_ready/with/key/${services.apiKey}`);
		return [
			`POST /trigger/artwork_ready/with/key/… → the applet got ${JSON.stringify(delivery.values)}, nothing ignored`,
		];
	});

	await check('feature: Fire Automation, IFTTT "… with a JSON Payload" (whole body)', async () => {
		const delivery = await fired(IDS.appletJson, 'json');
		const payload = { title: 'Self-Portrait', tags: ['a', 'b'], nested: { n: 1 } };
		assert.deepEqual(delivery.payload, payload);
		assert.deepEqual(JSON.parse(delivery.jsonPayload), payload);
		const [request] = f.ifttt.requests;
		assert.equal(request.path, `/trigger/artwork_ready/json/with/key/${services.apiKey}`);
		return [`POST /trigger/artwork_ready/json/with/key/… → JsonPayload ${delivery.jsonPayload}`];
	});

	await check(
		'feature: Quote Tags over the Quotable rewrite ({id, name, quotesCount})',
		async () => {
			const run = await fresh(IDS.rewrite);
			const out = run.items(node('quoteTags'));
			const expected = loadQuoteTags()
				.filter((t) => t.quoteCount > 0)
				.sort((a, b) => b.quoteCount - a.quoteCount);
			assert.deepEqual(
				out.map((i) => i.json.quotesCount ?? i.json.quoteCount),
				expected.map((t) => t.quoteCount),
				'not every tag, most quoted first',
			);
			assert.deepEqual(
				new Set(out.map((i) => i.json.name)),
				new Set(expected.map((t) => t.name)),
				'other tag names than the rewrite holds',
			);
			const requests = f.rewrite.requests;
			assert.deepEqual(
				requests.map((q) => `${q.method} ${q.path} ${JSON.stringify(q.query)}`),
				['GET /api/tags {}'],
				'one GET /api/tags without sort parameters',
			);
			return [
				`${out.length} tags from GET /api/tags, sorted by quotesCount by the node (${out[0].json.name} first)`,
			];
		},
	);

	await check('feature: Quote Tags over QuoteSlate (a bare list of names)', async () => {
		const run = await fresh(IDS.quoteSlate);
		const out = run.items(node('quoteTags'));
		const names = loadQuoteTags()
			.map((t) => t.slug)
			.sort((a, b) => a.localeCompare(b));
		assert.deepEqual(
			out.map((i) => i.json.name),
			names,
			'not every QuoteSlate name, sorted by name',
		);
		assert.deepEqual(
			f.quoteSlate.requests.map((q) => `${q.method} ${q.path}`),
			['GET /api/tags'],
		);
		return [`${out.length} names from GET /api/tags as items {name}, sorted by name`];
	});
}
