/** Colours for the museum service (nodes/MuseumObjectSearch/filters), from source; more in museum/mapping. */
import { parseHexColor } from '../../nodes/MuseumObjectSearch/filters';

describe('parseHexColor', () => {
	test.each([
		['#afaf4b', '#afaf4b'],
		['ABC', '#aabbcc'],
		['#afaf4b80', '#afaf4b'],
		['rgb(0,0,0)', '#000000'],
		['RGBA(1, 2, 3, 0.5)', '#010203'],
		['rgba(255, 255, 255, 50%)', '#ffffff'],
	])('%s → %s', (text, hex) => {
		expect(parseHexColor(text)).toBe(hex);
	});

	test.each(['', '#abcd', '#ggg', 'rgb(1, 2)', '#afaf4b|#fff', ' #abc'])(
		'%j is not a colour',
		(text) => {
			expect(parseHexColor(text)).toBeUndefined();
		},
	);
});
