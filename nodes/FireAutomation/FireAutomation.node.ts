import type { IExecuteFunctions, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { triptychApiTest } from '../shared/credentialTest';
import { runNode } from '../shared/items';
import { fireAutomationProperties } from './description';
import { fireAutomationOperation } from './operation';

/** An action, not a trigger: n8n's editor takes any node whose display name contains "trigger" for a trigger. */
export class FireAutomation implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Fire Automation',
		name: 'fireAutomation',
		icon: { light: 'file:fireAutomation.svg', dark: 'file:fireAutomation.dark.svg' },
		group: ['output'],
		version: 1,
		subtitle: '={{ $parameter["event"] ? "Fire: " + $parameter["event"] : "POST /trigger/" }}',
		description: 'Fire an "if this then that" automation with an event name and a JSON payload',
		defaults: { name: 'Fire Automation' },
		usableAsTool: {
			replacements: {
				description:
					'Fire an automation (an "if this then that" applet) with an event name and a JSON payload. Every call fires it once.',
			},
		},
		builderHint: {
			searchHint:
				'Fires an "if this then that" automation (IFTTT Maker Webhooks or a compatible service) once per input item, with an event name and a JSON payload. Not for calling arbitrary web APIs (use HTTP Request) nor for starting a workflow (use a trigger node).',
		},
		hints: [
			{
				message:
					'With Concurrency above 1, several calls are in flight at once, so automations may arrive in another order than the items. Set Concurrency (Options) to 1 to keep the item order.',
				location: 'ndv',
				whenToDisplay: 'always',
				// Concurrency's default is above 1 on every version
				displayCondition: '={{ Number(($parameter["options"] || {}).concurrency || 2) > 1 }}',
			},
			{
				message:
					'Without an idempotency key, a call that fails after it may have reached the service (timeout, dropped connection, 502/503/504) is not retried, so it never fires twice. Choose an Idempotency Key Mode (Options) to allow retries.',
				location: 'ndv',
				whenToDisplay: 'always',
				displayCondition: '={{ (($parameter["options"] || {}).idempotency || "none") === "none" }}',
			},
		],
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'triptychApi', required: true, testedBy: 'triptychApiTest' }],
		properties: fireAutomationProperties,
	};

	methods = { credentialTest: { triptychApiTest } };

	async execute(this: IExecuteFunctions) {
		return await runNode(this, (client) => fireAutomationOperation(this, client));
	}
}
