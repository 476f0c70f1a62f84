/// <reference lib="dom" />
/**
 * The checks of `npm run test:ui`, in the order a user meets things: the nodes panel, each node's parameter
 * panel, Museum Object Search's Output choice, the credential form, light and dark screenshots; then, before any
 * run: the schema endpoint serves each shipped `__schema__` file, the node after an unexecuted Museum Object Search
 * offers its fields in the input panel, and the node hints show exactly where they apply.
 */
import fs from 'node:fs';
import path from 'node:path';

import type { Page } from 'puppeteer-core';

import { type Check, fail, log, sleep, waitFor } from '../e2e/checks';
import type { Rest } from '../e2e/instance';
import { credentialTestMessage, freePort } from '../e2e/n8n';
import { type Services, PACKAGE, ROOT, resetServices } from '../e2e/scenarios';
import { type ConsoleEntry, describe, excuse } from './browser';
import * as ed from './editor';

export const SHOTS = path.join(ROOT, 'docs', 'screenshots');
export const CREDENTIAL_NAME = 'Triptych (UI check)';

/** The three nodes as a user sees them (display names decided on main); `action`: the one chosen in the panel */
export const NODES: ReadonlyArray<{ type: string; name: string; file: string; action?: string }> = [
	{ type: 'quoteTags', name: 'Quote Tags', file: 'quote-tags' },
	{
		type: 'museumObjectSearch',
		name: 'Museum Object Search',
		file: 'museum-object-search',
		action: 'Search objects',
	},
	{ type: 'fireAutomation', name: 'Fire Automation', file: 'fire-automation' },
];

export interface Ctx {
	page: Page;
	base: string;
	services: Services;
	entries: ConsoleEntry[];
	check: Check;
	shots: string[];
}

export async function shot(ctx: Ctx, name: string) {
	fs.mkdirSync(SHOTS, { recursive: true });
	const file = path.join(SHOTS, `${name}.png`);
	await ctx.page.screenshot({ path: file as `${string}.png`, type: 'png' });
	ctx.shots.push(path.relative(ROOT, file));
}

/** The console errors since `from`, listed; those from the package fail. */
export function consoleSince(ctx: Ctx, from: number): string[] {
	const entries = ctx.entries.slice(from);
	const own = entries.filter((entry) => !excuse(entry, ctx.base));
	if (own.length) fail(`console errors from the package:\n${own.map(describe).join('\n')}`);
	return entries.map((entry) => `${excuse(entry, ctx.base)}: ${describe(entry)}`);
}

// ------------------------------------------------------------------------------------------------ nodes panel

export async function nodesPanel(ctx: Ctx): Promise<void> {
	const { page, check } = ctx;
	/** A new workflow and its "Add first step" panel ("What triggers this workflow?"). */
	const openTriggerPanel = async () => {
		await page.goto(`${ctx.base}/workflow/new`, { waitUntil: 'domcontentloaded', timeout: 30_000 });
		const plus = '[data-test-id="canvas-plus-button"]'; // "Add first step"
		await ed.openPanel(page, plus, 'What triggers this workflow?');
	};

	await check(
		'trigger panel ("What triggers this workflow?"): searching "trigger" does not offer Fire Automation as a trigger',
		async () => {
			await openTriggerPanel();
			const names = await ed.search(page, 'trigger');
			await shot(ctx, 'nodes-panel-trigger-search');
			const at = names.indexOf('Fire Automation');
			if (at < 0) return [`${names.length} results for "trigger", Fire Automation not among them`];
			// n8n 2.41 searches every node type here (display names and aliases), regular nodes included. What must not
			// happen: Fire Automation offered as a trigger (the bolt badge, first place) or becoming the workflow's trigger.
			const listed = `Fire Automation is result ${at + 1} of ${names.length}`;
			if (await ed.hasTriggerBadge(page, 'Fire Automation')) fail(`${listed}, WITH the bolt badge`);
			if (at === 0) fail(`Fire Automation is the first result of ${names.length} for "trigger"`);
			const regular = await ed.search(page, 'quote tags');
			// chosen here anyway, it must land after a trigger n8n adds, as a regular node
			await ed.search(page, 'fire automation');
			await ed.addNode(page, 'Fire Automation');
			await ed.closeNdv(page);
			const { nodes, triggers } = await ed.canvas(page);
			const fire = (type: string) => type.endsWith('.fireAutomation');
			const drawn = `${JSON.stringify(nodes)} with the trigger(s) ${triggers}`;
			// Fire Automation drawn as the trigger, or not after the one n8n adds
			const after = nodes.length > 1 && nodes.some((n) => fire(n.type));
			if (triggers.some(fire) || triggers.length !== 1 || !after)
				fail(`chosen in the trigger panel, Fire Automation is drawn as: ${drawn}`);
			return [
				`listed as a regular node (no trigger badge), result ${at + 1} of ${names.length}`,
				`this panel's search lists regular nodes as well: "quote tags" → ${regular.includes('Quote Tags') ? 'Quote Tags (a regular node) listed too' : regular.join(', ') || 'nothing'}`,
				`chosen here anyway: canvas ${nodes.map((n) => n.name).join(' → ')}; the only trigger is ${triggers.join(', ')}`,
			];
		},
	);

	await check('trigger panel: add "Trigger manually" as the first step', async () => {
		await openTriggerPanel();
		await ed.clickItem(page, 'Trigger manually');
		await ed.visible(page, '[data-test-id="canvas-trigger-node"]', 'the trigger on the canvas');
		const names = (await ed.canvas(page)).nodes.map((n) => n.name);
		if (names.length !== 1)
			fail(`a new workflow should hold just the trigger; canvas: ${names.join(', ')}`);
		return [`canvas: ${names.join(', ')}`];
	});

	await check('actions panel: searching "triptych" lists the three nodes', async () => {
		await ed.closePanel(page);
		await ed.openPanel(page, '[data-test-id="node-creator-plus-button"]', 'What happens next?');
		const names = await ed.search(page, 'triptych');
		await shot(ctx, 'nodes-panel-search');
		const missing = NODES.filter((n) => !names.includes(n.name)).map((n) => n.name);
		if (missing.length)
			fail(`missing: ${missing.join(', ')} (listed: ${names.join(', ') || 'nothing'})`);
		for (const n of NODES)
			if (await ed.hasTriggerBadge(page, n.name)) fail(`shown with the trigger badge: ${n.name}`);
		await ed.closePanel(page);
		return [`"triptych" → ${names.join(', ')}`];
	});

	let previous = (await ed.canvas(page)).nodes[0]?.name ?? '';
	for (const node of NODES) {
		await check(
			`actions panel: ${node.name} found by name, offered as an action, opens as a regular node after ${previous || 'the trigger'}`,
			async () => {
				const triggersBefore = (await ed.canvas(page)).triggers.length;
				await ed.closePanel(page);
				await ed.openPanelAfter(page, previous);
				const names = await ed.search(page, node.name);
				if (!names.includes(node.name)) fail(`"${node.name}" → ${names.join(', ') || 'nothing'}`);
				const actions = await ed.addNode(page, node.name, node.action);
				const title = await ed.ndvTitle(page);
				// n8n names a node added through an action after the action; the checks below find it by its own name
				const named = node.action && title === node.action;
				if (named) await ed.renameInNdv(page, node.name);
				else if (title !== node.name) fail(`the parameter panel's title is "${title}"`);
				const input = await page
					.$eval(ed.SEL.ndvInput, (e) => (e as HTMLElement).innerText)
					.catch(() =>
						fail('the node details view has no INPUT panel (n8n shows none for a trigger)'),
					);
				if (/No input connected/i.test(input))
					fail(`${node.name} was not connected after ${previous}`);
				await ed.closeNdv(page);
				const { nodes, triggers } = await ed.canvas(page);
				const type = nodes.find((n) => n.name === node.name)?.type;
				if (type !== `${PACKAGE}.${node.type}`) fail(`the canvas node's type is ${type}`);
				if (triggers.length !== triggersBefore) fail('the canvas draws the new node as a trigger');
				const after = previous;
				previous = node.name;
				return [
					`"${node.name}" → ${names.slice(0, 3).join(', ')}…; offered: ${actions.join(', ')}; type ${type}; connected after ${after}, drawn as a regular node`,
					...(named
						? [`added as "${title}" (n8n names it after the action), renamed "${node.name}"`]
						: []),
				];
			},
		);
	}
}

// ------------------------------------------------------------------------------------------------ parameter panels

export async function parameterPanels(ctx: Ctx): Promise<void> {
	const { page, check } = ctx;
	for (const node of NODES) {
		await check(
			`parameter panel of ${node.name}: opens with the credential selected, no console errors from the package`,
			async () => {
				const from = ctx.entries.length;
				await ed.openNdv(page, node.name);
				await sleep(1500); // let it load icons, hints, credential checks
				const credential = await page
					.$eval(ed.SEL.credentialSelect, (e) => (e as HTMLInputElement).value)
					.catch(() => '');
				if (credential !== CREDENTIAL_NAME)
					fail(`the Credential field shows "${credential}", expected "${CREDENTIAL_NAME}"`);
				const labels = await ed.parameterLabels(page);
				const issues = (await page.$$(`${ed.SEL.ndv} [data-test-id="parameter-issues"]`)).length;
				await ed.closeNdv(page);
				return [
					`credential "${credential}"; parameters: ${labels.join(', ')}; ${issues} parameter issue marks`,
					...consoleSince(ctx, from),
				];
			},
		);
	}

	await check(
		'Museum Object Search: Output = Selected Fields shows the Selected Fields box at once',
		async () => {
			await ed.openNdv(page, 'Museum Object Search');
			const before = await ed.parameterLabels(page);
			if (!before.includes('Output'))
				fail(`no top-level Output parameter (top level: ${before.join(', ')})`);
			if (before.includes('Selected Fields'))
				fail('Selected Fields shows before Output = Selected Fields');
			await ed.chooseOption(page, 'output', 'Selected Fields');
			const t0 = Date.now();
			const box = `${ed.SEL.ndvParameters} [data-test-id="parameter-input-selectedFieldList"]`;
			await ed.visible(page, box, 'the Selected Fields box', 1000);
			const ms = Date.now() - t0;
			await sleep(300);
			await shot(ctx, 'museum-object-search-selected-fields');
			await ed.chooseOption(page, 'output', 'Simplified');
			await ed.closeNdv(page);
			return [`Selected Fields appeared ${ms} ms after choosing it (without reopening the panel)`];
		},
	);
}

// ------------------------------------------------------------------------------------------------ credential form

export async function credentialForm(ctx: Ctx): Promise<void> {
	const { page, check, services } = ctx;
	const { museum, quotes, trigger, apiKey } = services;
	const message401 = credentialTestMessage({ apiKey: 'wrong', museumUrl: museum.url }, 401);
	/** What the services were asked since their reset, e.g. "quotes GET /tags?limit=1" */
	const asked = () =>
		Object.entries({ museum, quotes, trigger })
			.flatMap(([name, { requests }]) =>
				requests.map(({ method, path: route, query }) => {
					const search = new URLSearchParams(query as Record<string, string>);
					return `${name} ${method} ${route}?${search}`;
				}),
			)
			.join(', ');
	const fill = async (fields: Record<string, string | undefined>) => {
		for (const [name, value] of Object.entries(fields))
			await ed.setCredentialField(page, name, value ?? '');
	};
	const opened = await check('credential form: a good key says the connection works', async () => {
		await ed.openNdv(page, 'Quote Tags');
		await page.click(`${ed.SEL.ndv} [data-test-id="credential-edit-button"]`);
		await ed.visible(page, ed.SEL.credentialModal, 'the credential form');
		await ed.formShows(page, [ed.SUCCESS]);
		await sleep(700); // the banner's Retry button fades in
		await shot(ctx, 'credential-form');
		resetServices(services);
		await fill({ apiKey });
		const again = await ed.saveAndReadTest(page);
		if (!again.ok) fail(`after Save with the good key the form says "${again.text}"`);
		return [`on opening and after Save: "${again.text}"; the services got: ${asked()}`];
	});
	if (!opened) return;

	const dead = `http://127.0.0.1:${await freePort()}`;
	const malformed = 'museum-api.example.edu';
	const noAddress = 'No address to test: fill in the Museum URL, the Quotes URL or the Trigger URL';
	/** Each case changes the fields of the one before; `asks`: every request the services get, when it matters */
	const cases = [
		{
			name: "a wrong key shows the credential's message for a rejected key",
			fields: { apiKey: 'not-the-key' },
			says: ['rejected the API key (HTTP 401)', message401],
			shot: 'credential-form-wrong-key',
		},
		{
			name: 'Museum URL empty, Quotes and Trigger URL set → the test succeeds against those (no ERR_INVALID_URL)',
			fields: { apiKey, museumUrl: '' },
			ok: true,
			asks: 'quotes GET /tags?limit=1, trigger GET /?',
		},
		{
			name: `every URL empty → "${noAddress}"`,
			fields: { quotesUrl: '', triggerUrl: '' },
			says: [noAddress],
			asks: '',
			shot: 'credential-form-no-address',
		},
		{
			name: 'a malformed Museum URL → "… is not a web address"',
			fields: { museumUrl: malformed, quotesUrl: quotes.url, triggerUrl: trigger.url },
			says: ['is not a web address', 'Museum URL', malformed],
			// the other services are tested too; nothing goes to the malformed address
			asks: 'quotes GET /tags?limit=1, trigger GET /?',
		},
		{
			name: 'a Museum URL where nothing listens → "Nothing listens at …", not a bare ECONNREFUSED',
			fields: { museumUrl: dead },
			says: [`Nothing listens at ${dead}`, 'Museum URL'],
			shot: 'credential-form-dead-host',
		},
	];
	for (const c of cases) {
		await check(`credential form: ${c.name}`, async () => {
			await fill(c.fields);
			resetServices(services);
			const result = await ed.saveAndReadTest(page);
			if (c.shot) {
				await sleep(700);
				await shot(ctx, c.shot);
			}
			const says = `the form says "${result.text}"`;
			if (result.ok !== !!c.ok) fail(`${says}: the test ${c.ok ? 'failed' : 'succeeded'}`);
			if (/ERR_INVALID_URL|Invalid URL|^\s*ECONNREFUSED\s*$/i.test(result.text))
				fail(`${says}: a bare error`);
			const lacks = (c.says ?? []).filter((part) => !result.text.includes(part));
			if (lacks.length) fail(`${says}, expected it to mention "${lacks.join('", "')}"`);
			if (c.asks !== undefined && asked() !== c.asks)
				fail(`the services got ${asked() || 'nothing'}, expected ${c.asks || 'nothing'}`);
			return [
				`"${result.text}"${c.asks === undefined ? '' : `; the services got ${asked() || 'nothing'}`}`,
			];
		});
	}

	// put the credential back as it was (the theme screenshots show the nodes with it)
	await fill({ museumUrl: museum.url, quotesUrl: quotes.url, triggerUrl: trigger.url, apiKey });
	const restored = await ed
		.saveAndReadTest(page)
		.catch((error: Error) => ({ ok: false, text: error.message }));
	if (!restored.ok) log(`        (restoring the credential: "${restored.text}")`);
	await ed.closeCredentialModal(page);
	await ed.closeNdv(page).catch(() => undefined);
}

// ------------------------------------------------------------------------------------------------ themes

export async function themes(ctx: Ctx): Promise<void> {
	const { page, check } = ctx;
	for (const theme of ['light', 'dark'] as const) {
		/** Whether a background luminance (0 dark … 1 light) is off for the theme */
		const off = (luminance: number) => (theme === 'dark') !== luminance < 0.5;
		await check(
			`${theme} theme: N8N_THEME='${theme}' applies; screenshots of each parameter panel`,
			async () => {
				const from = ctx.entries.length;
				const attribute = await ed.setTheme(page, theme);
				await ed.visible(page, '[data-test-id="canvas-node"]', 'the workflow', 20_000);
				await sleep(1000);
				const canvas = (await ed.backgroundLuminance(page, '[data-test-id="canvas"]')).toFixed(2);
				if (attribute !== theme) fail(`body's data-theme is "${attribute}"`);
				if (off(Number(canvas))) fail(`the canvas background's luminance is ${canvas}`);
				const facts = [`body data-theme="${attribute}", canvas luminance ${canvas}`];
				for (const node of NODES) {
					await ed.openNdv(page, node.name);
					// an input box's background: light or dark (the panel's own background is see-through); the first
					// panel after a reload may still be fading its colours in
					let input = 0;
					for (let i = 0; i < 15 && (i === 0 || off(input)); i++) {
						await sleep(200);
						const box = `${ed.SEL.ndvParameters} [data-test-id="parameter-input-field"]`;
						input = await ed.backgroundLuminance(page, box);
					}
					await shot(ctx, `${node.file}-${theme}`);
					await ed.closeNdv(page);
					const shown = `${node.name}: input box background luminance ${input.toFixed(2)}`;
					if (off(input)) fail(shown);
					facts.push(shown);
				}
				return [...facts, ...consoleSince(ctx, from)];
			},
		);
	}
}

// ------------------------------------------------------------------------------------------------ before any run

/** The node hints, by the words they start with */
const ALL = 'Return All with no search and no filter';
const ORDER = 'With Concurrency above 1';
const RETRY = 'Without an idempotency key';

export async function previewAndHints(ctx: Ctx, rest: Rest, credentialId: string): Promise<void> {
	const { page, check, base } = ctx;
	await check(
		'schema endpoint: every shipped __schema__ file answers 200 with its fields',
		async () => {
			const lines: string[] = [];
			for (const dir of fs.readdirSync(path.join(ROOT, 'nodes'))) {
				const schemas = path.join(ROOT, 'dist', 'nodes', dir, '__schema__');
				if (!fs.existsSync(schemas)) continue;
				const type = `${PACKAGE}.${dir[0].toLowerCase()}${dir.slice(1)}`;
				// v1.0.0.json, and per operation v1.0.0/<operation>.json
				const files = fs
					.readdirSync(schemas, { recursive: true, encoding: 'utf8' })
					.filter((file) => file.endsWith('.json'));
				for (const file of files) {
					const url = `${base}/schemas/${type}/${file.slice(1)}`;
					const res = await fetch(url);
					const body = (await res.json().catch(() => ({}))) as { properties?: object };
					const keys = Object.keys(body.properties ?? {});
					if (res.status !== 200 || !keys.length)
						fail(`${url}: ${res.status}, ${keys.length} fields`);
					lines.push(`${type} ${file.slice(1, -5)}: 200, ${keys.length} fields`);
				}
			}
			return lines;
		},
	);

	const node = (name: string, type: string, typeVersion: number, x: number, parameters = {}) => ({
		...{ id: name, name, type, typeVersion, position: [x, 0], parameters },
		...(type.startsWith(PACKAGE)
			? { credentials: { triptychApi: { id: credentialId, name: '' } } }
			: {}),
	});
	const nodes = [
		node('Start', 'n8n-nodes-base.manualTrigger', 1, 0),
		node('Museum', `${PACKAGE}.museumObjectSearch`, 1, 200, { returnAll: true }),
		node('Next', 'n8n-nodes-base.noOp', 1, 400),
		node('Fire', `${PACKAGE}.fireAutomation`, 1, 600),
		node('Fire in order', `${PACKAGE}.fireAutomation`, 1, 800, {
			options: { concurrency: 1, idempotency: 'auto' },
		}),
		node('Tags', `${PACKAGE}.quoteTags`, 1, 1000, { options: { concurrency: 64 } }),
		node('Tags 1', `${PACKAGE}.quoteTags`, 1, 1200, { options: { concurrency: 100 } }),
		node('Tags new', `${PACKAGE}.quoteTags`, 1, 1400),
	];
	const link = (to: string) => ({ main: [[{ node: to, type: 'main', index: 0 }]] });
	const created = await rest.call('POST', '/rest/workflows', {
		name: 'Before the first run',
		nodes,
		connections: { Start: link('Museum'), Museum: link('Next') },
		settings: {},
	});
	const id: string =
		created.json?.data?.id ??
		fail(`creating the workflow answered ${created.status}: ${created.text.slice(0, 300)}`);

	await check('the node after an unexecuted Museum Object Search offers its fields', async () => {
		await page.goto(`${base}/workflow/${id}`, { waitUntil: 'domcontentloaded' });
		await ed.openNdv(page, 'Next');
		const wanted = ['title', 'artist', 'imageUrl'];
		let text = '';
		const read = async () => {
			text = await page.$eval(ed.SEL.ndvInput, (e) => (e as HTMLElement).innerText);
			return wanted.every((w) => text.includes(w)) || undefined;
		};
		await waitFor('the fields', 15_000, read).catch(() => undefined);
		await ed.closeNdv(page);
		const missing = wanted.filter((w) => !text.includes(w));
		const schemas = ctx.entries
			.filter((e) => /\/schemas\//.test(e.url ?? '') && /404/.test(e.text))
			.map((e) => e.url);
		const asked = schemas.length
			? `; n8n's schema requests that got 404: ${[...new Set(schemas)]}`
			: '';
		if (missing.length)
			fail(`input panel lacks ${missing.join(', ')}: ${text.slice(0, 400)}${asked}`);
		return [`input panel: ${text.replace(/\s+/g, ' ').slice(0, 160)}`];
	});

	await check(
		'Options → Concurrency: one field, showing its saved value, or its default once added',
		async () => {
			const seen: string[] = [];
			for (const [name, value] of [
				['Tags', '64'],
				['Tags 1', '100'],
			]) {
				await ed.openNdv(page, name);
				await sleep(1000);
				const labels = (await ed.parameterLabels(page)).filter((l) => l === 'Concurrency');
				const values = await page.$$eval(`${ed.SEL.ndvParameters} input`, (inputs) =>
					inputs.map((i) => (i as HTMLInputElement).value),
				);
				await ed.closeNdv(page);
				if (labels.length !== 1) fail(`${name}: ${labels.length} Concurrency fields`);
				if (!values.includes(value)) fail(`${name}: no field shows ${value}: ${values.join(', ')}`);
				seen.push(`${name}: one Concurrency field, showing ${value}`);
			}
			// added in the editor, it starts at its default
			await ed.openNdv(page, 'Tags new');
			let added: string[] = [];
			try {
				await ed.tap(page, `${ed.SEL.ndvParameters} [data-test-id="collection-parameter-add"]`);
				await ed.tap(
					page,
					'xpath///*[@data-test-id="collection-parameter-option"][normalize-space()="Concurrency"]',
					() => 'the Add Option list offers no Concurrency',
				);
				await sleep(500);
				added = await page.$$eval(`${ed.SEL.ndvParameters} input`, (inputs) =>
					inputs.map((i) => (i as HTMLInputElement).value),
				);
			} finally {
				await ed.closeNdv(page);
			}
			if (!added.includes('512')) fail(`Tags new: Concurrency added shows ${added.join(', ')}`);
			seen.push('Tags new: Concurrency added in the editor starts at 512');
			return seen;
		},
	);

	await check('node hints show where they apply, and only there', async () => {
		const seen: string[] = [];
		for (const [name, want, not] of [
			['Museum', [ALL], []],
			['Fire', [ORDER, RETRY], []],
			['Fire in order', [], [ORDER, RETRY]],
		] as const) {
			await ed.openNdv(page, name);
			await sleep(1000);
			const text = await page.$eval(ed.SEL.ndv, (e) => (e as HTMLElement).innerText);
			await ed.closeNdv(page);
			for (const hint of want) if (!text.includes(hint)) fail(`${name}: no hint "${hint}…"`);
			for (const hint of not) if (text.includes(hint)) fail(`${name}: shows "${hint}…"`);
			seen.push(`${name}: ${want.length} hint(s) shown${not.length ? ', none of the others' : ''}`);
		}
		return seen;
	});
}
