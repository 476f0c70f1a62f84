import type { INodeProperties } from 'n8n-workflow';

/**
 * The service documents only `q` and `limit`. The filters are sent under the names the best-known museum API
 * (Harvard Art Museums, GET /object) uses; Filter Parameter Names renames them, Additional Query Parameters adds more.
 */
export const FILTER_PARAMETERS = {
	person: 'person',
	classification: 'classification',
	period: 'period',
	color: 'color',
	hasImage: 'hasimage',
} as const;

export type FilterName = keyof typeof FILTER_PARAMETERS;

export const FILTER_LABELS: Record<FilterName, string> = {
	person: 'Artist',
	classification: 'Classification',
	period: 'Period',
	color: 'Color',
	hasImage: 'Has Image',
};

const undocumented = (name: string) =>
	`Sent as "${name}", the name the best-known museum API uses (the service does not document it): rename it under Filter Parameter Names if your service uses another`;

export const filterProperties: INodeProperties[] = [
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [
			{
				displayName: 'Artist',
				name: 'person',
				type: 'string',
				default: '',
				placeholder: 'e.g. Hokusai',
				description: `Name or ID of a person connected with the object, such as its artist. Several: separate them with | (any of them matches). ${undocumented('person')}.`,
			},
			{
				displayName: 'Classification',
				name: 'classification',
				type: 'string',
				default: '',
				placeholder: 'e.g. Prints',
				description: `Kind of object, such as Paintings, Prints, Drawings, Photographs or Sculpture. Several: separate them with |. ${undocumented('classification')}.`,
			},
			{
				displayName: 'Color',
				name: 'color',
				type: 'color',
				default: '',
				description: `A colour in the object's palette, sent as a hex value such as #afaf4b (also accepted: #abc, colours without #, rgb(…) and #rrggbbaa, whose transparency is dropped). ${undocumented('color')}.`,
			},
			{
				displayName: 'Has Image',
				name: 'hasImage',
				type: 'boolean',
				default: true,
				description: `Whether to return only objects that have an image (sent as 1); off returns only objects without one (sent as 0). ${undocumented('hasimage')}.`,
			},
			{
				displayName: 'Period',
				name: 'period',
				type: 'string',
				default: '',
				placeholder: 'e.g. Edo period',
				description: `Historical period or art movement, such as Edo period or Romanticism. Several: separate them with |. ${undocumented('period')}.`,
			},
		],
	},
	{
		displayName: 'Filter Parameter Names',
		name: 'filterNames',
		type: 'fixedCollection',
		placeholder: 'Rename a Filter Parameter',
		default: {},
		typeOptions: { multipleValues: true },
		description:
			'Query parameter names to send filters under, when your museum service does not use the usual ones (person, classification, period, color, hasimage)',
		options: [
			{
				displayName: 'Renamed Filter',
				name: 'names',
				values: [
					{
						displayName: 'Filter',
						name: 'filter',
						type: 'options',
						default: 'person',
						options: [
							{ name: 'Artist (Person)', value: 'person' },
							{ name: 'Classification', value: 'classification' },
							{ name: 'Color', value: 'color' },
							{ name: 'Has Image (Hasimage)', value: 'hasImage' },
							{ name: 'Period', value: 'period' },
						],
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
];
