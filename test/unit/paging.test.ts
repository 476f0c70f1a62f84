/** The shared Return All pager (nodes/shared/paging), from source, with an in-memory service. */
import {
	type PageAnswer,
	type PageCall,
	type PagerOptions,
	fetchAllPages,
	pageSizeFor,
	pagesAhead,
} from '../../nodes/shared/paging';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

class TooMany extends Error {
	constructor(
		readonly maxPages: number,
		readonly kept: number,
	) {
		super(`more than ${maxPages} pages after ${kept} records`);
	}
}

interface Rec {
	id: number;
}

/** An in-memory paged service over `total` records (ids 1..total), that records what it was asked. */
function service(
	total: number,
	opts: {
		/** `pages` in the answer (the page count at the asked size), with a next link or null */
		pages?: boolean;
		/** a next link in the answer (or null on the last page) */
		next?: boolean;
		/** delay of page n (ms) */
		delay?: (page: number) => number;
		/** page n overlaps the previous by this many records */
		overlap?: number;
		/** fail this page */
		failPage?: number;
	} = {},
) {
	const calls: PageCall[] = [];
	let inFlight = 0;
	let maxInFlight = 0;
	const fetchPage = async (call: PageCall): Promise<PageAnswer<Rec>> => {
		calls.push(call);
		inFlight++;
		maxInFlight = Math.max(maxInFlight, inFlight);
		try {
			const page = call.url ? Number(new URL(call.url).searchParams.get('page')) : call.page;
			await sleep(opts.delay?.(page) ?? 0);
			if (page === opts.failPage) throw new Error(`page ${page} failed`);
			const stride = call.size - (opts.overlap ?? 0);
			const start = (page - 1) * stride;
			const records = Array.from(
				{ length: Math.max(0, Math.min(call.size, total - start)) },
				(_, i) => ({
					id: start + i + 1,
				}),
			);
			const pages = Math.max(1, Math.ceil((total - (opts.overlap ?? 0)) / stride));
			const answer: PageAnswer<Rec> = { records };
			if (opts.pages) answer.pages = pages;
			// as the museum node reads an answer: paging information (`info`) always has a next link or null
			if (opts.next || opts.pages)
				answer.next = page < pages ? `http://svc.example/object?page=${page + 1}` : null;
			return answer;
		} finally {
			inFlight--;
		}
	};
	return {
		fetchPage,
		calls,
		get maxInFlight() {
			return maxInFlight;
		},
	};
}

function options(
	fetchPage: PagerOptions<Rec, number>['fetchPage'],
	extra: Partial<PagerOptions<Rec, number>> = {},
): PagerOptions<Rec, number> {
	return {
		fetchPage,
		maxPageSize: 100,
		maxPages: 500,
		concurrency: 8,
		map: (record) => record.id,
		key: (record) => record.id,
		tooManyPages: (maxPages, kept) => new TooMany(maxPages, kept),
		...extra,
	};
}

const range = (from: number, to: number) =>
	Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('pageSizeFor', () => {
	test.each([
		[undefined, 100, 100],
		[30, 100, 30],
		[250, 100, 100],
		[100, 100, 100],
		[0, 100, 1],
	])('limit %p, cap %p → %p', (limit, cap, size) => {
		expect(pageSizeFor(limit, cap)).toBe(size);
	});
});

describe('pagesAhead', () => {
	test('all the pages after the first, or as many as Limit needs', () => {
		expect(pagesAhead(1, 5, 100, undefined)).toEqual([2, 3, 4, 5]);
		expect(pagesAhead(1, 10, 100, 250)).toEqual([2, 3]);
		expect(pagesAhead(1, 2, 100, 1000)).toEqual([2]);
		expect(pagesAhead(3, 10, 30, 90)).toEqual([4, 5]);
		expect(pagesAhead(1, 1, 100, undefined)).toEqual([]);
		expect(pagesAhead(1, 10, 100, 100)).toEqual([]);
	});
});

describe('fetchAllPages', () => {
	test('pages arriving out of order: records are taken in page order, pages fetched concurrently', async () => {
		// later pages answer first
		const svc = service(1000, {
			pages: true,
			next: true,
			delay: (page) => (page === 1 ? 0 : (11 - page) * 5),
		});
		const result = await fetchAllPages(options(svc.fetchPage, { concurrency: 4 }));
		expect(result.items).toEqual(range(1, 1000));
		expect(result.requests).toBe(10);
		expect(result.duplicates).toBe(0);
		expect(svc.calls[0]).toEqual({ page: 1, size: 100 });
		// once the count is known, by number (not by the next link), at most 4 at once
		expect(svc.calls.slice(1).every((c) => c.url === undefined)).toBe(true);
		expect(svc.calls.map((c) => c.page).sort((a, b) => a - b)).toEqual(range(1, 10));
		expect(svc.maxInFlight).toBe(4);
	});

	test('concurrency 1: one page after another, in order', async () => {
		const svc = service(500, { pages: true });
		const result = await fetchAllPages(options(svc.fetchPage, { concurrency: 1 }));
		expect(result.items).toEqual(range(1, 500));
		expect(svc.calls.map((c) => c.page)).toEqual([1, 2, 3, 4, 5]);
		expect(svc.maxInFlight).toBe(1);
	});

	test('overlapping pages: repeats dropped and counted', async () => {
		const svc = service(1000, { pages: true, overlap: 1 });
		const result = await fetchAllPages(options(svc.fetchPage));
		expect(result.items).toEqual(range(1, 1000));
		expect(result.duplicates).toBe(result.requests - 1);
		expect(result.requests).toBe(11);
	});

	test('without a key, records are never treated as repeats', async () => {
		const svc = service(300, { pages: true, overlap: 1 });
		const result = await fetchAllPages(options(svc.fetchPage, { key: undefined }));
		expect(result.duplicates).toBe(0);
		expect(result.items.length).toBe(300 + result.requests - 1);
	});

	test('Limit: pages of the limit up to the cap; only the pages needed; the last one cut', async () => {
		const svc = service(1000, { pages: true });
		const result = await fetchAllPages(options(svc.fetchPage, { limit: 250 }));
		expect(result.items).toEqual(range(1, 250));
		expect(svc.calls.map((c) => c.page).sort()).toEqual([1, 2, 3]);
		expect(svc.calls.every((c) => c.size === 100)).toBe(true);

		const small = service(1000, { pages: true });
		const few = await fetchAllPages(options(small.fetchPage, { limit: 30, startPage: 4 }));
		expect(few.items).toEqual(range(91, 120));
		expect(small.calls).toEqual([{ page: 4, size: 30 }]);
	});

	test('map gets the index of the record in the output', async () => {
		const svc = service(150, { pages: true });
		const result = await fetchAllPages({
			...options(svc.fetchPage),
			map: (record: Rec, index: number) => index * 1000 + record.id,
		} as PagerOptions<Rec, number>);
		expect(result.items.slice(0, 3)).toEqual([1, 1002, 2003]);
		expect(result.items[149]).toBe(149 * 1000 + 150);
	});

	test('Max Pages: checked up front when the page count is known, after the first page’s records', async () => {
		const svc = service(1000, { pages: true });
		const error = await fetchAllPages(options(svc.fetchPage, { maxPages: 9 })).catch(
			(e: unknown) => e,
		);
		expect(error).toBeInstanceOf(TooMany);
		expect(error).toMatchObject({ maxPages: 9, kept: 100 });
		expect(svc.calls).toHaveLength(1);
		const enough = service(1000, { pages: true });
		const result = await fetchAllPages(options(enough.fetchPage, { maxPages: 10 }));
		expect(result.items).toHaveLength(1000);
		expect(enough.calls).toHaveLength(10);
	});

	test('Max Pages does not count pages Limit does not need', async () => {
		const svc = service(1000, { pages: true });
		const result = await fetchAllPages(options(svc.fetchPage, { maxPages: 2, limit: 150 }));
		expect(result.items).toEqual(range(1, 150));
	});

	test('an endless next link ends in tooManyPages after Max Pages requests, never a partial result', async () => {
		let n = 0;
		const fetchPage = async (call: PageCall): Promise<PageAnswer<Rec>> => {
			n++;
			return {
				records: Array.from({ length: call.size }, (_, i) => ({ id: n * 1000 + i })),
				next: `http://svc.example/object?page=${n + 1}`,
			};
		};
		const error = await fetchAllPages(options(fetchPage, { maxPages: 7 })).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(TooMany);
		expect(error).toMatchObject({ maxPages: 7, kept: 700 });
		expect(n).toBe(7);
	});

	test('next links are followed as they are when there is no page count', async () => {
		const svc = service(250, { next: true });
		const result = await fetchAllPages(options(svc.fetchPage));
		expect(result.items).toEqual(range(1, 250));
		expect(svc.calls.map((c) => c.url)).toEqual([
			undefined,
			'http://svc.example/object?page=2',
			'http://svc.example/object?page=3',
		]);
	});

	test('no paging information: by number until a short page', async () => {
		const svc = service(250);
		const result = await fetchAllPages(options(svc.fetchPage));
		expect(result.items).toEqual(range(1, 250));
		expect(svc.calls.map((c) => c.page)).toEqual([1, 2, 3]);
		const exact = service(200);
		await fetchAllPages(options(exact.fetchPage));
		// 200 = 2 full pages: only the empty third says it is over
		expect(exact.calls.map((c) => c.page)).toEqual([1, 2, 3]);
	});

	test('an empty first page: one request, nothing', async () => {
		const svc = service(0, { pages: true, next: true });
		const result = await fetchAllPages(options(svc.fetchPage));
		expect(result).toEqual({ items: [], requests: 1, duplicates: 0 });
	});

	test('a failing page fails the whole: the error, no result', async () => {
		const svc = service(1000, { pages: true, failPage: 3 });
		await expect(fetchAllPages(options(svc.fetchPage, { concurrency: 1 }))).rejects.toThrow(
			'page 3 failed',
		);
		// one after another: nothing after the failed page was asked for
		expect(svc.calls.map((c) => c.page)).toEqual([1, 2, 3]);
		const concurrent = service(1000, { pages: true, failPage: 3 });
		await expect(fetchAllPages(options(concurrent.fetchPage, { concurrency: 4 }))).rejects.toThrow(
			'page 3 failed',
		);
	});
});
