import type { INodeProperties } from 'n8n-workflow';

import type { ChoiceOption } from '../shared/fields';
import { choiceProperty, returnAllOrLimit, sortOrder, optionsCollection } from '../shared/fields';
import { MAX_ATTEMPTS_READ, requestOptions } from '../shared/options';

export type SortField = 'name' | 'quoteCount' | 'dateAdded' | 'dateModified';

export const SORT_BY: ChoiceOption<SortField> = {
	displayName: 'Sort By',
	name: 'sortBy',
	default: 'name',
	description:
		'Field to sort the tags by. The node sorts them itself, whatever the service: Quote Count reads "quoteCount" or "quotesCount", Date Added "dateAdded" or "createdAt", Date Modified "dateModified" or "updatedAt". Tags without the field come last; services that list only names have no counts or dates.',
	options: [
		{ name: 'Date Added', value: 'dateAdded' },
		{ name: 'Date Modified', value: 'dateModified' },
		{ name: 'Name', value: 'name' },
		{ name: 'Quote Count', value: 'quoteCount' },
	],
};

export const ORDER = sortOrder(
	'order',
	'Without it: ascending for names, descending for the others',
);

export const quoteTagsProperties: INodeProperties[] = [
	{
		displayName: 'Search',
		name: 'q',
		type: 'string',
		default: '',
		placeholder: 'e.g. wisdom',
		description:
			'Text to look for in tag names (also sent as "q"; the node filters the answer itself). Leave empty for every tag.',
	},
	...returnAllOrLimit(),
	optionsCollection([
		...requestOptions(MAX_ATTEMPTS_READ),
		choiceProperty(SORT_BY),
		choiceProperty(ORDER),
	]),
];
