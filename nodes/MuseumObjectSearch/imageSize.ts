import type { IDataObject } from 'n8n-workflow';

import type { ChoiceOption, NumberOption } from '../shared/fields';
import type { StyleEntry } from '../shared/transport';
import { isPlainObject } from '../shared/validation';
import { imageUrlOf, recordKey } from './records';

export type ImageSize = 'thumbnail' | 'post' | 'original' | 'custom';

/** Widths of the named sizes: Harvard allows rights-restricted images up to 256 px, posts want about 800. */
const WIDTHS: Record<'thumbnail' | 'post', number> = { thumbnail: 256, post: 800 };
/** Harvard's imagepermissionlevel 1: the image may be shown at most this large */
const RESTRICTED_WIDTH = 256;

export const IMAGE_SIZE: ChoiceOption<ImageSize> = {
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

/** The width to ask for; undefined = the original. */
export function widthFor(size: ImageSize, custom: number): number | undefined {
	return size === 'original' ? undefined : size === 'custom' ? custom : WIDTHS[size];
}

/** An image to download: the address to fetch, the address it was sized from (for its file name), its object. */
export interface ImageRef {
	url: string;
	source: string;
	objectId: unknown;
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
	const objectId = recordKey(record);
	if (width === undefined) return { url: source, source, objectId };
	const w = record.imagepermissionlevel === 1 ? Math.min(width, RESTRICTED_WIDTH) : width;
	const images = Array.isArray(record.images) ? record.images.filter(isPlainObject) : [];
	const primary = images.find((image) => image.baseimageurl === source) ?? images[0];
	const iiif = primary?.iiifbaseuri;
	if (typeof iiif === 'string' && /^https?:\/\//i.test(iiif.trim())) {
		return { url: `${iiif.trim().replace(/\/+$/, '')}/full/${w},/0/default.jpg`, source, objectId };
	}
	if (style.imageWidthQuery) {
		try {
			const url = new URL(source);
			url.searchParams.delete('height');
			url.searchParams.set('width', String(w));
			return { url: url.toString(), source, objectId };
		} catch {
			// not an address: the download says so
		}
	}
	return { url: source, source, objectId };
}
