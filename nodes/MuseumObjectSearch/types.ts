import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { PageAnswer } from '../shared/paging';
import type { StyleEntry } from '../shared/services';
import type { RequestSettings, TriptychClient } from '../shared/transport';

/** A page of records, with what they need beside them (AIC's IIIF address is in the answer's `config`). */
export type Page = PageAnswer<unknown> & { total?: number; context?: IDataObject };

/** An object's image: the address asked for (sized), and the record's own (for its file name). */
export type ImageAt = { url: string; source: string };

/** One object as output: its item, and its image to download (`objectId`: whose it is). */
export type Found = { item: INodeExecutionData; image?: ImageAt & { objectId: unknown } };

/** What an operation needs for one input item; `map` turns a record into its output as soon as it comes. */
export interface Call {
	ctx: IExecuteFunctions;
	client: TriptychClient;
	settings: RequestSettings;
	style: StyleEntry;
	map: (record: IDataObject, context?: IDataObject) => Found;
	i: number;
}
