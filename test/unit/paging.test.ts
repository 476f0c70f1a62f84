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
		tooManyPages: (maxPages) => new Error(`more than ${maxPages} pages`),
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

	test('without a key, records are never treated as repeats', async () => {
		const svc = service(300, { pages: true, overlap: 1 });
		const result = await fetchAllPages(options(svc.fetchPage, { key: undefined }));
		expect(result.duplicates).toBe(0);
		expect(result.items.length).toBe(300 + result.requests - 1);
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

	test('Max Pages does not count pages Limit does not need', async () => {
		const svc = service(1000, { pages: true });
		const result = await fetchAllPages(options(svc.fetchPage, { maxPages: 2, limit: 150 }));
		expect(result.items).toEqual(range(1, 150));
	});
});
