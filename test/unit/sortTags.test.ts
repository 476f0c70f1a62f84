/** Quote Tags sorting (nodes/QuoteTags/operation), from source. */
import type { IDataObject } from 'n8n-workflow';

import { sortTags } from '../../nodes/QuoteTags/operation';

const names = (tags: IDataObject[]) => tags.map((t) => t.name);

describe('sortTags', () => {
	test('quoteCount compares as a number, also when sent as text', () => {
		const tags: IDataObject[] = [
			{ name: 'a', quoteCount: 9 },
			{ name: 'b', quoteCount: '100' },
			{ name: 'c', quoteCount: 20 },
			{ name: 'd', quoteCount: '3' },
		];
		sortTags(tags, 'quoteCount', 'desc');
		expect(names(tags)).toEqual(['b', 'c', 'a', 'd']);
		sortTags(tags, 'quoteCount', 'asc');
		expect(names(tags)).toEqual(['d', 'a', 'c', 'b']);
	});

	test('stable: ties keep the order they came in, in both directions', () => {
		const tags: IDataObject[] = [
			{ name: 'x1', quoteCount: 5 },
			{ name: 'y', quoteCount: 7 },
			{ name: 'x2', quoteCount: 5 },
			{ name: 'x3', quoteCount: 5 },
		];
		const desc = [...tags];
		sortTags(desc, 'quoteCount', 'desc');
		expect(names(desc)).toEqual(['y', 'x1', 'x2', 'x3']);
		const asc = [...tags];
		sortTags(asc, 'quoteCount', 'asc');
		expect(names(asc)).toEqual(['x1', 'x2', 'x3', 'y']);
	});

	test('names compare case-insensitively', () => {
		const tags: IDataObject[] = [
			{ name: 'banana' },
			{ name: 'Apple' },
			{ name: 'cherry' },
			{ name: 'Banana' },
		];
		sortTags(tags, 'name', 'asc');
		expect(names(tags)).toEqual(['Apple', 'banana', 'Banana', 'cherry']);
		sortTags(tags, 'name', 'desc');
		expect(names(tags)).toEqual(['cherry', 'banana', 'Banana', 'Apple']);
	});

	test('dates compare as dates, whatever their format', () => {
		const tags: IDataObject[] = [
			{ name: 'iso', dateAdded: '2019-12-31' },
			{ name: 'long', dateAdded: 'January 5, 2020' },
			{ name: 'time', dateAdded: '2019-12-31T23:59:00Z' },
			{ name: 'old', dateAdded: '2001-02-03' },
		];
		sortTags(tags, 'dateAdded', 'desc');
		expect(names(tags)).toEqual(['long', 'time', 'iso', 'old']);
		sortTags(tags, 'dateAdded', 'asc');
		expect(names(tags)).toEqual(['old', 'iso', 'time', 'long']);
	});

	test('tags without the field go last, in both directions', () => {
		const tags: IDataObject[] = [
			{ name: 'none1' },
			{ name: 'two', quoteCount: 2 },
			{ name: 'empty', quoteCount: '' },
			{ name: 'one', quoteCount: 1 },
			{ name: 'null', quoteCount: null },
		];
		sortTags(tags, 'quoteCount', 'desc');
		expect(names(tags)).toEqual(['two', 'one', 'none1', 'empty', 'null']);
		sortTags(tags, 'quoteCount', 'asc');
		expect(names(tags)).toEqual(['one', 'two', 'none1', 'empty', 'null']);
	});

	test('sorts in place and keeps every tag', () => {
		const tags: IDataObject[] = Array.from({ length: 50 }, (_, i) => ({
			name: `t${i}`,
			quoteCount: (i * 31) % 17,
		}));
		const same = tags;
		sortTags(tags, 'quoteCount', 'desc');
		expect(tags).toBe(same);
		expect(tags).toHaveLength(50);
		expect(new Set(names(tags)).size).toBe(50);
		for (let i = 1; i < 50; i++)
			expect(Number(tags[i - 1].quoteCount)).toBeGreaterThanOrEqual(Number(tags[i].quoteCount));
	});
});
