import type { IBinaryData, IDataObject, IExecuteFunctions, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { RequestSettings, TriptychClient } from '../shared/transport';

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
 * Downloads one image WITHOUT the API key (`client.download` is a plain GET, never authenticated) and returns
 * it as n8n binary data. A failed download is a NodeApiError naming the address and what went wrong.
 */
export async function downloadImage(
	ctx: IExecuteFunctions,
	client: TriptychClient,
	url: string,
	objectId: unknown,
	settings: RequestSettings,
	itemIndex: number,
): Promise<IBinaryData> {
	const fail = (what: string, description: string, httpCode?: string) =>
		new NodeApiError(
			ctx.getNode(),
			{ message: what, ...(httpCode ? { httpCode } : {}) } as JsonObject,
			{
				message: `Could not download the image of object ${String(objectId ?? '?')} from ${url}: ${what} [item ${itemIndex}]`,
				description,
				httpCode,
				itemIndex,
			},
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

	let response: Awaited<ReturnType<TriptychClient['download']>>;
	try {
		response = await client.download(address.toString(), settings, itemIndex);
	} catch (error) {
		// The transport's network error names only the address: name the object too.
		throw fail(
			'no answer from the image host',
			`${(error as NodeApiError).description ?? (error as Error).message}. Check that the image host is reachable, or raise "Timeout" in the options.`,
		);
	}
	const status = response.statusCode;
	if (status < 200 || status >= 300) {
		throw fail(
			`the image host answered HTTP ${status}`,
			status === 404
				? 'The image is missing on the image host. Turn on Continue On Fail to keep the other objects, or turn off Download Images.'
				: 'The image host refused or failed the download. Try again later, or turn off Download Images.',
			String(status),
		);
	}
	const headers = response.headers as IDataObject;
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
	const fileName = fileNameFor(headers['content-disposition'], url, mimeType, objectId);
	return await ctx.helpers.prepareBinaryData(response.body, fileName, mimeType);
}
