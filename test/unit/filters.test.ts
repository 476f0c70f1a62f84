/** Colours for the museum service (nodes/MuseumObjectSearch/filters), from source. */
import { parseHexColor } from '../../nodes/MuseumObjectSearch/filters';

describe('parseHexColor', () => {
	test.each([
		['#AFAF4B', '#afaf4b'],
		['#afaf4b', '#afaf4b'],
		['afaf4b', '#afaf4b'],
		['#abc', '#aabbcc'],
		['ABC', '#aabbcc'],
		['#afaf4bff', '#afaf4b'],
		['#afaf4b80', '#afaf4b'],
		['rgb(175, 175, 75)', '#afaf4b'],
		['rgb(0,0,0)', '#000000'],
		['RGBA(1, 2, 3, 0.5)', '#010203'],
		['rgba(255, 255, 255, 50%)', '#ffffff'],
	])('%s → %s', (text, hex) => {
		expect(parseHexColor(text)).toBe(hex);
	});

	test.each([
		'',
		'red',
		'#12345',
		'#abcd',
		'#ggg',
		'rgb(300, 0, 0)',
		'rgb(1, 2)',
		'#afaf4b|#fff',
		' #abc',
	])('%j is not a colour', (text) => {
		expect(parseHexColor(text)).toBeUndefined();
	});
});
