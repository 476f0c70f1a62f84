/** The key scan of the tests: the forms the key travels in, and the pieces of it a text shows. */

/** The forms the key travels in: as is, URL-encoded (a path) and form-encoded (a query string). */
export const keyForms = (key: string) => [
	...new Set([key, encodeURIComponent(key), new URLSearchParams({ k: key }).toString().slice(2)]),
];

/** Pieces this short may occur by chance; a longer piece of the key is a leak (a key shorter than this: whole). */
export const PIECE = 8;

/**
 * The pieces of the key that `text` shows: each longest run of consecutive characters of one of its forms, at least
 * PIECE long, with a little of the text around it (a key cut short, or partly redacted, still leaks its start).
 */
export function keyPieces(text: string, key: string): string[] {
	const found: string[] = [];
	for (const form of keyForms(key)) {
		const n = Math.min(PIECE, form.length);
		for (let start = 0; start + n <= form.length; start++) {
			let end = start + n;
			if (!text.includes(form.slice(start, end))) continue;
			while (end < form.length && text.includes(form.slice(start, end + 1))) end++;
			const piece = form.slice(start, end);
			const at = text.indexOf(piece);
			found.push(`${piece} in "${text.slice(Math.max(0, at - 40), at + piece.length + 20)}"`);
			start = end - 1; // the next run starts past this one
		}
	}
	return found;
}
