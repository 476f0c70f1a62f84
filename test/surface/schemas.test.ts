/**
 * The output schemas the editor shows before a node has run (`__schema__/v<major.minor.patch>.json` next to each
 * node, served as GET /schemas/<node type>/<version>.json): each node version has one, and every key the node
 * really outputs on the test services is in it with the same type (null fits any type: fields the service may
 * leave empty). Fire Automation's keys for a non-JSON answer are declared too, though the JSON service here
 * never gives one.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { IDataObject } from 'n8n-workflow';

import { ROOT, chain, loadPackage, manualTrigger, node, runWorkflow } from '../harness/engine';
import {
	DEFAULT_API_KEY,
	loadMuseumRecords,
	startMuseumServer,
	startQuotesServer,
	startTriggerServer,
} from '../servers';

interface Schema {
	type: string;
	properties?: Record<string, Schema>;
	items?: Schema;
}

const typeOf = (v: unknown) => (Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v);

/** Where `value` strays from `schema`: "path: why" lines. */
function mismatches(value: unknown, schema: Schema | undefined, at: string): string[] {
	if (!schema) return [`${at}: not in the schema`];
	const type = typeOf(value);
	if (type === 'null') return [];
	const wanted = schema.type === 'integer' ? 'number' : schema.type;
	if (type !== wanted) return [`${at}: ${type} in the output, ${schema.type} in the schema`];
	if (type === 'array')
		return (value as unknown[]).flatMap((v, n) => mismatches(v, schema.items, `${at}[${n}]`));
	if (type !== 'object') return [];
	return Object.entries(value as IDataObject).flatMap(([k, v]) =>
		mismatches(v, schema.properties?.[k], at ? `${at}.${k}` : k),
	);
}

const schemaFile = (dir: string, version: number) =>
	path.join(
		ROOT,
		'nodes',
		dir,
		'__schema__',
		`v${`${version}.0.0`.split('.').slice(0, 3).join('.')}.json`,
	);

let credentials: Record<string, string>;
const servers: Array<{ close(): Promise<void> }> = [];
beforeAll(async () => {
	const records = loadMuseumRecords({ source: 'fixture' });
	const [museum, trigger, quotes] = await Promise.all([
		startMuseumServer({ records, imageBaseUrl: 'http://127.0.0.1:9/img' }),
		startTriggerServer(),
		startQuotesServer(),
	]);
	servers.push(museum, trigger, quotes);
	credentials = {
		apiKey: DEFAULT_API_KEY,
		museumUrl: museum.url,
		triggerUrl: trigger.url,
		quotesUrl: quotes.url,
	};
});
afterAll(async () => Promise.all(servers.map((s) => s.close())));

async function output(type: string, version: number, params: IDataObject = {}) {
	const wf = chain(manualTrigger('Start'), node(type, 'Node', params, { typeVersion: version }));
	const result = await runWorkflow(wf, { credentials: { triptychApi: credentials } });
	return result.output('Node').map((i) => i.json);
}

const cases: Array<[string, string, IDataObject]> = [
	['MuseumObjectSearch', 'museumObjectSearch', { limit: 5 }],
	['FireAutomation', 'fireAutomation', { event: 'saved', idempotency: 'auto' }],
	['QuoteTags', 'quoteTags', {}],
];

test.each(cases)(
	'%s: a schema per version, holding every key of the real output',
	async (dir, type, params) => {
		const { pkg } = await loadPackage();
		const { version } = (
			pkg.nodeTypes[type].type as unknown as { description: { version: number | number[] } }
		).description;
		for (const v of [version].flat()) {
			const file = schemaFile(dir, v);
			expect(fs.existsSync(file) ? file : `missing ${file}`).toBe(file);
			const schema = JSON.parse(fs.readFileSync(file, 'utf8')) as Schema;
			const items = await output(type, v, params);
			expect(items.length).toBeGreaterThan(0);
			expect(
				items.flatMap((item, n) => mismatches(item, schema, '').map((m) => `item ${n}: ${m}`)),
			).toEqual([]);
		}
	},
);

// n8n 2.x's editor asks a node with an Operation for `v<version>/<operation>.json`: every operation has its schema
test.each(cases)('%s: a schema per operation where it has an Operation', async (dir, type) => {
	const { pkg } = await loadPackage();
	const { version, properties } = (
		pkg.nodeTypes[type].type as unknown as {
			description: {
				version: number;
				properties: Array<{ name: string; options?: IDataObject[] }>;
			};
		}
	).description;
	const operations = properties.find((p) => p.name === 'operation')?.options ?? [];
	const whole = fs.readFileSync(schemaFile(dir, version), 'utf8');
	for (const { value } of operations) {
		const file = schemaFile(dir, version).replace(/\.json$/, `/${value as string}.json`);
		expect(fs.existsSync(file) ? file : `missing ${file}`).toBe(file);
		expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual(JSON.parse(whole));
	}
});
