import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { triptychApiTest } from '../shared/credentialTest';
import { runNode } from '../shared/items';
import { quoteTagsProperties } from './description';
import { quoteTagsOperation } from './operation';

export class QuoteTags implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Quote Tags',
		name: 'quoteTags',
		icon: { light: 'file:quoteTags.svg', dark: 'file:quoteTags.dark.svg' },
		group: ['input'],
		version: 1,
		subtitle:
			'={{ ($parameter["q"] ? "Tags matching \\"" + $parameter["q"] + "\\"" : ($parameter["returnAll"] ? "All tags" : "Tags")) + ($parameter["returnAll"] ? "" : ", up to " + $parameter["limit"]) }}',
		description:
			'List the tags (categories) that classify quotations, with their quote counts, optionally filtered by a search text',
		defaults: { name: 'Quote Tags' },
		usableAsTool: {
			replacements: {
				description:
					'List the tags (categories) of quotations with their quote counts, optionally only the tags whose name contains a search text',
			},
		},
		builderHint: {
			searchHint:
				'Lists the tags (categories) of a quotations service (Quotable or a compatible one) with their quote counts, optionally those whose name contains a text. Not for fetching the quotations themselves (use HTTP Request).',
		},
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'triptychApi', required: true, testedBy: 'triptychApiTest' }],
		properties: quoteTagsProperties,
	};

	methods = { credentialTest: { triptychApiTest } };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await runNode(this, (client) => quoteTagsOperation(this, client));
	}
}
