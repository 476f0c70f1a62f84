import type {
	IDataObject,
	ILoadOptionsFunctions,
	INodeListSearchItems,
	INodeListSearchResult,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { TriptychClient, webAddress } from '../shared/transport';
import { isPlainObject } from '../shared/values';
import { FILTERS } from './filters';
import { HARVARD_LISTS, museumOf, pageQuery } from './museums';
import { museumGet } from './records';

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
/** Pages searched for typed text: 1,000 names (3× Harvard's longest list, ~300 periods), and a bounded wait */
const MAX_FILTERED_PAGES = 10;

type Ctx = ILoadOptionsFunctions;
type Entry = (record: IDataObject, context?: IDataObject) => INodeListSearchItems | undefined;

/** The museum as the editor reaches it, through the nodes' client (origin rules, key redacted, limiter). */
async function editorMuseum(ctx: Ctx) {
	const client = TriptychClient.forEditor(ctx);
	const style = await client.styleEntry('museum');
	const museum = museumOf(style);
	// GET {Museum URL}{path}, cut to `size`: the editor's dropdown renders every entry
	const listPage = async (
		path: string,
		qs: IDataObject,
		page: number,
		size: number,
		entry: Entry,
	) => {
		const read = museum.read(await museumGet(client, { path, qs }, SETTINGS, 0));
		if (typeof read === 'string')
			throw new NodeOperationError(ctx.getNode(), `The museum service sent ${read} for ${path}`);
		const made = (record: unknown) => (isPlainObject(record) && entry(record, read.context)) || [];
		// the editor opens an entry's link as it is: every list keeps only a web address
		const entries = read.records
			.slice(0, size)
			.flatMap(made)
			.map(({ url, ...rest }) => {
				const link = typeof url === 'string' ? webAddress(url)?.href : undefined;
				return link ? { ...rest, url: link } : rest;
			});
		// an empty page ends the list, whatever link it carries: else the editor asks page after page
		const pages = read.pages ?? Math.ceil((read.total ?? 0) / size);
		const more = read.records.length > 0 && (typeof read.next === 'string' || pages > page);
		return { entries, more };
	};
	return { style, museum, listPage };
}

/** The page a list's token names (the editor hands back what it was given) */
const pageOf = (token: unknown) =>
	typeof token === 'string' && Number(token) >= 1 ? Math.floor(Number(token)) : 1;

const byName = (a: INodeListSearchItems, b: INodeListSearchItems) => a.name.localeCompare(b.name);

/** A filter's list, filtered by what was typed: the museum's own or Harvard's; an entry's value is what it sends. */
const termList = (key: 'classification' | 'period' | 'department') =>
	async function (this: Ctx, filter?: string, token?: string): Promise<INodeListSearchResult> {
		const wanted = typeof filter === 'string' ? filter.trim().toLowerCase() : '';
		const { style, museum, listPage } = await editorMuseum(this);
		const list = (museum.lists ?? (style.lists ? HARVARD_LISTS : {}))[key];
		if (!list) {
			const { label, parameter } = FILTERS.find((f) => f.key === key)!;
			const why = (museum.filters ? key in museum.filters : parameter)
				? `keeps no list of ${key}s: choose By Name and type one`
				: `has no ${label} filter: remove it`;
			const message = `This museum service (${style.name} style) ${why}`;
			throw new NodeOperationError(this.getNode(), message);
		}
		const shown = (name: unknown): name is string =>
			typeof name === 'string' && name.toLowerCase().includes(wanted);
		if (Array.isArray(list))
			return { results: list.filter(shown).map((name) => ({ name, value: name })) };
		const entry: Entry = (record) => {
			const name = record[list.shows];
			if (!shown(name)) return undefined;
			const value = list.sends
				?.map((field) => record[field])
				.find((v) => ['string', 'number'].includes(typeof v));
			return { name, value: value === undefined ? name : String(value) };
		};
		const first = pageOf(token);
		// a list that is a search is read no deeper than the service answers (AIC: its first 1,000 results)
		const deepest = list.maxResults ? Math.floor(list.maxResults / PAGE_SIZE) : Infinity;
		// typed text is looked for on every page (bounded): the editor asks for no next page while one is typed
		const last = Math.min(wanted ? MAX_FILTERED_PAGES : first, deepest);
		const results: INodeListSearchItems[] = [];
		for (let page = first; page <= last; page++) {
			const qs = { ...list.qs, ...pageQuery(style, page, PAGE_SIZE) };
			const read = await listPage(list.path, qs, page, PAGE_SIZE, entry);
			results.push(...read.entries);
			// a whole list in hand is shown by name (AIC sends its lists in the order they were last changed)
			if (!read.more) return { results: first === 1 ? results.sort(byName) : results };
		}
		const more = !wanted && first < deepest;
		return { results, ...(more ? { paginationToken: String(first + 1) } : {}) };
	};

/** Objects matching what was typed, for Get's Object: "title – artist, date", its ID as the value. */
async function objects(this: Ctx, filter?: string, token?: string) {
	const q = typeof filter === 'string' ? filter.trim() : '';
	const { style, museum, listPage } = await editorMuseum(this);
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
	const qs = {
		...(q ? { q } : {}),
		...pageQuery(style, page, OBJECTS_PAGE_SIZE),
		fields: museum.pick,
	};
	const read = await listPage(museum.search.path, qs, page, OBJECTS_PAGE_SIZE, entry);
	return { results: read.entries, ...(read.more ? { paginationToken: String(page + 1) } : {}) };
}

export const listSearch = {
	classifications: termList('classification'),
	periods: termList('period'),
	departments: termList('department'),
	objects,
};
