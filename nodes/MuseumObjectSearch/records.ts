import type { IDataObject } from 'n8n-workflow';

import type { PageAnswer } from '../shared/paging';
import { describeValue, isPlainObject } from '../shared/validation';
import type { Plan } from './plan';

/** One page, with the number of matching records when the service says (`info.totalrecords`). */
export type Page = PageAnswer<unknown> & { total?: number };

/**
 * The records of one answer. The service may send `data: {info, records}` (Harvard style, with `info.next`),
 * `data` as the list itself, or a bare list without envelope. Anything else returns a description of what
 * came, for the error message.
 */
export function readPage(data: unknown): Page | string {
	if (Array.isArray(data)) return { records: data };
	if (isPlainObject(data) && Array.isArray(data.records)) {
		const info = data.info;
		if (!isPlainObject(info)) return { records: data.records };
		const next = info.next;
		const pages = Number(info.pages);
		const total = Number(info.totalrecords);
		return {
			records: data.records,
			next: typeof next === 'string' && next.trim() ? next.trim() : null,
			...(Number.isSafeInteger(pages) && pages > 0 ? { pages } : {}),
			...(Number.isSafeInteger(total) && total >= 0 ? { total } : {}),
		};
	}
	return describeValue(data ?? undefined);
}

/** A record's identity: Harvard sends both objectid and id (the same number). */
export function recordKey(record: unknown): unknown {
	if (!isPlainObject(record)) return undefined;
	return record.objectid ?? record.id;
}

const text = (value: unknown): string | number | null =>
	typeof value === 'string' || typeof value === 'number' ? value : null;

/** The primary image: `primaryimageurl`, else the first image with an address. */
export function imageUrlOf(record: IDataObject): string | undefined {
	const primary = record.primaryimageurl;
	if (typeof primary === 'string' && primary.trim()) return primary.trim();
	const images = record.images;
	if (Array.isArray(images)) {
		for (const image of images) {
			const url = isPlainObject(image) ? image.baseimageurl : undefined;
			if (typeof url === 'string' && url.trim()) return url.trim();
		}
	}
	return undefined;
}

function artistNames(people: unknown): string | null {
	if (!Array.isArray(people) || people.length === 0) return null;
	const names: string[] = [];
	for (const person of people) {
		if (!isPlainObject(person)) continue;
		const name = person.displayname ?? person.name;
		if (typeof name === 'string' && name && !names.includes(name)) names.push(name);
	}
	return names.length ? names.join(', ') : null;
}

/**
 * Output = Simplified: one small flat object per record, built directly from it, with what reusing the image needs:
 * the credit line, the image rights (Harvard's imagepermissionlevel: 0 any size, 1 at most 256 px, 2 none) and the
 * object's page.
 */
export function simplify(record: IDataObject): IDataObject {
	return {
		id: text(record.objectid ?? record.id),
		title: text(record.title),
		artist: artistNames(record.people),
		date: text(record.dated),
		classification: text(record.classification),
		period: text(record.period),
		culture: text(record.culture),
		medium: text(record.medium),
		imageUrl: imageUrlOf(record) ?? null,
		url: text(record.url),
		creditLine: text(record.creditline),
		imagePermissionLevel:
			typeof record.imagepermissionlevel === 'number' ? record.imagepermissionlevel : null,
	};
}

/** Output = Selected Fields: the listed fields (dotted paths reach into objects and lists); absent ones are null. */
export function pick(record: IDataObject, selected: NonNullable<Plan['selected']>): IDataObject {
	const out: IDataObject = {};
	for (const { name, path } of selected) {
		let value: unknown = record;
		for (const step of path) {
			if (typeof value !== 'object' || value === null) {
				value = undefined;
				break;
			}
			value = (value as IDataObject)[step];
		}
		out[name] = (value ?? null) as IDataObject[string];
	}
	return out;
}
