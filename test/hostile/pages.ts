/**
 * One run of Museum Object Search against an error page, for isolated.ts: the whole engine and the server in a worker
 * thread, so a run whose reading of the page blocks the event loop (a pattern backtracking over the page) is ended by
 * the test at its deadline instead of hanging jest.
 */
import { runNode } from '../harness/engine';
import { DEFAULT_API_KEY, loadMuseumRecords, startMuseumServer } from '../servers';

/** A 502 answer of `bytes` bytes of `pattern` repeated (text/html), as a broken proxy may send it. */
export async function runAgainstPage(pattern: string, bytes: number) {
	const museum = await startMuseumServer({ records: loadMuseumRecords({ source: 'fixture' }) });
	try {
		const page = pattern.repeat(Math.ceil(bytes / pattern.length)).slice(0, bytes);
		museum.fail(
			...Array.from({ length: 5 }, () => ({
				kind: 'status' as const,
				status: 502,
				body: page,
				contentType: 'text/html; charset=utf-8',
			})),
		);
		const started = Date.now();
		const result = await runNode(
			'museumObjectSearch',
			'Museum',
			{ limit: 3, options: { maxAttempts: 1 } },
			{ credentials: { apiKey: DEFAULT_API_KEY, museumUrl: museum.url } },
		);
		const error = result.error('Museum');
		return {
			ms: Date.now() - started,
			requests: museum.requests.length,
			message: error?.message,
			description: error?.description,
		};
	} finally {
		await museum.close();
	}
}
