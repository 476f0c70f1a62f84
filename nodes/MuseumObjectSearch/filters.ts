import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { StyleEntry } from '../shared/services';
import { fieldError, show, toBoolean, toInteger, toText } from '../shared/fields';
import { isPlainObject } from '../shared/values';

/** Harvard's `colors[].hue` names */
const HUES = 'Black Blue Brown Green Grey Orange Red Violet White Yellow'.split(' ');

export type Colors = Record<'hexes' | 'hues', string[]>;

/** A filter, defined once: its field, its parameter (Harvard's name; none: only museums naming their own have it). */
export interface Filter {
	key: string;
	label: string;
	parameter?: string;
	field: Omit<INodeProperties, 'name' | 'displayName'>;
	/** Why a service without this filter refuses it (default: it has no such filter) */
	unsupported?: string;
	read(ctx: IExecuteFunctions, value: unknown, i: number): { value?: string; colors?: Colors };
}

const usual = (name: string) =>
	`Sent as "${name}", the name the Harvard Art Museums API uses (rename it under Options > Filter Parameter Names if your service uses another); the Art Institute of Chicago and Cleveland Museum of Art APIs get it in their own terms where they have it, and refuse it where they do not`;
const OPEN_ONLY =
	'For the Art Institute of Chicago and Cleveland Museum of Art APIs, in their own terms; the others have no such filter.';

const year = (key: string, label: string, when: string): Filter => ({
	key,
	label,
	field: {
		type: 'number',
		default: 1900,
		description: `Only works made in this year or ${when} (BCE: negative). ${OPEN_ONLY}`,
	},
	read: (ctx, value, i) =>
		value === undefined || value === ''
			? {}
			: { value: String(toInteger(ctx, value, label, i, -10000, 10000)) },
});

export const fromList = (method: string) => ({
	displayName: 'From List',
	name: 'list',
	type: 'list' as const,
	typeOptions: { searchListMethod: method, searchable: true },
});

/** A filter by name; one whose values a service lists also has From List (listSearch.ts). */
const named = (
	key: string,
	label: string,
	placeholder: string,
	description: string,
	method?: string,
	harvard = true,
): Filter => {
	const described = `${description} ${harvard ? `${usual(key)}.` : OPEN_ONLY}`;
	return {
		key,
		label,
		...(harvard ? { parameter: key } : {}),
		field: method
			? {
					type: 'resourceLocator',
					default: { mode: 'list', value: '' },
					description: described,
					modes: [
						fromList(method),
						{ displayName: 'By Name', name: 'name', type: 'string', placeholder },
					],
				}
			: { type: 'string', default: '', placeholder, description: described },
		read: (ctx, value, i) => {
			const name = method && isPlainObject(value) && '__rl' in value ? value.value : value;
			return { value: toText(ctx, name, label, i) || undefined };
		},
	};
};

export const FILTERS: Filter[] = [
	named(
		'person',
		'Artist',
		'e.g. Hokusai',
		'Name or ID of a person connected with the object, such as its artist. Several: separate them with | (any of them matches).',
	),
	named(
		'classification',
		'Classification',
		'e.g. Prints',
		"Kind of object, such as Paintings, Prints, Drawings, Photographs or Sculpture. Several: separate them with |. From List: Harvard's classifications, the Art Institute of Chicago's artwork types or the Cleveland Museum of Art's types.",
		'classifications',
	),
	{
		key: 'color',
		label: 'Color',
		parameter: 'color',
		field: {
			type: 'color',
			default: '',
			placeholder: 'e.g. #afaf4b',
			description: `A colour in the object's palette, as a hex value such as #afaf4b, or a hue name (${HUES.join(', ')}). With the Harvard Art Museums API the colour is snapped to its palette grid (each channel to the nearest multiple of 25, at most 250: Harvard matches palette colours exactly), and a hue searches the palette's hue names. Several: separate them with |. ${usual('color')}.`,
		},
		read: (ctx, value, i) => ({ colors: parseColors(ctx, value, i) }),
	},
	{
		key: 'hasImage',
		label: 'Has Image',
		parameter: 'hasimage',
		field: {
			type: 'boolean',
			default: true,
			description: `Whether to return only objects that have an image (sent as 1); off returns only objects without one (sent as 0). ${usual('hasimage')}.`,
		},
		read: (ctx, value, i) => ({
			value: value === undefined ? undefined : toBoolean(ctx, value, 'Has Image', i) ? '1' : '0',
		}),
	},
	named(
		'period',
		'Period',
		'e.g. Edo period',
		"Historical period or art movement, such as Edo period or Romanticism. Several: separate them with |. From List: Harvard's periods or the Art Institute of Chicago's styles (other services: By Name).",
		'periods',
	),
	named(
		'department',
		'Department',
		'e.g. Prints and Drawings',
		"The museum's curatorial department, by name (AIC also by ID, e.g. PC-10). From List: the Art Institute of Chicago's or Cleveland Museum of Art's departments.",
		'departments',
		false,
	),
	year('createdAfter', 'Created After', 'later'),
	year('createdBefore', 'Created Before', 'earlier'),
	{
		key: 'publicDomainOnly',
		label: 'Public Domain Only',
		unsupported: 'it does not say which works are in the public domain',
		field: {
			type: 'boolean',
			default: true,
			description:
				"Whether to return only works in the public domain: the Art Institute of Chicago's is_public_domain works, the Cleveland Museum of Art's CC0 works. The Harvard Art Museums API and generic services do not say, so they refuse it.",
		},
		read: (ctx, value, i) =>
			value !== undefined && toBoolean(ctx, value, 'Public Domain Only', i) ? { value: '1' } : {},
	},
];

/** The Color filter: hex colours (n8n's picker gives `#RRGGBBAA`) or hue names, several joined by `|`. */
function parseColors(ctx: IExecuteFunctions, value: unknown, i: number): Colors | undefined {
	if (value === undefined || value === null || (typeof value === 'string' && !value.trim())) return;
	const problem = `must be a hex color such as #afaf4b or a hue name such as Blue, not ${show(value)}`;
	const fix = 'Pick a colour with the colour picker, or type its hex value.';
	const bad = () => fieldError(ctx, '"Color"', i, problem, fix);
	if (typeof value !== 'string') throw bad();
	const colors: Colors = { hexes: [], hues: [] };
	for (const part of value.split('|').map((p) => p.trim())) {
		const hue = HUES.find((h) => h.toLowerCase() === part.toLowerCase());
		const hex = hue ? undefined : parseHexColor(part);
		if (hue) colors.hues.push(hue);
		else if (hex) colors.hexes.push(hex);
		else throw bad();
	}
	return colors;
}

/** The colours for the service: one with a palette matches colours exactly on its grid, and searches hues in `q`. */
export function colorQuery(
	ctx: IExecuteFunctions,
	{ hexes, hues }: Colors,
	i: number,
	{ palette }: StyleEntry,
) {
	if (hues.length && !palette) {
		const problem = `has the hue name ${show(hues[0])}, which this museum service cannot search`;
		const fix = 'Hue names work with the Harvard Art Museums API style; pick a colour instead.';
		throw fieldError(ctx, '"Color"', i, problem, fix);
	}
	const sent = hexes.map((hex) => (palette ? snapToPalette(hex, palette) : hex));
	const hue = hues.length === 1 ? hues[0] : `(${hues.join(' OR ')})`;
	return {
		color: sent.length ? [...new Set(sent)].join('|') : undefined,
		q: hues.length && palette ? `${palette.hueField}:${hue}` : undefined,
	};
}

/** A colour on a palette grid, each channel quantized as Harvard's colour service does (25: 00, 19, 32, 4b … fa). */
function snapToPalette(hex: string, { step, max }: { step: number; max: number }): string {
	const channels = [1, 3, 5].map((at) => parseInt(hex.slice(at, at + 2), 16));
	return hexOf(channels.map((c) => Math.min(max, Math.floor((c + step / 2 - 1) / step) * step)));
}

const hexOf = (channels: number[]) =>
	`#${channels.map((c) => c.toString(16).padStart(2, '0')).join('')}`;

/** One colour as lower-case `#rrggbb`, or `undefined` when it is not a colour. */
export function parseHexColor(text: string): string | undefined {
	const hex = /^#?([0-9a-f]{3}|[0-9a-f]{6}|[0-9a-f]{8})$/i.exec(text);
	if (hex) {
		const digits = hex[1].toLowerCase();
		return `#${(digits.length === 3 ? digits.replace(/./g, '$&$&') : digits).slice(0, 6)}`;
	}
	const rgb =
		/^rgba?\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d{1,3})\s*(?:,\s*[\d.]+%?\s*)?\)$/i.exec(text);
	const channels = rgb?.slice(1, 4).map(Number);
	return channels?.every((c) => c <= 255) ? hexOf(channels) : undefined;
}
