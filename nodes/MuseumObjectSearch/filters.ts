import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { isPlainObject, toBoolean, toText } from '../shared/validation';
import { type Colors, HUES, parseColors } from './color';

export { parseHexColor } from './color';

/** What one filter sends under its parameter: a value, or colours (made final once the service's style is known). */
export interface FilterValue {
	value?: string;
	colors?: Colors;
}

/**
 * The museum filters, each defined once: its field in Filters, the query parameter it is sent as (the names the
 * best-known museum API, Harvard Art Museums' GET /object, uses), its entry in Filter Parameter Names, and how its
 * value is read and checked. Adding a filter is adding an entry here.
 */
export interface Filter {
	/** Field name in the Filters collection */
	key: string;
	label: string;
	/** Query parameter it is sent as, unless renamed under Filter Parameter Names */
	parameter: string;
	/** The field (without name and displayName, which come from key and label) */
	field: Omit<INodeProperties, 'name' | 'displayName'>;
	/** What to send, checked; `{}` = nothing */
	read(ctx: IExecuteFunctions, value: unknown, itemIndex: number): FilterValue;
}

const usual = (name: string) =>
	`Sent as "${name}", the name the Harvard Art Museums API uses: rename it under Options > Filter Parameter Names if your service uses another`;

const textValue = (ctx: IExecuteFunctions, value: unknown, label: string, i: number) => ({
	value: toText(ctx, value, label, i) || undefined,
});

const text = (key: string, label: string, placeholder: string, description: string): Filter => ({
	key,
	label,
	parameter: key,
	field: { type: 'string', default: '', placeholder, description: `${description} ${usual(key)}.` },
	read: (ctx, value, i) => textValue(ctx, value, label, i),
});

/**
 * A filter whose values the service lists (GET /classification, GET /period): From List searches that list and
 * keeps what the service matches best; By Name takes free text (and expressions), for every service.
 */
const listed = (
	key: string,
	label: string,
	method: string,
	placeholder: string,
	description: string,
): Filter => ({
	key,
	label,
	parameter: key,
	field: {
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		description: `${description} From List shows the service's own ${label.toLowerCase()}s with their object counts (Harvard Art Museums API style; other services: use By Name). ${usual(key)}.`,
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				typeOptions: { searchListMethod: method, searchable: true },
			},
			{ displayName: 'By Name', name: 'name', type: 'string', placeholder },
		],
	},
	read: (ctx, value, i) =>
		textValue(ctx, isPlainObject(value) && '__rl' in value ? value.value : value, label, i),
});

export const FILTERS: Filter[] = [
	text(
		'person',
		'Artist',
		'e.g. Hokusai',
		'Name or ID of a person connected with the object, such as its artist. Several: separate them with | (any of them matches).',
	),
	listed(
		'classification',
		'Classification',
		'classifications',
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
	listed(
		'period',
		'Period',
		'periods',
		'e.g. Edo period',
		'Historical period or art movement, such as Edo period or Romanticism. Several: separate them with |.',
	),
];

export function filterByKey(key: unknown): Filter | undefined {
	return FILTERS.find((filter) => filter.key === key);
}
