import type { IDataObject, IExecuteFunctions, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { type ChoiceOption, readChoice, fieldError, show, toList } from '../shared/fields';
import type { StyleEntry } from '../shared/services';
import type { RequestSettings, TriptychClient } from '../shared/transport';
import { describeValue, isPlainObject } from '../shared/values';
import type { Page } from './types';

/** GET from the museum service (`url`: its own next-page link), retried like every read: the answer's body. */
export async function museumGet(
	client: TriptychClient,
	where: { path: string; qs?: IDataObject } | { url: string },
	settings: RequestSettings,
	i: number,
): Promise<unknown> {
	const request = { service: 'museum', method: 'GET', ...where, repeatable: true } as const;
	return (await client.request(request, settings, i)).data;
}

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

export function decoded(text: string): string | undefined {
	try {
		return decodeURIComponent(text);
	} catch {
		return undefined;
	}
}

/** A record's identity: Harvard sends both objectid and id (the same number). */
export const recordKey = (record: unknown) =>
	isPlainObject(record) ? (record.objectid ?? record.id) : undefined;

/** A count the service gives (records, pages) when it is a whole number of at least `min`. */
export function whole(value: unknown, min = -Infinity): number | undefined {
	const n = Number(value);
	return Number.isSafeInteger(n) && n >= min ? n : undefined;
}

// ------------------------------------------------------------------------------------------------ Harvard

/** The records of one answer, `{info, records}` (Harvard) or a bare list; else what came, in words. */
export function readPage(data: unknown): Page | string {
	if (Array.isArray(data)) return { records: data };
	if (!isPlainObject(data) || !Array.isArray(data.records)) return describeValue(data ?? undefined);
	const { info, records } = data;
	if (!isPlainObject(info)) return { records };
	const next = typeof info.next === 'string' && info.next.trim() ? info.next.trim() : null;
	return { records, next, pages: whole(info.pages, 1), total: whole(info.totalrecords, 0) };
}

const text = (value: unknown): string | number | null =>
	typeof value === 'string' || typeof value === 'number' ? value : null;

/** The primary image: `primaryimageurl`, else the first image with an address. */
function imageUrlOf(record: IDataObject): string | undefined {
	const images = Array.isArray(record.images) ? record.images.filter(isPlainObject) : [];
	const urls = [record.primaryimageurl, ...images.map((image) => image.baseimageurl)];
	return (urls.find((url) => typeof url === 'string' && url.trim()) as string | undefined)?.trim();
}

function artistNames(people: unknown): string | null {
	const names = (Array.isArray(people) ? people : [])
		.map((person) => (isPlainObject(person) ? (person.displayname ?? person.name) : undefined))
		.filter((name): name is string => typeof name === 'string' && name !== '');
	return names.length ? [...new Set(names)].join(', ') : null;
}

/** A Harvard record's Simplified fields, with what reusing the image needs: credit line, imagepermissionlevel. */
export function simplifyHarvard(record: IDataObject): IDataObject {
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

/** A Harvard record's primary image at the wanted width: through IIIF, else the `width` parameter the style allows. */
export function harvardImage(record: IDataObject, width: number | undefined, style: StyleEntry) {
	const source = imageUrlOf(record);
	if (!source) return undefined;
	const sized = (url: string) => ({ url, source });
	if (width === undefined) return sized(source);
	// Harvard's imagepermissionlevel 1: the image may be shown at most 256 px wide
	const w = record.imagepermissionlevel === 1 ? Math.min(width, 256) : width;
	const images = Array.isArray(record.images) ? record.images.filter(isPlainObject) : [];
	const iiif = (images.find((image) => image.baseimageurl === source) ?? images[0])?.iiifbaseuri;
	if (typeof iiif === 'string' && /^https?:\/\//i.test(iiif.trim()))
		return sized(iiifImage(iiif.trim().replace(/\/+$/, ''), w));
	if (style.imageWidthQuery && URL.canParse(source)) {
		const url = new URL(source);
		url.searchParams.delete('height');
		url.searchParams.set('width', String(w));
		return sized(url.toString());
	}
	return sized(source);
}

/** An image `w` pixels wide from a IIIF image service (`base`: the image's address there) */
export const iiifImage = (base: string, w: number) => `${base}/full/${w},/0/default.jpg`;

// ------------------------------------------------------------------------------------------------ Output

/** The record fields Selected Fields offers; any other field goes in Other Fields. */
export const COMMON_FIELDS = (
	'accessionyear century classification colors creditline culture dated datebegin dateend ' +
	'department dimensions division images medium objectid objectnumber people period ' +
	'primaryimageurl technique title url'
).split(' ');

export const OUTPUT: ChoiceOption<'simplified' | 'raw' | 'selected'> = {
	displayName: 'Output',
	name: 'output',
	default: 'simplified',
	description: 'What each output item holds',
	options: [
		{ name: 'Raw', value: 'raw', description: 'The records as the service sends them' },
		{
			name: 'Selected Fields',
			value: 'selected',
			description: 'Only the fields listed in Selected Fields',
		},
		{
			name: 'Simplified',
			value: 'simplified',
			description:
				'One flat item per object, the same fields from every museum: ID, title, artist, date, classification, period, culture, medium, image URL, object page URL, credit line, public domain and image rights',
		},
	],
};

type Convert = (record: IDataObject, simplify: (record: IDataObject) => IDataObject) => IDataObject;

/** Output: the records as they come, simplified (the museum's way), or Selected Fields (with the record's ID). */
export function readOutput(ctx: IExecuteFunctions, i: number): Convert {
	const param = (name: string, fallback: unknown) =>
		ctx.getNodeParameter(name, i, fallback as string) as unknown;
	const output = readChoice(ctx, param(OUTPUT.name, OUTPUT.default), OUTPUT, i);
	if (output === 'raw') return (record) => record;
	if (output === 'simplified') return (record, simplify) => simplify(record);
	const field = '"Selected Fields"';
	const list = [param('selectedFieldList', [])].flat() as string[];
	const wrong = list.findIndex((name) => !COMMON_FIELDS.includes(name));
	if (wrong >= 0) {
		const problem = `has ${show(list[wrong])}, which is not one of ${COMMON_FIELDS.join(', ')}`;
		throw fieldError(ctx, field, i, problem, 'Put other record fields in Other Fields.');
	}
	const names = [...list, ...toList(ctx, param('otherFields', ''), 'Other Fields', i)];
	if (!names.length) {
		const fix = 'List the record fields to keep (e.g. objectid, title), or choose another Output.';
		throw fieldError(ctx, field, i, 'is empty while Output is Selected Fields', fix);
	}
	// A dot reaches into an object or list; an absent field is null; the ID is Harvard's objectid, else id.
	const walk = (value: unknown, step: string) =>
		typeof value === 'object' && value !== null ? (value as IDataObject)[step] : undefined;
	return (record) => {
		const kept = new Set(['objectid' in record ? 'objectid' : 'id', ...names]);
		return Object.fromEntries(
			[...kept].map((name) => [name, name.split('.').reduce(walk, record) ?? null]),
		);
	};
}
