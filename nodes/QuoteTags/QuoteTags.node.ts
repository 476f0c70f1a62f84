import type { IExecuteFunctions, INodeType, INodeTypeDescription } from 'n8n-workflow';
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
			'List the tags (categories) of a quotations service, optionally filtered by a search text and sorted',
		defaults: { name: 'Quote Tags' },
		usableAsTool: {
			replacements: {
				description:
					'List the tags (categories) of quotations, optionally only those whose name contains a search text. Each tag has a name; some services also give its quote count and dates.',
			},
		},
		builderHint: {
			searchHint:
				'Lists the tags (categories) of a quotations service (a self-hosted Quotable, its rewrite, QuoteSlate or a compatible one), optionally those whose name contains a text. Each tag has a name; quote counts and dates only where the service gives them. Not for fetching the quotations themselves (use HTTP Request).',
		},
		hints: [
			{
				message:
					'With a sort, the node asks the service for every tag and sorts them itself (the services sort by different names, or not at all), then keeps Limit. A tag without the sorted field comes last.',
				type: 'info',
				location: 'ndv',
				whenToDisplay: 'always',
				displayCondition:
					'={{ ($parameter["options"] || {}).sortBy !== undefined || ($parameter["options"] || {}).order !== undefined }}',
			},
		],
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'triptychApi', required: true, testedBy: 'triptychApiTest' }],
		properties: quoteTagsProperties,
	};

	methods = { credentialTest: { triptychApiTest } };

	async execute(this: IExecuteFunctions) {
		return await runNode(this, (client) => quoteTagsOperation(this, client));
	}
}
