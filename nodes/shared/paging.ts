/**
 * The shared "Return All" pager: asks a service for one page after another, by the service's own next-page link
 * when it gives one and by page number otherwise, and turns each record into its output right away, so that no
 * page is kept once its records are taken. It knows nothing about any one service: the caller fetches a page
 * (`fetchPage`), says what a record becomes (`map`) and, when pages may overlap, what identifies a record (`key`).
 */

/** One page as the caller read it from the service. */
export interface PageAnswer<R> {
	/** The page's records, in the service's order */
	records: R[];
	/**
	 * The service's link to the next page. `null`: the service gives paging information and says this is the
	 * last page. `undefined`: the service gives no paging information (the pager goes on by page number).
	 */
	next?: string | null;
}

/** What the pager asks the caller to fetch. */
export interface PageCall {
	/** 1-based number of the page (counted from the start page, also when links are followed) */
	page: number;
	/** Records per page, the same for every request of a run (page N of size S starts at record (N-1)·S) */
	size: number;
	/** The service's own next-page link: request it as it is (it already carries page and size) */
	url?: string;
	/** How many requests this run has made, this one included */
	request: number;
}

export interface PagerOptions<R, O> {
	fetchPage(call: PageCall): Promise<PageAnswer<R>>;
	/** How many records are wanted; `undefined` for all of them */
	limit?: number;
	/** The largest page the service hands out */
	maxPageSize: number;
	/** Page to start from (1-based); default 1 */
	startPage?: number;
	/** Most pages one run may request; needing more is an error (see `tooManyPages`), never a silent partial result */
	maxPages: number;
	/** The output of one record, built as soon as its page arrives */
	map(record: R, index: number): O;
	/** A record's identity for de-duplication across pages; `undefined`/`null` = never treated as a repeat */
	key?(record: R): unknown;
	/** The error thrown when all the wanted records would need more than `maxPages` pages */
	tooManyPages(maxPages: number, kept: number): Error;
}

export interface PagerResult<O> {
	items: O[];
	/** Requests made (pages fetched) */
	requests: number;
	/** Records dropped because an earlier page had already brought them */
	duplicates: number;
}

/** Records per page for a run: the wanted number up to the service's cap (Return All: the cap). */
export function pageSizeFor(limit: number | undefined, maxPageSize: number): number {
	return limit === undefined ? maxPageSize : Math.max(1, Math.min(limit, maxPageSize));
}

/**
 * Fetches pages until one of these holds:
 * - the wanted number of records is reached (the last page is cut to it);
 * - a page is empty;
 * - the service's paging information has no next link;
 * - the service gives no paging information and the page is shorter than asked for.
 * A page shorter than asked for that still carries a next link is followed: a service whose own page cap is
 * below `maxPageSize` still pages correctly. A service that never stops ends in `tooManyPages`.
 *
 * The page size stays the same for the whole run, even for the last page: with page numbers, page N of size S
 * starts at record (N-1)·S, so asking for a smaller last page would re-read records instead of reading on.
 */
export async function fetchAllPages<R, O>(options: PagerOptions<R, O>): Promise<PagerResult<O>> {
	const { limit, maxPages, map, key } = options;
	const size = pageSizeFor(limit, options.maxPageSize);
	const items: O[] = [];
	const seen = key ? new Set<unknown>() : undefined;
	let duplicates = 0;
	let page = options.startPage ?? 1;
	let url: string | undefined;
	let requests = 0;

	for (;;) {
		if (requests >= maxPages) throw options.tooManyPages(maxPages, items.length);
		const answer = await options.fetchPage({ page, size, url, request: ++requests });
		const records = answer.records;
		const count = records.length;
		for (let i = 0; i < count; i++) {
			if (limit !== undefined && items.length >= limit) break;
			const record = records[i];
			if (seen) {
				const id = key!(record);
				if (id !== undefined && id !== null) {
					if (seen.has(id)) {
						duplicates++;
						continue;
					}
					seen.add(id);
				}
			}
			items.push(map(record, items.length));
		}
		if (limit !== undefined && items.length >= limit) break;
		if (count === 0) break;
		if (answer.next === null) break;
		if (answer.next === undefined && count < size) break;
		url = answer.next;
		page++;
	}
	return { items, requests, duplicates };
}
