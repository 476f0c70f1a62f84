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
import { CREDENTIALS_TYPE, SERVICES, styleOf } from '../shared/transport';
import { isPlainObject } from '../shared/validation';
import { readPage } from './records';

/** The editor waits for a list: a short time limit, and a list answer is small. */
const TIMEOUT_MS = 15_000;
const MAX_BYTES = 4 * 1024 * 1024;
const PAGE_SIZE = 100;
const OBJECTS_PAGE_SIZE = 20;

type Ctx = ILoadOptionsFunctions;

/**
 * GET {Museum URL}{path} for the editor's lists, through n8n's request helper with the credential (the key goes
 * only where the credential sends it), bounded in time and size, following redirects only on the service's origin.
 * Errors name the address and never the key.
 */
async function museumGet(ctx: Ctx, path: string, qs: IDataObject) {
	const credentials = (await ctx.getCredentials(CREDENTIALS_TYPE)) as IDataObject;
	const redact = (text: string) => redactKey(text, String(credentials.apiKey ?? ''));
	const fail = (message: string) => new NodeOperationError(ctx.getNode(), redact(message));
	const { label } = SERVICES.museum;
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
			qs,
			headers: { Accept: 'application/json' },
			redirects: { follow: 'origin', origin: url.origin },
			timeout: TIMEOUT_MS,
			maxBytes: MAX_BYTES,
		},
	);
	const checked = 'kind' in answer ? answer : checkJson(answer);
	if ('kind' in checked) {
		const wording = {
			what: 'the museum service',
			timeout: TIMEOUT_MS,
			maxBytes: MAX_BYTES,
			sizeOption: 'size a list may have',
		};
		const [what, advice] = describeFailure(checked, wording);
		throw fail(`Could not load the list from ${base.url}: ${what}. ${advice}`);
	}
	const status = checked.statusCode;
	if (status < 200 || status >= 300 || !checked.json) {
		const said = shown(checked.body.toString('utf8'), redact);
		throw fail(
			`The museum service answered GET ${url.pathname} with HTTP ${status}${said ? `: "${said}"` : ''}`,
		);
	}
	const page = readPage(checked.json.value);
	if (typeof page === 'string') throw fail(`The museum service sent ${page} for ${url.pathname}`);
	return page;
}

const count = (record: IDataObject) =>
	typeof record.objectcount === 'number' ? `${record.objectcount} objects` : undefined;

/**
 * One page of a list the service keeps (GET /classification, /period), filtered by what was typed. Classification
 * options carry the ID (the service matches it more reliably than a name); periods their name (the form the
 * service documents for its `period` filter).
 */
async function termList(
	ctx: Ctx,
	resource: 'classification' | 'period',
	filter?: string,
	token?: string,
): Promise<INodeListSearchResult> {
	const credentials = (await ctx.getCredentials(CREDENTIALS_TYPE)) as IDataObject;
	const style = SERVICES.museum.styles[styleOf(credentials, 'museum')]!;
	if (!style.lists) {
		throw new NodeOperationError(
			ctx.getNode(),
			`This museum service (${style.name} style) keeps no list of ${resource}s: choose By Name and type one`,
		);
	}
	const pageNumber = Number(token) || 1;
	const page = await museumGet(ctx, `/${resource}`, {
		[style.pageSize ?? 'size']: PAGE_SIZE,
		page: pageNumber,
		sort: 'name',
	});
	const wanted = filter?.trim().toLowerCase() ?? '';
	const results: INodeListSearchItems[] = [];
	for (const record of page.records) {
		if (!isPlainObject(record) || typeof record.name !== 'string') continue;
		if (wanted && !record.name.toLowerCase().includes(wanted)) continue;
		const id = record.id ?? record[`${resource}id`];
		const value = resource === 'classification' && id !== undefined ? String(id) : record.name;
		results.push({ name: record.name, value, description: count(record) });
	}
	const more = typeof page.next === 'string' || (page.pages ?? 0) > pageNumber;
	return { results, ...(more ? { paginationToken: String(pageNumber + 1) } : {}) };
}

/** Objects matching what was typed, for Get's Object ID: "title – artist, date", its ID as the value. */
async function objectList(ctx: Ctx, filter?: string, token?: string) {
	const credentials = (await ctx.getCredentials(CREDENTIALS_TYPE)) as IDataObject;
	const style = SERVICES.museum.styles[styleOf(credentials, 'museum')]!;
	const pageNumber = Number(token) || 1;
	const page = await museumGet(ctx, '/object', {
		...(filter?.trim() ? { q: filter.trim() } : {}),
		[style.pageSize ?? 'limit']: OBJECTS_PAGE_SIZE,
		page: pageNumber,
		fields: 'objectid,id,title,people,dated,url',
	});
	const results: INodeListSearchItems[] = [];
	for (const record of page.records) {
		if (!isPlainObject(record)) continue;
		const id = record.objectid ?? record.id;
		if (id === undefined || id === null) continue;
		const people = Array.isArray(record.people) ? record.people : [];
		const artist = people
			.map((p) => (isPlainObject(p) ? (p.displayname ?? p.name) : ''))
			.find(Boolean);
		const title = typeof record.title === 'string' && record.title ? record.title : `Object ${id}`;
		const about = [artist, record.dated].filter((part) => typeof part === 'string' && part);
		results.push({
			name: about.length ? `${title} – ${about.join(', ')}` : title,
			value: String(id),
			...(typeof record.url === 'string' ? { url: record.url } : {}),
		});
	}
	const more = typeof page.next === 'string' || (page.pages ?? 0) > pageNumber;
	return { results, ...(more ? { paginationToken: String(pageNumber + 1) } : {}) };
}

export const listSearch = {
	async classifications(this: Ctx, filter?: string, token?: string) {
		return await termList(this, 'classification', filter, token);
	},
	async periods(this: Ctx, filter?: string, token?: string) {
		return await termList(this, 'period', filter, token);
	},
	async objects(this: Ctx, filter?: string, token?: string) {
		return await objectList(this, filter, token);
	},
};
