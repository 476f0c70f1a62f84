/** The example and end-to-end workflows, run as written through n8n's engine (scripts/e2e.ts runs them in n8n). */
import { Buffer } from 'node:buffer';
import type { ICredentialDataDecryptedObject, IConnections, INode, INodeType } from 'n8n-workflow';

import { loadPackage, logs, newestVersions, runWorkflow, useServer } from './harness/engine';
import { keySightings } from './museum/setup';
import {
	REAL_EXAMPLES,
	loadAicArtworks,
	loadClevelandArtworks,
	loadMuseumRecords,
	loadQuoteTags,
	startAicServer,
	startClevelandServer,
	startRealServices,
} from './servers';
import {
	type Item,
	type RunView,
	CREDENTIAL_TYPE,
	PLACEHOLDER_CREDENTIAL_ID,
	SCENARIOS,
	credentialData,
	readWorkflow,
	resetServices,
	startServices,
	viewOfRun,
	withCredential,
} from './scenarios';

const services = useServer(async () =>
	Object.assign(await startServices(), { reset: () => resetServices(services) }),
);
const FILES = [
	...SCENARIOS.map((s) => [s.key, s.file]),
	...REAL_EXAMPLES.map((e) => [e.file.replace(/^examples\/|\.json$/g, ''), e.file]),
];
/** An example with one credential per museum (see runWithCredentialsById) */
const THREE_MUSEUMS = 'examples/public-domain-three-museums.json';

async function run(key: string): Promise<RunView> {
	const scenario = SCENARIOS.find((s) => s.key === key)!;
	const wf = withCredential(readWorkflow(scenario.file), 'harness-credential', 'Triptych (test)');
	const result = await runWorkflow(
		{
			nodes: wf.nodes as unknown as INode[],
			connections: wf.connections as unknown as IConnections,
			settings: wf.settings as never,
		},
		{ credentials: { [CREDENTIAL_TYPE]: credentialData(services, scenario.credential) } },
	);
	expect(result.order[0]).toBe(scenario.trigger);
	const view = viewOfRun(result.run as never);
	// the harness keeps binary data inline (n8n's "default" binary mode): base64 in `data`
	view.binaryBytes = (item: Item, property: string) => {
		const data = item.binary?.[property]?.data;
		return data ? Buffer.from(data, 'base64') : undefined;
	};
	return view;
}

describe('example workflows', () => {
	test.each(FILES)('%s (%s) has credentials left as placeholders', (_key, file) => {
		const wf = readWorkflow(file);
		const refs = wf.nodes
			.filter((n) => n.type.startsWith('n8n-nodes-triptych.'))
			.map((n) => n.credentials?.[CREDENTIAL_TYPE]);
		expect(refs.length).toBeGreaterThan(0);
		for (const ref of refs)
			expect(ref).toEqual({ id: PLACEHOLDER_CREDENTIAL_ID, name: 'Triptych API account' });
		expect(JSON.stringify(wf)).not.toContain(services.apiKey);
	});

	// a user who imports an example gets the node as a new one added in the editor is: its newest version
	test.each(FILES.filter(([, file]) => file.startsWith('examples/')))(
		'%s (%s) uses each node at its newest version',
		async (_key, file) => {
			const newest = await newestVersions();
			const nodes = readWorkflow(file).nodes.filter((n) =>
				n.type.startsWith('n8n-nodes-triptych.'),
			);
			for (const n of nodes)
				expect([n.name, n.typeVersion]).toEqual([n.name, newest[n.type.split('.')[1]]]);
		},
	);

	// n8n drops parameters a node does not declare: a renamed parameter would silently fall back to its default
	test.each([...FILES, ['three-museums', THREE_MUSEUMS]])(
		'%s (%s) uses only parameters the built nodes declare',
		async (_key, file) => {
			const { pkg } = await loadPackage();
			const unknown: string[] = [];
			// a collection's options, a fixedCollection's groups, a group's values (one entry or a list)
			type Spec = { name: string; type?: string; options?: unknown; values?: unknown };
			const walk = (values: object, specs: Spec[], where: string) => {
				for (const [name, value] of Object.entries(values)) {
					const spec = specs.find((p) => p.name === name);
					if (!spec) unknown.push(`${where}${name}`);
					else if (['collection', 'fixedCollection', undefined].includes(spec.type) && value)
						for (const entry of [value].flat() as object[])
							walk(entry, (spec.values ?? spec.options) as Spec[], `${where}${name}.`);
				}
			};
			const nodes = readWorkflow(file).nodes.filter((n) =>
				n.type.startsWith('n8n-nodes-triptych.'),
			);
			for (const n of nodes) {
				const type = pkg.nodeTypes[n.type.split('.')[1]]?.type as INodeType | undefined;
				expect(type).toBeDefined();
				walk(n.parameters, type!.description.properties, `${n.name}: `);
			}
			expect(unknown).toEqual([]);
		},
	);

	test.each(SCENARIOS.map((s) => [s.key, s.title]))('%s: %s', async (key) => {
		const scenario = SCENARIOS.find((s) => s.key === key)!;
		const facts = await scenario.check(await run(key), services);
		expect(facts.length).toBeGreaterThan(0);
		if (scenario.recheck) {
			const before = services.trigger.deliveries.length;
			expect(before).toBeGreaterThan(0);
			await scenario.recheck(await run(key), services, before);
		}
	});
});

describe('example workflows for the real services, against their stand-ins', () => {
	const real = useServer(() => startRealServices());

	async function run(file: string) {
		const wf = withCredential(readWorkflow(file), 'harness-credential', 'Triptych (test)');
		const credential = REAL_EXAMPLES.find((e) => e.file === file)!.credential(real);
		const result = await runWorkflow(
			{ nodes: wf.nodes as unknown as INode[], connections: wf.connections as IConnections },
			{ credentials: { [CREDENTIAL_TYPE]: credential } },
		);
		expect(result.workflowError).toBeUndefined();
		expect(keySightings(result, real.apiKey)).toEqual([]);
		return (node: string) => result.output(node).map((i) => i.json);
	}

	test('Harvard Art Museums: prints with images, the key only as apikey', async () => {
		const output = await run('examples/harvard-art-museums.json');
		const prints = loadMuseumRecords({ source: 'fixture' }).filter(
			(r) => r.classification === 'Prints' && r.imagecount > 0,
		);
		const captions = output('Caption').map((c) => String(c.caption));
		expect(captions).toHaveLength(Math.min(10, prints.length));
		captions.forEach((caption, n) => expect(caption.startsWith(`${prints[n].title}, `)).toBe(true));
		expect(real.harvard.requests.map((r) => [r.query, r.headers.authorization])).toEqual([
			[
				{ apikey: real.apiKey, classification: 'Prints', hasimage: '1', size: '10', page: '1' },
				undefined,
			],
		]);
	});

	test('IFTTT Webhooks: door_opened fired once on the classic route', async () => {
		const output = await run('examples/ifttt-webhooks.json');
		expect(output('Notify via IFTTT')).toEqual([
			{
				accepted: true,
				statusCode: 200,
				text: "Congratulations! You've fired the door_opened event",
			},
		]);
		expect(real.ifttt.deliveries).toEqual([
			expect.objectContaining({
				event: 'door_opened',
				route: 'classic',
				values: { value1: 'Front door', value2: '21', value3: expect.any(String) },
			}),
		]);
	});

	test('Quotable: the ten most quoted tags, in one line', async () => {
		const output = await run('examples/quotable-tags.json');
		const top = loadQuoteTags('fixture')
			.sort((a, b) => b.quoteCount - a.quoteCount || a.name.localeCompare(b.name))
			.slice(0, 10);
		expect(output('One Line')).toEqual([{ tags: top.map((t) => t.name) }]);
		expect(real.quotable.requests[0].headers.authorization).toBeUndefined();
	});
});

/** Runs a workflow whose nodes name a credential each (by placeholder ID), each given the one its ID names. */
async function runWithCredentialsById(
	file: string,
	credentialsById: Record<string, ICredentialDataDecryptedObject>,
) {
	const wf = readWorkflow(file);
	const spec = {
		nodes: wf.nodes as unknown as INode[],
		connections: wf.connections as unknown as IConnections,
		settings: wf.settings as never,
	};
	return await runWorkflow(spec, { credentialsById });
}

describe('public domain art from three museums, against the stand-ins', () => {
	const real = useServer(() => startRealServices());
	const aic = useServer(() => startAicServer({ artworks: loadAicArtworks({ source: 'fixture' }) }));
	const cma = useServer(() =>
		startClevelandServer({ artworks: loadClevelandArtworks({ source: 'fixture' }) }),
	);

	test('three searches, one credential each (placeholders), merged into one item per work', async () => {
		const wf = readWorkflow(THREE_MUSEUMS);
		const newest = await newestVersions();
		const museums = wf.nodes.filter((n) => n.type.startsWith('n8n-nodes-triptych.'));
		expect(museums.map((n) => n.typeVersion)).toEqual(
			[1, 1, 1].map(() => newest.museumObjectSearch),
		);
		const ids = museums.map((n) => n.credentials?.[CREDENTIAL_TYPE]?.id);
		expect(ids.every((id) => /^REPLACE_WITH_YOUR_\w+_CREDENTIAL_ID$/.test(String(id)))).toBe(true);

		const key = real.apiKey;
		const [harvardId, aicId, cmaId] = ids as string[];
		const result = await runWithCredentialsById(THREE_MUSEUMS, {
			[harvardId]: { apiKey: key, museumUrl: real.harvard.url, museumApi: 'harvard' },
			[aicId]: { apiKey: key, museumUrl: aic.apiUrl, museumApi: 'artic' },
			[cmaId]: { apiKey: key, museumUrl: cma.apiUrl, museumApi: 'cleveland' },
		});
		expect(result.workflowError).toBeUndefined();
		const works = result.output('One Item per Work').map((i) => i.json);
		const from = (museum: string) => works.filter((w) => w.museum === museum);
		expect(from('Harvard Art Museums')).toHaveLength(5);
		expect(from('Art Institute of Chicago').map((w) => w.id)).toEqual(
			expect.arrayContaining([20401, 20415, 58213, 90044]),
		);
		expect(from('Cleveland Museum of Art')).toHaveLength(4);
		for (const w of works) {
			expect(Object.keys(w)).toEqual(['museum', ...Object.keys(works[0]).slice(1)]);
			expect(w.publicDomain).toBe(w.museum === 'Harvard Art Museums' ? null : true);
			expect(w.imageUrl).toEqual(expect.any(String));
		}
		// the key went to Harvard only
		expect(real.harvard.requests.every((r) => r.query.apikey === key)).toBe(true);
		expect(aic.keySeen(key)).toBe(false);
		expect(JSON.stringify(cma.requests)).not.toContain(key);
		expect(aic.requests[0].query['query[bool][filter][1][term][is_public_domain]']).toBe('true');
		expect(cma.requests[0].query).toMatchObject({ cc0: '1', has_image: '1' });
	});
});
