import type { INodeProperties } from 'n8n-workflow';

import { requestOptions, returnAllOrLimit, sortOrderOption } from '../shared/descriptions';

export const quoteTagsProperties: INodeProperties[] = [
	{
		displayName: 'Search',
		name: 'q',
		type: 'string',
		default: '',
		placeholder: 'e.g. wisdom',
		description: 'Text to look for in tag names (sent as "q"). Leave empty for every tag.',
	},
	...returnAllOrLimit(),
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Sort By',
				name: 'sortBy',
				type: 'options',
				default: 'name',
				description:
					'Field to sort the tags by (sent as "sortBy"; the service sorts by name when it has no such option)',
				options: [
					{ name: 'Date Added', value: 'dateAdded' },
					{ name: 'Date Modified', value: 'dateModified' },
					{ name: 'Name', value: 'name' },
					{ name: 'Quote Count', value: 'quoteCount' },
				],
			},
			sortOrderOption(
				'order',
				'Sent as "order". Without it the service uses ascending for names and descending for the others.',
			),
			...requestOptions,
		],
	},
];
