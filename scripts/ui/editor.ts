/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * What the UI check does in n8n's editor, by the editor's own data-test-id attributes (found with screenshots and
 * DOM dumps of n8n 2.41.1): sign in, the nodes panel (node creator), the node details view (NDV) and the
 * credential modal. Every wait is bounded; a failure says what was expected on screen.
 */
import type { ElementHandle, Page } from 'puppeteer-core';

import { fail, sleep } from '../e2e/checks';

export const SEL = {
	creator: '[data-test-id="node-creator"]',
	creatorSearch: '[data-test-id="node-creator-search-bar"]',
	ndv: '[data-test-id="ndv"]',
	ndvParameters: '[data-test-id="ndv"] [data-test-id="node-parameters"]',
	ndvInput: '[data-test-id="ndv"] [data-test-id="ndv-input-panel"]',
	credentialSelect: '[data-test-id="ndv"] [data-test-id="node-credentials-select"] input',
	credentialModal: '[data-test-id="editCredential-modal"]',
	credentialConfig:
		'[data-test-id="editCredential-modal"] [data-test-id="node-credentials-config-container"]',
	node: (name: string) => `[data-test-id="canvas-node"][data-node-name="${name}"]`,
};
export const SUCCESS = 'Connection tested successfully';

/** Waits for a visible element; the message names what the user should have seen. */
export async function visible(page: Page, selector: string, what: string, timeout = 10_000) {
	try {
		return (await page.waitForSelector(selector, { visible: true, timeout }))!;
	} catch {
		return fail(`${what} did not appear within ${timeout / 1000} s (${selector})`);
	}
}

/** The first visible element a selector (CSS, or XPath with puppeteer's xpath/ prefix) matches. */
async function firstVisible(page: Page, selector: string) {
	for (const handle of await page.$$(selector)) if (await handle.isVisible()) return handle;
	return undefined;
}

/** The visible elements' texts (each its first line), in order. */
async function texts(page: Page, selector: string): Promise<string[]> {
	return await page.$$eval(selector, (els) =>
		els
			.filter((e) => (e as HTMLElement).offsetParent)
			.map((e) => (e as HTMLElement).innerText.split('\n')[0].trim()),
	);
}

/**
 * Clicks the first visible element a selector matches (`count` times at once: 2 is a double click), then waits for
 * what the click should bring. Panels slide in and lists re-render as they update, so a click can miss ("Node is
 * either not clickable or not an Element"): a few tries, finding the element afresh, the last one a DOM click.
 */
export async function tap(
	page: Page,
	target: string | (() => Promise<ElementHandle<Element>>),
	missing: () => string | Promise<string> = () => `nothing visible matches ${target}`,
	then: () => Promise<unknown> = async () => undefined,
	count = 1,
): Promise<void> {
	for (let attempt = 0; ; attempt++) {
		try {
			const find = typeof target === 'string' ? () => firstVisible(page, target) : target;
			const handle = (await find()) ?? fail(await missing());
			if (attempt < 4) await handle.click({ count });
			else
				for (let i = 0; i < count; i++)
					await handle.evaluate((e) => [(e as HTMLElement).focus(), (e as HTMLElement).click()]);
			await then();
			return;
		} catch (error) {
			if (attempt >= 4) throw error;
			await sleep(500);
		}
	}
}

/** Replaces an input's text as a user does: click, select all, delete, type. */
async function retype(page: Page, input: string, what: string, value: string) {
	await visible(page, input, what);
	await tap(page, input);
	await page.keyboard.down('Control');
	await page.keyboard.press('KeyA');
	await page.keyboard.up('Control');
	await page.keyboard.press('Backspace');
	if (value) await page.keyboard.type(value);
}

export async function signIn(page: Page, base: string, email: string, password: string) {
	await page.goto(`${base}/signin`, { waitUntil: 'domcontentloaded', timeout: 30_000 });
	await visible(page, '#emailOrLdapLoginId', 'the sign-in form');
	await page.type('#emailOrLdapLoginId', email);
	await page.type('#password', password);
	await page.click('[data-test-id="form-submit-button"]');
	await page
		.waitForFunction(() => !location.pathname.startsWith('/signin'), { timeout: 20_000 })
		.catch(() => fail('signing in did not leave the sign-in page'));
}

// ------------------------------------------------------------------------------------------------ nodes panel

/** The names listed in the open nodes panel, in order. */
const panelNames = (page: Page) =>
	page.$$eval(`${SEL.creator} [data-test-id="node-creator-item-name"]`, (els) =>
		els.filter((e) => (e as HTMLElement).offsetParent).map((e) => (e.textContent ?? '').trim()),
	);

/** Opens the nodes panel with a click on `button` (a selector waited for, or a finder); checks its heading. */
export async function openPanel(
	page: Page,
	button: string | (() => Promise<ElementHandle<Element>>),
	heading: 'What triggers this workflow?' | 'What happens next?',
) {
	if (typeof button === 'string') await visible(page, button, `the button ${button}`, 20_000);
	await tap(page, button, undefined, () => visible(page, SEL.creatorSearch, 'the nodes panel'));
	const header = `${SEL.creator} [data-test-id="nodes-list-header"]`;
	const shown = await visible(page, header, "the nodes panel's heading");
	const title = await shown.evaluate((e) => (e as HTMLElement).innerText.split('\n')[0].trim());
	if (!title.includes(heading)) fail(`the nodes panel says "${title}", expected "${heading}"`);
}

/** Types a query into the panel's search (replacing what was there) and lets the list settle. */
export async function search(page: Page, query: string): Promise<string[]> {
	await retype(page, SEL.creatorSearch, 'the nodes panel search box', query);
	let last: string[] = [];
	// the list updates as you type: wait until two reads agree
	for (let i = 0; i < 20; i++) {
		await sleep(250);
		const names = await panelNames(page);
		if (i > 1 && names.join('|') === last.join('|')) return names;
		last = names;
	}
	return last;
}

const itemName = (name: string) =>
	`//*[@data-test-id="node-creator-item-name" and normalize-space()="${name}"]`;

/** Whether the listed item has n8n's trigger badge (the bolt icon next to a trigger's name). */
export async function hasTriggerBadge(page: Page, name: string): Promise<boolean> {
	const item = `xpath///*[@data-test-id="node-creator-node-item"][.${itemName(name)}]`;
	return !!(await (await firstVisible(page, item))?.$('[data-icon="zap"], [data-icon="bolt"]'));
}

export async function clickItem(page: Page, name: string) {
	const listed = async () => (await panelNames(page)).join(', ');
	await tap(page, `xpath/${itemName(name)}`, async () => `no "${name}" listed: ${await listed()}`);
}

/**
 * Chooses a listed node and its "Add to workflow", or the action `action` for a node with actions (once offered:
 * they load after the click), then waits for its parameter panel; returns what was offered.
 */
export async function addNode(page: Page, name: string, action?: string): Promise<string[]> {
	await clickItem(page, name);
	const wanted = action ?? 'Add to workflow';
	let actions: string[] = [];
	for (let i = 0; i < 20 && !actions.some((a) => a.includes(wanted)); i++) {
		await sleep(500);
		actions = await texts(page, `${SEL.creator} [data-test-id="item-iterator-item"]`);
	}
	await tap(
		page,
		`xpath///*[@data-test-id="node-creator"]//*[@data-test-id="item-iterator-item" and contains(normalize-space(), "${wanted}")]`,
		() => `after choosing ${name} the nodes panel offers: ${actions.join(', ') || 'nothing'}`,
	);
	await visible(page, SEL.ndvParameters, `the parameter panel of ${name}`);
	return actions;
}

/** Renames the node of the open parameter panel through its title, as a user does. */
export async function renameInNdv(page: Page, name: string) {
	await tap(
		page,
		`${SEL.ndv} [data-test-id="node-title-container"] [data-test-id="inline-edit-preview"]`,
	);
	await retype(page, `${SEL.ndv} [data-test-id="inline-edit-input"]`, 'the title editor', name);
	await page.keyboard.press('Enter');
	await sleep(300);
}

export async function closePanel(page: Page) {
	await page.keyboard.press('Escape');
	await page.waitForSelector(SEL.creator, { hidden: true, timeout: 5000 }).catch(() => undefined);
}

// ------------------------------------------------------------------------------------------------ canvas and NDV

/** The nodes on the canvas (name, type) and the types of those drawn as triggers. */
export async function canvas(page: Page) {
	return await page.evaluate(() => ({
		nodes: [...document.querySelectorAll('[data-test-id="canvas-node"]')].map((e) => ({
			name: e.getAttribute('data-node-name') ?? '',
			type: e.getAttribute('data-node-type') ?? '',
		})),
		triggers: [...document.querySelectorAll('[data-test-id="canvas-trigger-node"]')].map(
			(e) =>
				e.closest('[data-test-id="canvas-node"]')?.getAttribute('data-node-type') ??
				e.getAttribute('data-node-type') ??
				'?',
		),
	}));
}

/** Opens the nodes panel from the + on a canvas node's free output (it fades in after a panel closes). */
export async function openPanelAfter(page: Page, nodeName: string) {
	const heading = 'What happens next?';
	await openPanel(
		page,
		async () => {
			const plus = await page.evaluateHandle((name) => {
				const node = [...document.querySelectorAll('[data-test-id="canvas-node"]')].find(
					(e) => e.getAttribute('data-node-name') === name,
				);
				const wrapper = node?.closest('.vue-flow__node') ?? node;
				return wrapper?.querySelector('[data-test-id="canvas-handle-plus-wrapper"]') ?? null;
			}, nodeName);
			const element = plus.asElement() as ElementHandle<Element> | null;
			return element ?? fail(`the canvas node "${nodeName}" has no + on its output`);
		},
		heading,
	);
}

export async function openNdv(page: Page, nodeName: string) {
	const what = `the parameter panel of "${nodeName}"`;
	await visible(page, SEL.node(nodeName), `the canvas node "${nodeName}"`);
	await tap(page, SEL.node(nodeName), undefined, () => visible(page, SEL.ndvParameters, what), 2);
}

export async function ndvTitle(page: Page): Promise<string> {
	return await page.$eval(
		`${SEL.ndv} [data-test-id="node-title-container"] [data-test-id="inline-edit-preview"]`,
		(e) => (e.textContent ?? '').trim(),
	);
}

export async function closeNdv(page: Page) {
	await page.click(`${SEL.ndv} [data-test-id="ndv-close-button"]`).catch(() => undefined);
	await page.waitForSelector(SEL.ndvParameters, { hidden: true, timeout: 5000 }).catch(async () => {
		await page.keyboard.press('Escape');
		await page.waitForSelector(SEL.ndvParameters, { hidden: true, timeout: 5000 });
	});
}

/** The parameter labels shown in the open NDV. */
export async function parameterLabels(page: Page): Promise<string[]> {
	const labels = await texts(
		page,
		`${SEL.ndvParameters} [data-test-id="parameter-item"] [data-test-id="input-label"]`,
	);
	return labels.map((label) => label.replace(/\*$/, '').trim());
}

/** Chooses an option of an options parameter in the NDV by its shown name. */
export async function chooseOption(page: Page, parameter: string, option: string) {
	const select = `${SEL.ndvParameters} [data-test-id="parameter-input-${parameter}"]`;
	await visible(page, select, `the "${parameter}" parameter`);
	await tap(page, select);
	await sleep(300);
	await tap(
		page,
		`xpath///li[contains(@class, "el-select-dropdown__item")][normalize-space()="${option}" or .//*[normalize-space()="${option}"]]`,
		() => `the "${parameter}" list offers no "${option}"`,
	);
}

// ------------------------------------------------------------------------------------------------ credential modal

export async function setCredentialField(page: Page, name: string, value: string) {
	const selector = `${SEL.credentialModal} [data-test-id="parameter-input-${name}"] input`;
	await retype(page, selector, `the credential field ${name}`, value);
	await page.keyboard.press('Tab');
}

/**
 * Waits until the open credential form shows every one of `parts` (white space aside), unfolding the failure
 * banner's "More details" (where the credential form opened from a node shows the message).
 */
export async function formShows(page: Page, parts: string[], timeout = 20_000): Promise<void> {
	await page
		.waitForFunction(
			(config, parts) => {
				const root = document.querySelector(config) as HTMLElement | null;
				const more = [...(root?.querySelectorAll('button, a, span') ?? [])].find(
					(e) =>
						(e as HTMLElement).innerText?.trim() === 'More details' &&
						(e as HTMLElement).offsetParent,
				);
				(more as HTMLElement | undefined)?.click();
				const text = (root?.innerText ?? '').replace(/\s+/g, ' ');
				return parts.every((part) => text.includes(part.replace(/\s+/g, ' ')));
			},
			{ timeout, polling: 200 },
			SEL.credentialConfig,
			parts,
		)
		.catch(async () => {
			const shown = await page
				.$eval(SEL.credentialConfig, (e) => (e as HTMLElement).innerText)
				.catch(() => '');
			return fail(
				`the credential form did not show "${parts.join('", "')}" within ${timeout / 1000} s (it shows: "${shown.split('\n').slice(0, 6).join(' ').replace(/\s+/g, ' ')}")`,
			);
		});
}

/**
 * Clicks Save (n8n saves, then tests the credential with POST /rest/credentials/test), waits until the form shows
 * that test's verdict, and returns it: "Connection tested successfully", or the failure banner with the message.
 */
export async function saveAndReadTest(page: Page, timeout = 20_000) {
	await sleep(300);
	const tested = page
		.waitForResponse(
			(res) => res.request().method() === 'POST' && /\/rest\/credentials\/test\b/.test(res.url()),
			{ timeout },
		)
		.then(async (res) => ((await res.json()) as { data: { status: string; message: string } }).data)
		.catch(() => undefined);
	const save = `${SEL.credentialModal} [data-test-id="credential-save-button"]`;
	await page.click(`${save} button`);
	await page
		.waitForFunction(
			(save) => (document.querySelector(save) as HTMLElement)?.innerText.trim() === 'Saved',
			{ timeout },
			save,
		)
		.catch(() => fail('the credential form did not say "Saved"'));
	const answer =
		(await tested) ??
		fail('after Save the editor did not test the credential (no POST /rest/credentials/test)');
	const ok = answer.status === 'OK';
	const text = ok ? SUCCESS : answer.message;
	await formShows(page, ok ? [text] : ['connect with these settings', text], timeout);
	return { ok, text };
}

export async function closeCredentialModal(page: Page) {
	const modal = SEL.credentialModal;
	const close = `${modal} .el-dialog__headerbtn, ${modal} [aria-label="Close"]`;
	await page.click(close).catch(() => page.keyboard.press('Escape'));
	await page.waitForSelector(modal, { hidden: true, timeout: 5000 }).catch(() => undefined);
}

// ------------------------------------------------------------------------------------------------ theme

/** Sets n8n's theme the way its settings do (localStorage N8N_THEME) and reloads; returns body's data-theme. */
export async function setTheme(page: Page, theme: 'light' | 'dark'): Promise<string | null> {
	await page.evaluate((t) => localStorage.setItem('N8N_THEME', t), theme);
	await page.reload({ waitUntil: 'domcontentloaded', timeout: 30_000 });
	await sleep(500);
	return await page.evaluate(() => document.body.getAttribute('data-theme'));
}

/** Relative luminance (0 dark … 1 light) of an element's computed background. */
export async function backgroundLuminance(page: Page, selector: string): Promise<number> {
	return await page.$eval(selector, (e) => {
		let el: Element | null = e;
		// the first opaque background up the tree (overlays and tints are half transparent); n8n 2.x writes its
		// colours as oklch()/color-mix(), which a canvas turns into RGB pixels
		const canvas = document.createElement('canvas');
		canvas.width = 1;
		canvas.height = 1;
		const paint = canvas.getContext('2d', { willReadFrequently: true })!;
		while (el) {
			paint.clearRect(0, 0, 1, 1);
			paint.fillStyle = getComputedStyle(el).backgroundColor;
			paint.fillRect(0, 0, 1, 1);
			const [r, g, b, a] = paint.getImageData(0, 0, 1, 1).data;
			if (a > 230) return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
			el = el.parentElement;
		}
		return 1;
	});
}
