/** Museum Object Search against the Harvard Art Museums API stand-in. */
import { logs, useServer } from '../harness/engine';
import { generateMuseumRecords, startHarvardServer } from '../servers';
import { FAST, NODE, jsonOf, keySightings, runSearch } from './setup';

const KEY = 'harvard+Key/42';
const RECORDS = generateMuseumRecords(260);
const server = useServer(() => startHarvardServer({ apiKey: KEY, records: RECORDS }));

const search = async (params: object, museumApi = 'harvard', apiKey = KEY, extra = {}) =>
	await runSearch(
		{ output: 'raw', ...params },
		{ museumUrl: server.url, credentials: { apiKey, museumApi }, extra },
	);

describe('Harvard Art Museums API style', () => {
	test.each([
		['Limit within one page', { limit: 25 }, {}, 25, '25:1'],
		['Limit across size pages', { limit: 250 }, {}, 250, '100:1 100:2 100:3'],
		['Return All by page number', { returnAll: true }, {}, 260, '100:1 100:2 100:3'],
		[
			'Return All following info.next',
			{ returnAll: true },
			{ linksOnly: true },
			260,
			'100:1 100:2 100:3',
		],
		['answers in the envelope', { limit: 30 }, { shape: 'envelope' as const }, 30, '30:1'],
		['no match', { limit: 5, q: 'nothing-matches-this' }, {}, 0, '5:1'],
	])('%s', async (_name, params, mode, count, pages) => {
		server.setMode(mode);
		const result = await search(params);
		expect(result.error(NODE)).toBeUndefined();
		const out = jsonOf(result);
		expect(out).toHaveLength(count);
		expect(out.map((r) => r.objectid)).toEqual(RECORDS.slice(0, count).map((r) => r.objectid));
		const asked = server.requests.map((r) => `${String(r.query.size)}:${String(r.query.page)}`);
		expect(asked.sort().join(' ')).toBe(pages);
		for (const r of server.requests) {
			expect(r.query.apikey).toBe(KEY); // once, not twice on a followed next link
			expect(r.query.limit).toBeUndefined();
			expect(r.headers.authorization).toBeUndefined();
		}
		expect(keySightings(result, KEY)).toEqual([]);
	});

	test('search and filters are sent by their Harvard names', async () => {
		const prints = RECORDS.filter((r) => r.classification === 'Prints' && r.imagecount > 0);
		const result = await search({
			limit: 100,
			filters: { classification: 'Prints', hasImage: true },
		});
		expect(jsonOf(result).map((r) => r.objectid)).toEqual(prints.map((r) => r.objectid));
		expect(server.requests[0].query).toMatchObject({ classification: 'Prints', hasimage: '1' });
	});

	test('a retried page (HTTP 503) logs no key', async () => {
		server.fail({ kind: 'status', status: 503, retryAfter: '0' });
		const result = await search({ limit: 10, options: FAST });
		expect(jsonOf(result)).toHaveLength(10);
		expect(server.requests).toHaveLength(2);
		expect(logs.some((l) => /retry/.test(l.message))).toBe(true);
		expect(keySightings(result, KEY)).toEqual([]);
	});

	test.each([
		['a Bearer header only (Museum API: Generic)', 'generic', KEY],
		['a wrong key', 'harvard', 'wrong+key/1'],
	])('%s is refused with 401, and the error says so without the key', async (_name, style, key) => {
		const result = await search({ limit: 5 }, style, key);
		const error = result.error(NODE)!;
		expect(error.httpCode).toBe('401');
		expect(error.message).toMatch(/museum service answered HTTP 401.*\[item 0\]$/);
		expect(error.description).toMatch(/API Key/);
		expect(server.requests).toHaveLength(1);
		expect(keySightings(result, key)).toEqual([]);
		const failed = await search({ limit: 5 }, style, key, { continueOnFail: true });
		expect(jsonOf(failed)[0].error).toMatch(/HTTP 401/);
		expect(keySightings(failed, key)).toEqual([]);
	});
});
