import type {
	IDataObject,
	ILoadOptionsFunctions,
	INode,
	INodeListSearchItems,
	INodeListSearchResult,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { TriptychClient, webAddress, isPlainObject } from '../shared/transport';
import { type Page, museumOf } from './museums';
import { readPage } from './records';

/** The editor waits for a list: a short time limit, one retry, and a list answer is small. */
const SETTINGS = {
	timeout: 15_000,
	maxAttempts: 2,
	retryDelay: 500,
	maxRetryWait: 5_000,
	maxResponseBytes: 4 * 1024 * 1024,
};
const PAGE_SIZE = 100;
const OBJECTS_PAGE_SIZE = 20;
/**
 * Pages read to filter a list by what was typed (the editor asks for no further page while a filter is typed): 1,000
 * names, three times Harvard's longest list (about 300 periods), and a bound on how long the editor waits.
 */
const MAX_FILTERED_PAGES = 10;

type Ctx = ILoadOptionsFunctions;
type Entry = (record: IDataObject, context?: IDataObject) => INodeListSearchItems | undefined;

/**
 * One list page for the editor: GET {Museum URL}{path} on the nodes' road (origin rules, the key redacted, the
 * limiter), cut to the `size` asked for (the editor's dropdown renders every entry). An entry keeps its link only
 * when that is a web address: the editor opens it as it is.
 */
async function listPage(
	client: TriptychClient,
	node: INode,
	{ path, qs, page, size }: { path: string; qs: IDataObject; page: number; size: number },
	entry: Entry,
	reader: (data: unknown) => Page | string = readPage,
) {
	const request = {
		service: 'museum',
		method: 'GET',
		path,
		qs,
		repeatable: true,
	} as const;
	const read = reader((await client.request(request, SETTINGS, 0)).data);
	if (typeof read === 'string')
		throw new NodeOperationError(node, `The museum service sent ${read} for ${path}`);
	const entries = read.records.slice(0, size).flatMap((record) => {
		const made = isPlainObject(record) ? entry(record, read.context) : undefined;
		if (!made) return [];
		const { url, ...rest } = made;
		const link = typeof url === 'string' ? webAddress(url)?.href : undefined;
		return [link ? { ...rest, url: link } : rest];
	});
	// an empty page ends the list, whatever link it carries: else the editor asks page after page
	const pages = read.pages ?? Math.ceil((read.total ?? 0) / size);
	const more = read.records.length > 0 && (typeof read.next === 'string' || pages > page);
	return { entries, more };
}

/** The page a list's token names (the editor hands back what it was given) */
const pageOf = (token: unknown) =>
	typeof token === 'string' && Number(token) >= 1 ? Math.floor(Number(token)) : 1;

// A list the service keeps, filtered by what was typed. A classification is sent as its ID (the service matches it
// more reliably than a name), a period as its name (the form the service documents).
const termList = (resource: 'classification' | 'period') =>
	async function (this: Ctx, filter?: string, token?: string): Promise<INodeListSearchResult> {
		const wanted = typeof filter === 'string' ? filter.trim().toLowerCase() : '';
		const entry: Entry = (record) => {
			const { name } = record;
			if (typeof name !== 'string' || !name.toLowerCase().includes(wanted)) return undefined;
			const id = record.id ?? record[`${resource}id`];
			const byId = resource === 'classification' && ['string', 'number'].includes(typeof id);
			const value = byId ? String(id) : name;
			return { name, value };
		};
		const client = TriptychClient.forEditor(this);
		const style = await client.styleEntry('museum');
		if (!style.lists)
			throw new NodeOperationError(
				this.getNode(),
				`This museum service (${style.name} style) keeps no list of ${resource}s: choose By Name and type one`,
			);
		const first = pageOf(token);
		// typed text is looked for on every page (bounded): the editor asks for no next page while one is typed
		const last = wanted ? MAX_FILTERED_PAGES : first;
		const results: INodeListSearchItems[] = [];
		for (let page = first; page <= last; page++) {
			const qs = { [style.pageSize ?? 'size']: PAGE_SIZE, page, sort: 'name' };
			const at = { path: `/${resource}`, qs, page, size: PAGE_SIZE };
			const read = await listPage(client, this.getNode(), at, entry);
			results.push(...read.entries);
			if (!read.more) return { results };
		}
		return wanted ? { results } : { results, paginationToken: String(first + 1) };
	};

/** Objects matching what was typed, for Get's Object: "title – artist, date", its ID as the value. */
async function objects(this: Ctx, filter?: string, token?: string) {
	const q = typeof filter === 'string' ? filter.trim() : '';
	const client = TriptychClient.forEditor(this);
	const style = await client.styleEntry('museum');
	const museum = museumOf(style);
	const entry: Entry = (record, context) => {
		const { id, title, artist, date, url } = museum.simplify(record, context);
		if (typeof id !== 'string' && typeof id !== 'number') return undefined;
		const about = [artist, date].filter((part) => typeof part === 'string' && part);
		const name = typeof title === 'string' && title ? title : `Object ${id}`;
		return {
			name: about.length ? `${name} – ${about.join(', ')}` : name,
			value: String(id),
			url: typeof url === 'string' ? url : undefined,
		};
	};
	const page = pageOf(token);
	const size = OBJECTS_PAGE_SIZE;
	const qs = {
		...(q ? { q } : {}),
		[style.pageSize ?? 'limit']: size,
		...(museum.search.skip ? { skip: (page - 1) * size } : { page }),
		...(museum.pick ? { fields: museum.pick } : {}),
	};
	const at = { path: museum.search.path, qs, page, size };
	const read = await listPage(client, this.getNode(), at, entry, museum.read);
	return { results: read.entries, ...(read.more ? { paginationToken: String(page + 1) } : {}) };
}

export const listSearch = {
	classifications: termList('classification'),
	periods: termList('period'),
	objects,
};
