/**
 * The credentials type: its `authenticate` block (applied by the harness the way n8n's CredentialsHelper does) and
 * its `test` request, run through n8n's RoutingNode exactly as the editor's "Test" button does.
 */
import { CREDENTIAL, loadPackage, testCredential } from '../harness/engine';
import {
	DEFAULT_API_KEY,
	type MuseumServer,
	loadMuseumRecords,
	startMuseumServer,
} from '../servers';

let museum: MuseumServer;

beforeAll(async () => {
	museum = await startMuseumServer({ records: loadMuseumRecords({ source: 'fixture' }) });
});
afterAll(async () => museum.close());
beforeEach(() => museum.reset());

const good = () => ({ apiKey: DEFAULT_API_KEY, museumUrl: `${museum.url}/` });

test('the credentials type is loaded by n8n with its fields, icon and documentation link', async () => {
	const { pkg } = await loadPackage();
	const type = pkg.credentialTypes[CREDENTIAL].type;
	expect(type.displayName).toBe('Triptych API');
	expect(type.properties.map((p) => p.name)).toEqual([
		'apiKey',
		'triggerUrl',
		'museumUrl',
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

test('a good key passes: one GET {Museum URL}/object?limit=1 with the Bearer header', async () => {
	const result = await testCredential(good());
	expect(result).toEqual({ status: 'OK', message: 'Connection successful!' });
	expect(museum.requests).toHaveLength(1);
	expect(museum.requests[0]).toMatchObject({
		method: 'GET',
		path: '/object',
		query: { limit: '1' },
	});
	expect(museum.requests[0].headers.authorization).toBe(`Bearer ${DEFAULT_API_KEY}`);
});

test('a bad key fails with a message naming the address and the fix', async () => {
	const result = await testCredential({ ...good(), apiKey: 'wrong-key' });
	expect(result.status).toBe('Error');
	expect(result.message).toBe(
		'The service at the Museum URL (or, when that is empty, the Quotes URL, then the Trigger URL) rejected the API key (HTTP 401). Check the API Key.',
	);
	expect(result.message).not.toContain('wrong-key');
});

test('a 200 answer with status "fail" fails the test', async () => {
	museum.fail({ kind: 'envelope', envStatus: 'fail', message: 'Key suspended' });
	const result = await testCredential(good());
	expect(result).toEqual({
		status: 'Error',
		message:
			'The service at the Museum URL (or, when that is empty, the Quotes URL, then the Trigger URL) answered with status "fail": the API key was not accepted.',
	});
});

test('a 200 answer with status "error" fails the test', async () => {
	museum.fail({ kind: 'envelope', envStatus: 'error', message: 'Index down' });
	const result = await testCredential(good());
	expect(result.status).toBe('Error');
	expect(result.message).toMatch(/answered with status "error"/);
});

test('a Museum URL that points at the wrong path says so', async () => {
	const result = await testCredential({ ...good(), museumUrl: `${museum.url}/api/v9` });
	expect(result.status).toBe('Error');
	expect(result.message).toMatch(
		/^Nothing answers at the Museum URL .*\(HTTP 404\)\. Use the service's base address, without \/object or \/tags\.$/,
	);
	expect(museum.requests[0].path).toBe('/api/v9/object');
});

test('an address where nothing listens fails with the network code', async () => {
	const closed = await startMuseumServer({ records: [] });
	const url = closed.url;
	await closed.close();
	const result = await testCredential({ ...good(), museumUrl: url });
	expect(result).toEqual({ status: 'Error', message: 'ECONNREFUSED' });
});
