/** The stand-ins of the three real services, and the credential each example workflow uses. */
import { DEFAULT_API_KEY } from './common';
import { loadMuseumRecords, loadQuoteTags } from './data';
import { startHarvardServer } from './harvard';
import { type IftttServer, startIftttServer } from './ifttt';
import type { MuseumServer } from './museum';
import { type QuotesServer, startQuotesServer } from './quotes';

export interface RealServices {
	harvard: MuseumServer;
	ifttt: IftttServer;
	quotable: QuotesServer;
	apiKey: string;
	reset(): void;
	close(): Promise<void>;
}

export async function startRealServices(
	data: 'fixture' | 'auto' = 'fixture',
): Promise<RealServices> {
	const harvard = await startHarvardServer({
		records: loadMuseumRecords({ source: data, max: 500 }),
	});
	const ifttt = await startIftttServer();
	const quotable = await startQuotesServer({ quotable: true, tags: loadQuoteTags(data) });
	const all = [harvard, ifttt, quotable];
	return {
		harvard,
		ifttt,
		quotable,
		apiKey: DEFAULT_API_KEY,
		reset: () => all.forEach((s) => s.reset()),
		close: async () => void (await Promise.all(all.map(async (s) => await s.close()))),
	};
}

/** The example workflows for the real services, each with the credential data a builder would enter. */
export const REAL_EXAMPLES: Array<{
	file: string;
	credential(s: RealServices): Record<string, string | boolean>;
}> = [
	{
		file: 'examples/harvard-art-museums.json',
		credential: (s) => ({ apiKey: s.apiKey, museumUrl: s.harvard.url, museumApi: 'harvard' }),
	},
	{
		file: 'examples/ifttt-webhooks.json',
		credential: (s) => ({ apiKey: s.apiKey, triggerUrl: s.ifttt.url, triggerApi: 'iftttWebhooks' }),
	},
	{
		file: 'examples/quotable-tags.json',
		credential: (s) => ({ apiKey: s.apiKey, quotesUrl: s.quotable.url, sendKeyToQuotes: false }),
	},
];
