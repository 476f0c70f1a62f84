/**
 * Runs a node's editor methods (`methods.listSearch`) the way n8n's editor does: with
 * n8n-core's real LoadOptionsContext over the built package, its request helpers and the harness's credentials
 * helper (which applies the credential's own `authenticate`). Nothing of `this.helpers` is mocked.
 */
import { LoadOptionsContext } from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	INodeListSearchResult,
	INodeType,
	IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import {
	CREDENTIAL,
	HarnessCredentialsHelper,
	HarnessNodeTypes,
	PACKAGE,
	loadPackage,
	node,
} from './engine';

async function contextFor(type: string, credentials: IDataObject, parameters: IDataObject) {
	const { pkg } = await loadPackage();
	const credentialTypes = Object.fromEntries(
		Object.entries(pkg.credentialTypes).map(([name, entry]) => [name, entry.type]),
	);
	const helper = new HarnessCredentialsHelper(credentialTypes, {
		[CREDENTIAL]: credentials as ICredentialDataDecryptedObject,
	});
	const subject = node(type, 'Node', parameters);
	const workflow = new Workflow({
		id: 'load-options',
		nodes: [subject],
		connections: {},
		active: false,
		nodeTypes: new HarnessNodeTypes({ [PACKAGE]: pkg }),
	});
	const additionalData = {
		credentialsHelper: helper,
		currentNodeParameters: parameters,
		restApiUrl: 'http://127.0.0.1:5678/rest',
		instanceBaseUrl: 'http://127.0.0.1:5678',
		variables: {},
	} as unknown as IWorkflowExecuteAdditionalData;
	const context = new LoadOptionsContext(workflow, subject, additionalData, 'parameters');
	const nodeType = pkg.nodeTypes[type].type as INodeType;
	return { context, methods: nodeType.methods! };
}

/** A `methods.listSearch` method, as the editor calls it for a resource locator's From List. */
export async function listSearch(
	type: string,
	method: string,
	credentials: IDataObject,
	filter?: string,
	paginationToken?: string,
	parameters: IDataObject = {},
): Promise<INodeListSearchResult> {
	const { context, methods } = await contextFor(type, credentials, parameters);
	return await methods.listSearch![method].call(context, filter, paginationToken);
}
