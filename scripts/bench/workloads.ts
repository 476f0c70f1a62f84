/** What `npm run bench` and `npm run bench:n8n` run: each node's request per item, and the HTTP Request node's. */
import type { IDataObject } from 'n8n-workflow';

import { DEFAULT_API_KEY } from '../../test/servers';

export type Kind = 'quotes' | 'trigger' | 'museum';

/** The node of this package per service, its parameters (options at their defaults) and its credential's URL field. */
export const OURS: Record<Kind, { type: string; parameters: IDataObject; urlField: string }> = {
	quotes: {
		type: 'quoteTags',
		parameters: { q: 'a', limit: 1, options: {} },
		urlField: 'quotesUrl',
	},
	trigger: {
		type: 'fireAutomation',
		parameters: { event: 'bench', payload: 'item', options: {} },
		urlField: 'triggerUrl',
	},
	museum: {
		type: 'museumObjectSearch',
		parameters: { q: '={{ $json.q }}', limit: 10, options: {} },
		urlField: 'museumUrl',
	},
};

/** The HTTP Request node's parameters for the same request per item. */
export function peerParameters(kind: Kind, url: string): IDataObject {
	const bearer = {
		sendHeaders: true,
		headerParameters: {
			parameters: [{ name: 'Authorization', value: `Bearer ${DEFAULT_API_KEY}` }],
		},
	};
	const query = (q: Record<string, string>) => ({
		sendQuery: true,
		queryParameters: { parameters: Object.entries(q).map(([name, value]) => ({ name, value })) },
	});
	const body = {
		sendBody: true,
		contentType: 'json',
		specifyBody: 'json',
		jsonBody: '={{ $json }}',
	};
	return {
		quotes: { method: 'GET', url: `${url}/tags`, ...query({ q: 'a', limit: '1' }) },
		trigger: { method: 'POST', url: `${url}/trigger/bench`, ...bearer, ...body },
		museum: {
			method: 'GET',
			url: `${url}/object`,
			...bearer,
			...query({ q: '={{ $json.q }}', limit: '10' }),
		},
	}[kind];
}

/** `n` input items, each with a search text */
export const items = (n: number, from = 0) =>
	Array.from({ length: n }, (_, i) => ({
		n: from + i,
		q: ['art', 'blue', 'river', 'woman'][i % 4],
	}));

/** The HTTP Request node paging by itself, as a user would set it for the museum service: page = $pageCount + 1,
 * pages of 100, complete when a page comes back empty (one request more than there are pages). */
export function peerPagination(url: string): IDataObject {
	const pagination = {
		paginationMode: 'updateAParameterInEachRequest',
		parameters: { parameters: [{ type: 'qs', name: 'page', value: '={{ $pageCount + 1 }}' }] },
		paginationCompleteWhen: 'other',
		completeExpression: '={{ $response.body.data.records.length === 0 }}',
		limitPagesFetched: false,
		requestInterval: 0,
	};
	return {
		method: 'GET',
		url: `${url}/object`,
		sendHeaders: true,
		headerParameters: {
			parameters: [{ name: 'Authorization', value: `Bearer ${DEFAULT_API_KEY}` }],
		},
		sendQuery: true,
		queryParameters: { parameters: [{ name: 'limit', value: '100' }] },
		options: { pagination: { pagination } },
	};
}
