/**
 * Debian's Chromium, headless, driven by puppeteer-core (no browser download): a fresh profile each run (puppeteer's
 * own, removed on close), nothing but loopback traffic, and the page's console errors collected for the checks.
 */
import puppeteer, { type Browser, type Page } from 'puppeteer-core';

export const CHROMIUM = process.env.TRIPTYCH_CHROMIUM ?? '/usr/bin/chromium';

export interface Launched {
	browser: Browser;
	/** Closes the browser; one that hangs is killed */
	close(): Promise<void>;
}

export async function launch(): Promise<Launched> {
	const browser = await puppeteer.launch({
		executablePath: CHROMIUM,
		headless: true,
		timeout: 60_000,
		protocolTimeout: 60_000,
		defaultViewport: { width: 1280, height: 800 },
		// besides puppeteer's defaults (no background networking, sync or first-run screens)
		args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-component-update'],
	});
	return {
		browser,
		async close() {
			await Promise.race([
				browser.close().catch(() => undefined),
				new Promise((resolve) => setTimeout(resolve, 10_000)),
			]);
			browser.process()?.kill('SIGKILL');
		},
	};
}

export interface ConsoleEntry {
	kind: 'console' | 'pageerror' | 'requestfailed';
	text: string;
	/** The script or request URL the entry came from, when known */
	url?: string;
}

/** Collects the page's console errors, uncaught errors and failed requests from now on. */
export function collectErrors(page: Page): ConsoleEntry[] {
	const entries: ConsoleEntry[] = [];
	page.on('console', (message) => {
		if (message.type() !== 'error') return;
		entries.push({ kind: 'console', text: message.text(), url: message.location()?.url });
	});
	page.on('pageerror', (error) => {
		const e = error as Error;
		entries.push({ kind: 'pageerror', text: `${e.message ?? e}\n${e.stack ?? ''}` });
	});
	page.on('requestfailed', (request) => {
		entries.push({
			kind: 'requestfailed',
			text: `${request.method()} ${request.url()}: ${request.failure()?.errorText ?? 'failed'}`,
			url: request.url(),
		});
	});
	return entries;
}

const PACKAGE =
	/n8n-nodes-triptych|triptych|quoteTags|museumObjectSearch|fireAutomation|Fire Automation|Quote Tags|Museum Object Search/i;

/**
 * How a console error is listed: n8n's own noise, "ignored (why)" (requests to external hosts, which cannot succeed
 * on this loopback-only machine, the 401 before signing in, …), or "n8n (not the package)" for n8n's own errors no
 * rule explains; `undefined` for an error from the package (its node types, icons, credential): that fails a check.
 */
export function excuse(entry: ConsoleEntry, base: string): string | undefined {
	const where = entry.url && URL.canParse(entry.url) ? new URL(entry.url).host : undefined;
	if (where && where !== new URL(base).host)
		return `ignored (external host ${where} (no internet here))`;
	if (/\/schemas\/n8n-nodes-triptych\.\w+\/[\d.]+\.json/.test(entry.url ?? ''))
		return "ignored (n8n's editor asks for an optional output-schema file (dist/nodes/<Node>/__schema__/v<version>.json) the package does not ship: 404, harmless)";
	if (/\/schemas\/n8n-nodes-triptych\.\w+\/[\d.]+\/[\w/]+\.json/.test(entry.url ?? ''))
		return "the package (not failed here): a node with an Operation has its output schema asked for per operation (dist/nodes/<Node>/__schema__/v<version>/<operation>.json); its 404 leaves the next node's input panel without fields, which the check of that panel reports";
	if (PACKAGE.test(entry.text) || PACKAGE.test(entry.url ?? '')) return undefined;
	if (/\/rest\/login\b/.test(entry.url ?? '') || /status of 401/.test(entry.text))
		return 'ignored (n8n asks who is logged in before sign-in (HTTP 401))';
	if (/telemetry|rudderstack|posthog|sentry/i.test(`${entry.text} ${entry.url ?? ''}`))
		return 'ignored (telemetry)';
	if (entry.kind === 'requestfailed' && /ERR_ABORTED/.test(entry.text))
		return 'ignored (request cancelled by the page (navigation))';
	return 'n8n (not the package)';
}

export const describe = (entry: ConsoleEntry) =>
	`[${entry.kind}] ${entry.text.split('\n')[0].slice(0, 200)}${entry.url && !entry.text.includes(entry.url) ? ` (${entry.url})` : ''}`;
