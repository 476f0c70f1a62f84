/** Hostile-service tests: every server, an image host, a key catcher (another origin). */
import type { IDataObject } from 'n8n-workflow';

import { runNode as runOne, type RunResult, useServer } from '../harness/engine';
import {
	DEFAULT_API_KEY,
	type ImageHost,
	type KeyCatcher,
	type MuseumServer,
	type QuotesServer,
	type TestServer,
	type TriggerServer,
	MIB,
	loadMuseumRecords,
	startImageHost,
	startKeyCatcher,
	startMuseumServer,
	startQuotesServer,
	startTriggerServer,
} from '../servers';

export const KEY = DEFAULT_API_KEY;
export const NODE = 'Node';

export interface Services {
	museum: MuseumServer;
	quotes: QuotesServer;
	trigger: TriggerServer;
	images: ImageHost;
	catcher: KeyCatcher;
}

export type Kind = 'museum' | 'quotes' | 'trigger';
export const KINDS: Kind[] = ['museum', 'quotes', 'trigger'];
export const LABEL: Record<Kind, string> = {
	museum: 'Museum URL',
	quotes: 'Quotes URL',
	trigger: 'Trigger URL',
};

/** Every service for the file's tests (see useServer), nodes warmed up, then `prepare`. */
export function useServices(prepare?: () => Promise<unknown>) {
	return useServer(async () => {
		const images = await startImageHost({ hugeBytes: 6 * MIB, bombBytes: 256 * MIB });
		const services: Services = {
			images,
			museum: await startMuseumServer({
				records: loadMuseumRecords({ source: 'fixture' }),
				imageBaseUrl: images.url,
			}),
			// the key is sent to Quotes ("Send API Key to Quotes Service" on), and the server insists on it
			quotes: await startQuotesServer({ envelope: true, requireKey: true }),
			trigger: await startTriggerServer(),
			catcher: await startKeyCatcher(),
		};
		const all = Object.values(services);
		const s = Object.assign(services, {
			reset: () => all.forEach((server) => server.reset()),
			close: async () => void (await Promise.all(all.map((server) => server.close()))),
		});
		// warm up (the first run of a node loads and compiles it): timings measure the transport only
		for (const kind of KINDS) await runNode(s, kind);
		await prepare?.();
		return s;
	});
}

/** How each node's errors name its service. */
export const NAME: Record<Kind, string> = {
	museum: 'museum service',
	quotes: 'quotes service',
	trigger: 'trigger service',
};
export const FAST = { retryDelay: 5, maxRetryWait: 5 };
export const GETS: Kind[] = ['museum', 'quotes'];
/** What a deadline or Stop may take beyond its nominal time on a loaded machine (still far below an endless wait). */
export const LATE = 4000;

export const serverOf = (s: Services, kind: Kind): TestServer => s[kind];

/** The node's own parameters for a simple call (3 records or tags; trigger: event "hostile"). */
function paramsOf(kind: Kind, options: IDataObject = {}, extra: IDataObject = {}): IDataObject {
	return { ...(kind === 'trigger' ? { event: 'hostile' } : { limit: 3 }), options, ...extra };
}

const TYPE: Record<Kind, string> = {
	museum: 'museumObjectSearch',
	quotes: 'quoteTags',
	trigger: 'fireAutomation',
};

/**
 * Runs the node of `kind` (credentials: all three URLs, key sent to Quotes); returns the result and elapsed ms.
 * `limitMs`: a run still going then is stopped (n8n's Stop) and the test fails, so a run that would never end fails
 * in bounded time instead of hanging jest; `stopWhen`: checked every 50 ms, stops the run the same way (a retry
 * loop past any bound fails at once rather than at the limit).
 */
export async function runNode(
	s: Services,
	kind: Kind,
	opts: {
		options?: IDataObject;
		params?: IDataObject;
		limitMs?: number;
		stopWhen?: () => string | undefined;
	} & Parameters<typeof runOne>[3] = {},
): Promise<RunResult & { ms: number }> {
	const { options, params, credentials, limitMs, stopWhen, ...rest } = opts;
	const started = Date.now();
	let stop = () => {};
	let stopped: string | undefined;
	const halt = (why: string) => ((stopped ??= why), stop());
	const timer =
		limitMs === undefined
			? undefined
			: setTimeout(() => halt(`did not end within ${limitMs} ms`), limitMs);
	const watch =
		stopWhen &&
		setInterval(() => {
			const why = stopWhen();
			if (why) halt(why);
		}, 50);
	const result = await runOne(TYPE[kind], NODE, paramsOf(kind, options, params), {
		...rest,
		onStart: (fn) => {
			stop = fn;
			rest.onStart?.(fn);
		},
		credentials: {
			apiKey: KEY,
			museumUrl: s.museum.url,
			quotesUrl: s.quotes.url,
			triggerUrl: s.trigger.url,
			sendKeyToQuotes: true,
			...credentials,
		},
	});
	clearTimeout(timer);
	clearInterval(watch);
	if (stopped)
		throw new Error(
			`the ${kind} run ${stopped}: the test stopped it (${serverOf(s, kind).requests.length} requests)`,
		);
	return Object.assign(result, { ms: Date.now() - started });
}

export const items = (result: RunResult) => result.output(NODE).map((i) => i.json);

/** The path each node calls (for same-origin redirect chains). */
export function pathOf(kind: Kind): string {
	return kind === 'museum' ? '/object' : kind === 'quotes' ? '/tags' : '/trigger/hostile';
}

/** A museum answer of one record whose image is at `url`. */
export function pageLinking(url: string) {
	return {
		kind: 'status' as const,
		status: 200,
		body: {
			status: 'success',
			data: {
				info: { totalrecords: 1, pages: 1 },
				records: [{ objectid: 1, title: 'One', primaryimageurl: url }],
			},
			message: 'OK',
		},
	};
}

/** Samples the process's RSS every 5 ms while `run` runs: the growth at the peak. */
export async function rssDuring<T>(run: () => Promise<T>) {
	global.gc?.();
	const before = process.memoryUsage().rss;
	let peak = before;
	const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
	try {
		const value = await run();
		return { value, peakGrowth: Math.max(peak, process.memoryUsage().rss) - before };
	} finally {
		clearInterval(timer);
	}
}

/** Polls until `check` is true (or `ms` passed). */
export async function until(check: () => boolean, ms = 5000): Promise<void> {
	const end = Date.now() + ms;
	while (!check() && Date.now() < end) await new Promise((r) => setTimeout(r, 5));
	if (!check()) throw new Error(`condition not met within ${ms} ms`);
}
