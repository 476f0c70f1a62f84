/** The workflows the end-to-end run and test/examples.test.ts execute; expected values are asked of the services. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

import {
	type ImageHost,
	type MuseumServer,
	type QuotesServer,
	type TestServer,
	type TriggerServer,
	DEFAULT_API_KEY,
	createTestServer,
	failEnvelope,
	loadMuseumRecords,
	loadQuoteTags,
	startImageHost,
	startMuseumServer,
	startQuotesServer,
	startTriggerServer,
} from './servers';

export const ROOT = path.resolve(__dirname, '..');
export const PACKAGE = 'n8n-nodes-triptych';
export const CREDENTIAL_TYPE = 'triptychApi';
/** The credential id the example files carry: whoever imports them picks their own credential instead. */
export const PLACEHOLDER_CREDENTIAL_ID = 'REPLACE_WITH_YOUR_CREDENTIAL_ID';
export const FAILING_MESSAGE = 'The automation backend is down for maintenance';

// ------------------------------------------------------------------------------------------------ services

export interface Services {
	museum: MuseumServer;
	quotes: QuotesServer;
	trigger: TriggerServer;
	images: ImageHost;
	/** A trigger service that answers every call with HTTP 503 and an error envelope */
	failing: TestServer;
	apiKey: string;
	close(): Promise<void>;
}

/**
 * The loopback services. The checks use the project's fixtures (their expected values are stable); the demo asks
 * for `auto`: the real open data of ../shared/data when it is there.
 */
export async function startServices(data: 'fixture' | 'auto' = 'fixture'): Promise<Services> {
	const images = await startImageHost();
	const museum = await startMuseumServer({
		records: loadMuseumRecords({ source: data }),
		imageBaseUrl: images.url,
	});
	const quotes = await startQuotesServer({ tags: loadQuoteTags(data) });
	const trigger = await startTriggerServer();
	const failing = await createTestServer({
		requireKey: false,
		handle: () => failEnvelope(503, FAILING_MESSAGE),
	});
	return {
		museum,
		quotes,
		trigger,
		images,
		failing,
		apiKey: DEFAULT_API_KEY,
		async close() {
			await Promise.all([museum, quotes, trigger, images, failing].map((s) => s.close()));
		},
	};
}

export function resetServices(s: Services): void {
	for (const server of [s.museum, s.quotes, s.trigger, s.images, s.failing]) server.reset();
}

export type CredentialKind = 'main' | 'failingTrigger';

/** The decrypted credential data (what a user types into "Triptych API"), pointing at the loopback services. */
export function credentialData(s: Services, kind: CredentialKind = 'main', apiKey = s.apiKey) {
	return {
		apiKey,
		museumUrl: s.museum.url,
		quotesUrl: s.quotes.url,
		triggerUrl: kind === 'failingTrigger' ? s.failing.url : s.trigger.url,
		sendKeyToQuotes: false,
	};
}

/** GET on a service as the API documents it, for the expected values. */
async function ask<T>(base: string, pathAndQuery: string, apiKey?: string): Promise<T> {
	const res = await fetch(`${base}${pathAndQuery}`, {
		headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
		signal: AbortSignal.timeout(10_000),
	});
	const body = (await res.json()) as { data?: unknown };
	if (!res.ok) throw new Error(`${base}${pathAndQuery} answered HTTP ${res.status}`);
	return (Array.isArray(body) ? body : body.data) as T;
}

interface MuseumAnswer {
	records: Array<Record<string, unknown>>;
}
type TagAnswer = Array<{ name: string; slug: string; quoteCount: number }>;

// ------------------------------------------------------------------------------------------------ workflows

export interface WorkflowJson {
	name: string;
	nodes: Array<{
		id: string;
		name: string;
		type: string;
		typeVersion: number;
		position: [number, number];
		parameters: Record<string, unknown>;
		credentials?: Record<string, { id: string; name: string }>;
		[key: string]: unknown;
	}>;
	connections: Record<
		string,
		{ main: Array<Array<{ node: string; type: string; index: number }>> }
	>;
	settings?: Record<string, unknown>;
	[key: string]: unknown;
}

/** A workflow of a Manual Trigger and one node (`type` below this package), as the end-to-end checks import it. */
export function oneNodeWorkflow(
	id: string,
	name: string,
	node: { name: string; type: string; parameters: Record<string, unknown> },
	credentials: Record<string, { id: string; name: string }>,
	settings: Record<string, unknown> = {},
): WorkflowJson {
	const start = 'When clicking Execute';
	const base = { typeVersion: 1, parameters: {} };
	return {
		id,
		name,
		active: false,
		nodes: [
			{
				...base,
				id: `${id}-start`,
				name: start,
				type: 'n8n-nodes-base.manualTrigger',
				position: [0, 0],
			},
			{
				...base,
				id: `${id}-node`,
				name: node.name,
				type: `${PACKAGE}.${node.type}`,
				position: [220, 0],
				parameters: node.parameters,
				credentials,
			},
		],
		connections: { [start]: { main: [[{ node: node.name, type: 'main', index: 0 }]] } },
		settings,
	};
}

export function readWorkflow(file: string): WorkflowJson {
	return JSON.parse(fs.readFileSync(path.join(ROOT, file), 'utf8')) as WorkflowJson;
}

/** Points every Triptych credential reference of a workflow at the given credential. */
export function withCredential(wf: WorkflowJson, id: string, name: string): WorkflowJson {
	const copy = JSON.parse(JSON.stringify(wf)) as WorkflowJson;
	for (const node of copy.nodes) {
		if (node.credentials?.[CREDENTIAL_TYPE]) node.credentials[CREDENTIAL_TYPE] = { id, name };
	}
	return copy;
}

// ------------------------------------------------------------------------------------------------ run view

export interface Item {
	json: Record<string, unknown>;
	binary?: Record<
		string,
		{ mimeType?: string; fileName?: string; fileSize?: string | number; data?: string; id?: string }
	>;
	error?: unknown;
}

/** A finished run, whoever ran it: the harness's RunResult or the run data `n8n execute --rawOutput` printed. */
export interface RunView {
	/** Output items of a node's output (its last run); [] if it ran and output nothing on it */
	items(node: string, output?: number): Item[];
	ran(node: string): boolean;
	/** The workflow's error message, if it stopped */
	error?: string;
	/** Bytes of a binary property (inline base64, or read through the n8n app's binary data store) */
	binaryBytes?(item: Item, property: string): Buffer | undefined;
}

type RunData = Record<
	string,
	Array<{ data?: { main?: Array<Item[] | null> }; error?: { message?: string } }>
>;

/** A RunView over IRun-shaped data (`{data: {resultData: {runData, error}}}`). */
export function viewOfRun(run: {
	data: { resultData: { runData: RunData; error?: { message?: string } } };
}): RunView {
	const runData = run.data.resultData.runData;
	return {
		error: run.data.resultData.error?.message,
		ran: (node) => (runData[node]?.length ?? 0) > 0,
		items(node, output = 0) {
			const runs = runData[node];
			if (!runs?.length)
				throw new Error(`node "${node}" did not run (ran: ${Object.keys(runData).join(', ')})`);
			const last = runs[runs.length - 1];
			if (last.error && !last.data) throw new Error(`node "${node}" failed: ${last.error.message}`);
			return last.data?.main?.[output] ?? [];
		},
	};
}

// ------------------------------------------------------------------------------------------------ scenarios

export interface Scenario {
	key: string;
	title: string;
	/** Workflow file, relative to the package root */
	file: string;
	/** The trigger node the run starts from */
	trigger: string;
	/** Which credential its Triptych nodes use */
	credential: CredentialKind;
	/** Checks the finished run against the services; returns what it verified (one line each). */
	check(run: RunView, s: Services): Promise<string[]>;
	/** Optional second run without resetting the services (`before` = trigger deliveries after the first run) */
	recheck?(run: RunView, s: Services, before: number): Promise<string[]>;
}

/**
 * Deep equality by value. Both sides go through this realm's JSON first: under jest the values come from two realms
 * (the test's vm context and Node's own, e.g. fetch().json()), whose Array prototypes differ.
 */
function same(actual: unknown, expected: unknown, message?: string): void {
	const copy = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;
	assert.deepStrictEqual(copy(actual), copy(expected), message);
}

/** The calls Fire Automation made, by the objectId in their body: they go out concurrently, in no fixed order. */
function firedByObject(s: Services) {
	const fired = s.trigger.requests.filter((r) => r.method === 'POST');
	return {
		fired,
		byObject: new Map(fired.map((r) => [(r.json as { objectId?: unknown })?.objectId, r])),
	};
}

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47]);
const JPEG = Buffer.from([0xff, 0xd8, 0xff]);

export const SCENARIOS: Scenario[] = [
	{
		key: 'art-of-the-day',
		title: 'Art of the day (Schedule → Museum Object Search, color filter + Download Images → Set)',
		file: 'examples/art-of-the-day.json',
		trigger: 'Every Morning',
		credential: 'main',
		async check(run, s) {
			assert.equal(run.error, undefined, `the workflow failed: ${run.error}`);
			const search = run.items('Blue Artworks');
			const expected = await ask<MuseumAnswer>(
				s.museum.url,
				'/object?color=%23194b7d&hasimage=1&limit=3',
				s.apiKey,
			);
			assert.ok(
				expected.records.length > 0,
				'the museum service has no blue records with an image: the example shows nothing',
			);
			same(
				search.map((i) => i.json.id),
				expected.records.map((r) => r.objectid),
				'Museum Object Search returned other objects than the service holds for color #194b7d with an image',
			);
			const request = s.museum.requests.find((r) => r.path === '/object');
			assert.ok(request, 'the museum service got no search request');
			same(
				[request.query.color, request.query.hasimage, request.headers.authorization],
				['#194b7d', '1', `Bearer ${s.apiKey}`],
				'the search should send color=#194b7d and hasimage=1 with the Bearer key',
			);

			const posts = run.items('Compose Post');
			assert.equal(posts.length, search.length, 'Compose Post did not output one item per artwork');
			// what the run downloaded (before this check fetches the same images to compare)
			const downloads = s.images.requests.filter((r) => r.path.startsWith('/images/'));
			const facts: string[] = [];
			for (const [index, post] of posts.entries()) {
				const record = expected.records[index];
				const artist = (search[index].json.artist as string | null) ?? '';
				assert.ok(
					String(post.json.caption).startsWith(String(record.title)) &&
						String(post.json.caption).includes(artist),
					`caption "${post.json.caption}" does not name "${record.title}" by ${artist}`,
				);
				const binary = post.binary?.image;
				assert.ok(
					binary,
					`item ${index} of Compose Post has no binary "image" (Download Images, kept by Set)`,
				);
				assert.match(String(binary.mimeType), /^image\/(png|jpeg)$/, `item ${index}'s binary`);
				assert.equal(
					post.json.imageFile,
					binary.fileName,
					'the Set expression $binary.image.fileName did not resolve',
				);
				assert.match(String(binary.fileName), new RegExp(`^${record.objectid}`), 'the file name');
				const bytes = run.binaryBytes?.(post, 'image');
				if (bytes) {
					const signature = binary.mimeType === 'image/png' ? PNG : JPEG;
					assert.ok(
						bytes.subarray(0, signature.length).equals(signature),
						`item ${index}: the bytes are not a ${binary.mimeType}`,
					);
					const served = Buffer.from(
						await (await fetch(String(record.primaryimageurl))).arrayBuffer(),
					);
					assert.ok(
						bytes.equals(served),
						`item ${index}: the binary differs from the image host's file`,
					);
					facts.push(
						`"${post.json.caption}": ${binary.fileName}, ${bytes.length} bytes identical to the image host's ${binary.mimeType}`,
					);
				} else {
					facts.push(
						`"${post.json.caption}": ${binary.fileName} (${binary.mimeType}, ${binary.fileSize})`,
					);
				}
			}
			assert.equal(downloads.length, search.length, 'one image downloaded per artwork');
			assert.equal(s.images.authorizationSeen, false, 'the API key was sent to the image host');
			facts.push(
				`museum query color=#194b7d hasimage=1 with Bearer key; ${downloads.length} images downloaded without the key`,
			);
			return facts;
		},
	},
	{
		key: 'tag-digest',
		title: 'Tag digest (Schedule → Quote Tags, Return All → Aggregate → Set)',
		file: 'examples/tag-digest.json',
		trigger: 'Every Monday',
		credential: 'main',
		async check(run, s) {
			assert.equal(run.error, undefined, `the workflow failed: ${run.error}`);
			const expected = await ask<TagAnswer>(s.quotes.url, '/tags?sortBy=quoteCount&order=desc');
			const tags = run.items('Quote Tags');
			same(
				tags.map((t) => t.json.name),
				expected.map((t) => t.name),
				'Quote Tags did not return every tag, most quoted first',
			);
			const digest = run.items('Digest');
			assert.equal(digest.length, 1, 'Digest should be one item');
			const names = expected.map((t) => t.name);
			assert.equal(digest[0].json.tagCount, names.length);
			assert.equal(
				digest[0].json.quoteCount,
				expected.reduce((sum, t) => sum + t.quoteCount, 0),
			);
			assert.equal(
				digest[0].json.text,
				`Quote tags this week, most quoted first: ${names.join(', ')}`,
			);
			const request = s.quotes.requests.find((r) => r.path === '/tags');
			same(
				[request?.query, request?.headers.authorization ?? null],
				[{}, null],
				'the tags should be asked for without sort parameters (the node sorts them) and without the API key',
			);
			return [
				`${names.length} tags aggregated into one digest (${digest[0].json.quoteCount} quotes), most quoted first`,
				`sent no sort parameter (the node sorted by quote count) and no API key`,
			];
		},
	},
	{
		key: 'fire-on-condition',
		title:
			'Fire on condition (Schedule → Museum Object Search → If → Fire Automation with idempotency key)',
		file: 'examples/fire-on-condition.json',
		trigger: 'Every Hour',
		credential: 'main',
		async check(run, s) {
			assert.equal(run.error, undefined, `the workflow failed: ${run.error}`);
			const expected = await ask<MuseumAnswer>(
				s.museum.url,
				'/object?classification=Prints&period=Baroque%7CNeo-Classicism&limit=10',
				s.apiKey,
			);
			const withImage = expected.records.filter((r) => r.primaryimageurl);
			const without = expected.records.filter((r) => !r.primaryimageurl);
			assert.ok(
				withImage.length > 0 && without.length > 0,
				'the data should hold Baroque or Neo-Classical prints with and without an image',
			);
			same(
				[0, 1].map((output) => run.items('Has an Image?', output).map((i) => i.json.id)),
				[withImage, without].map((records) => records.map((r) => r.objectid)),
			);

			const { fired, byObject } = firedByObject(s);
			assert.equal(
				fired.length,
				withImage.length,
				'Fire Automation should fire once per artwork with an image, and only for those',
			);
			for (const record of withImage) {
				const req = byObject.get(record.objectid);
				assert.ok(req, `no trigger call for object ${record.objectid}`);
				assert.equal(req.path, '/trigger/artwork.ready');
				assert.equal(
					req.headers['idempotency-key'],
					`artwork-${record.objectid}`,
					'the Idempotency-Key header is missing or wrong',
				);
				assert.equal(req.headers.authorization, `Bearer ${s.apiKey}`);
				same(req.json, {
					objectId: record.objectid,
					title: record.title,
					imageUrl: record.primaryimageurl,
				});
			}
			const out = run.items('Announce Artwork');
			assert.equal(out.length, withImage.length);
			for (const item of out) {
				assert.equal(item.json.event, 'artwork.ready');
				assert.equal(typeof item.json.id, 'string');
			}
			return [
				`If held for ${withImage.length} of ${expected.records.length} prints; Fire Automation fired exactly for those`,
				`each POST /trigger/artwork.ready carried Idempotency-Key artwork-<objectid> and the fields payload`,
			];
		},
		async recheck(run, s, before) {
			assert.equal(run.error, undefined, `the second run failed: ${run.error}`);
			const out = run.items('Announce Artwork');
			assert.ok(
				out.length > 0 && out.every((i) => i.json.duplicate === true),
				'the service should answer the same keys as duplicates',
			);
			assert.equal(
				s.trigger.deliveries.length,
				before,
				'a second run with the same idempotency keys must not fire again',
			);
			return [
				`second run: same Idempotency-Keys, ${out.length} answers duplicate=true, no new delivery`,
			];
		},
	},
	{
		key: 'chain',
		title:
			'Chain: Quote Tags → Museum Object Search → Fire Automation (expressions over the previous items)',
		file: 'scripts/e2e/workflows/chain.json',
		trigger: 'Run Once',
		credential: 'main',
		async check(run, s) {
			assert.equal(run.error, undefined, `the workflow failed: ${run.error}`);
			const [tag] = await ask<TagAnswer>(s.quotes.url, '/tags?q=self&limit=1');
			same(
				run.items('Quote Tags').map((i) => i.json.name),
				[tag.name],
			);
			const expected = await ask<MuseumAnswer>(
				s.museum.url,
				`/object?q=${encodeURIComponent(tag.name)}&limit=5`,
				s.apiKey,
			);
			assert.ok(
				expected.records.length > 1,
				`the museum should hold several objects for "${tag.name}"`,
			);
			const search = s.museum.requests.find((r) => r.path === '/object');
			assert.equal(
				search?.query.q,
				tag.name,
				'Museum Object Search did not send the tag name from the previous node ({{ $json.name }})',
			);
			same(
				run.items('Museum Object Search').map((i) => i.json.id),
				expected.records.map((r) => r.objectid),
			);

			const { fired, byObject } = firedByObject(s);
			assert.equal(
				fired.length,
				expected.records.length,
				'Fire Automation should fire once per object',
			);
			for (const record of expected.records) {
				const req = byObject.get(record.objectid);
				assert.ok(req, `no trigger call for object ${record.objectid}`);
				assert.equal(
					req.path,
					`/trigger/museum.${tag.slug}`,
					"the event from $('Quote Tags').item.json.slug",
				);
				same(req.json, { tag: tag.name, objectId: record.objectid, title: record.title });
				assert.match(
					String(req.headers['idempotency-key']),
					new RegExp(`^chain-.+-${record.objectid}$`),
				);
			}
			assert.equal(
				new Set(fired.map((r) => r.headers['idempotency-key'])).size,
				fired.length,
				'idempotency keys should differ per item',
			);
			return [
				`tag "${tag.name}" → ${expected.records.length} objects searched with q={{ $json.name }} → ${fired.length} trigger calls`,
				`event and tag field resolved through $('Quote Tags').item (paired items), objectId/title through $json`,
			];
		},
	},
	{
		key: 'continue-on-fail',
		title: 'Continue On Fail: Fire Automation against a failing service keeps the workflow going',
		file: 'scripts/e2e/workflows/continue-on-fail.json',
		trigger: 'Run Once',
		credential: 'failingTrigger',
		async check(run, s) {
			assert.equal(run.error, undefined, `the workflow should not stop: ${run.error}`);
			const tags = run.items('Quote Tags');
			assert.ok(tags.length > 1, 'Quote Tags should output several tags');
			const out = run.items('Fire Automation');
			assert.equal(
				out.length,
				tags.length,
				'Fire Automation should output one error item per input item',
			);
			for (const item of out) {
				const message = JSON.stringify(item.json.error ?? item.error ?? '');
				assert.ok(
					message.includes(FAILING_MESSAGE),
					`the error item does not carry the service's message: ${message}`,
				);
				assert.ok(!message.includes(s.apiKey), 'the API key appears in an error item');
			}
			const report = run.items('Report');
			same(
				report.map((i) => i.json.tag),
				tags.map((t) => t.json.name),
			);
			assert.ok(report.every((i) => i.json.outcome === 'failed'));
			assert.equal(
				s.failing.requests.length,
				tags.length,
				'Max Attempts 1: one request per item, no retry',
			);
			assert.equal(s.trigger.requests.length, 0);
			return [
				`${out.length} error items carry "${FAILING_MESSAGE}" (HTTP 503), one request each, key never shown`,
				`the next node (Set "Report") ran on them: outcome=failed for ${report.length} tags`,
			];
		},
	},
];
