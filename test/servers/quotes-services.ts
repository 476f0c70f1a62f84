/**
 * The quotes services alive today, each with its own /tags shape, as strict as their sources:
 * - the Quotable rewrite (kurokeita/quotable-nestjs, behind api.quotable.kurokeita.dev): GET /api/tags;
 * - QuoteSlate (Musheer360/QuoteSlate, quoteslate.vercel.app): GET /api/tags, 100 requests per 15 minutes;
 * - They Said So's categories (quotes.rest): names mapped to descriptions.
 * Their base URL is `${server.url}/api` (the rewrite, QuoteSlate) or `server.url` (They Said So's shape).
 */
import { BaseMode, Reply, TestServer, createTestServer, json, text } from './common';
import { QuoteTag, loadQuoteTags } from './data';
import { Limiter } from './ratelimit';

export type QuotesServiceServer = TestServer<BaseMode>;

const nestError = (status: number, message: string | string[], error: string): Reply =>
	json(status, { message, error, statusCode: status });

/** lodash's toUpper(snakeCase(value)), as the rewrite maps sortBy onto its enum */
const upperSnake = (value: string) =>
	value
		.replace(/([a-z0-9])([A-Z])/g, '$1 $2')
		.split(/[^A-Za-z0-9]+/)
		.filter(Boolean)
		.join('_')
		.toUpperCase();

/** The rewrite's TagSortByEnum: key → the column it sorts by */
const REWRITE_SORT: Record<string, string> = {
	NAME: 'name',
	QUOTES_COUNT: 'quotesCount',
	DATE_CREATED: 'createdAt',
	DATE_MODIFIED: 'updatedAt',
};

export interface RewriteOptions {
	tags?: QuoteTag[];
	/**
	 * `current` (its source since 2025-02): `{id (a short text id), name, quotesCount}`, the dates excluded.
	 * `early` (its first release, 2024-11): `{id (a number), name, createdAt, updatedAt, deletedAt, quotesCount}`.
	 */
	shape?: 'current' | 'early';
}

/**
 * The Quotable rewrite: everything under /api (Nest's JSON 404 elsewhere). Tags without quotes are left out (an
 * inner join). `sortBy` goes through toUpper(snakeCase()) onto its enum: name, quotesCount, dateCreated, dateModified;
 * anything else is ignored (the default, createdAt ascending), but an empty one fails the enum check (400). `order`
 * must be asc or desc (400 otherwise). Every other parameter is ignored.
 */
export async function startQuotableRewrite(
	options: RewriteOptions = {},
): Promise<QuotesServiceServer> {
	const rows = (options.tags ?? loadQuoteTags())
		.filter((tag) => tag.quoteCount > 0)
		.map((tag, n) => ({
			id: n + 1,
			shortId: tag._id,
			name: tag.name,
			createdAt: new Date(`${tag.dateAdded}T08:00:00.000Z`).toISOString(),
			updatedAt: new Date(`${tag.dateModified}T09:30:00.000Z`).toISOString(),
			deletedAt: null,
			quotesCount: tag.quoteCount,
		}));
	return createTestServer<BaseMode>({
		requireKey: false,
		handle({ req, url, recorded }) {
			if (url.pathname !== '/api/tags' || req.method !== 'GET')
				return nestError(404, `Cannot ${req.method} ${url.pathname}`, 'Not Found');
			const { sortBy, order } = recorded.query;
			const problems: string[] = [];
			let column = 'createdAt';
			if (sortBy !== undefined) {
				// class-transformer joins a repeated value into one before mapping it: never a known key
				const mapped =
					typeof sortBy !== 'string' ? undefined : sortBy && REWRITE_SORT[upperSnake(sortBy)];
				if (mapped === '')
					problems.push(
						'sortBy must be one of the following values: name, quotesCount, createdAt, updatedAt',
					);
				else if (mapped) column = mapped;
			}
			if (order !== undefined && order !== 'asc' && order !== 'desc')
				problems.push('order must be one of the following values: asc, desc');
			if (problems.length) return nestError(400, problems, 'Bad Request');
			const sign = order === 'desc' ? -1 : 1;
			const key = (row: (typeof rows)[number]) => row[column as 'name'] as string | number;
			const sorted = [...rows].sort((a, b) =>
				key(a) < key(b) ? -sign : key(a) > key(b) ? sign : a.id - b.id,
			);
			return json(
				200,
				sorted.map(({ id, shortId, name, createdAt, updatedAt, deletedAt, quotesCount }) =>
					options.shape === 'early'
						? { id, name, createdAt, updatedAt, deletedAt, quotesCount }
						: { id: shortId, name, quotesCount },
				),
			);
		},
	});
}

export interface QuoteSlateOptions {
	/** Default: the slugs of loadQuoteTags() (QuoteSlate's tags are lower-case, hyphenated names). */
	names?: string[];
	/** Requests per window (default 100, QuoteSlate's) */
	max?: number;
	/** Default 15 minutes */
	windowMs?: number;
}

/**
 * QuoteSlate: GET /api/tags answers its bare list of names whatever the query; other methods 405, other /api paths
 * 404 (JSON), anything outside /api Express's HTML 404. express-rate-limit guards /api/ (404s count too): draft-6
 * headers on every answer, and 429 `{"error": …}` with Retry-After once the window's requests are used up.
 */
export async function startQuoteSlate(
	options: QuoteSlateOptions = {},
): Promise<QuotesServiceServer> {
	const names = options.names ?? loadQuoteTags().map((tag) => tag.slug);
	const max = options.max ?? 100;
	const windowMs = options.windowMs ?? 15 * 60_000;
	let limiter = new Limiter({ fixed: max, windowMs, headers: 'draft6' });
	return createTestServer<BaseMode>({
		requireKey: false,
		onReset: () => (limiter = new Limiter({ fixed: max, windowMs, headers: 'draft6' })),
		handle({ req, url }) {
			if (!url.pathname.startsWith('/api/'))
				return text(404, `<pre>Cannot ${req.method} ${url.pathname}</pre>`, 'text/html');
			const verdict = limiter.admit();
			const headers = { 'ratelimit-policy': `${max};w=${windowMs / 1000}`, ...verdict.headers };
			if (verdict.status)
				return json(429, { error: 'Too many requests, please try again later.' }, headers);
			if (url.pathname !== '/api/tags')
				return json(404, { error: 'API endpoint not found.' }, headers);
			if (req.method !== 'GET')
				return json(405, { error: `Method ${req.method} not allowed for this endpoint.` }, headers);
			return json(200, names, headers);
		},
	});
}

export interface TheySaidSoOptions {
	/** Default: a few of They Said So's quote-of-the-day categories */
	categories?: Record<string, string>;
	/** Answer the bare map, without They Said So's `{success, contents: {categories}}` envelope */
	bare?: boolean;
}

export const THEY_SAID_SO_CATEGORIES: Record<string, string> = {
	inspire: 'Inspiring Quote of the day',
	management: 'Management Quote of the day',
	sports: 'Sports Quote of the day',
	life: 'Quote of the day about life',
	funny: 'Funny Quote of the day',
	love: 'Quote of the day about Love',
	art: 'Art quote of the day',
	students: 'Quote of the day for students',
};

/**
 * They Said So's categories answer (`GET /qod/categories`): an object of names and descriptions inside
 * `{success: {total}, contents: {categories}}`. Served at /tags too, as a proxy in front of it would, since the node
 * asks for {Quotes URL}/tags. Any parameter is ignored.
 */
export async function startTheySaidSo(
	options: TheySaidSoOptions = {},
): Promise<QuotesServiceServer> {
	const categories = options.categories ?? THEY_SAID_SO_CATEGORIES;
	return createTestServer<BaseMode>({
		requireKey: false,
		handle({ url }) {
			if (!['/tags', '/qod/categories', '/qod/categories.json'].includes(url.pathname))
				return json(404, { error: { code: 404, message: 'Not Found' } });
			if (options.bare) return json(200, categories);
			return json(200, {
				success: { total: Object.keys(categories).length },
				contents: { categories },
				baseurl: 'https://theysaidso.com',
				copyright: { year: 2026, url: 'https://theysaidso.com' },
			});
		},
	});
}
