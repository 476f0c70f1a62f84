import type { IExecuteFunctions, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { triptychApiTest } from '../shared/credentialTest';
import { runNode } from '../shared/items';
import { museumObjectSearchProperties } from './description';
import { listSearch } from './listSearch';
import { museumOperation } from './operation';

export class MuseumObjectSearch implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Museum Object Search',
		name: 'museumObjectSearch',
		icon: { light: 'file:museum.svg', dark: 'file:museum.dark.svg' },
		group: ['input'],
		version: 1,
		subtitle:
			'={{ $parameter["operation"] === "get" ? "Get an object" : ($parameter["q"] ? "Search: " + $parameter["q"] : (Object.keys($parameter["filters"] || {}).length ? "Filtered objects" : ($parameter["returnAll"] ? "All objects" : "Objects"))) + ($parameter["returnAll"] ? "" : ", up to " + $parameter["limit"]) }}',
		description:
			"Search a museum's artworks by text, artist, classification, period or color, or get one by its ID",
		defaults: { name: 'Museum Object Search' },
		usableAsTool: {
			replacements: {
				description:
					"Search a museum's artworks by free text, or get one artwork by its ID, and return the objects: id, title, artist, date, classification, period, culture, medium, image URL, object URL, credit line and image rights",
			},
		},
		builderHint: {
			searchHint:
				"Searches a museum collection (Harvard Art Museums API or a compatible service) by free text, artist, classification, period or color and returns one item per artwork, optionally with its image. Not for other museums' own APIs, nor for fetching an arbitrary URL (use HTTP Request).",
		},
		hints: [
			{
				message:
					'Return All with no search and no filter asks for the whole collection: the node stops with an error after Max Pages pages. Add a search or a filter, or turn Return All off.',
				type: 'warning',
				location: 'ndv',
				whenToDisplay: 'always',
				displayCondition:
					'={{ $parameter["operation"] !== "get" && $parameter["returnAll"] === true && !$parameter["q"] && !Object.keys($parameter["filters"] || {}).length }}',
			},
		],
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'triptychApi', required: true, testedBy: 'triptychApiTest' }],
		properties: museumObjectSearchProperties,
	};

	methods = { credentialTest: { triptychApiTest }, listSearch };

	async execute(this: IExecuteFunctions) {
		return await runNode(this, (client) => museumOperation(this, client));
	}
}
