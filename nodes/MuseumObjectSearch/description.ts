import type { INodeProperties } from 'n8n-workflow';

import {
	type ChoiceOption,
	type NumberOption,
	choiceProperty,
	numberProperty,
	optionsCollection,
	returnAllOrLimit,
	sortOrder,
	sorted,
} from '../shared/fields';
import { MAX_ATTEMPTS_READ, requestOptions } from '../shared/options';
import { getFields } from './actions/get';
import { FILTERS } from './filters';
import { IMAGE_SIZE, IMAGE_WIDTH, MAX_IMAGE_SIZE, MAX_IMAGES } from './images';
import { COMMON_FIELDS, OUTPUT } from './records';

export const OPERATION: ChoiceOption<'search' | 'get'> = {
	displayName: 'Operation',
	name: 'operation',
	default: 'search',
	options: [
		{ name: 'Get', value: 'get', description: 'Get one object by its ID or address' },
		{ name: 'Search', value: 'search', description: 'Search objects by text and filters' },
	],
};

const ACTIONS = { get: 'Get an object', search: 'Search objects' };

export const SORT_ORDER = sortOrder('sortOrder', 'Sent as "sortorder"');

export const MAX_PAGES: NumberOption = {
	displayName: 'Max Pages',
	name: 'maxPages',
	default: 500,
	min: 1,
	description:
		'Most pages (requests) one search may fetch; pages hold up to 100 records. With Return All, needing more is an error rather than part of the results; with a Limit, the node returns what Max Pages holds and says so in a hint.',
};

export const PAGE: NumberOption = {
	displayName: 'Page',
	name: 'page',
	default: 1,
	min: 1,
	description:
		'Page to start from (sent as "page"). Pages hold Limit records, at most 100 (with Return All: 100).',
};

const search = { show: { operation: ['search'] } };

/** A text field, empty by default, with an example as its placeholder. */
const text = (
	displayName: string,
	name: string,
	placeholder: string,
	more: Partial<INodeProperties> = {},
): INodeProperties => ({ displayName, name, type: 'string', default: '', placeholder, ...more });

/** Search's own fields, after Operation: what to look for, how many, and the filters. */
export const searchFields: INodeProperties[] = [
	text('Search', 'q', 'e.g. Hokusai wave', {
		displayOptions: search,
		description:
			'Free text to search the collection for (sent as "q"), e.g. words of a title or an artist\'s name. Leave empty to match every object.',
	}),
	...returnAllOrLimit().map((field) => ({
		...field,
		displayOptions: { show: { ...search.show, ...field.displayOptions?.show } },
	})),
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		displayOptions: search,
		options: sorted(
			FILTERS.map((f) => ({ ...f.field, name: f.key, displayName: f.label }) as INodeProperties),
		),
	},
];

const searchOnly = { show: { '/operation': ['search'] } };
// A named default: n8n's linter reads a default only from a literal or a name.
const FIRST_FILTER = FILTERS[0].key;

/** Search's entries in Options (advanced): paging, sorting and parameters for services that differ. */
export const searchOptions: INodeProperties[] = [
	text('Fields', 'fields', 'e.g. objectid,title,people,dated,primaryimageurl', {
		displayOptions: searchOnly,
		description:
			'Comma-separated record fields the service should send (sent as "fields"); objectid is always added so repeated records can be recognised. Empty: all fields.',
	}),
	{ ...numberProperty(MAX_PAGES), displayOptions: searchOnly },
	{ ...numberProperty(PAGE), displayOptions: searchOnly },
	text('Sort', 'sort', 'e.g. datebegin', {
		displayOptions: searchOnly,
		description:
			'Record field to sort by (sent as "sort"), e.g. title, datebegin or totalpageviews; "random" or "random:SEED" for a shuffled order',
	}),
	{ ...choiceProperty(SORT_ORDER), displayOptions: searchOnly },
	{
		displayName: 'Filter Parameter Names',
		name: 'filterNames',
		type: 'fixedCollection',
		placeholder: 'Rename a Filter Parameter',
		default: {},
		typeOptions: { multipleValues: true },
		displayOptions: searchOnly,
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
					text('Parameter Name', 'parameter', 'e.g. artist', {
						description: 'Query parameter that carries this filter',
					}),
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
		displayOptions: searchOnly,
		description:
			'More query parameters to send, e.g. culture, century or yearmade. A name the node already sends (Search, a filter, an option, limit, page) is refused rather than silently replaced.',
		options: [
			{
				displayName: 'Parameter',
				name: 'parameters',
				values: [text('Name', 'name', 'e.g. culture'), text('Value', 'value', 'e.g. Japanese')],
			},
		],
	},
];

/** A field about downloading images: shown once Download Images is on, never when an AI agent uses the node. */
const whenDownloading = (show = {}) => ({
	displayOptions: { show: { downloadImages: [true], ...show }, hide: { '@tool': [true] } },
});

export const museumObjectSearchProperties: INodeProperties[] = [
	{
		...choiceProperty(OPERATION),
		noDataExpression: true,
		options: OPERATION.options.map((o) => ({ ...o, action: ACTIONS[o.value] })),
	},
	...searchFields,
	...getFields,
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
	text('Other Fields', 'otherFields', 'e.g. technique, images.0.width', {
		displayOptions: { show: { output: ['selected'] } },
		description:
			'More record fields to output, comma-separated; a dot reaches into an object or list (e.g. images.0.width)',
	}),
	{
		displayName: 'Download Images',
		name: 'downloadImages',
		type: 'boolean',
		default: false,
		displayOptions: { hide: { '@tool': [true] } },
		description:
			"Whether to put each object's primary image into the item's binary data. Images are fetched without the API key.",
	},
	{ ...choiceProperty(IMAGE_SIZE), ...whenDownloading() },
	{ ...numberProperty(IMAGE_WIDTH), ...whenDownloading({ imageSize: ['custom'] }) },
	{
		displayName: 'Put Output File in Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		...whenDownloading(),
		hint: 'The name of the output binary field to put the image in',
	},
	{ ...numberProperty(MAX_IMAGES), ...whenDownloading() },
	{ ...numberProperty(MAX_IMAGE_SIZE), ...whenDownloading() },
	optionsCollection([...searchOptions, ...requestOptions(MAX_ATTEMPTS_READ)]),
];
