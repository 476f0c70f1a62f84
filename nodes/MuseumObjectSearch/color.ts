import type { IExecuteFunctions } from 'n8n-workflow';

import type { StyleEntry } from '../shared/transport';
import { fieldError, show } from '../shared/validation';

/** The hue names a palette colour is tagged with (Harvard's `colors[].hue`). */
export const HUES = [
	'Black',
	'Blue',
	'Brown',
	'Green',
	'Grey',
	'Orange',
	'Red',
	'Violet',
	'White',
	'Yellow',
];

/** The Color filter's value: hex colours (lower-case `#rrggbb`) and hue names. */
export interface Colors {
	hexes: string[];
	hues: string[];
}

/** What the Color filter sends: colours as the `color` parameter, hues as a clause of `q`. */
export interface ColorQuery {
	color?: string;
	q?: string;
}

/**
 * The Color filter, checked: hex colours (n8n's picker gives `#RRGGBB` or `#RRGGBBAA`; also `#rgb`, hex without
 * `#`, `rgb()`) and hue names, several joined by `|`.
 */
export function parseColors(
	ctx: IExecuteFunctions,
	value: unknown,
	itemIndex: number,
): Colors | undefined {
	if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) {
		return undefined;
	}
	const bad = () =>
		fieldError(
			ctx,
			'"Color"',
			itemIndex,
			`must be a hex color such as #afaf4b or a hue name such as Blue, not ${show(value)}`,
			'Pick a colour with the colour picker, or type its hex value.',
		);
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

/**
 * What the colours become for the service. One with a palette matches colours exactly on its grid, so each is
 * snapped to it the way the service quantizes its palettes, and its hues are searched in `q`; another gets the
 * colours as they are and cannot search hues.
 */
export function colorQuery(
	ctx: IExecuteFunctions,
	colors: Colors,
	itemIndex: number,
	style: StyleEntry,
): ColorQuery {
	const { palette } = style;
	if (colors.hues.length && !palette) {
		throw fieldError(
			ctx,
			'"Color"',
			itemIndex,
			`has the hue name ${show(colors.hues[0])}, which this museum service cannot search`,
			'Hue names work with the Harvard Art Museums API style; pick a colour instead.',
		);
	}
	const hexes = colors.hexes.map((hex) => (palette ? snapToPalette(hex, palette) : hex));
	const { hues } = colors;
	return {
		...(hexes.length ? { color: [...new Set(hexes)].join('|') } : {}),
		...(hues.length && palette
			? { q: `${palette.hueField}:${hues.length === 1 ? hues[0] : `(${hues.join(' OR ')})`}` }
			: {}),
	};
}

/**
 * A colour on a palette grid: each channel quantized as Harvard's colour service does,
 * `floor((c + step/2 - 1) / step) * step`, at most `max` (with 25: 00, 19, 32, 4b … fa).
 */
export function snapToPalette(hex: string, palette: { step: number; max: number }): string {
	const { step, max } = palette;
	const channels = [1, 3, 5].map((at) => parseInt(hex.slice(at, at + 2), 16));
	const snapped = channels.map((c) => Math.min(max, Math.floor((c + step / 2 - 1) / step) * step));
	return `#${snapped.map((c) => c.toString(16).padStart(2, '0')).join('')}`;
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
