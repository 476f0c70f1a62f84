import { KEY_PARAMETER } from '../services';
import { isPlainObject } from '../values';

const EXCERPT_LENGTH = 160;
const LONGEST_WORD = 40;
/** Service text is cut to this many characters before any pattern runs on it: bounded time on any answer. */
const MAX_TEXT = 4096;
/** The shortest piece of the key that is removed where it stands alone: what a cut could leave of it. */
const KEY_PIECE = 8;

export const cut = (text: string, length = MAX_TEXT): string => text.slice(0, length);
type Redact = (text: string) => string;

/** Removes the key and any piece of it (a cut may leave part), `apikey=` values, Bearer tokens; keys < 4 chars stay */
export function redactKey(text: string, apiKey: string): string {
	let out = text;
	const key = apiKey.length >= 4 ? formsOf(apiKey) : undefined;
	if (key && mayHold(text, key)) {
		for (const form of key.forms) {
			out = out.split(form).join('***');
			for (let at = 0; at + KEY_PIECE <= form.length; at++) {
				const piece = form.slice(at, at + KEY_PIECE);
				if (out.includes(piece)) out = removePieces(out, form, piece);
			}
		}
	}
	return out.replace(BEARER, '$1***').replace(KEY_IN_QUERY, '$1***');
}

const BEARER = /(Bearer\s+)[^\s"',;}]{1,4096}/gi;
const KEY_IN_QUERY = new RegExp(`(\\b${KEY_PARAMETER}=)[^&#\\s"',;}]{1,4096}`, 'gi');

/** The key's forms (as it is, URL-encoded, form-encoded, HTML-escaped), their pieces and code units, for the last key */
let known: { key: string; forms: string[]; pieces: Set<string>; units: Uint8Array } | undefined;
function formsOf(key: string) {
	if (known?.key === key) return known;
	const escaped = key.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
	const form = new URLSearchParams({ k: key }).toString().slice(2);
	const forms = [...new Set([key, encodeURIComponent(key), form, escaped])];
	// by code unit, as the text is searched (a character outside the BMP is two)
	const pieces = forms.flatMap((f) =>
		Array.from({ length: f.length }, (_, at) => f.slice(at, at + KEY_PIECE)),
	);
	const units = new Uint8Array(0x10000);
	for (const f of forms) for (let at = 0; at < f.length; at++) units[f.charCodeAt(at)] = 1;
	known = { key, forms, pieces: new Set(pieces.filter((p) => p.length === KEY_PIECE)), units };
	return known;
}

/** Whether `text` holds a form of the key or a piece of one: one pass, not one per piece. */
function mayHold(text: string, { forms, pieces, units }: NonNullable<typeof known>): boolean {
	if (forms.some((f) => f.length < KEY_PIECE && text.includes(f))) return true;
	// only a run of the key's own characters can hold a piece of it
	for (let at = 0, run = 0; at < text.length; at++) {
		run = units[text.charCodeAt(at)] ? run + 1 : 0;
		if (run >= KEY_PIECE && pieces.has(text.slice(at + 1 - KEY_PIECE, at + 1))) return true;
	}
	return false;
}

/**
 * The data with the key removed, walked only when its JSON text may hold the key or a credential: a key JSON writes as
 * it is (no quote, backslash or control character) shows there whole, unless the service escaped characters.
 */
export function redactData<T>(data: T, apiKey: string, json: string): T {
	const plain =
		JSON.stringify(apiKey) === `"${apiKey}"` && !HINT.test(json) && !json.includes('\\u');
	if (plain && apiKey.length >= 4 && !mayHold(json, formsOf(apiKey))) return data;
	return redactAll(data, (text) => redactKey(text, apiKey));
}
const HINT = new RegExp(`bearer|${KEY_PARAMETER}=`, 'i');

/** Replaces every run of text around `piece` that is a piece of `form` with "***". */
function removePieces(text: string, form: string, piece: string): string {
	let out = '';
	let from = 0;
	for (let at = text.indexOf(piece); at >= 0; at = text.indexOf(piece, from)) {
		let [start, end] = [at, at + piece.length];
		// widen the match while it is still a piece of the key
		while (start > from && form.includes(text.slice(start - 1, end))) start--;
		while (end < text.length && form.includes(text.slice(start, end + 1))) end++;
		out += `${text.slice(from, start)}***`;
		from = end;
	}
	return out + text.slice(from);
}

/** Every text in a value, object keys too, with the key removed; no recursion: JSON may nest past the call stack */
export function redactAll<T>(value: T, redact: Redact): T {
	const root: Record<string, unknown> = { value };
	const todo: Array<[Record<string, unknown>, string]> = [[root, 'value']];
	for (let next = todo.pop(); next; next = todo.pop()) {
		const [holder, at] = next;
		const inner = holder[at];
		let copy: unknown = inner;
		if (typeof inner === 'string') copy = redact(inner);
		else if (Array.isArray(inner)) copy = [...inner];
		// fromEntries defines own properties: a key such as "__proto__" stays data, and is then written as such
		else if (isPlainObject(inner))
			copy = Object.fromEntries(Object.entries(inner).map(([name, v]) => [redact(name), v]));
		if (copy === inner) continue;
		holder[at] = copy;
		if (typeof copy === 'object')
			for (const name of Object.keys(copy!)) todo.push([copy as Record<string, unknown>, name]);
	}
	return root.value as T;
}

/** What a service said, made safe to show: cut, the key removed, then cut to what is shown (a page: its title). */
export function shown(text: string, redact: Redact, length = EXCERPT_LENGTH, page = false) {
	const safe = redact(cut(text, MAX_TEXT * 2));
	// an error page says best in its title
	const title = page && /<title[^<>]{0,200}>([^<]{0,400})<\/title>/i.exec(cut(safe))?.[1];
	// and once more after the excerpt decodes entities: an HTML-escaped key is whole again only then
	return redact(title ? excerpt(title, 80) : excerpt(safe, length));
}

/** An excerpt for n8n's error panel: no tags, no phrase twice in a row, no word past `LONGEST_WORD` (it must wrap) */
export function excerpt(text: string, length = EXCERPT_LENGTH): string {
	const plain = cut(text)
		.replace(/<(script|style)[^>]{0,200}>[^]{0,4096}?<\/\1>/gi, ' ')
		.replace(/<[^<>]{0,200}>/g, ' ')
		.replace(/&nbsp;/g, ' ')
		.replace(/&amp;/g, '&')
		.replace(/&lt;/g, '<')
		.replace(/&gt;/g, '>')
		.replace(/\s+/g, ' ')
		.trim()
		// "502 Bad Gateway 502 Bad Gateway nginx" → "502 Bad Gateway nginx"
		.replace(/(\b.{3,80}?)(?: \1\b)+/g, '$1');
	const words = plain
		.split(' ')
		.map((word) => (word.length > LONGEST_WORD ? `${word.slice(0, LONGEST_WORD - 1)}…` : word));
	let out = '';
	for (const word of words) {
		if (out.length + word.length + 1 > length) return `${out}…`;
		out = out ? `${out} ${word}` : word;
	}
	return out;
}

/** What a page that is not JSON said, made safe to show: an HTML page's title (else an excerpt), or an excerpt. */
export function pageSaid(text: string, contentType: string, redact: Redact) {
	const html =
		/^\s*<(!doctype|html|head|body|\?xml)/i.test(cut(text, 200)) || /html/i.test(contentType);
	return { html, said: shown(text, redact, EXCERPT_LENGTH, html) };
}
