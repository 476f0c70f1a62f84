import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { StyleEntry } from '../shared/services';
import type { RequestSettings, TriptychClient } from '../shared/transport';

/** An object's image to download: the address asked for (sized), the record's own (for its file name), and whose it is. */
export interface Image {
	url: string;
	source: string;
	objectId: unknown;
}

/** One object as output: its item, and its image to download. */
export interface Found {
	item: INodeExecutionData;
	image?: Image;
}

/** What an operation needs for one input item; `map` turns a record into its output as soon as it comes. */
export interface Call {
	ctx: IExecuteFunctions;
	client: TriptychClient;
	settings: RequestSettings;
	style: StyleEntry;
	/** `context`: what the records' answer says beside them (AIC's `config`) */
	map: (record: IDataObject, context?: IDataObject) => Found;
	i: number;
}
