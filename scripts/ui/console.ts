/**
 * Sorting the page's console errors: what comes from the package (its node types, icons, credential) fails a
 * check; n8n's own noise (requests to external hosts, which cannot succeed on this loopback-only machine, the
 * 401 before signing in) is ignored and listed.
 */
import type { ConsoleEntry } from './browser';

const PACKAGE =
	/n8n-nodes-triptych|triptych|quoteTags|museumObjectSearch|fireAutomation|Fire Automation|Quote Tags|Museum Object Search/i;

export interface Sorted {
	fromPackage: ConsoleEntry[];
	/** Errors from n8n itself on 127.0.0.1 that no rule explains */
	fromN8n: ConsoleEntry[];
	ignored: Array<{ entry: ConsoleEntry; why: string }>;
}

function host(url: string | undefined): string | undefined {
	try {
		return url ? new URL(url).host : undefined;
	} catch {
		return undefined;
	}
}

export function sortEntries(entries: ConsoleEntry[], base: string): Sorted {
	const own = new URL(base).host;
	const sorted: Sorted = { fromPackage: [], fromN8n: [], ignored: [] };
	for (const entry of entries) {
		const where = host(entry.url);
		if (where && where !== own)
			sorted.ignored.push({ entry, why: `external host ${where} (no internet here)` });
		else if (/\/schemas\/n8n-nodes-triptych\.\w+\/[\d.]+\.json/.test(entry.url ?? ''))
			sorted.ignored.push({
				entry,
				why: "n8n's editor asks for an optional output-schema file (dist/nodes/<Node>/__schema__/v<version>.json) the package does not ship: 404, harmless",
			});
		else if (PACKAGE.test(entry.text) || PACKAGE.test(entry.url ?? ''))
			sorted.fromPackage.push(entry);
		else if (/\/rest\/login\b/.test(entry.url ?? '') || /status of 401/.test(entry.text))
			sorted.ignored.push({ entry, why: 'n8n asks who is logged in before sign-in (HTTP 401)' });
		else if (/telemetry|rudderstack|posthog|sentry/i.test(`${entry.text} ${entry.url ?? ''}`))
			sorted.ignored.push({ entry, why: 'telemetry' });
		else if (entry.kind === 'requestfailed' && /ERR_ABORTED/.test(entry.text))
			sorted.ignored.push({ entry, why: 'request cancelled by the page (navigation)' });
		else sorted.fromN8n.push(entry);
	}
	return sorted;
}

export const describe = (entry: ConsoleEntry) =>
	`[${entry.kind}] ${entry.text.split('\n')[0].slice(0, 200)}${entry.url && !entry.text.includes(entry.url) ? ` (${entry.url})` : ''}`;
