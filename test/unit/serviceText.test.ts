/**
 * Property tests of everything that reads a service's text or headers (nodes/shared/transport/retry and redaction),
 * from source: whatever a service sends, these end in bounded time, never throw, never read a value into malformed
 * text, and never show a piece of the key. Calls on 1 MB inputs run in a worker with a deadline (isolated.ts): a
 * pattern that backtracks over the whole text would block the test's thread for minutes.
 */
import fc from 'fast-check';

import { excerpt, redactKey } from '../../nodes/shared/transport/redaction';
import { parseRetryAfter, readQuota } from '../../nodes/shared/transport/retry';
import { keyPieces } from '../museum/keys';
import { isolated } from './isolated';
import { gist, said, saidGist } from './said';

const MB = 1_000_000;
/**
 * A generous bound for one call on 1 MB, also on a loaded machine: a linear pass takes milliseconds, a quadratic one
 * minutes.
 */
const DEADLINE_MS = 10_000;
const pure = isolated(
	['nodes/shared/transport/redaction.ts', 'nodes/shared/transport/retry.ts', 'test/unit/said.ts'],
	DEADLINE_MS,
);
afterAll(() => pure.close());

const chars = (text: string) => fc.constantFrom(...text);
/** Text a service may send, rich in what the excerpt's patterns look for. */
const serviceText = fc.string({
	unit: fc.oneof(
		chars('abcXYZ019 \n\t<>/="\';&-.:'),
		fc.constantFrom('<title>', '</title>', '<script', '</script>', '<style>', '&amp;', '&nbsp;'),
	),
	maxLength: 80,
});
/** API keys as services issue them, URL-special characters included. */
const apiKey = fc.string({
	unit: chars('ABCxyz0189/+&=?%#~._-:;@!$*<>'),
	minLength: 8,
	maxLength: 80,
});
/** `text` repeated to about 1 MB. */
const toMB = (text: string) => text.repeat(Math.ceil(MB / Math.max(1, text.length))).slice(0, MB);

// -----------------------------------------------------------------------------------------------------------------
// Retry-After

const DAYS = 'Mon|Tue|Wed|Thu|Fri|Sat|Sun';
const WEEKDAYS = 'Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday';
const MONTHS = 'Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec';
const TIME = '\\d{2}:\\d{2}:\\d{2}';
/** The only valid forms (RFC 9110): delta-seconds (a fraction tolerated), IMF-fixdate, RFC 850 and asctime dates. */
const VALID = [
	/^\d+(\.\d+)?$/,
	new RegExp(`^(${DAYS}), \\d{2} (${MONTHS}) \\d{4} ${TIME} GMT$`),
	new RegExp(`^(${WEEKDAYS}), \\d{2}-(${MONTHS})-\\d{2} ${TIME} GMT$`),
	new RegExp(`^(${DAYS}) (${MONTHS}) (\\d{2}| \\d) ${TIME} \\d{4}$`),
];
const wellFormed = (text: string) => VALID.some((form) => form.test(text.trim()));

const NOW = Date.parse('2026-01-01T12:00:00Z');
/** Words and numbers of dates and of what services send instead of them. */
const dateSoup = fc
	.array(
		fc.constantFrom(
			...DAYS.split('|'),
			...MONTHS.split('|'),
			'Thursday',
			'GMT',
			'UTC',
			'abc',
			'soon',
			'5',
			'01',
			'26',
			'2026',
			'1970',
			'12:00:00',
			'2020-01-01',
			'T',
			'Z',
			'+0100',
			',',
			'-',
			'.',
			'1e3',
		),
		{ minLength: 1, maxLength: 8 },
	)
	.chain((words) =>
		fc
			.array(fc.constantFrom(' ', '', ', ', '-'), {
				minLength: words.length,
				maxLength: words.length,
			})
			.map((seps) => words.map((word, i) => (i ? seps[i] : '') + word).join('')),
	);

describe('parseRetryAfter', () => {
	test.each([
		'abc 5',
		'a 1',
		'Thu 01 Jan 2026',
		'2020-01-01',
		'2026-01-01T12:00:30Z',
		'Thu, 01 Jan 2026',
		'1 Jan 2026 12:00:30 GMT',
		'5 abc',
		'-5',
		'1e3',
	])('%j is malformed: undefined (not a wait of 0)', (value) => {
		expect(parseRetryAfter(value, NOW)).toBeUndefined();
	});

	test('text that is none of the valid forms is ignored', () => {
		fc.assert(
			fc.property(fc.oneof(dateSoup, fc.string({ maxLength: 40 })), (text) => {
				fc.pre(!wellFormed(text));
				expect(parseRetryAfter(text, NOW)).toBeUndefined();
			}),
			{ numRuns: 300 },
		);
	});

	test.each([
		['400 digits', '9'.repeat(400)],
		['1e308 seconds', '1'.repeat(309)],
	])('a number too large to be a wait (%s): undefined, or a finite wait', (_name, value) => {
		const ms = parseRetryAfter(value, NOW);
		if (ms !== undefined) expect(Number.isFinite(ms)).toBe(true);
	});

	test('any value: undefined or a finite number of ms ≥ 0, never a throw', () => {
		const value = fc.oneof(
			fc.string(),
			dateSoup,
			fc.stringMatching(/^\d{1,400}(\.\d{1,400})?$/),
			fc.array(fc.string(), { maxLength: 3 }),
			fc.double(),
			fc.integer(),
			fc.constantFrom(null, undefined, {}, [], true),
		);
		fc.assert(
			fc.property(value, (v) => {
				const ms = parseRetryAfter(v, NOW);
				if (ms !== undefined) {
					expect(Number.isFinite(ms)).toBe(true);
					expect(ms).toBeGreaterThanOrEqual(0);
				}
			}),
			{ numRuns: 300 },
		);
	});

	test('the valid forms give the time left until then (0 when past)', () => {
		const pad = (n: number) => String(n).padStart(2, '0');
		const forms: Array<(d: Date) => string> = [
			(d) => d.toUTCString(),
			(d) => {
				const [day, , month] = d.toUTCString().split(' ');
				const weekday = WEEKDAYS.split('|').find((w) => w.startsWith(day.slice(0, 3)))!;
				return `${weekday}, ${pad(d.getUTCDate())}-${month}-${String(d.getUTCFullYear()).slice(2)} ${d.toISOString().slice(11, 19)} GMT`;
			},
			(d) => {
				const [day, , month] = d.toUTCString().split(' ');
				return `${day.slice(0, 3)} ${month} ${String(d.getUTCDate()).padStart(2, ' ')} ${d.toISOString().slice(11, 19)} ${d.getUTCFullYear()}`;
			},
		];
		// two-digit years of RFC 850 dates: those that read the same whatever the century rule
		const seconds = fc.integer({
			min: Date.parse('1977-01-01T00:00:00Z') / 1000,
			max: Date.parse('2049-12-31T00:00:00Z') / 1000,
		});
		fc.assert(
			fc.property(seconds, fc.constantFrom(0, 1, 2), (s, form) => {
				const text = forms[form](new Date(s * 1000));
				expect(wellFormed(text)).toBe(true);
				expect(parseRetryAfter(text, NOW)).toBe(Math.max(0, s * 1000 - NOW));
			}),
			{ numRuns: 200 },
		);
		fc.assert(
			fc.property(fc.integer({ min: 0, max: 10 ** 9 }), (n) => {
				expect(parseRetryAfter(String(n), NOW)).toBe(n * 1000);
			}),
			{ numRuns: 100 },
		);
	});
});

// -----------------------------------------------------------------------------------------------------------------
// Quota headers

const QUOTA_HEADERS = [
	'ratelimit',
	'ratelimit-policy',
	'ratelimit-limit',
	'ratelimit-remaining',
	'ratelimit-reset',
	'x-ratelimit-limit',
	'x-ratelimit-remaining',
	'x-ratelimit-reset',
];
const number = fc.oneof(
	fc.nat().map(String),
	fc.stringMatching(/^\d{1,400}$/),
	fc.constantFrom('-1', '1.5', '1e3', ' 7 ', '0x10', '', '9'.repeat(400)),
);
const headerValue = fc.oneof(
	number,
	fc.string({ maxLength: 30 }),
	fc
		.tuple(fc.constantFrom('"default"', 'default', '', '"a","b"'), number, number, number)
		.map(([name, r, t, q]) => `${name};r=${r};t=${t};q=${q};w=${t}`),
);

describe('readQuota', () => {
	test.each([
		['x-ratelimit-remaining', 'x-ratelimit-reset'],
		['ratelimit-remaining', 'ratelimit-reset'],
	])(
		'%s 0 with a %s too large to be a time: no quota, or one that resets at a finite time',
		(left, reset) => {
			const headers: Record<string, string> = { [left]: '0', [reset]: '9'.repeat(400) };
			const quota = readQuota((name) => headers[name], NOW);
			if (quota) expect(Number.isFinite(quota.resetAt)).toBe(true);
			const count = readQuota((name) => ({ [left]: '9'.repeat(400), [reset]: '1' })[name], NOW);
			if (count) expect(Number.isSafeInteger(count.remaining)).toBe(true);
		},
	);

	test('any headers: nothing, or a quota of finite whole numbers that resets now or later; never a throw', () => {
		fc.assert(
			fc.property(fc.dictionary(fc.constantFrom(...QUOTA_HEADERS), headerValue), (headers) => {
				const quota = readQuota((name) => headers[name], NOW);
				if (quota === undefined) return;
				expect(Number.isSafeInteger(quota.remaining)).toBe(true);
				expect(quota.remaining).toBeGreaterThanOrEqual(0);
				expect(Number.isFinite(quota.resetAt)).toBe(true);
				expect(quota.resetAt).toBeGreaterThanOrEqual(NOW);
				if (quota.limit !== undefined) {
					expect(Number.isSafeInteger(quota.limit)).toBe(true);
					expect(quota.limit).toBeGreaterThanOrEqual(quota.remaining);
				}
			}),
			{ numRuns: 400 },
		);
	});
});

// -----------------------------------------------------------------------------------------------------------------
// Excerpts and redaction

describe('excerpt and gist', () => {
	test('any text: a short string, never a throw', () => {
		fc.assert(
			fc.property(fc.oneof(serviceText, fc.string({ unit: 'binary', maxLength: 300 })), (t) => {
				expect(excerpt(t).length).toBeLessThanOrEqual(161);
				expect(gist(t).length).toBeLessThanOrEqual(161);
			}),
			{ numRuns: 300 },
		);
	});
});

/** Every function that reads a service's text, as the worker calls it. */
const READERS: Array<[string, (text: string) => unknown[]]> = [
	['excerpt', (t) => [t]],
	['gist', (t) => [t]],
	['redactKey', (t) => [t, 'k3y/with+odd&chars=']],
	['said', (t) => [t, 'k3y/with+odd&chars=']],
	['saidGist', (t) => [t, 'k3y/with+odd&chars=']],
	['parseRetryAfter', (t) => [t]],
	['quotaOf', (t) => [t]],
];

describe('1 MB of hostile text: every reader ends in bounded time', () => {
	test.each([
		['"<" and nothing else', '<'],
		['"<title>" never closed', '<title>'],
		['"<script" never closed', '<script'],
		['a phrase repeated', 'Bad Gateway '],
		['"Bearer " repeated', 'Bearer '],
		['"&amp;" repeated', '&amp;'],
	])(
		'%s',
		async (_name, pattern) => {
			for (const [fn, args] of READERS) await pure.call(fn, args(toMB(pattern)));
		},
		120_000,
	);

	test('any repeated pattern, between any prefix and suffix', async () => {
		await fc.assert(
			fc.asyncProperty(serviceText, serviceText, serviceText, async (pre, pump, post) => {
				fc.pre(pump.length > 0);
				const text = pre + toMB(pump) + post;
				for (const [fn, args] of READERS) await pure.call(fn, args(text));
			}),
			{ numRuns: 3, endOnFailure: true },
		);
	}, 240_000);
});

describe('redaction: no piece of the key survives, in any form it comes in, also once cut', () => {
	const html = (text: string) =>
		text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
	const uri = encodeURIComponent;
	const form = (key: string) => new URLSearchParams({ k: key }).toString().slice(2);
	/** How a service quotes the key back: in a word, a header it echoes, a query, a path, a page. */
	const EMBED: Record<string, (key: string) => string> = {
		asIs: (key) => key,
		urlEncoded: uri,
		formEncoded: form,
		htmlEscaped: html,
		bearer: (key) => `Authorization: Bearer ${key}`,
		query: (key) => `GET /object?q=x&apikey=${form(key)}&page=2`,
		iftttPath: (key) =>
			`<!DOCTYPE html><html><head><title>Error</title></head><body><pre>Cannot POST /trigger/x/with/key/${html(uri(key))}</pre></body></html>`,
		title: (key) =>
			`<html><head><title>Refused: key=${html(key)}</title></head><body>no</body></html>`,
		json: (key) => JSON.stringify({ error: { message: `key ${key} refused` } }),
	};

	test.each(Object.keys(EMBED))('%s', (how) => {
		fc.assert(
			fc.property(
				apiKey,
				serviceText,
				serviceText,
				fc.constantFrom('', ' ', '/', '='),
				(key, before, after, glue) => {
					// the text around must not hold a piece of the key by itself
					fc.pre(keyPieces(`${before}\u0000${after}`, key).length === 0);
					const text = `${before}${glue}${EMBED[how](key)}${glue}${after}`;
					expect(keyPieces(redactKey(text, key), key)).toEqual([]);
					expect(keyPieces(said(text, key), key)).toEqual([]);
					expect(keyPieces(saidGist(text, key), key)).toEqual([]);
				},
			),
			{ numRuns: 60 },
		);
	});
});
