/**
 * A long key with URL-special characters, quoted back by services in every way they do: no piece of it (8 characters
 * or more, as is, URL- or form-encoded) shows in a run's output, errors or logs, nor in a credential test's message.
 * Cutting a service's text before redacting it leaves such pieces: the first 39 characters of a 64-character word.
 */
import type { Fault } from '../servers';
import { logs, testCredential, useServer } from '../harness/engine';
import { keyPieces } from '../museum/keys';
import { dump } from '../museum/setup';
import {
	loadMuseumRecords,
	startMuseumServer,
	startQuotesServer,
	startTriggerServer,
} from '../servers';
import { type Kind, KINDS, NODE, runNode, type Services, serverOf } from './setup';

const LONG_KEY = 'Tk7/Qz+Wm&Lp=Xc?Rv%Hb#Nj~Gd.Sf_Ka-Ye:Pu;Oi@Mn!Bq$Zr*Cs(Dt)Ew,Fx'.slice(0, 64);
const html = (text: string) =>
	text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const s = useServer(async () => {
	const servers = {
		museum: await startMuseumServer({
			records: loadMuseumRecords({ source: 'fixture' }),
			apiKey: LONG_KEY,
		}),
		quotes: await startQuotesServer({ envelope: true, requireKey: true, apiKey: LONG_KEY }),
		trigger: await startTriggerServer({ apiKey: LONG_KEY }),
	};
	const all = Object.values(servers);
	return Object.assign(servers as unknown as Services, {
		reset: () => all.forEach((server) => server.reset()),
		close: async () => void (await Promise.all(all.map((server) => server.close()))),
	});
});

const run = (kind: Kind) =>
	runNode(s, kind, {
		options: { retryDelay: 5, maxRetryWait: 1, maxAttempts: 1 },
		credentials: { apiKey: LONG_KEY },
		limitMs: 20_000,
	});
const leaks = (text: string) => keyPieces(text + JSON.stringify(logs), LONG_KEY);

/** How services quote the key back in an error. */
const ERRORS: Record<string, Fault> = {
	'the request headers echoed': { kind: 'echoHeaders', status: 400 },
	'in a sentence': {
		kind: 'status',
		status: 401,
		body: `Invalid API key ${LONG_KEY} for this plan`,
	},
	'in a JSON message': { kind: 'status', status: 403, body: { error: `key ${LONG_KEY} refused` } },
	'URL-encoded in a page': {
		kind: 'status',
		status: 404,
		body: `<html><body><pre>Cannot GET /x?apikey=${encodeURIComponent(LONG_KEY)}</pre></body></html>`,
		contentType: 'text/html',
	},
	'HTML-escaped in a title': {
		kind: 'status',
		status: 400,
		body: `<html><head><title>Refused: ${html(LONG_KEY)}</title></head><body>no</body></html>`,
		contentType: 'text/html',
	},
};

describe('errors that quote the key', () => {
	test.each(KINDS.flatMap((kind) => Object.keys(ERRORS).map((how) => [kind, how] as const)))(
		'%s, %s: no piece of the key in the run',
		async (kind, how) => {
			serverOf(s, kind).fail(ERRORS[how]);
			const result = await run(kind);
			expect(result.error(NODE)).toBeDefined();
			expect(leaks(dump(result))).toEqual([]);
		},
		30_000,
	);
});

test('a Fire Automation answer echoing the key: no piece of it in the output', async () => {
	s.trigger.fail({
		kind: 'status',
		status: 200,
		body: { ok: true, received: { authorization: `Bearer ${LONG_KEY}`, key: LONG_KEY } },
	});
	const result = await run('trigger');
	expect(result.error(NODE)).toBeUndefined();
	expect(leaks(dump(result))).toEqual([]);
}, 30_000);

describe('the credential test', () => {
	test.each(Object.keys(ERRORS))(
		'%s: no piece of the key in its message',
		async (how) => {
			s.museum.fail(ERRORS[how]);
			const result = await testCredential({ apiKey: LONG_KEY, museumUrl: s.museum.url });
			expect(result.status).toBe('Error');
			expect(leaks(result.message)).toEqual([]);
		},
		30_000,
	);
});
