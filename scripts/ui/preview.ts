/// <reference lib="dom" />
/**
 * Before any run: the schema endpoint serves each shipped `__schema__` file, the node after an unexecuted Museum
 * Object Search offers its fields in the input panel, and the node hints show exactly where they apply.
 */
import fs from 'node:fs';
import path from 'node:path';

import { fail, sleep, waitFor } from '../e2e/checks';
import type { Rest } from '../e2e/instance';
import { PACKAGE, ROOT } from '../e2e/scenarios';
import type { Ctx } from './checks';
import * as ed from './editor';

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
				for (const file of fs.readdirSync(schemas)) {
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
		node('Museum', `${PACKAGE}.museumObjectSearch`, 1.1, 200, { returnAll: true }),
		node('Next', 'n8n-nodes-base.noOp', 1, 400),
		node('Fire', `${PACKAGE}.fireAutomation`, 1, 600),
		node('Fire in order', `${PACKAGE}.fireAutomation`, 1, 800, {
			options: { concurrency: 1, idempotency: 'auto' },
		}),
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
		if (missing.length) fail(`input panel lacks ${missing.join(', ')}: ${text.slice(0, 400)}`);
		return [`input panel: ${text.replace(/\s+/g, ' ').slice(0, 160)}`];
	});

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
