/**
 * Debian's Chromium, headless, driven by puppeteer-core (no browser download): a fresh profile each run, nothing
 * but loopback traffic, and the page's console errors collected for the checks.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import puppeteer, { type Browser, type Page } from 'puppeteer-core';

export const CHROMIUM = process.env.TRIPTYCH_CHROMIUM ?? '/usr/bin/chromium';
export const VIEWPORT = { width: 1280, height: 800 };

export interface Launched {
	browser: Browser;
	profile: string;
	close(): Promise<void>;
}

export async function launch(): Promise<Launched> {
	const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'triptych-ui-chromium-'));
	const browser = await puppeteer.launch({
		executablePath: CHROMIUM,
		headless: true,
		timeout: 60_000,
		protocolTimeout: 60_000,
		defaultViewport: VIEWPORT,
		args: [
			'--headless',
			'--no-sandbox',
			'--disable-gpu',
			'--disable-quic',
			'--no-first-run',
			'--disable-background-networking',
			'--disable-component-update',
			'--disable-sync',
			'--disable-dev-shm-usage',
			`--user-data-dir=${profile}`,
			`--window-size=${VIEWPORT.width},${VIEWPORT.height}`,
		],
	});
	return {
		browser,
		profile,
		async close() {
			const pid = browser.process()?.pid;
			await Promise.race([
				browser.close().catch(() => undefined),
				new Promise((resolve) => setTimeout(resolve, 10_000)),
			]);
			if (pid) {
				try {
					process.kill(pid, 'SIGKILL');
				} catch {
					/* already gone */
				}
			}
			fs.rmSync(profile, { recursive: true, force: true });
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
