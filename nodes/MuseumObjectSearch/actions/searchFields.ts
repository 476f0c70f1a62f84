import type { INodeProperties } from 'n8n-workflow';

import {
	type NumberOption,
	choiceProperty,
	numberProperty,
	returnAllOrLimit,
	sortOrder,
	sorted,
	textProperty,
} from '../../shared/fields';
import { FILTERS } from '../filters';

/* Search's fields and options, each defined once: the search reads them with the same definitions. */

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

export const searchFields: INodeProperties[] = [
	textProperty('Search', 'q', 'e.g. Hokusai wave', {
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
/** The filters with a Harvard parameter name, which Filter Parameter Names may rename */
const RENAMABLE = FILTERS.filter((f) => f.parameter);
// A named default: n8n's linter reads a default only from a literal or a name.
const FIRST_FILTER = FILTERS[0].key;

export const searchOptions: INodeProperties[] = [
	textProperty('Fields', 'fields', 'e.g. objectid,title,people,dated,primaryimageurl', {
		displayOptions: searchOnly,
		description:
			'Comma-separated record fields the service should send (sent as "fields"); the ID (objectid, or id) is always added so repeated records can be recognised. Empty: all fields (Art Institute of Chicago: those the output needs, to which these are added).',
	}),
	{ ...numberProperty(MAX_PAGES), displayOptions: searchOnly },
	{ ...numberProperty(PAGE), displayOptions: searchOnly },
	textProperty('Sort', 'sort', 'e.g. datebegin', {
		displayOptions: searchOnly,
		description:
			'Record field to sort by (sent as "sort"), e.g. title, datebegin or totalpageviews; "random" or "random:SEED" for a shuffled order. Art Institute of Chicago: one of its fields, e.g. date_start. The Cleveland Museum of Art cannot sort.',
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
		description: `Query parameter names to send filters under, when your museum service does not use the usual ones (${RENAMABLE.map((f) => f.parameter).join(', ')}). Not for the Art Institute of Chicago or Cleveland Museum of Art APIs, which have their own.`,
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
						options: RENAMABLE.map((f) => ({
							name: f.label,
							value: f.key,
							description: `Usually sent as "${f.parameter}"`,
						})).sort((a, b) => a.name.localeCompare(b.name)),
					},
					textProperty('Parameter Name', 'parameter', 'e.g. artist', {
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
				values: [
					textProperty('Name', 'name', 'e.g. culture'),
					textProperty('Value', 'value', 'e.g. Japanese'),
				],
			},
		],
	},
];
