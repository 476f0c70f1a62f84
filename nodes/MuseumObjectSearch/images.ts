import type { IDataObject, IExecuteFunctions, JsonObject, NodeApiError } from 'n8n-workflow';

import {
	type ChoiceOption,
	type NumberOption,
	readChoice,
	readNumber,
	toText,
} from '../shared/fields';
import { errorItem } from '../shared/items';
import { pool } from '../shared/pool';
import { describeFailure } from '../shared/transport';
import type { Call, Found } from './types';
import { answerError, decoded } from './records';

/** Widths of the named sizes: Harvard allows rights-restricted images up to 256 px, posts want about 800. */
const WIDTHS = { thumbnail: 256, post: 800, original: undefined };

export const IMAGE_SIZE: ChoiceOption<'thumbnail' | 'post' | 'original' | 'custom'> = {
	displayName: 'Image Size',
	name: 'imageSize',
	default: 'post',
	description:
		"How large an image to download. A smaller size is asked of the image service (IIIF, or the image address's width parameter with the Harvard Art Museums API); the Art Institute of Chicago serves the nearest of its own widths (never wider than the work's image), the Cleveland Museum of Art its web or print image; a service that cannot resize sends its original.",
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

export function readImages(ctx: IExecuteFunctions, i: number) {
	const param = (name: string, fallback: unknown) =>
		ctx.getNodeParameter(name, i, fallback as string) as unknown;
	const field = 'Put Output File in Field';
	const property = toText(ctx, param('binaryPropertyName', 'data'), field, i, true);
	const read = (o: NumberOption) =>
		readNumber(ctx, { [o.name]: param(o.name, o.default) } as IDataObject, o, i);
	const size = readChoice(ctx, param(IMAGE_SIZE.name, IMAGE_SIZE.default), IMAGE_SIZE, i);
	return {
		property,
		maxImages: read(MAX_IMAGES),
		maxBytes: read(MAX_IMAGE_SIZE) * 1024 * 1024,
		width: size === 'custom' ? read(IMAGE_WIDTH) : WIDTHS[size],
	};
}

const EXTENSIONS: Record<string, string> = {
	'image/jpeg': 'jpg',
	'image/png': 'png',
	'image/gif': 'gif',
	'image/webp': 'webp',
	'image/tiff': 'tif',
	'image/svg+xml': 'svg',
	'image/avif': 'avif',
	'image/bmp': 'bmp',
};

/** File name from Content-Disposition (`filename*=` first), else the last segment of the URL path, else `object-<id>`. */
export function fileNameFor(disposition: unknown, url: string, mimeType: string, id: unknown) {
	const header = typeof disposition === 'string' ? disposition : '';
	const extended = /filename\*\s*=\s*(?:[\w-]+)?'[^']*'([^;]+)/i.exec(header);
	const plain = /filename\s*=\s*(?:"([^"]*)"|([^;]+))/i.exec(header);
	const plainName = (plain?.[1] ?? plain?.[2])?.trim();
	let name = extended ? (decoded(extended[1].trim()) ?? plainName) : plainName;
	if (!name && URL.canParse(url))
		name = decoded(new URL(url).pathname.split('/').filter(Boolean).pop() ?? '');
	// No path parts from a header or a URL, and no control characters (those below space).
	name = name?.split(/[\\/]/).pop();
	name = name?.replace(/[^ -\uffff]/g, '').trim();
	if (!name) name = `object-${id ?? 'image'}`;
	const extension = EXTENSIONS[mimeType];
	if (extension && !/\.[A-Za-z0-9]{2,5}$/.test(name)) name += `.${extension}`;
	return name;
}

/** One image, downloaded WITHOUT the API key (`client.download` is never authenticated). */
async function downloadImage(
	{ ctx, client, settings, i }: Call,
	{ url, source, objectId }: NonNullable<Found['image']>,
	maxBytes: number,
) {
	const fail = (what: string, fix: string, httpCode?: string) => {
		const message = `Could not download the image of object ${String(objectId ?? '?')} from ${url}: ${what}`;
		const reason = `Could not download the image: ${what}`;
		return answerError(ctx.getNode(), reason, message, fix, i, httpCode);
	};
	if (!URL.canParse(url)) {
		const fix =
			'The record links an image that cannot be fetched. Turn off Download Images to output its URL only.';
		throw fail('not a web address', fix);
	}
	const address = new URL(url);
	if (address.protocol !== 'http:' && address.protocol !== 'https:') {
		const fix = 'Only http:// and https:// images can be downloaded.';
		throw fail(`the address uses ${address.protocol}`, fix);
	}
	const outcome = await client.download(address.href, { ...settings, maxResponseBytes: maxBytes });
	if ('failure' in outcome) {
		const { failure, gaveUp } = outcome;
		const wording = { what: 'the image host', timeout: settings.timeout, maxBytes };
		const [what, advice] = describeFailure(failure, { ...wording, sizeOption: 'Max Image Size' });
		const tries = gaveUp && !gaveUp.unsafe ? ` It ${gaveUp.text}.` : '';
		const said = what.charAt(0).toLowerCase() + what.slice(1);
		throw fail(client.redact(said), `${client.redact(advice)}${tries}`);
	}
	const status = outcome.res.statusCode;
	if (status < 200 || status >= 300) {
		const fix =
			status === 404
				? 'The image is missing on the image host. Turn on Continue On Fail to keep the other objects, or turn off Download Images.'
				: 'The image host refused or failed the download. Try again later, or turn off Download Images.';
		throw fail(`the image host answered HTTP ${status}`, fix, String(status));
	}
	const headers = outcome.res.headers as IDataObject;
	const [type] = String(headers['content-type'] ?? '').split(';');
	const mimeType = type.trim().toLowerCase();
	if (!mimeType.startsWith('image/')) {
		const what = `the image host sent ${mimeType || 'no content type'} instead of an image`;
		throw fail(what, 'The linked address does not serve an image file.');
	}
	const fileName = fileNameFor(headers['content-disposition'], source, mimeType, objectId);
	return await ctx.helpers.prepareBinaryData(outcome.res.body, fileName, mimeType);
}

/** Download Images: up to Max Images per run (`budget` is the run's); objects past it keep their data only. */
export async function attachImages(
	call: Call,
	{ property, maxImages, maxBytes }: ReturnType<typeof readImages>,
	found: Found[],
	budget: { used: number; omitted: number; refused: number; missing: number },
) {
	const { ctx, client, i } = call;
	const items = found.map((entry) => entry.item);
	const withImage = found.flatMap(({ image }, n) => (image ? [n] : []));
	const jobs = withImage.slice(0, Math.max(0, maxImages - budget.used));
	budget.used += jobs.length;
	budget.omitted += withImage.length - jobs.length;
	await pool(jobs.length, client.maxInFlight('images'), async (j) => {
		const n = jobs[j];
		const image = found[n].image!;
		const binary = await downloadImage(call, image, maxBytes).catch((failure: unknown) => {
			const status = (failure as NodeApiError).httpCode;
			// refused (403) or missing (404, 410: Cleveland's CDN at times): the object keeps its data only
			if (status === '403') return void budget.refused++;
			if (status === '404' || status === '410') return void budget.missing++;
			if (!ctx.continueOnFail()) throw failure;
			const objectId = (image.objectId ?? null) as JsonObject[string];
			items[n] = errorItem(failure, i, { objectId, imageUrl: image.url });
		});
		if (binary) items[n] = { json: items[n].json, binary: { [property]: binary } };
	});
	return items;
}
