import type { IDataObject, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { PageAnswer } from '../shared/paging';
import { describeValue, isPlainObject } from '../shared/validation';

/** One page, with the number of matching records when the service says (`info.totalrecords`). */
export type Page = PageAnswer<unknown> & { total?: number };

/** Output = Selected Fields: each field's name and its path (a dot reaches into an object or list). */
export type Selected = Array<{ name: string; path: string[] }>;

/** An error naming the item, for an answer the node cannot use. */
export function answerError(
	node: INode,
	reason: string,
	message: string,
	description: string,
	itemIndex: number,
	httpCode?: string,
): NodeApiError {
	const response = { message: reason, ...(httpCode ? { httpCode } : {}) } as JsonObject;
	return new NodeApiError(node, response, { message, description, httpCode, itemIndex });
}

/**
 * The records of one answer: `{info, records}` (Harvard style, with `info.next`) or a bare list. Anything else
 * returns a description of what came, for the error message.
 */
export function readPage(data: unknown): Page | string {
	if (Array.isArray(data)) return { records: data };
	if (!isPlainObject(data) || !Array.isArray(data.records)) return describeValue(data ?? undefined);
	const { info, records } = data;
	if (!isPlainObject(info)) return { records };
	const pages = Number(info.pages);
	const total = Number(info.totalrecords);
	return {
		records,
		next: typeof info.next === 'string' && info.next.trim() ? info.next.trim() : null,
		...(Number.isSafeInteger(pages) && pages > 0 ? { pages } : {}),
		...(Number.isSafeInteger(total) && total >= 0 ? { total } : {}),
	};
}

/** A record's identity: Harvard sends both objectid and id (the same number). */
export function recordKey(record: unknown): unknown {
	return isPlainObject(record) ? (record.objectid ?? record.id) : undefined;
}

const text = (value: unknown): string | number | null =>
	typeof value === 'string' || typeof value === 'number' ? value : null;

/** The primary image: `primaryimageurl`, else the first image with an address. */
export function imageUrlOf(record: IDataObject): string | undefined {
	const primary = record.primaryimageurl;
	if (typeof primary === 'string' && primary.trim()) return primary.trim();
	for (const image of Array.isArray(record.images) ? record.images : []) {
		const url = isPlainObject(image) ? image.baseimageurl : undefined;
		if (typeof url === 'string' && url.trim()) return url.trim();
	}
	return undefined;
}

function artistNames(people: unknown): string | null {
	const names: string[] = [];
	for (const person of Array.isArray(people) ? people : []) {
		const name = isPlainObject(person) ? (person.displayname ?? person.name) : undefined;
		if (typeof name === 'string' && name && !names.includes(name)) names.push(name);
	}
	return names.length ? names.join(', ') : null;
}

/**
 * Output = Simplified: one small flat object per record, with what reusing the image needs: the credit line, the
 * image rights (Harvard's imagepermissionlevel: 0 any size, 1 at most 256 px, 2 none) and the object's page.
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

/** Output = Selected Fields: the listed fields; absent ones are null. */
export function pick(record: IDataObject, selected: Selected): IDataObject {
	const out: IDataObject = {};
	for (const { name, path } of selected) {
		let value: unknown = record;
		for (const step of path) {
			value =
				typeof value === 'object' && value !== null ? (value as IDataObject)[step] : undefined;
		}
		out[name] = (value ?? null) as IDataObject[string];
	}
	return out;
}
