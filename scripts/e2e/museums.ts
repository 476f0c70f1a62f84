/**
 * Museum Object Search's keyless styles in the real n8n: the Art Institute of Chicago API and the Cleveland Museum of
 * Art Open Access API, each against its stand-in, with a credential whose API Key is empty. Per style a search with
 * Download Images and a Get by the object page's address; on AIC, Return All up to its 1,000-result cap. Then, in the
 * server phase's running n8n (or one started for it), the credential Test of each; last, every request either stand-in
 * received: no Authorization, no key in the query or path; AIC's API requests carry AIC-User-Agent.
 */
import { version } from '../../package.json';
import {
	type AicServer,
	type ClevelandServer,
	type MuseumServer,
	type RecordedRequest,
	aicArtworksFrom,
	generateMuseumRecords,
	jpegSize,
	loadAicArtworks,
	loadClevelandArtworks,
	startAicServer,
	startClevelandServer,
} from '../../test/servers';
import {
	CREDENTIAL_TYPE,
	PACKAGE,
	type RunView,
	type WorkflowJson,
	oneNodeWorkflow,
	readWorkflow,
} from './scenarios';
import { type Check, ensure, fail, seconds } from './checks';
import { type Env, type Rest, startN8n } from './instance';
import { credentialTestMessage } from './n8n';

type Credential = { id: string; name: string };
type Hint = { message?: string };
/** The run document `n8n execute --rawOutput` prints, as far as this phase reads it: the hints of each node's run */
export type MuseumRunDocument = {
	data: { resultData: { runData: Record<string, Array<{ hints?: Hint[] }>> } };
};

export const MUSEUM_CREDENTIALS = {
	aic: { id: 'e2eTriptychAic01', name: 'Art Institute of Chicago API (e2e, no key)' },
	cleveland: { id: 'e2eTriptychCma01', name: 'Cleveland Museum of Art API (e2e, no key)' },
} as const;
type Style = keyof typeof MUSEUM_CREDENTIALS;
const MUSEUM_API: Record<Style, string> = { aic: 'artic', cleveland: 'cleveland' };

/** AIC's deep-paging cap for anonymous callers: from + size past it is refused with 403 */
const AIC_CAP = 1000;
/** More AIC works than the cap: the fixture's own and generated ones */
const AIC_EXTRA = 1200;

const WORKFLOWS = {
	aicSearch: { id: 'e2eMuseumAicSrch', style: 'aic', node: 'AIC Search' },
	aicGet: { id: 'e2eMuseumAicGet0', style: 'aic', node: 'AIC Get by URL' },
	aicAll: { id: 'e2eMuseumAicAll0', style: 'aic', node: 'AIC Return All' },
	cmaSearch: { id: 'e2eMuseumCmaSrch', style: 'cleveland', node: 'Cleveland Search' },
	cmaGet: { id: 'e2eMuseumCmaGet0', style: 'cleveland', node: 'Cleveland Get by URL' },
} as const;
type WorkflowKey = keyof typeof WORKFLOWS;

/** The README's recipe for the open museums: Harvard, AIC and Cleveland searched, one credential each, merged */
const EXAMPLE = {
	id: 'e2eMuseumThree00',
	file: 'examples/public-domain-three-museums.json',
	out: 'One Item per Work',
	/** The example's placeholder credential ids, by the museum its node searches */
	placeholders: {
		REPLACE_WITH_YOUR_HARVARD_CREDENTIAL_ID: 'Harvard Art Museums',
		REPLACE_WITH_YOUR_AIC_CREDENTIAL_ID: 'Art Institute of Chicago',
		REPLACE_WITH_YOUR_CLEVELAND_CREDENTIAL_ID: 'Cleveland Museum of Art',
	} as Record<string, string>,
	limit: 5,
};

/** A search that finds works with an image and one without (31877 has no image_id) */
const AIC_QUERY = 'harbor border cats';
const AIC_GET = { id: 90044, page: 'https://www.artic.edu/artworks/90044/cats-on-a-rooftop-night' };
/** Cleveland's first five: works with web images and Copyrighted ones without */
const CMA_LIMIT = 5;
const CMA_GET = { accession: '2011.88', page: 'https://www.clevelandart.org/art/2011.88' };
/** The one request each credential Test sends */
const AIC_TEST = 'GET /api/v1/artworks/search?limit=1&fields=id';
const CMA_TEST = 'GET /api/artworks/?limit=1';

const SIMPLIFIED = [
	'id',
	'title',
	'artist',
	'date',
	'imageUrl',
	'url',
	'creditLine',
	'publicDomain',
];

const PARAMETERS: Record<WorkflowKey, Record<string, unknown>> = {
	aicSearch: { q: AIC_QUERY, limit: 10, downloadImages: true, options: {} },
	aicGet: {
		operation: 'get',
		objectId: { __rl: true, mode: 'url', value: AIC_GET.page },
		downloadImages: true,
		options: {},
	},
	aicAll: { q: '', returnAll: true, options: {} },
	cmaSearch: { q: '', limit: CMA_LIMIT, downloadImages: true, options: {} },
	cmaGet: {
		operation: 'get',
		objectId: { __rl: true, mode: 'url', value: CMA_GET.page },
		downloadImages: true,
		options: {},
	},
};

export interface MuseumStandIns {
	aic: AicServer;
	cleveland: ClevelandServer;
	close(): Promise<void>;
}

export async function startMuseumStandIns(): Promise<MuseumStandIns> {
	const aicWorks = [
		...loadAicArtworks({ source: 'fixture' }),
		...aicArtworksFrom(generateMuseumRecords(AIC_EXTRA)),
	];
	const aic = await startAicServer({ artworks: aicWorks });
	const cleveland = await startClevelandServer({
		artworks: loadClevelandArtworks({ source: 'fixture' }),
	});
	return {
		aic,
		cleveland,
		close: async () => void (await Promise.all([aic.close(), cleveland.close()])),
	};
}

/** The credential data of a style: the museum's address and API, the API Key left empty, no other service. */
function museumData(s: MuseumStandIns, style: Style, apiKey = '') {
	const museumUrl = style === 'aic' ? s.aic.apiUrl : s.cleveland.apiUrl;
	return { apiKey, museumUrl, museumApi: MUSEUM_API[style] };
}

/** The credentials as `n8n import:credentials` takes them. */
export function museumCredentials(s: MuseumStandIns) {
	return (Object.keys(MUSEUM_CREDENTIALS) as Style[]).map((style) => ({
		...MUSEUM_CREDENTIALS[style],
		type: CREDENTIAL_TYPE,
		data: museumData(s, style),
	}));
}

/**
 * The workflows: Manual Trigger → one Museum Object Search; and the three-museums example, its placeholders pointing
 * at these credentials and `harvard` (a credential for the Harvard Art Museums API stand-in).
 */
export function museumWorkflows(harvard: Credential): WorkflowJson[] {
	const example = readWorkflow(EXAMPLE.file);
	const byPlaceholder: Record<string, Credential> = {
		REPLACE_WITH_YOUR_HARVARD_CREDENTIAL_ID: harvard,
		REPLACE_WITH_YOUR_AIC_CREDENTIAL_ID: MUSEUM_CREDENTIALS.aic,
		REPLACE_WITH_YOUR_CLEVELAND_CREDENTIAL_ID: MUSEUM_CREDENTIALS.cleveland,
	};
	for (const node of example.nodes) {
		const reference = node.credentials?.[CREDENTIAL_TYPE];
		if (reference)
			node.credentials![CREDENTIAL_TYPE] =
				byPlaceholder[reference.id] ?? fail(`${EXAMPLE.file}: credential ${reference.id}`);
	}
	Object.assign(example, { id: EXAMPLE.id, active: false });
	const own = (Object.keys(WORKFLOWS) as WorkflowKey[]).map((key): WorkflowJson => {
		const { id, style, node } = WORKFLOWS[key];
		const museum = { name: node, type: 'museumObjectSearch', parameters: PARAMETERS[key] };
		const credentials = { [CREDENTIAL_TYPE]: MUSEUM_CREDENTIALS[style] as Credential };
		return oneNodeWorkflow(id, `e2e museum: ${node}`, museum, credentials, {
			executionOrder: 'v1',
		});
	});
	return [example, ...own];
}

// ------------------------------------------------------------------------------------------------ checks

const request = (r: RecordedRequest) =>
	`${r.method} ${r.path}${Object.keys(r.query).length ? `?${new URLSearchParams(r.query as Record<string, string>)}` : ''}`;

/** A key in a query parameter's name, or a path that carries one (…/key/…) */
const KEY_PARAMETER = /^(api_?key|key|token|access_token|auth)$/i;

/** Why a request carried a key or credentials, if it did. */
function keyProblem(r: RecordedRequest, secrets: string[]): string | undefined {
	if (r.headers.authorization !== undefined) return `Authorization: ${r.headers.authorization}`;
	const named = Object.keys(r.query).find((name) => KEY_PARAMETER.test(name));
	if (named) return `the query parameter "${named}"`;
	if (/\/key(\/|$)/i.test(r.path)) return 'a key segment in the path';
	const sent = JSON.stringify([r.path, r.query, r.headers, r.body]);
	const secret = secrets.find(
		(s) => sent.includes(s) || sent.includes(encodeURIComponent(s)) || r.path.includes(s),
	);
	return secret ? `a credential's key ("${secret.slice(0, 4)}…")` : undefined;
}

export async function museumPhase(r: {
	standIns: MuseumStandIns;
	check: Check;
	/** The prepared n8n, for an `n8n start` that runs the credential Test */
	instance: Env;
	/** The API Key of the instance's other credentials: it must never reach these stand-ins either */
	otherKey: string;
	/** The Harvard Art Museums API stand-in the example's Harvard credential points at, which takes `otherKey` */
	harvard: MuseumServer;
	/** `n8n execute` of a workflow that succeeded: its run, the document n8n printed, the time it took */
	run(id: string): Promise<{ view: RunView; document: MuseumRunDocument; ms: number }>;
}): Promise<(app?: { rest: Rest }) => Promise<void>> {
	const { aic, cleveland } = r.standIns;
	const testKey = 'museum-key-that-must+never/be-sent';
	/** Every request either stand-in received in this phase, with the check it belongs to */
	const seen: Array<{ style: Style; during: string; request: RecordedRequest }> = [];
	/** Runs a workflow; the stand-ins' log is kept for the last check. */
	const execute = async (key: WorkflowKey) => {
		const { id, node } = WORKFLOWS[key];
		try {
			const result = await r.run(id);
			ensure(result.view.error === undefined, `the workflow failed: ${result.view.error}`);
			const runs = result.document.data.resultData.runData[node] ?? [];
			const hints = runs.flatMap((run) => run.hints ?? []).map((h) => String(h.message));
			return { ...result, items: result.view.items(node), hints };
		} finally {
			seen.push(
				...[
					...aic.requests.map((request) => ({ style: 'aic' as const, during: key, request })),
					...cleveland.requests.map((request) => ({
						style: 'cleveland' as const,
						during: key,
						request,
					})),
				],
			);
		}
	};
	const fresh = () => {
		aic.reset();
		cleveland.reset();
	};

	const aicWork = (id: unknown) => aic.artworks.find((a) => a.id === id);
	const cmaWork = (id: unknown) => cleveland.artworks.find((a) => a.id === id);

	/**
	 * Simplified fields present, and what they say matches the stand-in's record. Returns, for a record with an image,
	 * the image's address on the stand-in and the name its JPEG carries (image_id, or the accession number).
	 */
	const simplified = (style: Style, json: Record<string, unknown>) => {
		const missing = SIMPLIFIED.filter((field) => !(field in json));
		ensure(!missing.length, `item ${json.id} lacks ${missing.join(', ')}: ${JSON.stringify(json)}`);
		if (style === 'aic') {
			const work = aicWork(json.id);
			ensure(work, `item ${json.id} is no work of the AIC stand-in`);
			ensure(json.title === work.title, `${json.id}: title ${JSON.stringify(json.title)}`);
			ensure(
				json.url === `https://www.artic.edu/artworks/${work.id}`,
				`${json.id}: url ${JSON.stringify(json.url)}`,
			);
			ensure(json.publicDomain === work.is_public_domain, `${json.id}: publicDomain`);
			ensure(json.creditLine === (work.credit_line ?? null), `${json.id}: creditLine`);
			ensure(
				work.image_id
					? String(json.imageUrl).startsWith(`${aic.iiifUrl}/${work.image_id}/full/`)
					: json.imageUrl === null,
				`${json.id}: imageUrl ${JSON.stringify(json.imageUrl)} for image_id ${work.image_id}`,
			);
			const iiif = `${aic.iiifUrl.replace(aic.url, '')}/${work.image_id}/`;
			return work.image_id ? { path: iiif, name: work.image_id } : undefined;
		}
		const work = cmaWork(json.id);
		ensure(work, `item ${json.id} is no work of the Cleveland stand-in`);
		ensure(json.title === work.title, `${json.id}: title ${JSON.stringify(json.title)}`);
		ensure(json.url === work.url, `${json.id}: url ${JSON.stringify(json.url)}`);
		ensure(
			json.publicDomain === (work.share_license_status === 'CC0'),
			`${json.id}: publicDomain ${json.publicDomain} for ${work.share_license_status}`,
		);
		ensure(json.creditLine === (work.creditline ?? null), `${json.id}: creditLine`);
		const web = work.images?.web
			? `/${work.accession_number}/${work.accession_number}_web.jpg`
			: '';
		ensure(
			web ? json.imageUrl === `${cleveland.cdnUrl}${web}` : json.imageUrl === null,
			`${json.id}: imageUrl ${JSON.stringify(json.imageUrl)}`,
		);
		return web ? { path: web, name: work.accession_number } : undefined;
	};

	/**
	 * Download Images: each item whose record has an image holds that image's JPEG in `data`, fetched from its address;
	 * an item without one holds no binary data. Returns "with image / without" counts.
	 */
	const images = (
		style: Style,
		view: RunView,
		items: Awaited<ReturnType<typeof execute>>['items'],
	) => {
		const asked = (style === 'aic' ? aic.imageRequests : cleveland.imageRequests).map(
			(q) => q.path,
		);
		let withImage = 0;
		for (const item of items) {
			const source = simplified(style, item.json);
			if (!source) {
				ensure(
					item.binary === undefined || Object.keys(item.binary).length === 0,
					`${item.json.id} has no image but binary data ${Object.keys(item.binary ?? {})}`,
				);
				continue;
			}
			withImage++;
			const bytes = item.binary?.data && view.binaryBytes?.(item, 'data');
			ensure(bytes, `${item.json.id} has an image but no binary data "data"`);
			ensure(
				item.binary!.data.mimeType === 'image/jpeg',
				`${item.json.id}: ${item.binary!.data.mimeType}`,
			);
			ensure(
				jpegSize(bytes) && bytes.toString('latin1').includes(`${source.name}@`),
				`${item.json.id}: the binary data is not the stand-in's JPEG of ${source.name}`,
			);
			ensure(
				asked.some((p) => p.startsWith(source.path)),
				`${item.json.id}: no request for ${source.path} (asked: ${asked.join(', ')})`,
			);
		}
		ensure(asked.length === withImage, `${asked.length} image requests for ${withImage} images`);
		return { withImage, without: items.length - withImage };
	};

	await r.check(
		`museum: AIC Search ("${AIC_QUERY}"), Simplified, Download Images, keyless credential`,
		async () => {
			fresh();
			const run = await execute('aicSearch');
			const searches = aic.apiRequests.filter((q) => q.path === '/api/v1/artworks/search');
			ensure(
				searches.length === 1 && aic.apiRequests.length === 1,
				`requests: ${aic.apiRequests.map(request)}`,
			);
			ensure(searches[0].query.q === AIC_QUERY, `q=${searches[0].query.q}`);
			ensure(run.items.length > 0, 'no items');
			const { withImage, without } = images('aic', run.view, run.items);
			ensure(withImage > 0 && without > 0, `${withImage} with an image, ${without} without`);
			return [
				`${request(searches[0])}: ${run.items.length} items with ${SIMPLIFIED.join(', ')}, as the stand-in's records say`,
				`Download Images: ${withImage} JPEGs from /iiif/2/{image_id}/full/…; ${without} work(s) without image_id, no binary data (n8n execute ${seconds(run.ms)})`,
			];
		},
	);

	await r.check('museum: AIC Get by URL (an object page with its slug), its image', async () => {
		fresh();
		const run = await execute('aicGet');
		const paths = aic.apiRequests.map((q) => q.path);
		ensure(
			paths.length === 1 && paths[0] === `/api/v1/artworks/${AIC_GET.id}`,
			`requests: ${paths}`,
		);
		ensure(run.items.length === 1 && run.items[0].json.id === AIC_GET.id, 'not one item of it');
		const { withImage } = images('aic', run.view, run.items);
		ensure(withImage === 1, 'no image downloaded');
		return [
			`${AIC_GET.page} → GET /api/v1/artworks/${AIC_GET.id} → "${run.items[0].json.title}", its JPEG as binary data`,
		];
	});

	await r.check(
		`museum: AIC Return All stops at the ${AIC_CAP}-result cap, with a hint`,
		async () => {
			fresh();
			const run = await execute('aicAll');
			const searches = aic.apiRequests;
			ensure(
				searches.every((q) => q.path === '/api/v1/artworks/search'),
				`other requests: ${searches.map(request)}`,
			);
			// the stand-in refuses (403) a page whose from + size passes the cap, as AIC does
			const past = searches.filter((q) => {
				const size = Number(q.query.size ?? q.query.limit ?? 10);
				const from =
					q.query.from !== undefined ? Number(q.query.from) : (Number(q.query.page) - 1) * size;
				return size > 100 || from + size > AIC_CAP;
			});
			ensure(!past.length, `requests past the cap (answered 403): ${past.map(request)}`);
			const ids = run.items.map((i) => i.json.id);
			ensure(ids.length === AIC_CAP, `${ids.length} items, expected ${AIC_CAP}`);
			ensure(new Set(ids).size === AIC_CAP, `${new Set(ids).size} distinct works`);
			const more = aic.artworks.length - AIC_CAP;
			const hint = run.hints.find((h) => h.includes('first 1,000 results'));
			ensure(
				run.hints.length === 1 && hint?.includes(`${more} more matching objects`),
				`the hints: ${JSON.stringify(run.hints)}`,
			);
			const pages = searches.map((q) => `${q.query.page}×${q.query.limit}`).join(', ');
			return [
				`${ids.length} distinct works of ${aic.artworks.length} in ${searches.length} requests (page×limit: ${pages}); none past from + size ${AIC_CAP}`,
				`the run's hint: "${hint}" (n8n execute ${seconds(run.ms)})`,
			];
		},
	);

	await r.check(
		'museum: Cleveland Search, Simplified, Download Images (images.web), keyless credential',
		async () => {
			fresh();
			const run = await execute('cmaSearch');
			const asked = cleveland.apiRequests;
			ensure(
				asked.length === 1 && asked[0].path === '/api/artworks/',
				`requests: ${asked.map(request)}`,
			);
			ensure(asked[0].query.limit === String(CMA_LIMIT), `limit=${asked[0].query.limit}`);
			ensure(run.items.length === CMA_LIMIT, `${run.items.length} items, not ${CMA_LIMIT}`);
			const { withImage, without } = images('cleveland', run.view, run.items);
			ensure(withImage > 0 && without > 0, `${withImage} with an image, ${without} without`);
			return [
				`${request(asked[0])}: ${run.items.length} items with ${SIMPLIFIED.join(', ')}, as the stand-in's records say`,
				`Download Images: ${withImage} JPEGs from /{accession}/{accession}_web.jpg; ${without} Copyrighted work(s) without images, no binary data (n8n execute ${seconds(run.ms)})`,
			];
		},
	);

	await r.check('museum: Cleveland Get by URL (an object page), its image', async () => {
		fresh();
		const run = await execute('cmaGet');
		const paths = cleveland.apiRequests.map((q) => q.path);
		ensure(
			paths.length === 1 && paths[0] === `/api/artworks/${CMA_GET.accession}`,
			`requests: ${paths}`,
		);
		const work = cleveland.artworks.find((a) => a.accession_number === CMA_GET.accession)!;
		ensure(run.items.length === 1 && run.items[0].json.id === work.id, 'not one item of it');
		const { withImage } = images('cleveland', run.view, run.items);
		ensure(withImage === 1, 'no image downloaded');
		return [
			`${CMA_GET.page} → GET /api/artworks/${CMA_GET.accession} → "${run.items[0].json.title}" (id ${work.id}), its web JPEG as binary data`,
		];
	});

	await r.check(
		'museum: the example "Public domain art from three museums" (Harvard, AIC, Cleveland)',
		async () => {
			fresh();
			r.harvard.reset();
			const result = await r.run(EXAMPLE.id);
			seen.push(
				...aic.requests.map((request) => ({ style: 'aic' as const, during: 'example', request })),
				...cleveland.requests.map((request) => ({
					style: 'cleveland' as const,
					during: 'example',
					request,
				})),
			);
			ensure(result.view.error === undefined, `the workflow failed: ${result.view.error}`);
			const works = result.view.items(EXAMPLE.out).map((i) => i.json);
			const from = (museum: string) => works.filter((w) => w.museum === museum);
			const harvard = from('Harvard Art Museums');
			const aicOut = from('Art Institute of Chicago');
			const cmaOut = from('Cleveland Museum of Art');
			ensure(
				harvard.length > 0 && harvard.length <= EXAMPLE.limit,
				`${harvard.length} Harvard works`,
			);
			ensure(aicOut.length === EXAMPLE.limit, `${aicOut.length} AIC works, not ${EXAMPLE.limit}`);
			const cc0 = cleveland.artworks.filter(
				(a) => a.share_license_status === 'CC0' && a.images?.web,
			);
			const cmaExpected = Math.min(EXAMPLE.limit, cc0.length);
			ensure(cmaOut.length === cmaExpected, `${cmaOut.length} Cleveland works, not ${cmaExpected}`);
			ensure(
				works.length === harvard.length + aicOut.length + cmaOut.length,
				`works of other museums: ${works.length}`,
			);
			for (const w of [...aicOut, ...cmaOut]) {
				const style = aicOut.includes(w) ? 'aic' : 'cleveland';
				const { museum, ...json } = w;
				ensure(simplified(style, json), `${museum} ${w.id} has no image`);
				ensure(w.publicDomain === true, `${museum} ${w.id} is not in the public domain`);
			}
			ensure(
				harvard.every((w) => typeof w.imageUrl === 'string'),
				'a Harvard work without imageUrl',
			);
			const aicSearch = aic.apiRequests[0]?.query ?? {};
			ensure(
				Object.entries(aicSearch).some(
					([k, v]) => k.endsWith('[is_public_domain]') && v === 'true',
				),
				`AIC was not asked for public domain works: ${JSON.stringify(aicSearch)}`,
			);
			const cmaSearch = cleveland.apiRequests[0]?.query ?? {};
			ensure(
				cmaSearch.cc0 === '1' && cmaSearch.has_image === '1',
				`Cleveland was not asked for CC0 works with images: ${JSON.stringify(cmaSearch)}`,
			);
			const keyed = r.harvard.requests.filter((q) => q.query.apikey === r.otherKey);
			ensure(
				r.harvard.requests.length > 0 && keyed.length === r.harvard.requests.length,
				`Harvard requests with the key as apikey: ${keyed.length} of ${r.harvard.requests.length}`,
			);
			return [
				`${works.length} items out of "${EXAMPLE.out}": ${harvard.length} Harvard, ${aicOut.length} AIC, ${cmaOut.length} Cleveland`,
				`AIC and Cleveland works public domain, each with its image address; AIC asked for is_public_domain, Cleveland for cc0 and has_image`,
				`the key went to Harvard as apikey only (n8n execute ${seconds(result.ms)})`,
			];
		},
	);

	const testCredentials = async (rest: Rest) => {
		const lines: string[] = [];
		for (const style of ['aic', 'cleveland'] as const) {
			const stand = style === 'aic' ? aic : cleveland;
			const probe = style === 'aic' ? AIC_TEST : CMA_TEST;
			for (const apiKey of ['', testKey]) {
				stand.reset();
				const data = museumData(r.standIns, style, apiKey);
				const answer = await rest.call('POST', '/rest/credentials/test', {
					credentials: { ...MUSEUM_CREDENTIALS[style], type: CREDENTIAL_TYPE, data },
				});
				const during = `credential Test (${style}${apiKey ? ', a key filled in' : ''})`;
				seen.push(...stand.requests.map((request) => ({ style, during, request })));
				ensure(answer.status === 200, `credentials/test answered ${answer.status}: ${answer.text}`);
				const verdict = (answer.json?.data ?? answer.json) as { status: string; message: string };
				const expected = credentialTestMessage(data, 200);
				ensure(
					verdict.status === 'OK' && verdict.message === expected,
					`${during} → ${JSON.stringify(verdict)}, expected OK "${expected}"`,
				);
				const asked = stand.requests.map(request);
				ensure(
					asked.length === 1 && asked[0] === probe,
					`${during} sent ${asked.join(', ') || 'nothing'}, expected ${probe}`,
				);
				if (apiKey === '')
					lines.push(`${MUSEUM_CREDENTIALS[style].name}: OK "${verdict.message}" (${probe})`);
			}
		}
		lines.push('with an API Key filled in: OK too, the same one request each');
		return lines;
	};

	/** The credential Test and the check of every request: in the given running n8n, or in one started for them. */
	return async (app?: { rest: Rest }) => {
		await r.check(
			'museum: the credential Test, AIC and Cleveland with no key (and with one: never sent)',
			async () => {
				fresh();
				if (app) return testCredentials(app.rest);
				const t0 = Date.now();
				const { rest, server } = await startN8n(r.instance, 'E2e');
				try {
					const started = `n8n start (listening after ${seconds(Date.now() - t0)})`;
					return [started, ...(await testCredentials(rest))];
				} finally {
					await server.stop();
				}
			},
		);

		await r.check(
			'museum: no key reached the AIC or Cleveland stand-in; AIC got AIC-User-Agent',
			async () => {
				const secrets = [r.otherKey, testKey];
				const leaks = seen
					.map((s) => ({ ...s, problem: keyProblem(s.request, secrets) }))
					.filter((s) => s.problem);
				ensure(
					!leaks.length,
					leaks
						.slice(0, 10)
						.map((s) => `${s.style} (${s.during}) ${request(s.request)}: ${s.problem}`)
						.join('\n'),
				);
				const aicApi = seen.filter((s) => s.style === 'aic' && s.request.path.startsWith('/api/'));
				const agent = new RegExp(`^${PACKAGE}/${version.replace(/\./g, '\\.')} `);
				const without = aicApi.filter(
					(s) => !agent.test(String(s.request.headers['aic-user-agent'])),
				);
				ensure(
					!without.length,
					`AIC API requests without AIC-User-Agent "${PACKAGE}/${version} …": ${without
						.slice(0, 5)
						.map(
							(s) => `${request(s.request)} (${s.during}): ${s.request.headers['aic-user-agent']}`,
						)}`,
				);
				const count = (style: Style) => seen.filter((s) => s.style === style).length;
				const agents = new Set(aicApi.map((s) => s.request.headers['aic-user-agent']));
				const iiif = seen.filter((s) => s.style === 'aic' && s.request.path.startsWith('/iiif/'));
				const iiifAgent = iiif.filter((s) => s.request.headers['aic-user-agent'] !== undefined);
				return [
					`${count('aic')} requests at AIC, ${count('cleveland')} at Cleveland (API and images, runs and credential Tests): no Authorization, no key parameter or path, no credential's key`,
					`AIC-User-Agent on all ${aicApi.length} AIC API requests: ${[...agents].join(' | ')}`,
					`IIIF image requests carrying it: ${iiifAgent.length} of ${iiif.length}`,
				];
			},
		);
	};
}
