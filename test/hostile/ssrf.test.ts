/**
 * With n8n's SSRF protection on, the loopback services are restricted addresses: a request there is refused by n8n
 * before it is sent, and each road says so at once, with what an administrator can do, without retrying.
 */
import './ssrfEnv';

import { listSearch } from '../harness/loadOptions';
import { runNode, testCredential, useServer } from '../harness/engine';
import { DEFAULT_API_KEY, startQuotesServer } from '../servers';

const server = useServer(() => startQuotesServer());
const BLOCKED = /n8n's SSRF protection blocked the request to 127\.0\.0\.1/;

test('a node: one clear error naming the protection and its settings, nothing retried or sent', async () => {
	const started = Date.now();
	const result = await runNode(
		'quoteTags',
		'Tags',
		{ limit: 1, options: { maxAttempts: 5 } },
		{
			credentials: { apiKey: DEFAULT_API_KEY, quotesUrl: server.url },
		},
	);
	const error = result.error('Tags')!;
	expect(error.message).toMatch(BLOCKED);
	expect(error.description).toMatch(/N8N_SSRF_ALLOWED_HOSTNAMES or N8N_SSRF_ALLOWED_IP_RANGES/);
	expect(error.description).not.toMatch(/gave up after|Check the Quotes URL/);
	expect(server.requests).toHaveLength(0);
	expect(Date.now() - started).toBeLessThan(10_000);
});

test('the credential Test and the editor lists say the same', async () => {
	const tested = await testCredential({ apiKey: DEFAULT_API_KEY, museumUrl: server.url });
	expect(tested.status).toBe('Error');
	expect(tested.message).toMatch(BLOCKED);
	const listed = listSearch('museumObjectSearch', 'objects', {
		apiKey: DEFAULT_API_KEY,
		museumUrl: server.url,
	});
	await expect(listed).rejects.toThrow(BLOCKED);
	expect(server.requests).toHaveLength(0);
});
