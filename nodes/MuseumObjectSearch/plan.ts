import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { getOptions, readChoice, readNumber } from '../shared/fields';
import { getRequestSettings } from '../shared/options';
import type { RequestSettings } from '../shared/transport';
import { fieldError, show, toList, toText } from '../shared/validation';
import { readObjectId } from './actions/get';
import { type SearchPlan, readSearchPlan } from './actions/search.plan';
import {
	COMMON_FIELDS,
	MAX_IMAGE_SIZE,
	MAX_IMAGES,
	OPERATION,
	OUTPUT,
	type Operation,
	type Output,
} from './description';
import { IMAGE_SIZE, IMAGE_WIDTH, type ImageRef, widthFor } from './imageSize';

/** Download Images, when on (and not used as a tool). */
export interface ImagesPlan {
	property: string;
	maxImages: number;
	maxBytes: number;
	/** Width to ask for; undefined = the original */
	width?: number;
}

/** Everything one input item asks for, checked before any request is sent. */
export interface Plan {
	operation: Operation;
	/** Search: its query and paging */
	search?: SearchPlan;
	/** Get: the object's ID */
	objectId?: string;
	output: Output;
	/** Output = Selected Fields: each field as its path */
	selected?: Array<{ name: string; path: string[] }>;
	images?: ImagesPlan;
	settings: RequestSettings;
}

/** One object as output: its item, and its image to download. */
export interface Found {
	item: INodeExecutionData;
	image?: ImageRef;
}

const param = (ctx: IExecuteFunctions, name: string, i: number, fallback: unknown) =>
	ctx.getNodeParameter(name, i, fallback as string) as unknown;

/** Selected Fields and Other Fields, with the record's ID first whatever was chosen. */
function readSelection(ctx: IExecuteFunctions, i: number): string[] {
	const chosen = param(ctx, 'selectedFieldList', i, []);
	const list = Array.isArray(chosen) ? chosen : [chosen];
	for (const name of list) {
		if (!COMMON_FIELDS.includes(name as string)) {
			throw fieldError(
				ctx,
				'"Selected Fields"',
				i,
				`has ${show(name)}, which is not one of ${COMMON_FIELDS.join(', ')}`,
				'Put other record fields in Other Fields.',
			);
		}
	}
	const names = [
		...(list as string[]),
		...toList(ctx, param(ctx, 'otherFields', i, ''), 'Other Fields', i),
	];
	return names.length ? [...new Set(['objectid', ...names])] : [];
}

function readImages(ctx: IExecuteFunctions, i: number): ImagesPlan {
	const property = toText(
		ctx,
		param(ctx, 'binaryPropertyName', i, 'data'),
		'Put Output File in Field',
		i,
		true,
	);
	const read = (option: typeof MAX_IMAGES) =>
		readNumber(
			ctx,
			{ [option.name]: param(ctx, option.name, i, option.default) } as IDataObject,
			option,
			i,
		);
	const size = readChoice(ctx, param(ctx, IMAGE_SIZE.name, i, IMAGE_SIZE.default), IMAGE_SIZE, i);
	return {
		property,
		maxImages: read(MAX_IMAGES),
		maxBytes: read(MAX_IMAGE_SIZE) * 1024 * 1024,
		width: widthFor(size, size === 'custom' ? read(IMAGE_WIDTH) : IMAGE_WIDTH.default),
	};
}

/** Reads and checks one item's parameters. Throws a NodeOperationError naming the field and the item. */
export function readPlan(ctx: IExecuteFunctions, i: number, asTool: boolean): Plan {
	const operation = readChoice(ctx, param(ctx, 'operation', i, 'search'), OPERATION, i);
	const options: IDataObject = getOptions(ctx, i);
	const settings = getRequestSettings(ctx, i, options);
	const output = readChoice(ctx, param(ctx, OUTPUT.name, i, OUTPUT.default), OUTPUT, i);
	let selected: Plan['selected'];
	if (output === 'selected') {
		const names = readSelection(ctx, i);
		if (!names.length) {
			throw fieldError(
				ctx,
				'"Selected Fields"',
				i,
				'is empty while Output is Selected Fields',
				'List the record fields to keep, e.g. objectid, title, people, or choose another Output.',
			);
		}
		selected = names.map((name) => ({ name, path: name.split('.') }));
	}
	// As an AI agent's tool the node returns small JSON only: no binary data (tools cannot pass it on).
	const images =
		!asTool && param(ctx, 'downloadImages', i, false) === true ? readImages(ctx, i) : undefined;
	return {
		operation,
		...(operation === 'get'
			? { objectId: readObjectId(ctx, i, asTool) }
			: { search: readSearchPlan(ctx, i, options, asTool) }),
		output,
		selected,
		images,
		settings,
	};
}
