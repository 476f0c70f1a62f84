/** The credential type and its Test, called as the editor's "Test" button does. */
import type { INodeType } from 'n8n-workflow';

import { CREDENTIAL, loadPackage, testCredential, useServer } from '../harness/engine';
import {
	DEFAULT_API_KEY,
	loadMuseumRecords,
	startMuseumServer,
	startQuotesServer,
	startTriggerServer,
	type Fault,
} from '../servers';
import { gzipBomb, startKeyCatcher } from '../servers/hostile';

const museum = useServer(() =>
	startMuseumServer({ records: loadMuseumRecords({ source: 'fixture' }) }),
);

const good = () => ({ apiKey: DEFAULT_API_KEY, museumUrl: `${museum.url}/` });

test('the credentials type is loaded by n8n with its fields, icon and documentation link', async () => {
	const { pkg } = await loadPackage();
	const type = pkg.credentialTypes[CREDENTIAL].type;
	expect(type.displayName).toBe('Triptych API');
	expect(type.properties.map((p) => p.name)).toEqual([
		'apiKey',
		'triggerUrl',
		'triggerApi',
		'museumUrl',
		'museumApi',
		'quotesUrl',
		'sendKeyToQuotes',
	]);
	expect(type.properties[0].typeOptions).toEqual({ password: true });
	expect(type.documentationUrl).toMatch(/^https:\/\/github\.com\/.+#credentials$/);
	// n8n's loader turns `icon: {light: 'file:…', dark: 'file:…'}` into served icon paths
	expect(type.iconUrl).toEqual({
		light: 'icons/n8n-nodes-triptych/dist/icons/triptych.svg',
		dark: 'icons/n8n-nodes-triptych/dist/icons/triptych.dark.svg',
	});
});

test('no declarative test: all three nodes name the test function (testedBy), so n8n calls it', async () => {
	const { pkg } = await loadPackage();
	expect(pkg.credentialTypes[CREDENTIAL].type.test).toBeUndefined();
	for (const name of ['quoteTags', 'museumObjectSearch', 'fireAutomation']) {
		const type = pkg.nodeTypes[name].type as INodeType;
		expect(type.description.credentials).toEqual([
			{ name: CREDENTIAL, required: true, testedBy: 'triptychApiTest' },
		]);
		expect(typeof type.methods?.credentialTest?.triptychApiTest).toBe('function');
	}
});

test('a good key passes: one GET {Museum URL}/object?limit=1 with the Bearer header', async () => {
	const result = await testCredential(good());
	expect(result).toEqual({
		status: 'OK',
		message: `Connection successful: the museum service at ${museum.url} answered.`,
	});
	expect(museum.requests).toHaveLength(1);
	expect(museum.requests[0]).toMatchObject({
		method: 'GET',
		path: '/object',
		query: { limit: '1' },
	});
	expect(museum.requests[0].headers.authorization).toBe(`Bearer ${DEFAULT_API_KEY}`);
});

test('a bad key fails with a message naming the address and the fix, without the key', async () => {
	const result = await testCredential({ ...good(), apiKey: 'wrong-key' });
	expect(result).toEqual({
		status: 'Error',
		message: `The museum service rejected the API key (HTTP 401). Check the API Key. Tested: Museum URL (${museum.url}).`,
	});
});

test('a Museum URL that points at the wrong path says so', async () => {
	const result = await testCredential({ ...good(), museumUrl: `${museum.url}/api/v9` });
	expect(result).toEqual({
		status: 'Error',
		message: `Nothing answers at ${museum.url}/api/v9/object (HTTP 404): use the service's base address in the Museum URL, without /object or /tags.`,
	});
	expect(museum.requests[0].path).toBe('/api/v9/object');
});

const K = DEFAULT_API_KEY;
const at = (tail: string) => (url: string) => `The museum service at ${url} ${tail}`;
const later = 'Check the Museum URL, or try again later.';
test.each<[string, Fault, (url: string) => string | RegExp]>([
	[
		'a "fail" envelope',
		{ kind: 'envelope', envStatus: 'fail', message: 'Key suspended' },
		at('answered status "fail": "Key suspended". Check the API Key and the Museum URL.'),
	],
	[
		'an "error" envelope',
		{ kind: 'envelope', envStatus: 'error', message: 'Index down' },
		() => /answered status "error": "Index down"/,
	],
	[
		'an HTML page, by its title',
		{ kind: 'html', status: 502 },
		at(`answered HTTP 502: "502 Bad Gateway". ${later}`),
	],
	[
		'a 200 that is not JSON',
		{ kind: 'status', status: 200, body: 'Welcome to our website', contentType: 'text/plain' },
		at(
			'did not answer with JSON: "Welcome to our website": the Museum URL may point at a website or a proxy, not at the API.',
		),
	],
	[
		'a 429',
		{
			kind: 'status',
			status: 429,
			retryAfter: '30',
			body: { status: 'fail', message: 'Slow down' },
		},
		(url) =>
			new RegExp(
				`^The museum service at ${url.replace(/[.]/g, '\\.')} answered HTTP 429: ".*Slow down.*"\\. Check the Museum URL, or try again later\\.$`,
			),
	],
	[
		'an error echoing the key',
		{ kind: 'status', status: 500, body: { message: `key ${K} is revoked; you sent Bearer ${K}` } },
		at(`answered HTTP 500: "key *** is revoked; you sent Bearer ***". ${later}`),
	],
	[
		'a fail envelope echoing the key',
		{ kind: 'status', status: 200, body: { status: 'fail', message: `unknown key ${K}` } },
		() => /unknown key \*\*\*/,
	],
	[
		'a page echoing the key',
		{ kind: 'status', status: 200, body: `<p>Hello ${K}</p>`, contentType: 'text/html' },
		() => /Hello \*\*\*/,
	],
])('%s fails the test with what to do, never the key', async (_, fault, message) => {
	museum.fail(fault);
	const result = await testCredential(good());
	expect(result.status).toBe('Error');
	const expected = message(museum.url);
	if (typeof expected === 'string') expect(result.message).toBe(expected);
	else expect(result.message).toMatch(expected);
	expect(result.message).not.toContain(K);
});

describe('a hostile service at the tested address', () => {
	// the bomb is built once, before: built while the Test waits, on a loaded machine, it would outlast the deadline
	beforeAll(async () => void (await gzipBomb(1024 ** 3)), 120_000);

	test('an answer that inflates to 1 GiB: refused past 1 MB, at once, without taking the memory', async () => {
		museum.fail({ kind: 'gzipBomb', inflatedBytes: 1024 ** 3 });
		const before = process.memoryUsage().rss;
		const started = Date.now();
		const result = await testCredential(good());
		expect(result).toEqual({
			status: 'Error',
			message: `The museum service at ${museum.url} answered with more than 1 MB for a one-item request: check the Museum URL; it may not point at the API.`,
		});
		// refused as the bytes arrive, long before the test's 15 s deadline (a bound a loaded machine keeps)
		expect(Date.now() - started).toBeLessThan(12_000);
		expect(process.memoryUsage().rss - before).toBeLessThan(200 * 1024 * 1024);
	});

	test('an answer that trickles: the test ends at its 15 s deadline and says so', async () => {
		museum.fail({ kind: 'trickle', intervalMs: 200, maxMs: 30_000 });
		const started = Date.now();
		const result = await testCredential(good());
		const took = Date.now() - started;
		expect(result).toEqual({
			status: 'Error',
			message: `The museum service at ${museum.url} did not send its answer in full within 15 s: check the Museum URL, and any proxy.`,
		});
		expect(took).toBeGreaterThanOrEqual(14_900);
		expect(took).toBeLessThan(17_000);
	}, 30_000);
});

test('an address where nothing listens: the address and what to check, not a bare ECONNREFUSED', async () => {
	const closed = await startMuseumServer({ records: [] });
	const url = closed.url;
	await closed.close();
	const result = await testCredential({ ...good(), museumUrl: url });
	expect(result).toEqual({
		status: 'Error',
		message: `Nothing listens at ${url} (connection refused). Check the Museum URL in the Triptych API credentials: its host and port, and that the service runs (ECONNREFUSED). Tested: Museum URL (${url}).`,
	});
});

test('a host that does not exist: named, with the code', async () => {
	const result = await testCredential({ ...good(), museumUrl: 'http://museum.invalid' });
	expect(result.status).toBe('Error');
	expect(result.message).toMatch(
		/^The host "museum\.invalid" was not found\. Check the Museum URL in the Triptych API credentials for typos, and that the n8n host can resolve it \((ENOTFOUND|EAI_AGAIN)\)\. Tested: Museum URL \(http:\/\/museum\.invalid\)\.$/,
	);
});

test('a redirect is not followed (the key stays home): the test says where to point the URL', async () => {
	const catcher = await startKeyCatcher();
	try {
		museum.setMode({ redirectAlways: { status: 302, location: `${catcher.url}/object` } });
		const result = await testCredential(good());
		expect(result).toEqual({
			status: 'Error',
			message: `The Museum URL (${museum.url}) redirects (HTTP 302) to ${catcher.url}/object: set the Museum URL to the address the service answers at.`,
		});
		expect(catcher.requests).toHaveLength(0);
	} finally {
		await catcher.close();
	}
});

test("a redirect on the service's own origin is followed, as the nodes follow it (with the key)", async () => {
	museum.fail({ kind: 'redirect', status: 307, location: '/object/', keepQuery: true });
	expect((await testCredential(good())).status).toBe('OK');
	expect(museum.requests.map((r) => r.headers.authorization)).toEqual([
		`Bearer ${DEFAULT_API_KEY}`,
		`Bearer ${DEFAULT_API_KEY}`,
	]);
});

describe('which address it tests', () => {
	const quotes = useServer(() => startQuotesServer());
	const trigger = useServer(() => startTriggerServer());

	test('every service filled in is tested, each named; the empty one is said to be skipped; the key only where it goes', async () => {
		const only = {
			apiKey: DEFAULT_API_KEY,
			museumUrl: '',
			quotesUrl: quotes.url,
			triggerUrl: trigger.url,
		};
		expect(await testCredential(only)).toEqual({
			status: 'OK',
			message: `Quotes URL: Connection successful: the quotes service at ${quotes.url} answered. Trigger URL: Connection successful: the trigger service at ${trigger.url} answered (HTTP 404). Museum URL empty: skipped.`,
		});
		expect(quotes.requests).toHaveLength(1);
		expect(quotes.requests[0]).toMatchObject({
			method: 'GET',
			path: '/tags',
			query: { limit: '1' },
		});
		expect(quotes.requests[0].headers.authorization).toBeUndefined();
		await testCredential({ ...only, sendKeyToQuotes: true });
		expect(quotes.requests[1].headers.authorization).toBe(`Bearer ${DEFAULT_API_KEY}`);
		expect(museum.requests).toHaveLength(0);
		expect(trigger.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /', 'GET /']);
		expect(trigger.deliveries).toHaveLength(0);
	});

	test('one service down fails the Test with every verdict; a wrong key on one is named', async () => {
		const both = {
			apiKey: DEFAULT_API_KEY,
			quotesUrl: quotes.url,
			triggerUrl: 'http://127.0.0.1:9',
		};
		const down = await testCredential(both);
		expect(down.status).toBe('Error');
		expect(down.message).toMatch(
			/^Quotes URL: Connection successful: .* Trigger URL: Nothing listens at http:\/\/127\.0\.0\.1:9 .* Museum URL empty: skipped\.$/,
		);
		const wrong = await testCredential({
			...both,
			triggerUrl: trigger.url,
			museumUrl: museum.url,
			apiKey: 'wrong-key-1234',
		});
		expect(wrong.status).toBe('Error');
		expect(wrong.message).toMatch(
			/^Museum URL: The museum service rejected the API key \(HTTP 401\).* Quotes URL: Connection successful/,
		);
		expect(wrong.message).not.toContain('wrong-key-1234');
	});

	test('only the Trigger URL: its root address (never /trigger/), which may answer 404', async () => {
		const result = await testCredential({ apiKey: DEFAULT_API_KEY, triggerUrl: `${trigger.url}/` });
		expect(result.status).toBe('OK');
		expect(result.message).toMatch(
			new RegExp(
				`^Connection successful: the trigger service at ${trigger.url} answered \\(HTTP \\d+\\)\\.$`,
			),
		);
		expect(trigger.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /']);
		expect(trigger.deliveries).toHaveLength(0);
		// a key the trigger service refuses is still caught
		trigger.setMode({ unauthorizedAlways: true });
		expect((await testCredential({ apiKey: 'wrong', triggerUrl: trigger.url })).message).toBe(
			`The trigger service rejected the API key (HTTP 401). Check the API Key. Tested: Trigger URL (${trigger.url}).`,
		);
	});

	test('no address, or a malformed one: says which and what to fix, sends nothing', async () => {
		expect(await testCredential({ apiKey: DEFAULT_API_KEY })).toEqual({
			status: 'Error',
			message:
				'No address to test: fill in the Museum URL, the Quotes URL or the Trigger URL (those of the services you use).',
		});
		expect(
			await testCredential({
				apiKey: DEFAULT_API_KEY,
				museumUrl: 'museum-api.example.edu',
				quotesUrl: quotes.url,
			}),
		).toEqual({
			status: 'Error',
			message: `Museum URL: The Museum URL "museum-api.example.edu" is not a web address. Use the base address of the service, starting with https:// or http://, e.g. https://api.example.com. Quotes URL: Connection successful: the quotes service at ${quotes.url} answered. Trigger URL empty: skipped.`,
		});
		expect(
			await testCredential({ apiKey: DEFAULT_API_KEY, quotesUrl: 'ftp://quotes.example.com/' }),
		).toMatchObject({
			message: expect.stringMatching(
				/^The Quotes URL "ftp:\/\/quotes\.example\.com" is not a web address/,
			),
		});
		// only the quotes service, whose address is a good one, was asked
		expect(museum.requests.length + trigger.requests.length).toBe(0);
		expect(quotes.requests).toHaveLength(1);
	});
});
