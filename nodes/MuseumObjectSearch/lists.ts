import type {
	IDataObject,
	ILoadOptionsFunctions,
	INodeListSearchItems,
	INodeListSearchResult,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { checkJson } from '../shared/transport/answer';
import { attempt } from '../shared/transport/attempt';
import { describeFailure, redactKey, shown } from '../shared/transport/errors';
import { baseOf, keyRule } from '../shared/transport/origin';
import { CREDENTIALS_TYPE, SERVICES, type StyleEntry, styleOf } from '../shared/transport';
import { isPlainObject } from '../shared/validation';
import { readPage } from './records';

/** The editor waits for a list: a short time limit, and a list answer is small. */
const TIMEOUT_MS = 15_000;
const MAX_BYTES = 4 * 1024 * 1024;
const PAGE_SIZE = 100;
const OBJECTS_PAGE_SIZE = 20;

type Ctx = ILoadOptionsFunctions;

/** A list page for the editor: GET {Museum URL}{path}, bounded, redirects on the service's origin only. */
async function listPage(
	ctx: Ctx,
	path: string,
	qs: (style: StyleEntry, page: number) => IDataObject,
	token: string | undefined,
	item: (record: IDataObject) => INodeListSearchItems | undefined,
): Promise<INodeListSearchResult> {
	const credentials = (await ctx.getCredentials(CREDENTIALS_TYPE)) as IDataObject;
	const redact = (text: string) => redactKey(text, String(credentials.apiKey ?? ''));
	const fail = (message: string) => new NodeOperationError(ctx.getNode(), redact(message));
	const { label, styles } = SERVICES.museum;
	const number = Number(token) || 1;
	const query = qs(styles[styleOf(credentials, 'museum')]!, number);
	const base = baseOf(credentials, 'museum');
	if (!('url' in base)) throw fail(`Set the ${label} in the Triptych API credentials first`);
	const url = new URL(base.url + path);
	const problem = keyRule(credentials, url.origin).problem;
	if (problem) throw fail(problem);
	const answer = await attempt(
		async (options) =>
			await ctx.helpers.httpRequestWithAuthentication.call(ctx, CREDENTIALS_TYPE, options),
		{
			url: url.href,
			method: 'GET',
			qs: query,
			headers: { Accept: 'application/json' },
			redirects: { follow: 'origin', origin: url.origin },
			timeout: TIMEOUT_MS,
			maxBytes: MAX_BYTES,
		},
	);
	const checked = 'kind' in answer ? answer : checkJson(answer);
	if ('kind' in checked) {
		const limits = { timeout: TIMEOUT_MS, maxBytes: MAX_BYTES, sizeOption: 'size a list may have' };
		const [what, advice] = describeFailure(checked, { what: 'the museum service', ...limits });
		throw fail(`Could not load the list from ${base.url}: ${what}. ${advice}`);
	}
	const status = checked.statusCode;
	if (status < 200 || status >= 300 || !checked.json) {
		const said = shown(checked.body.toString('utf8'), redact);
		const quoted = said ? `: "${said}"` : '';
		throw fail(`The museum service answered GET ${url.pathname} with HTTP ${status}${quoted}`);
	}
	const page = readPage(checked.json.value);
	if (typeof page === 'string') throw fail(`The museum service sent ${page} for ${url.pathname}`);
	const results = page.records.flatMap((record) => (isPlainObject(record) && item(record)) || []);
	const more = typeof page.next === 'string' || (page.pages ?? 0) > number;
	return { results, ...(more ? { paginationToken: String(number + 1) } : {}) };
}

// A list the service keeps, filtered by what was typed. A classification is sent as its ID (the service matches it
// more reliably than a name), a period as its name (the form the service documents).
const termList = (resource: 'classification' | 'period') =>
	async function (this: Ctx, filter?: string, token?: string): Promise<INodeListSearchResult> {
		const wanted = filter?.trim().toLowerCase() ?? '';
		const qs = (style: StyleEntry, page: number) => {
			if (style.lists) return { [style.pageSize ?? 'size']: PAGE_SIZE, page, sort: 'name' };
			throw new NodeOperationError(
				this.getNode(),
				`This museum service (${style.name} style) keeps no list of ${resource}s: choose By Name and type one`,
			);
		};
		return await listPage(this, `/${resource}`, qs, token, (record) => {
			const { name } = record;
			if (typeof name !== 'string' || !name.toLowerCase().includes(wanted)) return undefined;
			const id = record.id ?? record[`${resource}id`];
			const value = resource === 'classification' && id !== undefined ? String(id) : name;
			const count = record.objectcount;
			return {
				name,
				value,
				description: typeof count === 'number' ? `${count} objects` : undefined,
			};
		});
	};

/** Objects matching what was typed, for Get's Object: "title – artist, date", its ID as the value. */
async function objects(this: Ctx, filter?: string, token?: string) {
	const q = filter?.trim();
	const qs = (style: StyleEntry, page: number) => ({
		...(q ? { q } : {}),
		[style.pageSize ?? 'limit']: OBJECTS_PAGE_SIZE,
		page,
		fields: 'objectid,id,title,people,dated,url',
	});
	return await listPage(this, '/object', qs, token, (record) => {
		const id = record.objectid ?? record.id;
		if (id === undefined || id === null) return undefined;
		const people = Array.isArray(record.people) ? record.people.filter(isPlainObject) : [];
		const artist = people.map((p) => p.displayname ?? p.name).find(Boolean);
		const title = typeof record.title === 'string' && record.title ? record.title : `Object ${id}`;
		const about = [artist, record.dated].filter((part) => typeof part === 'string' && part);
		return {
			name: about.length ? `${title} – ${about.join(', ')}` : title,
			value: String(id),
			...(typeof record.url === 'string' ? { url: record.url } : {}),
		};
	});
}

export const listSearch = {
	classifications: termList('classification'),
	periods: termList('period'),
	objects,
};
