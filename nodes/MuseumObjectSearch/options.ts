import type { INodeProperties } from 'n8n-workflow';

import { requestOptions, sortOrderOption } from '../shared/descriptions';

export const DEFAULT_MAX_PAGES = 500;
export const DEFAULT_MAX_IMAGES = 50;

export const imageProperties: INodeProperties[] = [
	{
		displayName: 'Download Images',
		name: 'downloadImages',
		type: 'boolean',
		default: false,
		description:
			"Whether to put each object's primary image into the item's binary data. Images are fetched without the API key. Ignored when an AI agent uses the node as a tool.",
	},
	{
		displayName: 'Put Output File in Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		displayOptions: { show: { downloadImages: [true] } },
		hint: 'The name of the output binary field to put the image in',
	},
	{
		displayName: 'Max Images',
		name: 'maxImages',
		type: 'number',
		typeOptions: { minValue: 0 },
		default: DEFAULT_MAX_IMAGES,
		displayOptions: { show: { downloadImages: [true] } },
		description:
			'Most images to download in one run of the node, across all input items. Objects past it keep their data, get no image and a "binaryOmitted" note.',
	},
];

export const optionsProperty: INodeProperties = {
	displayName: 'Options',
	name: 'options',
	type: 'collection',
	placeholder: 'Add Option',
	default: {},
	options: [
		{
			displayName: 'Fields',
			name: 'fields',
			type: 'string',
			default: '',
			placeholder: 'e.g. objectid,title,people,dated,primaryimageurl',
			description:
				'Comma-separated record fields the service should send (sent as "fields"); objectid is always added so repeated records can be recognised. Empty: all fields.',
		},
		{
			displayName: 'Max Pages',
			name: 'maxPages',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: DEFAULT_MAX_PAGES,
			description:
				'Most pages (requests) one search may fetch. When the results need more, the node stops with an error instead of returning part of them. Pages hold up to 100 records.',
		},
		{
			displayName: 'Output',
			name: 'output',
			type: 'options',
			default: 'simplified',
			options: [
				{
					name: 'Raw',
					value: 'raw',
					description: 'The records as the service sends them',
				},
				{
					name: 'Selected Fields',
					value: 'selected',
					description: 'Only the fields listed in Selected Fields',
				},
				{
					name: 'Simplified',
					value: 'simplified',
					description:
						'One flat item per object: ID, title, artist, date, classification, period, culture, medium, image URL and object URL',
				},
			],
		},
		{
			displayName: 'Page',
			name: 'page',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 1,
			description:
				'Page to start from (sent as "page"). Pages hold Limit records, at most 100 (with Return All: 100).',
		},
		{
			displayName: 'Selected Fields',
			name: 'selectedFields',
			type: 'string',
			default: '',
			placeholder: 'e.g. objectid, title, people, images.0.width',
			displayOptions: { show: { output: ['selected'] } },
			description:
				'Comma-separated record fields to output when Output is Selected Fields; a dot reaches into an object or list',
		},
		{
			displayName: 'Sort',
			name: 'sort',
			type: 'string',
			default: '',
			placeholder: 'e.g. datebegin',
			description:
				'Record field to sort by (sent as "sort"), e.g. title, datebegin or totalpageviews; "random" or "random:SEED" for a shuffled order',
		},
		sortOrderOption('sortOrder', 'Sent as "sortorder"'),
		...requestOptions,
	],
};
