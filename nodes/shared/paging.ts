/**
 * The shared "Return All" pager. It asks for the first page; when that page says how many pages there are, it
 * asks for the rest by page number, several at once (as many as the caller's concurrency allows, paced by the
 * client's gate); otherwise, or after that, it goes on one page after another, by the service's next-page link
 * when it gives one and by page number otherwise. Records are taken in page order whatever order the pages
 * arrive in: a page waits only until the pages before it have arrived, and no page is kept once its records are
 * taken. It knows nothing about any one service: the caller fetches a page (`fetchPage`), says what a record
 * becomes (`map`) and, when pages may overlap, what identifies a record (`key`).
 */
import { pool } from './pool';

/** One page as the caller read it from the service. */
export interface PageAnswer<R> {
	/** The page's records, in the service's order */
	records: R[];
	/**
	 * The service's link to the next page. `null`: the service gives paging information and says this is the
	 * last page. `undefined`: the service gives no paging information (the pager goes on by page number).
	 */
	next?: string | null;
	/** How many pages the whole result has at this page size, when the service says */
	pages?: number;
}

/** What the pager asks the caller to fetch. */
export interface PageCall {
	/** 1-based number of the page */
	page: number;
	/** Records per page, the same for every request of a run (page N of size S starts at record (N-1)·S) */
	size: number;
	/** The service's own next-page link: request it as it is (it already carries page and size) */
	url?: string;
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
	/** Pages fetched at once once the page count is known (1 = one after another) */
	concurrency: number;
	/** The output of one record, built as soon as its page's turn comes */
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

/** Pages to ask for by number after the first: up to the last page, or as many as Limit needs. */
export function pagesAhead(
	first: number,
	pages: number,
	size: number,
	limit: number | undefined,
): number[] {
	const last = limit === undefined ? pages : Math.min(pages, first - 1 + Math.ceil(limit / size));
	const out: number[] = [];
	for (let page = first + 1; page <= last; page++) out.push(page);
	return out;
}

/** Takes records in order: de-duplicates them and stops at the limit. */
class Collector<R, O> {
	readonly items: O[] = [];
	private readonly seen?: Set<unknown>;
	duplicates = 0;

	constructor(private readonly options: PagerOptions<R, O>) {
		if (options.key) this.seen = new Set();
	}

	get full(): boolean {
		return this.options.limit !== undefined && this.items.length >= this.options.limit;
	}

	take(records: R[]): void {
		for (const record of records) {
			if (this.full) return;
			if (this.seen) {
				const id = this.options.key!(record);
				if (id !== undefined && id !== null) {
					if (this.seen.has(id)) {
						this.duplicates++;
						continue;
					}
					this.seen.add(id);
				}
			}
			this.items.push(this.options.map(record, this.items.length));
		}
	}
}

/**
 * Fetches pages until one of these holds:
 * - the wanted number of records is reached (the last page is cut to it);
 * - a page is empty;
 * - the service's paging information has no next link;
 * - the service gives no paging information and the page is shorter than asked for.
 * A page shorter than asked for that still carries a next link is followed: a service whose own page cap is
 * below `maxPageSize` still pages correctly. A service that never stops ends in `tooManyPages`.
 */
export async function fetchAllPages<R, O>(options: PagerOptions<R, O>): Promise<PagerResult<O>> {
	const { maxPages } = options;
	const size = pageSizeFor(options.limit, options.maxPageSize);
	const collector = new Collector(options);
	let page = options.startPage ?? 1;
	let requests = 0;
	const fetch = async (call: PageCall) => {
		requests++;
		return await options.fetchPage(call);
	};

	let answer = await fetch({ page, size });
	collector.take(answer.records);
	if (
		!collector.full &&
		!isLast(answer, size) &&
		answer.pages !== undefined &&
		answer.pages > page
	) {
		const total = answer.pages;
		const ahead = pagesAhead(page, total, size, options.limit);
		if (1 + ahead.length > maxPages) throw options.tooManyPages(maxPages, collector.items.length);
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
				collector.take(answer.records);
				if (collector.full || answer.records.length === 0) stopped = true;
			}
		});
		page = ahead.length ? ahead[ahead.length - 1] : page;
		// the last page the service announced, and no link beyond it: nothing more to ask for
		const announcedEnd = page >= total && typeof answer.next !== 'string';
		if (stopped || isLast(answer, size) || announcedEnd) return done();
	} else if (collector.full || isLast(answer, size)) {
		return done();
	}

	// one page after another: by the service's next link, or by number
	for (;;) {
		if (requests >= maxPages) throw options.tooManyPages(maxPages, collector.items.length);
		const url = typeof answer.next === 'string' ? answer.next : undefined;
		page++;
		answer = await fetch({ page, size, url });
		collector.take(answer.records);
		if (collector.full || isLast(answer, size)) return done();
	}

	function done(): PagerResult<O> {
		return { items: collector.items, requests, duplicates: collector.duplicates };
	}
}

/** Whether a page is the last: empty, says so, or short without paging information. */
function isLast<R>(answer: PageAnswer<R>, size: number): boolean {
	return (
		answer.records.length === 0 ||
		answer.next === null ||
		(answer.next === undefined && answer.records.length < size)
	);
}
