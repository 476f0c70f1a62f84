import type {
	IBinaryData,
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	JsonObject,
} from 'n8n-workflow';

import { errorItem } from '../shared/items';
import { pool } from '../shared/pool';
import { type RequestSettings, type TriptychClient, describeFailure } from '../shared/transport';
import type { ImageRef, ImagesPlan } from './imageSize';
import type { Found } from './operation';
import { answerError } from './records';

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
export function fileNameFor(
	disposition: unknown,
	url: string,
	mimeType: string,
	objectId: unknown,
): string {
	let name: string | undefined;
	if (typeof disposition === 'string') {
		const extended = /filename\*\s*=\s*(?:[\w-]+)?'[^']*'([^;]+)/i.exec(disposition);
		const plain = /filename\s*=\s*(?:"([^"]*)"|([^;]+))/i.exec(disposition);
		try {
			name = extended ? decodeURIComponent(extended[1].trim()) : (plain?.[1] ?? plain?.[2])?.trim();
		} catch {
			name = (plain?.[1] ?? plain?.[2])?.trim();
		}
	}
	if (!name) {
		try {
			const segment = new URL(url).pathname.split('/').filter(Boolean).pop();
			name = segment ? decodeURIComponent(segment) : undefined;
		} catch {
			name = undefined;
		}
	}
	// No path parts from a header or a URL: only the base name is kept.
	name = name
		?.split(/[\\/]/)
		.pop()
		?.split('')
		.filter((c) => c.charCodeAt(0) >= 32)
		.join('')
		.trim();
	if (!name) name = `object-${objectId ?? 'image'}`;
	const extension = EXTENSIONS[mimeType];
	if (extension && !/\.[A-Za-z0-9]{2,5}$/.test(name)) name += `.${extension}`;
	return name;
}

/**
 * Downloads one image WITHOUT the API key (`client.download` is never authenticated), within Timeout and Max Image
 * Size. A failed download is an error naming the object, the address and what went wrong.
 */
async function downloadImage(
	ctx: IExecuteFunctions,
	client: TriptychClient,
	{ url, source, objectId }: ImageRef,
	settings: RequestSettings,
	maxBytes: number,
	i: number,
): Promise<IBinaryData> {
	const fail = (what: string, description: string, httpCode?: string) =>
		answerError(
			ctx.getNode(),
			`Could not download the image: ${what}`,
			`Could not download the image of object ${String(objectId ?? '?')} from ${url}: ${what} [item ${i}]`,
			description,
			i,
			httpCode,
		);
	let address: URL;
	try {
		address = new URL(url);
	} catch {
		throw fail(
			'not a web address',
			'The record links an image that cannot be fetched. Turn off Download Images to output its URL only.',
		);
	}
	if (address.protocol !== 'http:' && address.protocol !== 'https:') {
		throw fail(
			`the address uses ${address.protocol}`,
			'Only http:// and https:// images can be downloaded.',
		);
	}
	const outcome = await client.download(address.toString(), { ...settings, maxBytes });
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
		throw fail(
			`the image host answered HTTP ${status}`,
			status === 404
				? 'The image is missing on the image host. Turn on Continue On Fail to keep the other objects, or turn off Download Images.'
				: 'The image host refused or failed the download. Try again later, or turn off Download Images.',
			String(status),
		);
	}
	const headers = outcome.res.headers as IDataObject;
	const mimeType = String(headers['content-type'] ?? '')
		.split(';')[0]
		.trim()
		.toLowerCase();
	if (!mimeType.startsWith('image/')) {
		throw fail(
			`the image host sent ${mimeType || 'no content type'} instead of an image`,
			'The linked address does not serve an image file.',
		);
	}
	const fileName = fileNameFor(headers['content-disposition'], source, mimeType, objectId);
	return await ctx.helpers.prepareBinaryData(outcome.res.body, fileName, mimeType);
}

/**
 * Download Images: each object's primary image becomes binary data, up to Max Images per run (`budget` is shared
 * by the run's items; `omitted` counts the objects past it, which keep their data without binary). A failed
 * download fails the run, or with Continue On Fail turns that object's item into an error item.
 */
export async function attachImages(
	ctx: IExecuteFunctions,
	client: TriptychClient,
	{ property, maxImages, maxBytes }: ImagesPlan,
	settings: RequestSettings,
	found: Found[],
	i: number,
	budget: { used: number; omitted: number },
): Promise<INodeExecutionData[]> {
	const items = found.map((entry) => entry.item);
	const jobs: number[] = [];
	found.forEach(({ image }, n) => {
		if (!image) return;
		if (budget.used >= maxImages) budget.omitted++;
		else {
			budget.used++;
			jobs.push(n);
		}
	});
	// as many at once as the gate of the image host allows
	await pool(jobs.length, client.maxInFlight('images'), async (j) => {
		const n = jobs[j];
		const image = found[n].image!;
		let failure: unknown;
		try {
			const binary = await downloadImage(ctx, client, image, settings, maxBytes, i);
			items[n] = { json: items[n].json, binary: { [property]: binary } };
			return;
		} catch (error) {
			failure = error;
		}
		if (!ctx.continueOnFail()) throw failure;
		items[n] = errorItem(failure, i, {
			objectId: (image.objectId ?? null) as JsonObject[string],
			imageUrl: image.url,
		});
	});
	return items;
}
