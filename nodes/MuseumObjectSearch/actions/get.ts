import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { fieldError, show } from '../../shared/fields';
import type { StyleEntry } from '../../shared/services';
import { describeValue, isPlainObject } from '../../shared/values';
import { fromList } from '../filters';
import { museumOf } from '../museums';
import type { Call } from '../types';
import { answerError, decoded, museumGet } from '../records';

/** An object ID as it goes in the path: no separator, not `.` or `..` (a path step), not longer than any museum's */
const ID = /^(?!\.+$)[^/\s?#]{1,100}$/;
/** An object's address: Harvard's …/object/{id}, AIC's …/artworks/{id}[/slug], Cleveland's …/art/{accession number} */
const OBJECT_PATH = /\/(?:object|artworks|art)\/([^/\s?#]+)(?:\/[^/\s?#]*)?$/;

export const getFields: INodeProperties[] = [
	{
		displayName: 'Object',
		name: 'objectId',
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required: true,
		displayOptions: { show: { operation: ['get'] } },
		description: 'The object to get: pick it from a search, or give its ID or address',
		modes: [
			fromList('objects'),
			{
				displayName: 'By ID',
				name: 'id',
				type: 'string',
				placeholder: 'e.g. 228563, or 1953.424 (Cleveland)',
				validation: [
					{ type: 'regex', properties: { regex: ID.source, errorMessage: 'Not an object ID' } },
				],
			},
			{
				displayName: 'By URL',
				name: 'url',
				type: 'string',
				placeholder: 'e.g. https://www.artic.edu/artworks/27992',
				validation: [
					{
						type: 'regex',
						properties: {
							regex: `^https?://[^\\s/]+(/[^\\s?#]*)?/(object|artworks|art)/[^/\\s?#]+(/[^/\\s?#]*)?([?#].*)?$`,
							errorMessage:
								'Not the address of an object: …/collections/object/{ID}, …/artworks/{ID} or …/art/{accession number}',
						},
					},
				],
			},
		],
	},
];

/** Get's Object, checked: an ID, from any mode (a URL gives the ID in its path). */
export function readObjectId(ctx: IExecuteFunctions, i: number, asTool: boolean): string {
	const raw = ctx.getNodeParameter('objectId', i, '') as unknown;
	const given = isPlainObject(raw) ? raw.value : raw;
	const field = '"Object"';
	if (typeof given !== 'string' && typeof given !== 'number' && given != null)
		throw fieldError(ctx, field, i, `has ${show(given)}, which is not an object ID`);
	const value = String(given ?? '').trim();
	if (!value && asTool) {
		const message =
			'No object ID was given: pass the ID of the object to get, for example 228563 (the "id" of a search result)';
		throw new NodeOperationError(ctx.getNode(), message, { itemIndex: i });
	}
	if (!value)
		throw fieldError(ctx, field, i, 'is empty', 'Pick an object, or give its ID or address.');
	if (!(isPlainObject(raw) && raw.mode === 'url') && !/^https?:\/\//i.test(value)) {
		if (ID.test(value)) return value;
		throw fieldError(ctx, field, i, `has ${show(value)}, which is not an object ID`);
	}
	const inPath = URL.canParse(value) ? OBJECT_PATH.exec(new URL(value).pathname)?.[1] : undefined;
	const id = inPath && decoded(inPath);
	if (id && ID.test(id)) return id;
	const fix =
		'Give an object page such as https://harvardartmuseums.org/collections/object/228563, https://www.artic.edu/artworks/27992 or https://www.clevelandart.org/art/1953.424.';
	const address = show(value.length > 200 ? `${value.slice(0, 200)}…` : value);
	throw fieldError(ctx, field, i, `has the address ${address}, which names no object`, fix);
}

/** An ID the museum's service cannot take (AIC's are whole numbers) is refused before any request. */
export function checkObjectId(ctx: IExecuteFunctions, id: string, style: StyleEntry, i: number) {
	const { id: ids } = museumOf(style);
	if (ids && !ids.pattern.test(id))
		throw fieldError(ctx, '"Object"', i, `has ${show(id)}, which is not an object ID: ${ids.says}`);
}

/** Get: GET the object's address, once (retried like every read); an unknown ID is an answer, not retried. */
export async function getObject({ ctx, client, settings, style, map, i }: Call, id: string) {
	const museum = museumOf(style);
	const path = museum.object.replace('{id}', encodeURIComponent(id));
	const data = await museumGet(client, { path }, settings, i).catch((error: unknown) => {
		if (!(error instanceof NodeApiError) || error.httpCode !== '404') throw error;
		const message = `The museum service has no object with the ID "${id}"`;
		const fix = 'Check the ID, or pick the object from the list. It was not retried.';
		throw answerError(ctx.getNode(), 'object not found', message, fix, i, '404');
	});
	const one = museum.one(data);
	if (one) return [map(one.record, one.context)];
	const message = `The museum service answered with ${describeValue(data)} where the record of object "${id}" was expected`;
	const fix =
		'Check the Museum URL in the Triptych API credentials: it must point at the object API.';
	throw answerError(ctx.getNode(), 'record is not an object', message, fix, i);
}
