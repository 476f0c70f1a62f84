import type { INodeProperties } from 'n8n-workflow';

import type { ChoiceOption, NumberOption } from '../shared/fields';
import {
	choiceProperty,
	numberProperty,
	returnAllOrLimit,
	sortOrder,
	sorted,
	optionsCollection,
} from '../shared/fields';
import { MAX_ATTEMPTS_READ, requestOptions } from '../shared/options';
import { FILTERS } from './filters';

export type Output = 'simplified' | 'raw' | 'selected';

export const OUTPUT: ChoiceOption<Output> = {
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
				'One flat item per object: ID, title, artist, date, classification, period, culture, medium, image URL and object URL',
		},
	],
};

export const SORT_ORDER = sortOrder('sortOrder', 'Sent as "sortorder"');

export const MAX_PAGES: NumberOption = {
	displayName: 'Max Pages',
	name: 'maxPages',
	default: 500,
	min: 1,
	description:
		'Most pages (requests) one search may fetch. When the results need more, the node stops with an error instead of returning part of them. Pages hold up to 100 records.',
};

export const PAGE: NumberOption = {
	displayName: 'Page',
	name: 'page',
	default: 1,
	min: 1,
	description:
		'Page to start from (sent as "page"). Pages hold Limit records, at most 100 (with Return All: 100).',
};

export const MAX_IMAGES: NumberOption = {
	displayName: 'Max Images',
	name: 'maxImages',
	default: 50,
	min: 0,
	description:
		'Most images to download in one run of the node, across all input items. Objects past it keep their data, get no image and a "binaryOmitted" note.',
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

/** The record fields Selected Fields offers; any other field goes in Other Fields. */
export const COMMON_FIELDS = [
	'accessionyear',
	'century',
	'classification',
	'colors',
	'creditline',
	'culture',
	'dated',
	'datebegin',
	'dateend',
	'department',
	'dimensions',
	'division',
	'images',
	'medium',
	'objectid',
	'objectnumber',
	'people',
	'period',
	'primaryimageurl',
	'technique',
	'title',
	'url',
];

const FIRST_FILTER = FILTERS[0].key;

const show = (field: string, values: Array<string | boolean>) => ({
	displayOptions: { show: { [field]: values } },
});

export const museumObjectSearchProperties: INodeProperties[] = [
	{
		displayName: 'Search',
		name: 'q',
		type: 'string',
		default: '',
		placeholder: 'e.g. Hokusai wave',
		description:
			'Free text to search the collection for (sent as "q"), e.g. words of a title or an artist\'s name. Leave empty to match every object.',
	},
	...returnAllOrLimit(),
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: sorted(
			FILTERS.map((f) => ({ ...f.field, name: f.key, displayName: f.label }) as INodeProperties),
		),
	},
	choiceProperty(OUTPUT),
	{
		displayName: 'Selected Fields',
		name: 'selectedFieldList',
		type: 'multiOptions',
		default: [],
		displayOptions: { show: { output: ['selected'] } },
		description: "Record fields to output. The record's ID (objectid) is always kept.",
		options: COMMON_FIELDS.map((name) => ({ name, value: name })),
	},
	{
		displayName: 'Other Fields',
		name: 'otherFields',
		type: 'string',
		default: '',
		placeholder: 'e.g. technique, images.0.width',
		displayOptions: { show: { output: ['selected'] } },
		description:
			'More record fields to output, comma-separated; a dot reaches into an object or list (e.g. images.0.width)',
	},
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
		...show('downloadImages', [true]),
		hint: 'The name of the output binary field to put the image in',
	},
	{ ...numberProperty(MAX_IMAGES), ...show('downloadImages', [true]) },
	{ ...numberProperty(MAX_IMAGE_SIZE), ...show('downloadImages', [true]) },
	{
		displayName: 'Filter Parameter Names',
		name: 'filterNames',
		type: 'fixedCollection',
		placeholder: 'Rename a Filter Parameter',
		default: {},
		typeOptions: { multipleValues: true },
		description: `Query parameter names to send filters under, when your museum service does not use the usual ones (${FILTERS.map((f) => f.parameter).join(', ')})`,
		options: [
			{
				displayName: 'Renamed Filter',
				name: 'names',
				values: [
					{
						displayName: 'Filter',
						name: 'filter',
						type: 'options',
						default: FIRST_FILTER,
						options: FILTERS.map((f) => ({
							name: f.label,
							value: f.key,
							description: `Usually sent as "${f.parameter}"`,
						})).sort((a, b) => a.name.localeCompare(b.name)),
					},
					{
						displayName: 'Parameter Name',
						name: 'parameter',
						type: 'string',
						default: '',
						placeholder: 'e.g. artist',
						description: 'Query parameter that carries this filter',
					},
				],
			},
		],
	},
	{
		displayName: 'Additional Query Parameters',
		name: 'additionalQuery',
		type: 'fixedCollection',
		placeholder: 'Add Parameter',
		default: {},
		typeOptions: { multipleValues: true },
		description:
			'More query parameters to send, e.g. culture, century or yearmade. A name the node already sends (Search, a filter, an option, limit, page) is refused rather than silently replaced.',
		options: [
			{
				displayName: 'Parameter',
				name: 'parameters',
				values: [
					{
						displayName: 'Name',
						name: 'name',
						type: 'string',
						default: '',
						placeholder: 'e.g. culture',
					},
					{
						displayName: 'Value',
						name: 'value',
						type: 'string',
						default: '',
						placeholder: 'e.g. Japanese',
					},
				],
			},
		],
	},
	optionsCollection([
		{
			displayName: 'Fields',
			name: 'fields',
			type: 'string',
			default: '',
			placeholder: 'e.g. objectid,title,people,dated,primaryimageurl',
			description:
				'Comma-separated record fields the service should send (sent as "fields"); objectid is always added so repeated records can be recognised. Empty: all fields.',
		},
		numberProperty(MAX_PAGES),
		numberProperty(PAGE),
		{
			displayName: 'Sort',
			name: 'sort',
			type: 'string',
			default: '',
			placeholder: 'e.g. datebegin',
			description:
				'Record field to sort by (sent as "sort"), e.g. title, datebegin or totalpageviews; "random" or "random:SEED" for a shuffled order',
		},
		choiceProperty(SORT_ORDER),
		...requestOptions(MAX_ATTEMPTS_READ),
	]),
];
