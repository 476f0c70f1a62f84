import type { INodeProperties } from 'n8n-workflow';

import {
	type ChoiceOption,
	choiceProperty,
	numberProperty,
	optionsCollection,
	textProperty,
} from '../shared/fields';
import { MAX_ATTEMPTS_READ, requestOptions } from '../shared/options';
import { getFields } from './actions/get';
import { searchFields, searchOptions } from './actions/searchFields';
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
	textProperty('Other Fields', 'otherFields', 'e.g. technique, images.0.width', {
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
