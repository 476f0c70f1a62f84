import type { INodeProperties } from 'n8n-workflow';

import { returnAllOrLimit } from '../shared/descriptions';
import { filterProperties } from './filters';
import { imageProperties, optionsProperty } from './options';

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
	...filterProperties,
	...imageProperties,
	optionsProperty,
];
