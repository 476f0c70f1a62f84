/**
 * What an n8n user sees, in a real browser (`npm run test:ui`): packs the package, installs it into the real n8n
 * 2.41.1 of the end-to-end check (scripts/e2e/n8n.ts; cached in ~/.cache/triptych-e2e), starts it on 127.0.0.1
 * with the loopback demo services and a Triptych credential, and drives the editor in Debian's headless Chromium
 * (puppeteer-core, no browser download):
 *   1. the nodes panel: each node found by name and by "triptych", offered as an action and opened as a regular
 *      node after a trigger; Fire Automation not offered as a trigger in "What triggers this workflow?" for
 *      "trigger" (n8n 2.41 lists regular nodes there too: it may appear as one, and chosen there it lands after a
 *      trigger n8n adds);
 *   2. each node's parameter panel opens with the credential selected and no console error from the package;
 *   3. the credential form: good key, wrong key (the credential's message), Museum URL empty with Quotes URL set,
 *      every URL empty ("No address to test: …"), a malformed Museum URL ("… is not a web address"), a Museum URL
 *      where nothing listens ("Nothing listens at …", not a bare ECONNREFUSED);
 *   4. Museum Object Search: Output = Selected Fields shows Selected Fields at once;
 *   5. screenshots (light and dark theme, nodes panel, credential form) into docs/screenshots/;
 *   6. before any run: the schema endpoint serves each shipped schema, the node after an unexecuted Museum
 *      Object Search offers its fields, and the node hints show only where they apply.
 * Skips (exit 0, "SKIPPED: …") without /usr/bin/chromium or an n8n install; TRIPTYCH_UI_STRICT=1 makes a skip
 * an error. Options: --keep (keep .tmp/ui: n8n's log).
 */
import fs from 'node:fs';
import path from 'node:path';

import {
	TARGETS,
	credentialTestMessage,
	ensureN8n,
	ensureRuntime,
	killAll,
	type Runtime,
} from './e2e/n8n';
import { type Services, ROOT, startServices } from './e2e/scenarios';
import { pack } from './e2e/instance';
import { type App, OWNER, startApp } from './ui/app';
import { CHROMIUM, type Launched, collectErrors, launch } from './ui/browser';
import { type Ctx, credentialForm, nodesPanel, parameterPanels, themes } from './ui/checks';
import { describe, sortEntries } from './ui/console';
import { previewAndHints } from './ui/preview';
import { signIn } from './ui/editor';

const VERSION = '2.41.1';
const WORK = path.join(ROOT, '.tmp', 'ui');
/** The whole run, n8n's start included (once n8n is installed) */
const RUN_TIMEOUT = 8 * 60_000;

const results: Array<{ name: string; ok: boolean }> = [];
const log = (line: string) => console.log(line);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

async function check(name: string, body: () => Promise<string[]>): Promise<boolean> {
	const started = Date.now();
	try {
		const details = await body();
		results.push({ name, ok: true });
		log(`PASS  ${name} (${seconds(Date.now() - started)})`);
		for (const line of details) log(`        ${line}`);
		return true;
	} catch (error) {
		results.push({ name, ok: false });
		log(`FAIL  ${name} (${seconds(Date.now() - started)})`);
		for (const line of String((error as Error).message ?? error)
			.split('\n')
			.slice(0, 20))
			log(`        ${line}`);
		return false;
	}
}

function skip(reason: string): number {
	if (process.env.TRIPTYCH_UI_STRICT === '1') {
		log(`FAIL  ${reason} (TRIPTYCH_UI_STRICT=1: a skip is an error)`);
		return 1;
	}
	log(`SKIPPED: ${reason}`);
	return 0;
}

async function main(): Promise<number> {
	const started = Date.now();
	log(`UI check of the package in n8n ${VERSION}, headless ${CHROMIUM}`);
	if (!fs.existsSync(CHROMIUM))
		return skip(`${CHROMIUM} is not installed (apt-get install chromium)`);
	const target = TARGETS[VERSION];
	let runtime: Runtime;
	try {
		runtime = await ensureRuntime(target, log);
		const { cached } = await ensureN8n(target, runtime, log);
		log(
			`n8n ${VERSION} on Node ${runtime.version} (${cached ? 'cached install' : 'installed now'})`,
		);
	} catch (error) {
		return skip(
			`n8n ${VERSION} is not installed and could not be installed: ${(error as Error).message.split('\n')[0]}`,
		);
	}

	fs.mkdirSync(WORK, { recursive: true });
	let services: Services | undefined;
	let app: App | undefined;
	let browser: Launched | undefined;
	const timer = setTimeout(() => {
		log(`FAIL  the whole run took longer than ${seconds(RUN_TIMEOUT)}: stopped`);
		killAll();
		process.exit(1);
	}, RUN_TIMEOUT);
	try {
		const ready = await check(
			`start n8n ${VERSION} with the packed package, owner and credential (REST)`,
			async () => {
				const t0 = Date.now();
				const tarball = await pack(WORK);
				services = await startServices();
				app = await startApp(target, runtime, tarball, path.join(WORK, 'n8n'), services);
				return [
					`${path.basename(tarball)}; ${app.base} after ${seconds(Date.now() - t0)}; credential ${app.credentialId}`,
				];
			},
		);
		if (!ready || !app || !services) return report(started);

		browser = await launch();
		const page = await browser.browser.newPage();
		page.setDefaultTimeout(15_000);
		// "leave the page with unsaved changes?" when the check starts a new workflow
		page.on('dialog', (dialog) => void dialog.accept().catch(() => undefined));
		const entries = collectErrors(page);
		const ctx: Ctx = { page, base: app.base, services, entries, check, shots: [] };
		const signedIn = await check('sign in to the editor as the owner', async () => {
			await signIn(page, app!.base, OWNER.email, OWNER.password);
			return [`landed on ${new URL(page.url()).pathname}`];
		});
		if (!signedIn) return report(started);
		// screenshots in the light theme unless a check asks for dark
		await page.evaluate(() =>
			(
				globalThis as unknown as { localStorage: { setItem(k: string, v: string): void } }
			).localStorage.setItem('N8N_THEME', 'light'),
		);

		await nodesPanel(ctx);
		await parameterPanels(ctx);
		await credentialForm(
			ctx,
			credentialTestMessage({ apiKey: 'wrong', museumUrl: services.museum.url }, 401),
		);
		await themes(ctx);
		await previewAndHints(ctx, app.rest, app.credentialId);

		const sorted = sortEntries(entries, app.base);
		await check('whole session: no console error from the package', async () => {
			if (sorted.fromPackage.length) throw new Error(sorted.fromPackage.map(describe).join('\n'));
			return [
				`${entries.length} console errors/failed requests in all: ${sorted.fromN8n.length} from n8n itself, ${sorted.ignored.length} ignored`,
				...sorted.fromN8n.map((e) => `n8n: ${describe(e)}`),
				...[
					...new Set(
						sorted.ignored.map(({ entry, why }) => `ignored (${why}): ${describe(entry)}`),
					),
				],
			];
		});
		log(`screenshots: ${ctx.shots.join(', ')}`);
	} catch (error) {
		results.push({ name: 'run', ok: false });
		log(`FAIL  run: ${(error as Error).stack ?? error}`);
	} finally {
		clearTimeout(timer);
		await browser?.close();
		await (app as App | undefined)?.server.stop();
		await (services as Services | undefined)?.close();
		killAll();
		const failed = results.some((r) => !r.ok);
		if (!failed && !process.argv.includes('--keep'))
			fs.rmSync(WORK, { recursive: true, force: true });
		else log(`kept ${path.relative(ROOT, WORK)} (n8n's log: n8n/n8n-start.log)`);
	}
	return report(started);
}

function report(started: number): number {
	const failed = results.filter((r) => !r.ok).length;
	log(`took ${seconds(Date.now() - started)}`);
	log(`${results.length - failed} passed, ${failed} failed`);
	return failed || results.length === 0 ? 1 : 0;
}

main().then(
	(code) => process.exit(code),
	(error) => {
		console.error(error);
		killAll();
		process.exit(1);
	},
);
