/** Hostile answer bodies for each node: errors, trickle, gzip bomb, oversized, cut in half. */
import type { IDataObject } from 'n8n-workflow';

import { logs } from '../harness/engine';
import { type Fault, GIB, MIB, gzipBomb } from '../servers';
import {
	FAST,
	GETS,
	KINDS,
	type Kind,
	LABEL,
	LATE,
	NAME,
	NODE,
	items,
	rssDuring,
	runNode,
	serverOf,
	until,
	useServices,
} from './setup';

const s = useServices(async () => {
	await gzipBomb(256 * MIB); // built once, outside the timed tests
	void gzipBomb(GIB); // takes seconds on zlib's thread pool, while the trickle tests wait
});

describe('the searching services failing: a clear error, retried only when safe and useful', () => {
	// the fault, the error message after "The … service", its HTTP code, what its description says, the options
	type Case = [Fault, string, string | null, (string | RegExp)?, IDataObject?];
	const cases: Case[] = [
		[
			{ kind: 'html', status: 500 },
			'answered HTTP 500 with an HTML page: "500 Internal Server Error"',
			'500',
			/The service failed/,
		],
		[
			{ kind: 'html', status: 404 },
			'answered HTTP 404 with an HTML page: "404 Not Found"',
			'404',
			'URL',
		],
		[
			{
				kind: 'status',
				status: 500,
				body: '{"status": "error", oops',
				contentType: 'application/json',
			},
			'answered HTTP 500 with malformed JSON: "{"status": "error", oops"',
			'500',
		],
		[
			{ kind: 'status', status: 500, body: 'Internal error, sorry' },
			'answered HTTP 500 with a body that is not JSON (text/plain; charset=utf-8): "Internal error, sorry"',
			'500',
		],
		[
			{ kind: 'notJson' },
			'answered HTTP 200 with a body that is not JSON (text/plain; charset=utf-8): "Congratulations! You\'ve fired the event"',
			'200',
		],
		[
			{ kind: 'envelope', envStatus: 'fail', message: 'Query too short' },
			'answered status "fail": Query too short (HTTP 200)',
			'200',
		],
		[
			{ kind: 'envelope', envStatus: 'error', message: 'Index rebuilding' },
			'answered status "error": Index rebuilding (HTTP 200)',
			'200',
		],
		[
			{ kind: 'truncated' },
			"'s answer was cut off: the transfer broke before the end",
			null,
			'ETRUNCATED',
			{ maxAttempts: 1 },
		],
		[
			{ kind: 'slow', ms: 1500 },
			' did not answer in full within the Timeout (600 ms)',
			null,
			'Raise "Timeout"',
			{ timeout: 600, maxAttempts: 1 },
		],
		[
			{ kind: 'status', status: 503 },
			'answered status "error": Service Unavailable',
			'503',
			'gave up after 3 attempts',
			{ maxAttempts: 3 },
		],
		[
			{ kind: 'status', status: 429, retryAfter: '120' },
			'answered status "fail": Too many requests',
			'429',
			'waiting 120 s more (as Retry-After asked) would pass the Max Retry Wait of 10 s',
			{ maxRetryWait: 10 },
		],
	];

	// every row in full: jest passes a `done` callback to a test given fewer arguments than it declares
	const rows = GETS.flatMap((kind) =>
		cases.map(
			([fault, message, code, description = /./, options = {}]) =>
				[kind, fault, message, code, description, options] as const,
		),
	);
	test.each(rows)('%s: %j: %s', async (kind, fault, message, httpCode, description, options) => {
		const server = serverOf(s, kind);
		const attempts = Number(options.maxAttempts ?? 1);
		server.fail(...Array.from({ length: attempts + 2 }, () => fault)); // more than it may use
		const result = await runNode(s, kind, { options: { ...FAST, ...options } });
		const error = result.error(NODE)!;
		const spaced = /^[ ']/.test(message) ? message : ` ${message}`;
		expect(error.message).toBe(`The ${NAME[kind]}${spaced} [item 0]`);
		expect(error.description).toMatch(description === 'URL' ? LABEL[kind] : description);
		expect(error.httpCode).toBe(httpCode);
		expect(JSON.stringify(error)).not.toMatch(/at JSON\.parse|SyntaxError/);
		expect(server.requests).toHaveLength(attempts);
	});

	const retried: Array<[string, Fault[], number, string[]]> = [
		[
			'429s with Retry-After (not counted as attempts)',
			[0, 1].map(() => ({ kind: 'status', status: 429, retryAfter: '0' })),
			3,
			[
				'\\(attempt 2; 429s do not count toward Max Attempts\\) in \\d+ ms after HTTP 429',
				'\\(attempt 3; 429s do not count toward Max Attempts\\) in \\d+ ms after HTTP 429',
			],
		],
		[
			'a 502/503/504 burst within Max Attempts',
			[
				{ kind: 'status', status: 502 },
				{ kind: 'html', status: 503 },
				{ kind: 'status', status: 504 },
			],
			4,
			['1 of 3 .* after HTTP 502', '2 of 3 .* after HTTP 503', '3 of 3 .* after HTTP 504'],
		],
		[
			'truncated JSON on a 200 (a broken transfer)',
			[{ kind: 'truncated' }],
			2,
			['1 of 3 .* after ETRUNCATED \\('],
		],
		[
			'a slow answer, then a reset connection',
			[{ kind: 'slow', ms: 1500 }, { kind: 'reset' }],
			3,
			['1 of 3 .* after E', '2 of 3 .* after ECONNRESET'],
		],
	];

	test.each(GETS.flatMap((kind) => retried.map((c) => [kind, ...c] as const)))(
		'%s: %s is retried, logged at debug level, and the search succeeds',
		async (kind, _title, faults, requests, retries) => {
			const server = serverOf(s, kind);
			server.fail(...faults);
			const result = await runNode(s, kind, { options: { ...FAST, timeout: 600, maxAttempts: 4 } });
			expect(result.error(NODE)).toBeUndefined();
			expect(items(result)).toHaveLength(3);
			expect(server.requests).toHaveLength(requests);
			expect(
				logs.filter((l) => l.level === 'debug' && / retry /.test(l.message)).map((l) => l.message),
			).toEqual(
				retries.map((r) => expect.stringMatching(new RegExp(`^Triptych: ${kind}: retry ${r}`))),
			);
		},
	);
});

describe('trickle: an answer that never ends', () => {
	// Without the key, n8n hands the attempt's abort signal to its HTTP client, which destroys the body first:
	// the node must still report the real reason (the deadline or Stop), not a broken transfer.
	test('quotes without the key ("Send API Key to Quotes Service" off), Timeout 1000: says Timeout', async () => {
		s.quotes.fail({ kind: 'trickle', intervalMs: 50 });
		const result = await runNode(s, 'quotes', {
			options: { ...FAST, timeout: 1000, maxAttempts: 1 },
			credentials: { sendKeyToQuotes: false },
		});
		expect(result.ms).toBeLessThan(1000 + LATE);
		expect(s.quotes.requests).toHaveLength(1);
		expect(s.quotes.requests[0].headers.authorization).toBeUndefined();
		expect(result.error(NODE)!.message).toBe(
			'The quotes service did not answer in full within the Timeout (1 s) [item 0]',
		);
	});

	test.each(KINDS)(
		'%s, Timeout 1000, Max Attempts 1: fails soon after Timeout; the client hung up in time',
		async (kind) => {
			const server = serverOf(s, kind);
			server.fail({ kind: 'trickle', intervalMs: 50 });
			const result = await runNode(s, kind, {
				options: { ...FAST, timeout: 1000, maxAttempts: 1 },
			});
			const error = result.error(NODE)!;
			expect(error.message).toBe(
				`The ${NAME[kind]} did not answer in full within the Timeout (1 s) [item 0]`,
			);
			expect(result.ms).toBeGreaterThanOrEqual(950);
			expect(result.ms).toBeLessThan(1000 + LATE);
			expect(server.requests).toHaveLength(1);
			await until(() => server.requests[0].clientGoneAt !== undefined, LATE);
			const gone = server.requests[0].clientGoneAt! - server.requests[0].at;
			expect(gone).toBeGreaterThanOrEqual(900);
			expect(gone).toBeLessThan(1000 + LATE);
			expect(s.trigger.deliveries).toHaveLength(0);
		},
	);

	test.each(GETS)(
		'%s GET, Max Attempts 2: two requests, ends within 2 × Timeout + backoff',
		async (kind) => {
			const server = serverOf(s, kind);
			server.fail({ kind: 'trickle', intervalMs: 50 }, { kind: 'trickle', intervalMs: 50 });
			const result = await runNode(s, kind, {
				options: { timeout: 1000, maxAttempts: 2, retryDelay: 100, maxRetryWait: 5 },
			});
			const error = result.error(NODE)!;
			expect(error.message).toBe(
				`The ${NAME[kind]} did not answer in full within the Timeout (1 s) [item 0]`,
			);
			expect(error.description).toContain('gave up after 2 attempts');
			expect(server.requests).toHaveLength(2);
			expect(result.ms).toBeGreaterThanOrEqual(2000);
			expect(result.ms).toBeLessThan(2 * 1000 + 100 + LATE);
			await until(() => server.requests.every((r) => r.clientGoneAt !== undefined), LATE);
		},
	);

	test('Fire Automation without an Idempotency Key: a timeout is not retried (it may have fired)', async () => {
		s.trigger.fail({ kind: 'trickle', intervalMs: 50 });
		const result = await runNode(s, 'trigger', { options: { ...FAST, timeout: 1000 } });
		const error = result.error(NODE)!;
		expect(error.message).toBe(
			'The trigger service did not answer in full within the Timeout (1 s) [item 0]',
		);
		expect(error.description).toContain('The node did not retry: without an Idempotency Key');
		expect(s.trigger.requests).toHaveLength(1);
		expect(result.ms).toBeLessThan(1000 + LATE);
	});
});

/** Milliseconds of this process's CPU time since `from` */
function cpuSince(from: NodeJS.CpuUsage): number {
	const { user, system } = process.cpuUsage(from);
	return (user + system) / 1000;
}

describe('gzip bomb', () => {
	// built on zlib's threads, whose CPU time the process counts: done before anything is measured
	beforeAll(() => gzipBomb(GIB));
	test.each(KINDS)(
		'%s, 256 MiB inflated: too large at 16 MB, one request, memory bounded',
		async (kind) => {
			const server = serverOf(s, kind);
			server.fail({ kind: 'gzipBomb', inflatedBytes: 256 * MIB });
			const { value: result, peakGrowth } = await rssDuring(() => runNode(s, kind));
			expectTooLarge(result, kind);
			if (kind !== 'trigger')
				expect(result.error(NODE)!.description).toContain('It was not retried');
			expect(server.requests).toHaveLength(1);
			expect(peakGrowth).toBeLessThan(200 * MIB);
			expect(s.trigger.deliveries).toHaveLength(0);
		},
	);

	test('museum, 1 GiB inflated (default Max Response Size): same error, memory bounded', async () => {
		await gzipBomb(GIB);
		s.museum.fail({ kind: 'gzipBomb' });
		const cpu = process.cpuUsage();
		const { value: result, peakGrowth } = await rssDuring(() => runNode(s, 'museum'));
		const cpuMs = cpuSince(cpu);
		expect(result.error(NODE)!.message).toContain('larger than the Max Response Size (16 MB)');
		expect(s.museum.requests).toHaveLength(1);
		expect(peakGrowth).toBeLessThan(200 * MIB);
		// inflation stopped at 16 MB: CPU time, which load does not stretch (inflating 1 GiB takes about 9 s of it)
		expect(cpuMs).toBeLessThan(4000);
	});
});

/**
 * Refused past Max Response Size, except a call the trigger service accepted (2xx): that is a success whose text is
 * cut at the limit.
 */
function expectTooLarge(result: Awaited<ReturnType<typeof runNode>>, kind: Kind) {
	if (kind !== 'trigger') {
		expect(result.error(NODE)!.message).toBe(
			`The ${NAME[kind]}'s answer is larger than the Max Response Size (16 MB); it was not read further [item 0]`,
		);
		return expect(result.error(NODE)!.description).toContain('raise "Max Response Size"');
	}
	expect(result.error(NODE)).toBeUndefined();
	const [item] = items(result);
	expect(item).toMatchObject({ accepted: true, statusCode: 200, truncated: true });
	expect(Buffer.byteLength(String(item.text))).toBeLessThanOrEqual(16 * MIB);
	expect(String(item.text).length).toBeGreaterThan(15 * MIB);
}

/** A small valid answer of each service, for the padded (oversized) body. */
const DATA: Record<Kind, unknown> = {
	museum: {
		info: { totalrecords: 1, pages: 1, page: 1 },
		records: [{ objectid: 7, title: 'A Very Large Answer' }],
	},
	quotes: [{ _id: 'big', name: 'Big', slug: 'big', quoteCount: 1 }],
	trigger: { event: 'hostile', id: 'big-1', duplicate: false },
};

describe('oversized plain answer (20 MB)', () => {
	const cases = KINDS.flatMap((kind) => [false, true].map((chunked) => [kind, chunked] as const));

	test.each(cases)('%s, chunked %s: too large at 16 MB, one request', async (kind, chunked) => {
		const server = serverOf(s, kind);
		server.fail({ kind: 'oversized', bytes: 20 * MIB, chunked, data: DATA[kind] });
		const result = await runNode(s, kind, { options: FAST });
		expectTooLarge(result, kind);
		expect(server.requests).toHaveLength(1);
		// reading 16 MB through n8n's client takes seconds on a busy machine: bounded, not fast
		expect(result.ms).toBeLessThan(3000 + 2 * LATE);
		expect(s.trigger.deliveries).toHaveLength(0);
	});

	test.each(cases)(
		'%s, chunked %s, 17 MB with Max Response Size 32: read whole and mapped',
		async (kind, chunked) => {
			const server = serverOf(s, kind);
			server.fail({ kind: 'oversized', bytes: 17 * MIB, chunked, data: DATA[kind] });
			const result = await runNode(s, kind, { options: { ...FAST, maxResponseSize: 32 } });
			expect(result.error(NODE)).toBeUndefined();
			const out = items(result);
			expect(out).toHaveLength(1);
			if (kind === 'museum') expect(out[0]).toMatchObject({ title: 'A Very Large Answer' });
			if (kind === 'quotes') expect(out[0]).toMatchObject({ name: 'Big' });
			if (kind === 'trigger') expect(out[0]).toMatchObject({ event: 'hostile', id: 'big-1' });
			expect(server.requests).toHaveLength(1);
			expect(server.requests[0].clientGoneAt).toBeUndefined();
		},
	);
});

describe('half a body, then the connection drops', () => {
	test.each(GETS)(
		'%s GET: retried (default Max Attempts 3), then the real answer',
		async (kind) => {
			const server = serverOf(s, kind);
			server.fail({ kind: 'halfBody' });
			const result = await runNode(s, kind, { options: FAST });
			expect(result.error(NODE)).toBeUndefined();
			expect(items(result)).toHaveLength(3);
			expect(server.requests).toHaveLength(2);
		},
	);

	test.each(KINDS)('%s, Max Attempts 1: "cut off", one request', async (kind) => {
		const server = serverOf(s, kind);
		server.fail({ kind: 'halfBody' });
		const result = await runNode(s, kind, { options: { ...FAST, maxAttempts: 1 } });
		expect(result.error(NODE)!.message).toBe(
			`The ${NAME[kind]}'s answer was cut off: the transfer broke before the end [item 0]`,
		);
		expect(server.requests).toHaveLength(1);
	});

	test('Fire Automation without an Idempotency Key: one request, not retried, and the error says why', async () => {
		s.trigger.fail({ kind: 'halfBody' });
		const result = await runNode(s, 'trigger', { options: FAST });
		const error = result.error(NODE)!;
		expect(error.message).toBe(
			"The trigger service's answer was cut off: the transfer broke before the end [item 0]",
		);
		expect(error.description).toContain('the service may have acted on it already');
		expect(error.description).toContain('The node did not retry: without an Idempotency Key');
		expect(s.trigger.requests).toHaveLength(1);
		expect(s.trigger.deliveries).toHaveLength(0);
	});

	test('Fire Automation with an Idempotency Key: retried, delivered once', async () => {
		s.trigger.fail({ kind: 'halfBody' });
		const result = await runNode(s, 'trigger', { options: { ...FAST, idempotency: 'auto' } });
		expect(result.error(NODE)).toBeUndefined();
		expect(items(result)).toEqual([
			expect.objectContaining({ event: 'hostile', duplicate: false }),
		]);
		expect(s.trigger.requests).toHaveLength(2);
		expect(s.trigger.requests[1].headers['idempotency-key']).toBe(
			s.trigger.requests[0].headers['idempotency-key'],
		);
		expect(s.trigger.deliveries).toHaveLength(1);
	});
});
