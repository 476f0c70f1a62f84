/** Redirects for each node: other origins never followed, same-origin chains, loops, CDN images. */
import { PNG_SIGNATURE, TINY_PNG } from '../servers';
import {
	FAST,
	GETS,
	KEY,
	KINDS,
	LABEL,
	NAME,
	NODE,
	items,
	pageLinking,
	pathOf,
	runNode,
	serverOf,
	useServices,
} from './setup';

const s = useServices();

describe('a redirect to another origin is not followed', () => {
	const cases = KINDS.flatMap((kind) =>
		([302, 307] as const).map((status) => [kind, status] as const),
	);

	test.each(cases)(
		'%s, HTTP %i: fails, names the new origin and the field to fix; the catcher sees nothing',
		async (kind, status) => {
			const server = serverOf(s, kind);
			const target = `${s.catcher.url}${pathOf(kind)}?moved=1`;
			server.fail({ kind: 'redirect', status, location: target });
			const result = await runNode(s, kind, { options: FAST });

			const error = result.error(NODE);
			expect(error).toBeDefined(); // museum does not return 0 items silently
			expect(result.workflowError).toBeDefined();
			expect(() => result.output(NODE)).not.toThrow();
			expect(result.output(NODE)).toEqual([]);
			expect(error!.message).toBe(
				`The ${NAME[kind]} redirected the request to another origin (${s.catcher.url}); it was not followed [item 0]`,
			);
			expect(error!.description).toBe(
				`The API key is only ever sent to the ${LABEL[kind]}'s own origin. If the service has moved, set the ${LABEL[kind]} in the Triptych API credentials to its new address (${target}).`,
			);
			expect(error!.httpCode).toBe(String(status));
			expect(s.catcher.requests).toHaveLength(0);
			expect(s.catcher.sawKey).toBe(0);
			expect(server.requests).toHaveLength(1); // not retried
			expect(server.requests[0].headers.authorization).toBe(`Bearer ${KEY}`);
			expect(s.trigger.deliveries).toHaveLength(0);
		},
	);

	test('a relative-looking location to another origin (//host:port/...) is refused too', async () => {
		const hostPort = s.catcher.url.replace(/^http:/, '');
		s.museum.fail({ kind: 'redirect', status: 301, location: `${hostPort}/object` });
		const result = await runNode(s, 'museum', { options: FAST });
		expect(result.error(NODE)?.message).toContain(`to another origin (${s.catcher.url})`);
		expect(s.catcher.requests).toHaveLength(0);
		expect(s.museum.requests).toHaveLength(1);
	});
});

describe('same-origin redirect chains are followed', () => {
	const getCases = GETS.flatMap((kind) =>
		([301, 302, 303, 307, 308] as const).map((status) => [kind, status] as const),
	);

	test.each(getCases)(
		'%s GET, HTTP %i: /x → /moved/x → /x?… then the answer, key kept on the origin',
		async (kind, status) => {
			const server = serverOf(s, kind);
			const path = pathOf(kind);
			server.fail(
				{ kind: 'redirect', status, location: `/moved${path}`, keepQuery: true },
				{ kind: 'redirect', status, location: `${server.url}${path}`, keepQuery: true },
			);
			const result = await runNode(s, kind, { options: FAST });
			expect(result.error(NODE)).toBeUndefined();
			expect(items(result)).toHaveLength(3);
			expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
				`GET ${path}`,
				`GET /moved${path}`,
				`GET ${path}`,
			]);
			const first = server.requests[0].query;
			expect(first.limit).toBe('3');
			for (const r of server.requests) {
				expect(r.query).toEqual(first);
				expect(r.headers.authorization).toBe(`Bearer ${KEY}`);
			}
		},
	);

	test.each([307, 308] as const)(
		'Fire Automation POST, HTTP %i: same method, body and headers; delivered once, at the final path',
		async (status) => {
			const path = pathOf('trigger');
			s.trigger.fail(
				{ kind: 'redirect', status, location: `/moved${path}`, keepQuery: true },
				{ kind: 'redirect', status, location: path, keepQuery: true },
			);
			const result = await runNode(s, 'trigger', {
				options: { ...FAST, idempotency: 'custom', idempotencyKey: 'redirect-1' },
				params: { payload: 'json', jsonBody: '{"order": 42, "note": "héllo"}', q: 'find me' },
			});
			expect(result.error(NODE)).toBeUndefined();
			expect(items(result)).toEqual([
				expect.objectContaining({ event: 'hostile', duplicate: false }),
			]);
			const reqs = s.trigger.requests;
			expect(reqs.map((r) => `${r.method} ${r.path}`)).toEqual([
				`POST ${path}`,
				`POST /moved${path}`,
				`POST ${path}`,
			]);
			expect(reqs[0].json).toEqual(expect.objectContaining({ order: 42, note: 'héllo' }));
			for (const r of reqs) {
				expect(r.body).toBe(reqs[0].body);
				expect(r.query).toEqual(reqs[0].query);
				expect(r.headers['content-type']).toBe(reqs[0].headers['content-type']);
				expect(r.headers['idempotency-key']).toBe('redirect-1');
				expect(r.headers.authorization).toBe(`Bearer ${KEY}`);
			}
			expect(s.trigger.deliveries).toHaveLength(1);
			expect(s.trigger.deliveries[0]).toMatchObject({
				event: 'hostile',
				idempotencyKey: 'redirect-1',
			});
		},
	);

	test('Fire Automation POST, HTTP 303: the next request is a GET without the body', async () => {
		s.trigger.fail(
			{ kind: 'redirect', status: 303, location: '/trigger/result/1' },
			{
				kind: 'status',
				status: 200,
				body: {
					status: 'success',
					data: { event: 'hostile', id: 'result-1' },
					message: 'See result',
				},
			},
		);
		const result = await runNode(s, 'trigger', {
			options: FAST,
			params: { payload: 'json', jsonBody: '{"order": 42}' },
		});
		expect(result.error(NODE)).toBeUndefined();
		expect(items(result)).toEqual([expect.objectContaining({ id: 'result-1' })]);
		const [post, get] = s.trigger.requests;
		expect(s.trigger.requests).toHaveLength(2);
		expect(post.method).toBe('POST');
		expect(post.json).toEqual({ order: 42 });
		expect(get.method).toBe('GET');
		expect(get.path).toBe('/trigger/result/1');
		expect(get.body).toBe('');
		expect(get.headers.authorization).toBe(`Bearer ${KEY}`);
		expect(s.trigger.deliveries).toHaveLength(0);
	});

	test.each([301, 302] as const)(
		'Fire Automation POST, HTTP %i: not followed (it would turn the POST into a GET)',
		async (status) => {
			s.trigger.fail({ kind: 'redirect', status, location: '/moved/trigger/hostile' });
			const result = await runNode(s, 'trigger', { options: FAST });
			const error = result.error(NODE)!;
			expect(error.message).toBe(
				`The trigger service redirected the request with HTTP ${status}, which would turn the POST into a GET without its body; it was not followed [item 0]`,
			);
			expect(error.description).toContain('Check the Trigger URL in the Triptych API credentials');
			expect(s.trigger.requests).toHaveLength(1);
			expect(s.trigger.deliveries).toHaveLength(0);
		},
	);
});

describe('redirect loops and long chains end with an error', () => {
	test.each(KINDS)(
		'%s: a redirect back to the same address is a loop (not retried)',
		async (kind) => {
			const server = serverOf(s, kind);
			server.setMode({ redirectAlways: { status: 307, location: pathOf(kind) } });
			const result = await runNode(s, kind, { options: FAST });
			const error = result.error(NODE)!;
			expect(error.message).toMatch(
				new RegExp(
					`^The ${NAME[kind]} redirected the request in a loop \\(back to ${pathOf(kind)}\\); it was not followed \\[item 0\\]$`,
				),
			);
			// the redirect points back at the address just asked for: noticed before a second request
			expect(server.requests.map((r) => r.path)).toEqual([pathOf(kind)]);
			expect(s.trigger.deliveries).toHaveLength(0);
		},
	);

	test.each(KINDS)('%s: more than 5 distinct hops', async (kind) => {
		const server = serverOf(s, kind);
		server.setMode({ redirectAlways: { status: 308, location: '/hop/{n}' } });
		const result = await runNode(s, kind, { options: FAST });
		expect(result.error(NODE)!.message).toContain(
			`The ${NAME[kind]} redirected the request more than 5 times (last to /hop/6)`,
		);
		expect(server.requests.map((r) => r.path)).toEqual([
			pathOf(kind),
			'/hop/1',
			'/hop/2',
			'/hop/3',
			'/hop/4',
			'/hop/5',
		]);
		expect(s.trigger.deliveries).toHaveLength(0);
	});
});

describe('image downloads', () => {
	test('a redirect to another origin (a CDN) is followed, and the CDN never sees the key', async () => {
		s.museum.fail(pageLinking(`${s.images.url}/images/1.png`));
		s.images.fail({ kind: 'redirect', status: 302, location: `${s.catcher.url}/cdn/1.png` });
		const result = await runNode(s, 'museum', { options: FAST, params: { downloadImages: true } });
		expect(result.error(NODE)).toBeUndefined();
		const out = result.output(NODE);
		expect(out).toHaveLength(1);
		const binary = Object.values(out[0].binary ?? {})[0];
		expect(binary).toBeDefined();
		const bytes = Buffer.from(binary.data, 'base64');
		expect(bytes.subarray(0, 8)).toEqual(PNG_SIGNATURE);
		expect(bytes).toEqual(TINY_PNG);
		expect(s.images.requests).toHaveLength(1);
		expect(s.images.authorizationSeen).toBe(false);
		expect(s.catcher.requests.map((r) => r.path)).toEqual(['/cdn/1.png']);
		expect(s.catcher.sawKey).toBe(0);
	});
});
