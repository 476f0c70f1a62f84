import type { INodeProperties } from 'n8n-workflow';

import { eventProperties } from './event';
import { optionsProperties } from './options';
import { payloadProperties } from './payload';

export const triggerCallProperties: INodeProperties[] = [
	...eventProperties,
	...payloadProperties,
	...optionsProperties,
];
