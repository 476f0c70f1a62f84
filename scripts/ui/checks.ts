/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * The checks of `npm run test:ui`, in the order a user meets things: the nodes panel, each node's parameter
 * panel, Museum Object Search's Output choice, the credential form, then light and dark screenshots.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

import type { Page } from 'puppeteer-core';

import { type Services, PACKAGE, ROOT } from '../e2e/scenarios';
import { CREDENTIAL_NAME } from './app';
import type { ConsoleEntry } from './browser';
import { describe, sortEntries } from './console';
import * as ed from './editor';

export const SHOTS = path.join(ROOT, 'docs', 'screenshots');

/** The three nodes as a user sees them (display names decided on main) */
export const NODES = [
	{ type: 'quoteTags', name: 'Quote Tags', file: 'quote-tags' },
	{ type: 'museumObjectSearch', name: 'Museum Object Search', file: 'museum-object-search' },
	{ type: 'fireAutomation', name: 'Fire Automation', file: 'fire-automation' },
] as const;

export type CheckFn = (name: string, body: () => Promise<string[]>) => Promise<boolean>;

export interface Ctx {
	page: Page;
	base: string;
	services: Services;
	entries: ConsoleEntry[];
	check: CheckFn;
	shots: string[];
}

const fail = (message: string): never => {
	throw new Error(message);
};
const log = (line: string) => console.log(line);

export async function shot(ctx: Ctx, name: string) {
	fs.mkdirSync(SHOTS, { recursive: true });
	const file = path.join(SHOTS, `${name}.png`);
	await ctx.page.screenshot({ path: file as `${string}.png`, type: 'png' });
	ctx.shots.push(path.relative(ROOT, file));
}

/** Console errors since `from` that come from the package (fails) and the rest (listed). */
function consoleSince(ctx: Ctx, from: number): string[] {
	const sorted = sortEntries(ctx.entries.slice(from), ctx.base);
	if (sorted.fromPackage.length)
		fail(`console errors from the package:\n${sorted.fromPackage.map(describe).join('\n')}`);
	return [
		...sorted.fromN8n.map((e) => `n8n (not the package): ${describe(e)}`),
		...sorted.ignored.map(({ entry, why }) => `ignored (${why}): ${describe(entry)}`),
	];
}

// ------------------------------------------------------------------------------------------------ nodes panel

export async function nodesPanel(ctx: Ctx): Promise<void> {
	const { page, check } = ctx;
	await check(
		'trigger panel ("What triggers this workflow?"): searching "trigger" does not offer Fire Automation as a trigger',
		async () => {
			await openTriggerPanel(ctx);
			const names = await ed.search(page, 'trigger');
			await shot(ctx, 'nodes-panel-trigger-search');
			const at = names.indexOf('Fire Automation');
			if (at < 0) return [`${names.length} results for "trigger", Fire Automation not among them`];
			// n8n 2.41 searches every node type here (display names and aliases), regular nodes included. What must not
			// happen: Fire Automation offered as a trigger (the bolt badge, first place) or becoming the workflow's trigger.
			const badge = await ed.hasTriggerBadge(page, 'Fire Automation');
			if (badge)
				fail(
					`Fire Automation is listed as result ${at + 1} of ${names.length} WITH the trigger bolt badge`,
				);
			if (at === 0) fail(`Fire Automation is the first result of ${names.length} for "trigger"`);
			const regular = await ed.search(page, 'quote tags');
			const regularListed = regular.includes('Quote Tags');
			// chosen here anyway, it must land after a trigger n8n adds, as a regular node
			await ed.search(page, 'fire automation');
			await ed.clickItem(page, 'Fire Automation');
			await ed.clickAction(page, 'Add to workflow');
			await ed.visible(page, ed.SEL.ndvParameters, 'the parameter panel of Fire Automation');
			await ed.closeNdv(page);
			const canvas = await page.$$eval('[data-test-id="canvas-node"]', (els) =>
				els.map((e) => ({
					name: e.getAttribute('data-node-name') ?? '',
					type: e.getAttribute('data-node-type') ?? '',
				})),
			);
			const triggers = await page.$$eval('[data-test-id="canvas-trigger-node"]', (els) =>
				els.map(
					(e) =>
						e.closest('[data-test-id="canvas-node"]')?.getAttribute('data-node-type') ??
						e.getAttribute('data-node-type') ??
						'?',
				),
			);
			if (triggers.some((t) => t.endsWith('.fireAutomation')))
				fail(
					`chosen in the trigger panel, Fire Automation was drawn as the workflow's trigger (canvas: ${JSON.stringify(canvas)})`,
				);
			if (
				!canvas.some((n) => n.type.endsWith('.fireAutomation')) ||
				canvas.length < 2 ||
				triggers.length !== 1
			)
				fail(
					`chosen in the trigger panel, the canvas shows ${JSON.stringify(canvas)} with ${triggers.length} trigger(s)`,
				);
			return [
				`listed as a regular node (no trigger badge), result ${at + 1} of ${names.length}`,
				`this panel's search lists regular nodes as well: "quote tags" → ${regularListed ? 'Quote Tags (a regular node) listed too' : regular.join(', ') || 'nothing'}`,
				`chosen here anyway: canvas ${canvas.map((n) => n.name).join(' → ')}; the only trigger is ${triggers.join(', ')}`,
			];
		},
	);

	await check('trigger panel: add "Trigger manually" as the first step', async () => {
		await openTriggerPanel(ctx);
		await ed.clickItem(page, 'Trigger manually');
		await page.waitForSelector('[data-test-id="canvas-trigger-node"]', {
			visible: true,
			timeout: 10_000,
		});
		const names = await ed.canvasNodeNames(page);
		if (names.length !== 1)
			fail(`a new workflow should hold just the trigger; canvas: ${names.join(', ')}`);
		return [`canvas: ${names.join(', ')}`];
	});

	await check('actions panel: searching "triptych" lists the three nodes', async () => {
		await openActionsPanel(page);
		const names = await ed.search(page, 'triptych');
		await shot(ctx, 'nodes-panel-search');
		const missing = NODES.filter((n) => !names.includes(n.name)).map((n) => n.name);
		if (missing.length)
			fail(`missing: ${missing.join(', ')} (listed: ${names.join(', ') || 'nothing'})`);
		const badged = [];
		for (const n of NODES) if (await ed.hasTriggerBadge(page, n.name)) badged.push(n.name);
		if (badged.length) fail(`shown with the trigger badge: ${badged.join(', ')}`);
		await ed.closePanel(page);
		return [`"triptych" → ${names.join(', ')}`];
	});

	let previous = await page
		.$eval('[data-test-id="canvas-node"]', (e) => e.getAttribute('data-node-name') ?? '')
		.catch(() => '');
	for (const node of NODES) {
		await check(
			`actions panel: ${node.name} found by name, offered as an action, opens as a regular node after ${previous || 'the trigger'}`,
			async () => {
				const triggersBefore = (await page.$$('[data-test-id="canvas-trigger-node"]')).length;
				await ed.closePanel(page);
				await ed.clickNodePlus(page, previous);
				const heading = await ed.panelTitle(page);
				if (!/What happens next/.test(heading))
					fail(`the nodes panel says "${heading}", expected "What happens next?"`);
				const names = await ed.search(page, node.name);
				if (!names.includes(node.name)) fail(`"${node.name}" → ${names.join(', ') || 'nothing'}`);
				await ed.clickItem(page, node.name);
				await page
					.waitForFunction(
						(sel) =>
							[...document.querySelectorAll(sel)].some((e) =>
								/Add to workflow/.test((e as HTMLElement).innerText),
							),
						{ timeout: 10_000 },
						`${ed.SEL.creator} [data-test-id="item-iterator-item"]`,
					)
					.catch(() => undefined);
				const actions = await ed.offeredActions(page);
				if (!actions.some((a) => /Add to workflow/.test(a)))
					fail(`after choosing ${node.name} the panel offers: ${actions.join(', ') || 'nothing'}`);
				await ed.clickAction(page, 'Add to workflow');
				await ed.visible(page, ed.SEL.ndvParameters, `the parameter panel of ${node.name}`);
				const title = await ed.ndvTitle(page);
				if (title !== node.name) fail(`the parameter panel's title is "${title}"`);
				const input = await page.$(`${ed.SEL.ndv} [data-test-id="ndv-input-panel"]`);
				if (!input) fail('the node details view has no INPUT panel (n8n shows none for a trigger)');
				const inputText = await input!.evaluate((e) => (e as HTMLElement).innerText);
				if (/No input connected/i.test(inputText))
					fail(`${node.name} was not connected after ${previous}`);
				const type = await page.$eval(
					`[data-test-id="canvas-node"][data-node-name="${node.name}"]`,
					(e) => e.getAttribute('data-node-type'),
				);
				if (type !== `${PACKAGE}.${node.type}`) fail(`the canvas node's type is ${type}`);
				await ed.closeNdv(page);
				const triggersAfter = (await page.$$('[data-test-id="canvas-trigger-node"]')).length;
				if (triggersAfter !== triggersBefore) fail('the canvas draws the new node as a trigger');
				const after = previous;
				previous = node.name;
				return [
					`"${node.name}" → ${names.slice(0, 3).join(', ')}…; offered: ${actions.join(', ')}; type ${type}; connected after ${after}, drawn as a regular node`,
				];
			},
		);
	}
}

/** A new workflow and its "Add first step" panel ("What triggers this workflow?"). */
async function openTriggerPanel(ctx: Ctx) {
	const { page } = ctx;
	await page.goto(`${ctx.base}/workflow/new`, { waitUntil: 'domcontentloaded', timeout: 30_000 });
	await (
		await ed.visible(
			page,
			'[data-test-id="canvas-plus-button"]',
			'the "Add first step" button',
			20_000,
		)
	).click();
	const title = await ed.panelTitle(page);
	if (!/What triggers this workflow/.test(title))
		fail(`the first step's panel is "${title}", expected "What triggers this workflow?"`);
}

async function openActionsPanel(page: Page) {
	await ed.closePanel(page);
	await (
		await ed.visible(page, '[data-test-id="node-creator-plus-button"]', 'the nodes panel button')
	).click();
	await ed.visible(page, ed.SEL.creatorSearch, 'the nodes panel');
	const title = await ed.panelTitle(page);
	if (!/What happens next/.test(title))
		fail(`the nodes panel says "${title}", expected "What happens next?"`);
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
				await ed.sleep(1500); // let it load icons, hints, credential checks
				const credential = await page
					.$eval(ed.SEL.credentialSelect, (e) => (e as HTMLInputElement).value)
					.catch(() => '');
				if (credential !== CREDENTIAL_NAME)
					fail(`the Credential field shows "${credential}", expected "${CREDENTIAL_NAME}"`);
				const labels = await ed.parameterLabels(page);
				const issues = await page
					.$$eval(`${ed.SEL.ndv} [data-test-id="parameter-issues"]`, (els) => els.length)
					.catch(() => 0);
				await ed.closeNdv(page);
				return [
					`credential "${credential}"; parameters: ${labels.join(', ')}${issues ? `; ${issues} parameter issue marks` : ''}`,
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
			await ed.visible(
				page,
				`${ed.SEL.ndvParameters} [data-test-id="parameter-input-selectedFieldList"]`,
				'the Selected Fields box',
				1000,
			);
			const ms = Date.now() - t0;
			await ed.sleep(300);
			await shot(ctx, 'museum-object-search-selected-fields');
			await ed.chooseOption(page, 'output', 'Simplified');
			await ed.closeNdv(page);
			return [`Selected Fields appeared ${ms} ms after choosing it (without reopening the panel)`];
		},
	);
}

// ------------------------------------------------------------------------------------------------ credential form

export async function credentialForm(ctx: Ctx, message401: string): Promise<void> {
	const { page, check, services } = ctx;
	const all = [services.museum, services.quotes, services.trigger];
	const reset = () => all.forEach((s) => s.reset());
	const asked = () => all.reduce((n, s) => n + s.requests.length, 0);
	const opened = await check('credential form: a good key says the connection works', async () => {
		await ed.openNdv(page, 'Quote Tags');
		await page.click(`${ed.SEL.ndv} [data-test-id="credential-edit-button"]`);
		await ed.visible(page, ed.SEL.credentialModal, 'the credential form');
		const result = await ed.readTest(page);
		if (!result.ok) fail(`opening the saved credential: ${result.text}`);
		await ed.sleep(700); // the banner's Retry button fades in
		await shot(ctx, 'credential-form');
		reset();
		await ed.setCredentialField(page, 'apiKey', services.apiKey);
		const again = await ed.saveAndReadTest(page);
		if (!again.ok) fail(`after Save with the good key the form says "${again.text}"`);
		return [
			`on opening and after Save: "${again.text}"; museum service got: ${probes(services.museum.requests, '/object')}`,
		];
	});
	if (!opened) return;

	await check(
		"credential form: a wrong key shows the credential's message for a rejected key",
		async () => {
			await ed.setCredentialField(page, 'apiKey', 'not-the-key');
			const result = await ed.saveAndReadTest(page);
			await ed.sleep(700);
			await shot(ctx, 'credential-form-wrong-key');
			if (result.ok) fail('the wrong key was accepted: the form says the connection works');
			if (!result.text.includes('rejected the API key (HTTP 401)'))
				fail(
					`the form says "${result.text}", expected a message mentioning "rejected the API key (HTTP 401)"`,
				);
			if (!result.text.includes(message401))
				fail(`the form says "${result.text}", expected the credential test's "${message401}"`);
			return [`"${result.text}"`];
		},
	);

	await check(
		'credential form: Museum URL empty, Quotes URL set → the test succeeds against the Quotes URL (no ERR_INVALID_URL)',
		async () => {
			await ed.setCredentialField(page, 'apiKey', services.apiKey);
			await ed.setCredentialField(page, 'museumUrl', '');
			reset();
			const result = await ed.saveAndReadTest(page);
			const quotes = probes(services.quotes.requests, '/tags');
			const museum = services.museum.requests.length;
			if (/ERR_INVALID_URL|Invalid URL/i.test(result.text)) fail(`the form says "${result.text}"`);
			if (!result.ok) fail(`the test failed: "${result.text}"`);
			if (!quotes.includes('limit=1'))
				fail(`the quotes service got no GET /tags?limit=1 (got: ${quotes || 'nothing'})`);
			if (museum) fail(`the museum service got ${museum} requests with the Museum URL empty`);
			return [`"${result.text}"; quotes service got ${quotes}; museum service got nothing`];
		},
	);

	await check(
		'credential form: every URL empty → "No address to test: fill in the Museum URL, the Quotes URL or the Trigger URL"',
		async () => {
			await ed.setCredentialField(page, 'quotesUrl', '');
			await ed.setCredentialField(page, 'triggerUrl', '');
			reset();
			const result = await ed.saveAndReadTest(page);
			await ed.sleep(700);
			await shot(ctx, 'credential-form-no-address');
			const expected =
				'No address to test: fill in the Museum URL, the Quotes URL or the Trigger URL';
			if (result.ok) fail('the test succeeded with every URL empty');
			if (!result.text.includes(expected))
				fail(`the form says "${result.text}", expected "${expected}…"`);
			if (asked()) fail(`the services got ${asked()} requests although no URL is set`);
			return [`"${result.text}"; no request reached the services`];
		},
	);

	await check('credential form: a malformed Museum URL → "… is not a web address"', async () => {
		const malformed = 'museum-api.example.edu';
		await ed.setCredentialField(page, 'museumUrl', malformed);
		await ed.setCredentialField(page, 'quotesUrl', services.quotes.url);
		await ed.setCredentialField(page, 'triggerUrl', services.trigger.url);
		reset();
		const result = await ed.saveAndReadTest(page);
		if (result.ok) fail(`the test succeeded with the Museum URL "${malformed}"`);
		if (/ERR_INVALID_URL|Invalid URL/i.test(result.text))
			fail(`the form shows a bare URL error: "${result.text}"`);
		if (!result.text.includes('is not a web address'))
			fail(`the form says "${result.text}", expected "… is not a web address …"`);
		if (!result.text.includes('Museum URL') || !result.text.includes(malformed))
			fail(`the message does not name the Museum URL "${malformed}": "${result.text}"`);
		if (asked()) fail(`the services got ${asked()} requests`);
		return [`"${result.text}"`];
	});

	await check(
		'credential form: a Museum URL where nothing listens → "Nothing listens at …", not a bare ECONNREFUSED',
		async () => {
			const dead = await deadAddress();
			await ed.setCredentialField(page, 'museumUrl', dead);
			reset();
			const result = await ed.saveAndReadTest(page);
			await ed.sleep(700);
			await shot(ctx, 'credential-form-dead-host');
			if (result.ok) fail(`the test succeeded with the Museum URL "${dead}"`);
			if (/^\s*ECONNREFUSED\s*$/.test(result.text)) fail('the form shows only "ECONNREFUSED"');
			if (
				!result.text.includes(`Nothing listens at ${dead}`) ||
				!result.text.includes('Museum URL')
			)
				fail(
					`the form says "${result.text}", expected "Nothing listens at ${dead} … Museum URL …"`,
				);
			return [`"${result.text}"`];
		},
	);

	// put the credential back as it was (the theme screenshots show the nodes with it)
	await ed.setCredentialField(page, 'museumUrl', services.museum.url);
	await ed.setCredentialField(page, 'quotesUrl', services.quotes.url);
	await ed.setCredentialField(page, 'triggerUrl', services.trigger.url);
	await ed.setCredentialField(page, 'apiKey', services.apiKey);
	const restored = await ed
		.saveAndReadTest(page)
		.catch((error: Error) => ({ ok: false, text: error.message }));
	if (!restored.ok) log(`        (restoring the credential: "${restored.text}")`);
	await ed.closeCredentialModal(page);
	await ed.closeNdv(page).catch(() => undefined);
}

function probes(
	requests: Array<{ method: string; path: string; query: Record<string, unknown> }>,
	route: string,
) {
	return requests
		.filter((r) => r.path === route)
		.map((r) => `${r.method} ${r.path}?${new URLSearchParams(r.query as Record<string, string>)}`)
		.join(', ');
}

// ------------------------------------------------------------------------------------------------ themes

export async function themes(ctx: Ctx): Promise<void> {
	const { page, check } = ctx;
	for (const theme of ['light', 'dark'] as const) {
		await check(
			`${theme} theme: N8N_THEME='${theme}' applies; screenshots of each parameter panel`,
			async () => {
				const from = ctx.entries.length;
				const attribute = await ed.setTheme(page, theme);
				await ed.visible(
					page,
					'[data-test-id="canvas-node"]',
					'the workflow on the canvas',
					20_000,
				);
				await ed.sleep(1000);
				const luminance = await ed.backgroundLuminance(page, '[data-test-id="canvas"]');
				if (attribute !== theme)
					fail(`body's data-theme is "${attribute}" with N8N_THEME='${theme}'`);
				if ((theme === 'dark') !== luminance < 0.5)
					fail(
						`the canvas background's luminance is ${luminance.toFixed(2)} in the ${theme} theme`,
					);
				const facts = [`body data-theme="${attribute}", canvas luminance ${luminance.toFixed(2)}`];
				for (const node of NODES) {
					await ed.openNdv(page, node.name);
					// an input box's background: light or dark (the panel's own background is see-through); the first
					// panel after a reload may still be fading its colours in
					let label = 0;
					for (let i = 0; i < 15; i++) {
						await ed.sleep(200);
						label = await ed.backgroundLuminance(
							page,
							`${ed.SEL.ndvParameters} [data-test-id="parameter-input-field"]`,
						);
						if ((theme === 'dark') === label < 0.5) break;
					}
					await shot(ctx, `${node.file}-${theme}`);
					await ed.closeNdv(page);
					if ((theme === 'dark') !== label < 0.5)
						fail(
							`${node.name}'s first input box has background luminance ${label.toFixed(2)} in the ${theme} theme`,
						);
					facts.push(`${node.name}: input box background luminance ${label.toFixed(2)}`);
				}
				return [...facts, ...consoleSince(ctx, from)];
			},
		);
	}
}

/** An http address on 127.0.0.1 where nothing listens (a port just opened and closed again). */
async function deadAddress(): Promise<string> {
	const server = net.createServer();
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as net.AddressInfo;
	await new Promise<void>((resolve) => server.close(() => resolve()));
	return `http://127.0.0.1:${port}`;
}
