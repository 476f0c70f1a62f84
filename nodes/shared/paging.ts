import { pool } from './pool';

export interface PageAnswer<R> {
	records: R[];
	/** `null`: the service says this is the last page; `undefined`: it gives no paging information */
	next?: string | null;
	/** How many pages the whole result has at this page size, when the service says */
	pages?: number;
}

export interface PageCall {
	/** 1-based page number, and records per page (the same for every request of a run) */
	page: number;
	size: number;
	/** The service's own next-page link: requested as it is (it already carries page and size) */
	url?: string;
}

export interface PagerOptions<R, O> {
	fetchPage(call: PageCall): Promise<PageAnswer<R>>;
	/** `undefined`: all records */
	limit?: number;
	maxPageSize: number;
	startPage?: number;
	/** Needing more pages is an error (`tooManyPages`), never a silent partial result */
	maxPages: number;
	/** Pages fetched at once once the page count is known */
	concurrency: number;
	map(record: R, index: number): O;
	/** A record's identity across pages (overlapping pages); `undefined`/`null` is never a repeat */
	key?(record: R): unknown;
	tooManyPages(maxPages: number, kept: number): Error;
}

export const pageSizeFor = (limit: number | undefined, maxPageSize: number): number =>
	limit === undefined ? maxPageSize : Math.max(1, Math.min(limit, maxPageSize));

/** Pages to ask for by number after the first: up to the last page, or as many as Limit needs. */
export function pagesAhead(first: number, pages: number, size: number, limit?: number) {
	const last = limit === undefined ? pages : Math.min(pages, first - 1 + Math.ceil(limit / size));
	return Array.from({ length: Math.max(0, last - first) }, (_, n) => first + 1 + n);
}

const isLast = <R>({ records, next }: PageAnswer<R>, size: number) =>
	records.length === 0 || next === null || (next === undefined && records.length < size);

/**
 * The "Return All" pager: given the page count, the rest are fetched by number, several at once; else one by one, by
 * next link or number, to the limit or last page (`isLast`), following a short page's next link (a lower page cap).
 */
export async function fetchAllPages<R, O>(options: PagerOptions<R, O>) {
	const { maxPages, limit } = options;
	const size = pageSizeFor(limit, options.maxPageSize);
	const items: O[] = [];
	const seen = new Set<unknown>();
	let duplicates = 0;
	const full = () => limit !== undefined && items.length >= limit;
	const take = (records: R[]) => {
		for (const record of records) {
			if (full()) return;
			const id = options.key?.(record) ?? undefined;
			if (id !== undefined && seen.has(id)) duplicates++;
			else items.push(options.map(record, items.length));
			seen.add(id);
		}
	};
	let page = options.startPage ?? 1;
	let requests = 0;
	const fetch = (call: PageCall) => options.fetchPage(call).finally(() => requests++);
	const done = () => ({ items, requests, duplicates });

	let answer = await fetch({ page, size });
	take(answer.records);
	if (full() || isLast(answer, size)) return done();
	if (answer.pages !== undefined && answer.pages > page) {
		const total = answer.pages;
		const ahead = pagesAhead(page, total, size, limit);
		if (1 + ahead.length > maxPages) throw options.tooManyPages(maxPages, items.length);
		const arrived: Array<PageAnswer<R> | undefined> = new Array(ahead.length);
		let taken = 0;
		let stopped = false;
		await pool(ahead.length, options.concurrency, async (n) => {
			if (stopped) return;
			arrived[n] = await fetch({ page: ahead[n], size });
			// take every page whose predecessors have all arrived, in order, and let it go
			while (taken < ahead.length && arrived[taken] && !stopped) {
				answer = arrived[taken]!;
				arrived[taken++] = undefined;
				take(answer.records);
				if (full() || answer.records.length === 0) stopped = true;
			}
		});
		page = ahead.at(-1) ?? page;
		// past the last page the service announced, with no link beyond it, there is nothing more to ask for
		if (stopped || isLast(answer, size) || (page >= total && typeof answer.next !== 'string'))
			return done();
	}

	// one page after another: by the service's next link, or by number
	const followed = new Set<string>();
	for (;;) {
		if (requests >= maxPages) throw options.tooManyPages(maxPages, items.length);
		const url = typeof answer.next === 'string' ? answer.next : undefined;
		// a link back to a page already read: the results went round, nothing more is there
		if (url !== undefined && followed.has(url)) return done();
		if (url !== undefined) followed.add(url);
		page++;
		answer = await fetch({ page, size, url });
		take(answer.records);
		if (full() || isLast(answer, size)) return done();
	}
}
