/**
 * What an n8n user sees, in a real browser (`npm run test:ui`; docs/development.md, "The browser check"): the
 * packed package in the end-to-end check's n8n 2.41.1 with the loopback services and a Triptych credential, the
 * editor driven in Debian's headless Chromium (puppeteer-core, no browser download): the nodes panel, each node's
 * parameter panel and hints, the credential form's Test messages, the fields an unexecuted node offers the next,
 * and screenshots (light and dark) into docs/screenshots/. Skips (exit 0, "SKIPPED: …") without /usr/bin/chromium
 * or an n8n install; TRIPTYCH_UI_STRICT=1 makes a skip an error. Options: --keep (keep .tmp/ui: n8n's log).
 */
import fs from 'node:fs';
import path from 'node:path';

import { Checks, fail, log, runMain, seconds } from './e2e/checks';
import { pack, prepare, startN8n } from './e2e/instance';
import { installN8n, killAll } from './e2e/n8n';
import {
	type Services,
	CREDENTIAL_TYPE,
	ROOT,
	credentialData,
	startServices,
} from './e2e/scenarios';
import { CHROMIUM, type Launched, collectErrors, launch } from './ui/browser';
import {
	type Ctx,
	CREDENTIAL_NAME,
	consoleSince,
	credentialForm,
	nodesPanel,
	parameterPanels,
	previewAndHints,
	themes,
} from './ui/checks';
import { setTheme, signIn } from './ui/editor';
import { aicDepartmentPanel, featurePanels } from './ui/features';

const VERSION = '2.41.1';
const WORK = path.join(ROOT, '.tmp', 'ui');
/** The whole run, n8n's start included (once n8n is installed) */
const RUN_TIMEOUT = 8 * 60_000;

const checks = new Checks();
const check = (name: string, body: () => Promise<string[]>) => checks.run('', name, body);

function skip(reason: string): number {
	const strict = process.env.TRIPTYCH_UI_STRICT === '1';
	log(strict ? `FAIL  ${reason} (TRIPTYCH_UI_STRICT=1: a skip is an error)` : `SKIPPED: ${reason}`);
	return strict ? 1 : 0;
}

async function main(): Promise<number> {
	log(`UI check of the package in n8n ${VERSION}, headless ${CHROMIUM}`);
	if (!fs.existsSync(CHROMIUM))
		return skip(`${CHROMIUM} is not installed (apt-get install chromium)`);
	const install = await installN8n(VERSION, log).catch((error: Error) => error);
	if (install instanceof Error)
		return skip(
			`n8n ${VERSION} is not installed and could not be installed: ${install.message.split('\n')[0]}`,
		);
	log(
		`n8n ${VERSION} on Node ${install.runtime.version} (${install.cached ? 'cached install' : 'installed now'})`,
	);

	fs.mkdirSync(WORK, { recursive: true });
	let services: Services | undefined;
	let app: Awaited<ReturnType<typeof startN8n>> | undefined;
	let credentialId = '';
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
				const env = await prepare(install, tarball, path.join(WORK, 'n8n'));
				app = await startN8n(env, 'Ui', 'triptych-ui');
				const created = await app.rest.call('POST', '/rest/credentials', {
					name: CREDENTIAL_NAME,
					type: CREDENTIAL_TYPE,
					data: credentialData(services, 'main'),
				});
				credentialId =
					created.json?.data?.id ??
					fail(`creating the credential answered ${created.status}: ${created.text.slice(0, 500)}`);
				return [
					`${path.basename(tarball)}; ${app.base} after ${seconds(Date.now() - t0)}; credential ${credentialId}`,
				];
			},
		);
		if (!ready || !app || !services) return checks.summary();

		browser = await launch();
		const page = await browser.browser.newPage();
		page.setDefaultTimeout(15_000);
		// "leave the page with unsaved changes?" when the check starts a new workflow
		page.on('dialog', (dialog) => void dialog.accept().catch(() => undefined));
		const entries = collectErrors(page);
		const ctx: Ctx = { page, base: app.base, services, entries, check, shots: [] };
		const signedIn = await check('sign in to the editor as the owner', async () => {
			await signIn(page, app!.base, app!.owner.email, app!.owner.password);
			return [`landed on ${new URL(page.url()).pathname}`];
		});
		if (!signedIn) return checks.summary();
		await setTheme(page, 'light'); // screenshots in the light theme unless a check asks for dark

		await nodesPanel(ctx);
		await parameterPanels(ctx);
		await credentialForm(ctx);
		await themes(ctx);
		await previewAndHints(ctx, app.rest, credentialId);
		await featurePanels(ctx, app.rest);
		await aicDepartmentPanel(ctx, app.rest);

		await check('whole session: no console error from the package', async () => [
			`${entries.length} console errors/failed requests in all`,
			...new Set(consoleSince(ctx, 0)),
		]);
		log(`screenshots: ${ctx.shots.join(', ')}`);
	} catch (error) {
		await check('run', () => Promise.reject(new Error((error as Error).stack ?? error)));
	} finally {
		clearTimeout(timer);
		await browser?.close();
		await app?.server.stop();
		await services?.close();
		killAll();
		if (!checks.failed() && !process.argv.includes('--keep'))
			fs.rmSync(WORK, { recursive: true, force: true });
		else log(`kept ${path.relative(ROOT, WORK)} (n8n's log: n8n/n8n-start.log)`);
	}
	return checks.summary();
}

runMain(main);
