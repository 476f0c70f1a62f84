import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { type ChoiceOption, type NumberOption, readChoice, readNumber } from '../shared/fields';
import type { StyleEntry } from '../shared/transport';
import { isPlainObject, toText } from '../shared/validation';
import { imageUrlOf, recordKey } from './records';

/** Widths of the named sizes: Harvard allows rights-restricted images up to 256 px, posts want about 800. */
const WIDTHS = { thumbnail: 256, post: 800, original: undefined };
/** Harvard's imagepermissionlevel 1: the image may be shown at most this large */
const RESTRICTED_WIDTH = 256;

export const IMAGE_SIZE: ChoiceOption<'thumbnail' | 'post' | 'original' | 'custom'> = {
	displayName: 'Image Size',
	name: 'imageSize',
	default: 'post',
	description:
		"How large an image to download. A smaller size is asked of the image service (IIIF, or the image address's width parameter with the Harvard Art Museums API); a service that cannot resize sends its original.",
	options: [
		{
			name: '800 Px Wide (for Posts)',
			value: 'post',
			description: 'Fit for social posts and chat',
		},
		{ name: 'Custom Width', value: 'custom', description: 'The width set in Image Width' },
		{ name: 'Original', value: 'original', description: 'The full image, as large as it is' },
		{ name: 'Thumbnail (256 Px)', value: 'thumbnail' },
	],
};

export const IMAGE_WIDTH: NumberOption = {
	displayName: 'Image Width',
	name: 'imageWidth',
	default: 800,
	min: 16,
	max: 10000,
	description: 'Width of the downloaded images, in pixels (the height follows)',
};

export const MAX_IMAGES: NumberOption = {
	displayName: 'Max Images',
	name: 'maxImages',
	default: 50,
	min: 0,
	description:
		'Most images to download in one run of the node, across all input items. Objects past it keep their data without an image; a hint says how many.',
};

export const MAX_IMAGE_SIZE: NumberOption = {
	displayName: 'Max Image Size (MB)',
	name: 'maxImageSize',
	default: 25,
	min: 1,
	max: 1024,
	description:
		'Largest image accepted, in megabytes. A larger image is not downloaded: its object gets an error (with Continue On Fail, an error item) and it is not retried.',
};

/** Download Images, when on. */
export interface ImagesPlan {
	property: string;
	maxImages: number;
	maxBytes: number;
	/** Width to ask for; undefined = the original */
	width?: number;
}

/** An image to download: the address to fetch, the address it was sized from (for its file name), its object. */
export interface ImageRef {
	url: string;
	source: string;
	objectId: unknown;
}

export function readImages(ctx: IExecuteFunctions, i: number): ImagesPlan {
	const param = (name: string, fallback: unknown) =>
		ctx.getNodeParameter(name, i, fallback as string) as unknown;
	const property = toText(
		ctx,
		param('binaryPropertyName', 'data'),
		'Put Output File in Field',
		i,
		true,
	);
	const read = (option: NumberOption) =>
		readNumber(
			ctx,
			{ [option.name]: param(option.name, option.default) } as IDataObject,
			option,
			i,
		);
	const size = readChoice(ctx, param(IMAGE_SIZE.name, IMAGE_SIZE.default), IMAGE_SIZE, i);
	return {
		property,
		maxImages: read(MAX_IMAGES),
		maxBytes: read(MAX_IMAGE_SIZE) * 1024 * 1024,
		width: size === 'custom' ? read(IMAGE_WIDTH) : WIDTHS[size],
	};
}

/**
 * The record's primary image at the wanted width: through the image's IIIF service when the record names one
 * (`images[].iiifbaseuri` → `{base}/full/{w},/0/default.jpg`), else by the address's `width` parameter where the
 * style says the image host takes it, else as it is. A rights-restricted image (imagepermissionlevel 1) is asked
 * for at most 256 px wide.
 */
export function imageOf(
	record: IDataObject,
	width: number | undefined,
	style: StyleEntry,
): ImageRef | undefined {
	const source = imageUrlOf(record);
	if (!source) return undefined;
	const sized = (url: string) => ({ url, source, objectId: recordKey(record) });
	if (width === undefined) return sized(source);
	const w = record.imagepermissionlevel === 1 ? Math.min(width, RESTRICTED_WIDTH) : width;
	const images = Array.isArray(record.images) ? record.images.filter(isPlainObject) : [];
	const iiif = (images.find((image) => image.baseimageurl === source) ?? images[0])?.iiifbaseuri;
	if (typeof iiif === 'string' && /^https?:\/\//i.test(iiif.trim())) {
		return sized(`${iiif.trim().replace(/\/+$/, '')}/full/${w},/0/default.jpg`);
	}
	if (style.imageWidthQuery && URL.canParse(source)) {
		const url = new URL(source);
		url.searchParams.delete('height');
		url.searchParams.set('width', String(w));
		return sized(url.toString());
	}
	return sized(source);
}
