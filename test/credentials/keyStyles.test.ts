/** How each service style takes the key, and that the key never shows. */
import { SERVICES } from '../../nodes/shared/services';
import { logs, testCredential, useServer } from '../harness/engine';
import { dump, jsonOf, NODE, runSearch } from '../museum/setup';
import {
	generateMuseumRecords,
	startHarvardServer,
	startIftttServer,
	startQuotesServer,
} from '../servers';

const KEY = 's3cret/key+with&odd=chars';
const FORMS = [KEY, encodeURIComponent(KEY), new URLSearchParams({ k: KEY }).toString().slice(2)];
const records = generateMuseumRecords(150); // more than one page of 100

const harvard = useServer(() => startHarvardServer({ apiKey: KEY, records }));
const ifttt = useServer(() => startIftttServer({ apiKey: KEY }));
const quotable = useServer(() => startQuotesServer({ quotable: true }));

const noKey = (text: string) => {
	for (const form of FORMS) expect(text).not.toContain(form);
};

describe('the credential Test in every style', () => {
	const styles = () => ({
		harvard: { apiKey: KEY, museumUrl: harvard.url, museumApi: 'harvard' },
		ifttt: { apiKey: KEY, triggerUrl: ifttt.url, triggerApi: 'iftttWebhooks' },
		quotable: { apiKey: KEY, quotesUrl: quotable.url },
	});

	test('Harvard: GET /object?size=1 with the key only as the apikey query parameter', async () => {
		const result = await testCredential(styles().harvard);
		expect(result).toEqual({
			status: 'OK',
			message: `Connection successful: the museum service at ${harvard.url} answered.`,
		});
		expect(harvard.requests).toHaveLength(1);
		expect(harvard.requests[0]).toMatchObject({
			path: '/object',
			query: { size: '1', apikey: KEY },
		});
		expect(harvard.requests[0].headers.authorization).toBeUndefined();
	});

	test("IFTTT: the key's page /use/{key}, which fires nothing", async () => {
		const result = await testCredential(styles().ifttt);
		expect(result.status).toBe('OK');
		expect(result.message).toBe(
			`Connection successful: the trigger service at ${ifttt.url} answered the key's page (HTTP 200). The test fires no event, so the key is fully checked on the first run.`,
		);
		expect(ifttt.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
			`GET /use/${encodeURIComponent(KEY)}`,
		]);
		expect(ifttt.requests[0].headers.authorization).toBeUndefined();
		expect(ifttt.deliveries).toHaveLength(0);
	});

	test('Quotable: GET /tags without a key', async () => {
		expect(await testCredential(styles().quotable)).toEqual({
			status: 'OK',
			message: `Connection successful: the quotes service at ${quotable.url} answered.`,
		});
		expect(quotable.requests[0].headers.authorization).toBeUndefined();
		expect(quotable.requests[0].query.apikey).toBeUndefined();
	});

	test.each([
		['harvard', 'museum'],
		['ifttt', 'trigger'],
	] as const)(
		'%s: a wrong key is named, and no form of the key is shown',
		async (style, service) => {
			const result = await testCredential({ ...styles()[style], apiKey: 'wrong-key-0' });
			const { name, label } = SERVICES[service];
			const base = style === 'harvard' ? harvard.url : ifttt.url;
			expect(result).toEqual({
				status: 'Error',
				message: `The ${name} rejected the API key (HTTP 401). Check the API Key. Tested: ${label} (${base}).`,
			});
		},
	);

	test('a service that echoes the key in every form: none is shown', async () => {
		harvard.fail({
			kind: 'status',
			status: 500,
			body: { message: `key ${KEY}, ${encodeURIComponent(KEY)}; next ?page=2&apikey=anything` },
		});
		const result = await testCredential(styles().harvard);
		expect(result.status).toBe('Error');
		expect(result.message).toContain('apikey=***');
		noKey(result.message);
	});

	test('two services on one origin that take the key differently: nothing is sent, one credential each', async () => {
		const result = await testCredential({
			apiKey: KEY,
			museumUrl: harvard.url,
			museumApi: 'harvard',
			triggerUrl: `${harvard.url}/hooks`,
		});
		const clash = `The Trigger URL (Generic) and the Museum URL (Harvard Art Museums API) share the origin ${harvard.url} but take the API key in different ways: use one Triptych API credential per service.`;
		expect(result).toEqual({
			status: 'Error',
			message: `Museum URL: ${clash} Trigger URL: ${clash} Quotes URL empty: skipped.`,
		});
		expect(harvard.requests).toHaveLength(0);
	});

	test('a style this version does not know: the Test and the node name the field, nothing is sent', async () => {
		const unknown = { ...styles().harvard, museumApi: 'harvardV2' };
		const message = `The Museum API (Generic, Harvard Art Museums API, Art Institute of Chicago API or Cleveland Museum of Art Open Access API) in the Triptych API credentials holds an unknown value, "harvardV2": choose one of these.`;
		expect(await testCredential(unknown)).toEqual({ status: 'Error', message });
		const run = await runSearch({ q: 'a' }, { museumUrl: harvard.url, credentials: unknown });
		expect(run.workflowError?.description ?? run.workflowError?.message).toContain(message);
		expect(harvard.requests).toHaveLength(0);
	});
});

describe('Museum Object Search in Harvard style: the key stays in the query string, and nowhere else', () => {
	const search = async (params: object) =>
		await runSearch(
			{ ...params, options: { retryDelay: 5, maxRetryWait: 5 } },
			{ museumUrl: harvard.url, credentials: { apiKey: KEY, museumApi: 'harvard' } },
		);

	test('Return All follows info.next (which carries the key) with the key sent once, never in a header', async () => {
		harvard.setMode({ linksOnly: true });
		const result = await search({ returnAll: true });
		expect(result.workflowError).toBeUndefined();
		expect(jsonOf(result)).toHaveLength(records.length);
		expect(harvard.requests.length).toBeGreaterThan(1);
		for (const request of harvard.requests) {
			expect(request.query.apikey).toBe(KEY);
			expect(request.headers.authorization).toBeUndefined();
		}
		noKey(dump(result));
		noKey(JSON.stringify(logs));
	});

	test.each([
		[
			'an error that echoes the key',
			() =>
				harvard.fail({
					kind: 'status',
					status: 400,
					body: { message: `bad ${KEY} / ${encodeURIComponent(KEY)}` },
				}),
		],
		[
			'a retried 503, then a next-page link that is not an address',
			() =>
				harvard.fail(
					{ kind: 'status', status: 503, body: 'busy' },
					{
						kind: 'status',
						status: 200,
						body: { info: { next: `javascript:apikey=${encodeURIComponent(KEY)}` }, records },
					},
				),
		],
		[
			'a redirect to another origin whose address carries the key',
			() =>
				harvard.setMode({
					redirectAlways: {
						status: 302,
						location: `http://127.0.0.1:9/object?apikey=${encodeURIComponent(KEY)}`,
					},
				}),
		],
	])('%s: the error, its details and the logs hold no form of the key', async (_, arrange) => {
		arrange();
		const result = await search({ returnAll: true });
		expect(result.error(NODE)).toBeDefined();
		noKey(dump(result));
		noKey(JSON.stringify(logs));
	});
});
