/// <reference lib="dom" />
/**
 * The newer editor features, against a Harvard Art Museums API stand-in: Classification's From List picker (the
 * service's GET /classification), Get's Object locator and its modes, the credential Test's verdict per service,
 * and the node as an AI agent's tool without Download Images.
 */
import type { Page } from 'puppeteer-core';

import { fail, sleep, waitFor } from '../e2e/checks';
import type { Rest } from '../e2e/instance';
import { freePort } from '../e2e/n8n';
import {
	AIC_DEPARTMENT_TERMS,
	type MuseumServer,
	loadAicArtworks,
	loadMuseumRecords,
	startAicServer,
	startHarvardServer,
} from '../../test/servers';
import { CREDENTIAL_TYPE, PACKAGE, credentialData } from '../e2e/scenarios';
import { type Ctx, consoleSince, shot } from './checks';
import * as ed from './editor';

const HARVARD_CREDENTIAL = 'Triptych (UI, Harvard)';
const PER_SERVICE_CREDENTIAL = 'Triptych (UI, one service down)';

const rlc = (parameter: string) =>
	`${ed.SEL.ndvParameters} [data-test-id="resource-locator-${parameter}"]`;
const DROPDOWN = '[data-test-id="resource-locator-dropdown"]';

/** The texts of the visible entries of the open locator list (its popover is teleported to the body). */
const listed = (page: Page) =>
	page.$$eval('[data-test-id="rlc-item"]', (els) =>
		els
			.filter((e) => (e as HTMLElement).offsetParent)
			.map((e) => (e as HTMLElement).innerText.replace(/\s+/g, ' ').trim()),
	);

/** The names of the options of the open element-plus select. */
const selectOptions = (page: Page) =>
	page.$$eval('li.el-select-dropdown__item', (els) =>
		els
			.filter((e) => (e as HTMLElement).offsetParent)
			.map((e) => (e as HTMLElement).innerText.trim()),
	);

export async function featurePanels(ctx: Ctx, rest: Rest): Promise<void> {
	const { page, check, base } = ctx;
	await ed.setTheme(page, 'light'); // the theme checks before end on dark
	let harvard: MuseumServer | undefined;
	try {
		const records = loadMuseumRecords({ source: 'fixture' });
		harvard = await startHarvardServer({ apiKey: ctx.services.apiKey, records });
		const museum = harvard;
		const created = await rest.call('POST', '/rest/credentials', {
			name: HARVARD_CREDENTIAL,
			type: CREDENTIAL_TYPE,
			data: {
				...credentialData(ctx.services, 'main'),
				museumUrl: museum.url,
				museumApi: 'harvard',
			},
		});
		const credentialId: string =
			created.json?.data?.id ??
			fail(`creating the credential answered ${created.status}: ${created.text.slice(0, 300)}`);
		const node = (name: string, x: number, parameters: Record<string, unknown>) => ({
			id: name,
			name,
			type: `${PACKAGE}.museumObjectSearch`,
			typeVersion: 1,
			position: [x, 0],
			parameters,
			credentials: { triptychApi: { id: credentialId, name: HARVARD_CREDENTIAL } },
		});
		const workflow = await rest.call('POST', '/rest/workflows', {
			name: 'Museum on Harvard',
			nodes: [
				{
					id: 'Start',
					name: 'Start',
					type: 'n8n-nodes-base.manualTrigger',
					typeVersion: 1,
					position: [0, 0],
					parameters: {},
				},
				node('Search Harvard', 200, {
					filters: { classification: { __rl: true, mode: 'list', value: '' } },
				}),
				node('Get Harvard', 400, { operation: 'get' }),
				{ ...node('Museum Tool', 600, {}), type: `${PACKAGE}.museumObjectSearchTool` },
			],
			connections: {
				Start: { main: [[{ node: 'Search Harvard', type: 'main', index: 0 }]] },
				'Search Harvard': { main: [[{ node: 'Get Harvard', type: 'main', index: 0 }]] },
			},
			settings: {},
		});
		const workflowId: string =
			workflow.json?.data?.id ??
			fail(`creating the workflow answered ${workflow.status}: ${workflow.text.slice(0, 300)}`);

		await check(
			"Museum Object Search (Harvard API): Classification's From List shows the service's classifications",
			async () => {
				const from = ctx.entries.length;
				await page.goto(`${base}/workflow/${workflowId}`, { waitUntil: 'domcontentloaded' });
				await ed.openNdv(page, 'Search Harvard');
				museum.reset();
				await ed.tap(
					page,
					`${rlc('classification')} [data-test-id="rlc-input"]`,
					() => 'no Classification locator input (is Filters → Classification shown?)',
				);
				const items = await waitFor('the Classification list', 15_000, async () => {
					const shown = await listed(page);
					return shown.length ? shown : undefined;
				}).catch(async (error: Error) => {
					await shot(ctx, 'museum-classification-picker');
					const popover = await page
						.$$eval(DROPDOWN, (els) => els.map((e) => (e as HTMLElement).innerText).join(' | '))
						.catch(() => '');
					const asked = museum.requests.map((r) => r.path).join(', ') || 'nothing';
					await ed.closeNdv(page).catch(() => undefined);
					return fail(`${error.message}; the museum got ${asked}; the list shows "${popover}"`);
				});
				await sleep(500);
				await shot(ctx, 'museum-classification-picker');
				const expected = [...new Set(records.map((r) => r.classification).filter(Boolean))];
				const names = items.map((i) => i.split(/ \d+ objects?/)[0].trim());
				const missing = expected.filter((c) => !names.some((n) => n.startsWith(String(c))));
				const asked = museum.requests.map((r) => r.path);
				await page.keyboard.press('Escape');
				await ed.closeNdv(page);
				if (!asked.includes('/classification'))
					fail(`the museum service got ${asked.join(', ') || 'nothing'}, no GET /classification`);
				if (missing.length)
					fail(`the list lacks ${missing.join(', ')}; it shows: ${items.join(' | ')}`);
				return [
					`${items.length} entries from GET /classification: ${items.slice(0, 5).join(' | ')}…`,
					...consoleSince(ctx, from),
				];
			},
		);

		await check(
			'Museum Object Search: Operation Get shows the Object locator with From List, By ID and By URL',
			async () => {
				const from = ctx.entries.length;
				await ed.closeNdv(page).catch(() => undefined); // whatever the check before left open
				await ed.openNdv(page, 'Get Harvard');
				const title = await ed.ndvTitle(page);
				const labels = await ed.parameterLabels(page);
				if (!labels.includes('Object')) {
					await ed.closeNdv(page);
					fail(`no Object parameter in "${title}": ${labels.join(', ')}`);
				}
				await ed.tap(page, `${rlc('objectId')} [data-test-id="rlc-mode-selector"]`);
				await sleep(400);
				const modes = await selectOptions(page);
				await shot(ctx, 'museum-get-locator-modes');
				// n8n words the list mode itself ("From list")
				const lower = modes.map((m) => m.toLowerCase());
				for (const mode of ['From List', 'By ID', 'By URL'])
					if (!lower.includes(mode.toLowerCase()))
						fail(`the mode list lacks "${mode}": ${modes.join(', ')}`);
				await ed.tap(
					page,
					'xpath///li[contains(@class, "el-select-dropdown__item")][normalize-space()="By URL"]',
				);
				await ed.tap(page, `${rlc('objectId')} [data-test-id="rlc-input"]`);
				const url = `https://harvardartmuseums.org/collections/object/${records[0].objectid}`;
				await page.keyboard.type(url);
				await page.keyboard.press('Tab');
				await sleep(600);
				await shot(ctx, 'museum-get-locator');
				const text = await page.$eval(rlc('objectId'), (e) => (e as HTMLElement).innerText);
				const value = await page.$eval(
					`${rlc('objectId')} [data-test-id="rlc-input"] input, ${rlc('objectId')} input[data-test-id="rlc-input"]`,
					(e) => (e as HTMLInputElement).value,
				);
				await ed.closeNdv(page);
				if (value !== url) fail(`the Object field holds "${value}"`);
				if (/Not the address of an object/.test(text)) fail(`the URL was refused: ${text}`);
				return [
					`Object modes: ${modes.join(', ')}; By URL takes ${url} without a validation error`,
					`parameters: ${labels.join(', ')}`,
					...consoleSince(ctx, from),
				];
			},
		);

		await check(
			'Museum Object Search as a tool: the parameter panel has no Download Images',
			async () => {
				const from = ctx.entries.length;
				const labelsOf = async (name: string, picture?: string) => {
					await ed.closeNdv(page).catch(() => undefined);
					await ed.openNdv(page, name);
					await sleep(800);
					const labels = await ed.parameterLabels(page);
					if (picture) await shot(ctx, picture);
					await ed.closeNdv(page);
					return labels;
				};
				const regular = await labelsOf('Search Harvard');
				const tool = await labelsOf('Museum Tool', 'museum-object-search-tool');
				if (!regular.includes('Download Images'))
					fail(`the regular node shows no Download Images: ${regular.join(', ')}`);
				if (tool.includes('Download Images'))
					fail(`the tool shows Download Images: ${tool.join(', ')}`);
				if (!tool.length) fail('the tool panel shows no parameters');
				return [
					`regular node: ${regular.join(', ')}`,
					`as a tool: ${tool.join(', ')}`,
					...consoleSince(ctx, from),
				];
			},
		);
	} finally {
		await harvard?.close();
	}

	await check(
		'credential form: two services filled in, one down → the Test reports each service',
		async () => {
			const dead = `http://127.0.0.1:${await freePort()}`;
			const created = await rest.call('POST', '/rest/credentials', {
				name: PER_SERVICE_CREDENTIAL,
				type: CREDENTIAL_TYPE,
				data: {
					...credentialData(ctx.services, 'main'),
					museumUrl: ctx.services.museum.url,
					quotesUrl: '',
					triggerUrl: '',
				},
			});
			const id: string =
				created.json?.data?.id ??
				fail(`creating the credential answered ${created.status}: ${created.text.slice(0, 300)}`);
			await page.goto(`${base}/home/credentials/${id}`, { waitUntil: 'domcontentloaded' });
			await ed.visible(page, ed.SEL.credentialModal, 'the credential form', 20_000);
			// the user fills in a second service, and Save tests both
			await ed.visible(
				page,
				`${ed.SEL.credentialModal} [data-test-id="parameter-input-quotesUrl"]`,
				'the Quotes URL field',
			);
			await sleep(500);
			await ed.setCredentialField(page, 'quotesUrl', dead);
			const result = await ed.saveAndReadTest(page);
			await sleep(700);
			await shot(ctx, 'credential-test-per-service');
			await ed.closeCredentialModal(page);
			const parts = [
				'Museum URL: Connection successful',
				`Quotes URL: Nothing listens at ${dead}`,
				'Trigger URL empty: skipped.',
			];
			if (result.ok) fail(`the test succeeded: "${result.text}"`);
			const lacks = parts.filter((p) => !result.text.includes(p));
			if (lacks.length) fail(`the form says "${result.text}", lacking "${lacks.join('", "')}"`);
			return [`"${result.text}"`];
		},
	);
}

/** Department's From List for an Art Institute of Chicago credential: AIC's GET /departments, no key sent. */
export async function aicDepartmentPanel(ctx: Ctx, rest: Rest): Promise<void> {
	const { page, check, base } = ctx;
	const aic = await startAicServer({ artworks: loadAicArtworks({ source: 'fixture' }) });
	try {
		const name = 'Triptych (UI, AIC)';
		const created = await rest.call('POST', '/rest/credentials', {
			name,
			type: CREDENTIAL_TYPE,
			data: { ...credentialData(ctx.services, 'main'), museumUrl: aic.apiUrl, museumApi: 'artic' },
		});
		const id: string = created.json?.data?.id ?? fail(`creating the credential: ${created.status}`);
		const workflow = await rest.call('POST', '/rest/workflows', {
			name: 'Museum on AIC',
			nodes: [
				{
					id: 'Search AIC',
					name: 'Search AIC',
					type: `${PACKAGE}.museumObjectSearch`,
					typeVersion: 1,
					position: [0, 0],
					parameters: { filters: { department: { __rl: true, mode: 'list', value: '' } } },
					credentials: { triptychApi: { id, name } },
				},
			],
			connections: {},
			settings: {},
		});
		const workflowId: string =
			workflow.json?.data?.id ?? fail(`creating the workflow: ${workflow.status}`);
		await check(
			"Museum Object Search (AIC API): Department's From List shows AIC's departments",
			async () => {
				const from = ctx.entries.length;
				await page.goto(`${base}/workflow/${workflowId}`, { waitUntil: 'domcontentloaded' });
				await ed.openNdv(page, 'Search AIC');
				aic.reset();
				await ed.tap(
					page,
					`${rlc('department')} [data-test-id="rlc-input"]`,
					() => 'no Department locator input (is Filters → Department shown?)',
				);
				const items = await waitFor('the Department list', 15_000, async () => {
					const shown = await listed(page);
					return shown.length ? shown : undefined;
				}).catch(async (error: Error) => {
					await ed.closeNdv(page).catch(() => undefined);
					const asked = aic.requests.map((r) => r.path).join(', ') || 'nothing';
					return fail(`${error.message}; AIC got ${asked}`);
				});
				const asked = aic.requests.map((r) => r.path);
				await page.keyboard.press('Escape');
				await ed.closeNdv(page);
				if (!asked.includes('/api/v1/departments'))
					fail(`AIC got ${asked.join(', ') || 'nothing'}, no GET /departments`);
				if (aic.requests.some((r) => r.headers.authorization) || aic.keySeen(ctx.services.apiKey))
					fail('the key reached AIC');
				const missing = AIC_DEPARTMENT_TERMS.filter((t) => !items.includes(t.title));
				if (missing.length) fail(`the list lacks ${missing.map((t) => t.title).join(', ')}`);
				return [`${items.length} entries: ${items.join(' | ')}`, ...consoleSince(ctx, from)];
			},
		);
	} finally {
		await aic.close();
	}
}
