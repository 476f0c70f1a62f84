import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { fieldError, show, toBoolean, toText } from '../shared/validation';

/**
 * The museum filters, each defined once: its field in Filters, the query parameter it is sent as (the names the
 * best-known museum API, Harvard Art Museums' GET /object, uses; the service documents only `q` and `limit`), its
 * entry in Filter Parameter Names, and how its value is read and checked. Adding a filter is adding an entry here.
 */
export interface Filter {
	/** Field name in the Filters collection */
	key: string;
	label: string;
	/** Query parameter it is sent as, unless renamed under Filter Parameter Names */
	parameter: string;
	/** The field (without name and displayName, which come from key and label) */
	field: Omit<INodeProperties, 'name' | 'displayName'>;
	/** The value to send, checked; `undefined` = not sent */
	read(ctx: IExecuteFunctions, value: unknown, itemIndex: number): string | undefined;
}

const undocumented = (name: string) =>
	`Sent as "${name}", the name the best-known museum API uses (the service does not document it): rename it under Filter Parameter Names if your service uses another`;

const text = (key: string, label: string, placeholder: string, description: string): Filter => ({
	key,
	label,
	parameter: key,
	field: {
		type: 'string',
		default: '',
		placeholder,
		description: `${description} ${undocumented(key)}.`,
	},
	read: (ctx, value, i) => toText(ctx, value, label, i) || undefined,
});

export const FILTERS: Filter[] = [
	text(
		'person',
		'Artist',
		'e.g. Hokusai',
		'Name or ID of a person connected with the object, such as its artist. Several: separate them with | (any of them matches).',
	),
	text(
		'classification',
		'Classification',
		'e.g. Prints',
		'Kind of object, such as Paintings, Prints, Drawings, Photographs or Sculpture. Several: separate them with |.',
	),
	{
		key: 'color',
		label: 'Color',
		parameter: 'color',
		field: {
			type: 'color',
			default: '',
			placeholder: 'e.g. #afaf4b',
			description: `A colour in the object's palette, sent as a hex value such as #afaf4b (also accepted: #abc, colours without #, rgb(…) and #rrggbbaa, whose transparency is dropped). ${undocumented('color')}.`,
		},
		read: (ctx, value, i) => toHexColor(ctx, value, i),
	},
	{
		key: 'hasImage',
		label: 'Has Image',
		parameter: 'hasimage',
		field: {
			type: 'boolean',
			default: true,
			description: `Whether to return only objects that have an image (sent as 1); off returns only objects without one (sent as 0). ${undocumented('hasimage')}.`,
		},
		read: (ctx, value, i) =>
			value === undefined ? undefined : toBoolean(ctx, value, 'Has Image', i) ? '1' : '0',
	},
	text(
		'period',
		'Period',
		'e.g. Edo period',
		'Historical period or art movement, such as Edo period or Romanticism. Several: separate them with |.',
	),
];

export function filterByKey(key: unknown): Filter | undefined {
	return FILTERS.find((filter) => filter.key === key);
}

/**
 * A colour for the service: lower-case `#rrggbb`. Accepts what n8n's colour picker gives (`#RRGGBB`, or
 * `#RRGGBBAA` when it shows transparency), `#rgb`, hex without `#`, and `rgb()`/`rgba()`; several joined by `|`.
 */
export function toHexColor(
	ctx: IExecuteFunctions,
	value: unknown,
	itemIndex: number,
): string | undefined {
	if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) {
		return undefined;
	}
	const bad = () =>
		fieldError(
			ctx,
			'"Color"',
			itemIndex,
			`must be a hex color such as #afaf4b or #abc, not ${show(value)}`,
			'Pick a colour with the colour picker, or type its hex value.',
		);
	if (typeof value !== 'string') throw bad();
	return value
		.split('|')
		.map((part) => {
			const hex = parseHexColor(part.trim());
			if (hex === undefined) throw bad();
			return hex;
		})
		.join('|');
}

/** One colour as lower-case `#rrggbb`, or `undefined` when it is not a colour. */
export function parseHexColor(text: string): string | undefined {
	const hex = /^#?([0-9a-f]{3}|[0-9a-f]{6}|[0-9a-f]{8})$/i.exec(text);
	if (hex) {
		let digits = hex[1].toLowerCase();
		if (digits.length === 3) digits = digits.replace(/./g, '$&$&');
		return `#${digits.slice(0, 6)}`;
	}
	const rgb =
		/^rgba?\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d{1,3})\s*(?:,\s*[\d.]+%?\s*)?\)$/i.exec(text);
	if (rgb) {
		const channels = rgb.slice(1, 4).map(Number);
		if (channels.every((c) => c <= 255)) {
			return `#${channels.map((c) => c.toString(16).padStart(2, '0')).join('')}`;
		}
	}
	return undefined;
}
