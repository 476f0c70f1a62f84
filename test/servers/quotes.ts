/**
 * Quotable-style tag list: GET /tags?q=&limit=&sortBy=&order=|sortOrder=
 * Answers a bare JSON array like the real Quotable, or {status:"success", data:[...], message:"OK"} with `envelope: true`.
 * With `quotable: true` it is Quotable's own /tags: every tag whatever q and limit say (it has neither).
 */
import {
	BaseMode,
	TestServer,
	createTestServer,
	failEnvelope,
	json,
	one,
	positiveInt,
	success,
} from './common';
import { QuoteTag, loadQuoteTags, normaliseTagText } from './data';

export interface QuotesServerOptions {
	/** Default: loadQuoteTags() (real data when present, else the fixture). */
	tags?: QuoteTag[];
	apiKey?: string;
	/** Wrap answers in {status, data, message}. Default false (bare array). */
	envelope?: boolean;
	/** Require the Bearer key. Default false. */
	requireKey?: boolean;
	/** Ignore q and limit, as Quotable does. Default false. */
	quotable?: boolean;
}

export type QuotesServer = TestServer<BaseMode>;

const SORT_FIELDS = ['name', 'quoteCount', 'dateAdded', 'dateModified'] as const;
type SortField = (typeof SORT_FIELDS)[number];
const ASC = ['asc', 'ascending', '1'];
const DESC = ['desc', 'descending', '-1'];

export async function startQuotesServer(options: QuotesServerOptions = {}): Promise<QuotesServer> {
	const tags = (options.tags ?? loadQuoteTags()).map((tag) => ({
		tag,
		norm: normaliseTagText(`${tag.name}`),
		slug: normaliseTagText(`${tag.slug}`),
	}));

	return createTestServer<BaseMode>({
		apiKey: options.apiKey,
		requireKey: options.requireKey ?? false,
		handle({ req, url, recorded }) {
			if (
				url.pathname.replace(/\/+$/, '') !== '/tags' ||
				(req.method !== 'GET' && req.method !== 'HEAD')
			)
				return options.envelope
					? failEnvelope(404, 'Not found')
					: json(404, { statusCode: 404, statusMessage: 'Not Found' });
			const query = options.quotable ? { ...recorded.query, q: '', limit: '' } : recorded.query;
			const limit = positiveInt(one(query, 'limit'), 'limit');
			const sortBy: SortField = SORT_FIELDS.find((f) => f === one(query, 'sortBy')) ?? 'name';
			const order = one(query, 'sortOrder') ?? one(query, 'order') ?? '';
			const dir = ASC.includes(order) ? 1 : DESC.includes(order) ? -1 : sortBy === 'name' ? 1 : -1;

			const q = normaliseTagText(one(query, 'q') ?? '');
			const rank = (x: (typeof tags)[number]) =>
				x.norm.startsWith(q) || x.slug.startsWith(q) ? 0 : 1;
			const list = tags
				.filter((x) => !q || x.norm.includes(q) || x.slug.includes(q))
				.sort((a, b) => {
					const [va, vb] = [a.tag[sortBy], b.tag[sortBy]];
					const c =
						typeof va === 'number' && typeof vb === 'number'
							? va - vb
							: String(va).localeCompare(String(vb));
					return (
						(q ? rank(a) - rank(b) : 0) ||
						c * dir ||
						a.tag.name.localeCompare(b.tag.name) ||
						a.tag._id.localeCompare(b.tag._id)
					);
				})
				.slice(0, limit)
				.map((x) => x.tag);
			return options.envelope ? success(list) : json(200, list);
		},
	});
}
