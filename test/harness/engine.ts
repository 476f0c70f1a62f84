/**
 * Runs workflows through n8n's real execution engine (n8n-core's WorkflowExecute), with the package loaded the
 * way n8n loads community packages (PackageDirectoryLoader over the built `dist/`, from package.json's `n8n`
 * section) and a few real nodes of n8n-nodes-base (Manual Trigger, Schedule Trigger, If, Aggregate, HTTP Request...).
 * Credentials are injected through an ICredentialsHelper that applies the credential type's own `authenticate`
 * block with n8n's expression engine, as n8n's CredentialsHelper does. Nothing of `this.helpers` is mocked.
 */
import './env';

import fs from 'node:fs';
import path from 'node:path';
import {
	CredentialTestContext,
	DirectoryLoader,
	ExecuteContext,
	ExecutionLifecycleHooks,
	PackageDirectoryLoader,
	RoutingNode,
	WorkflowExecute,
} from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	ICredentials,
	ICredentialType,
	IConnections,
	IDataObject,
	IExecuteData,
	IHttpRequestOptions,
	INode,
	INodeCredentialsDetails,
	INodeExecutionData,
	INodeProperties,
	INodeType,
	INodeTypes,
	IRun,
	IVersionedNodeType,
	IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';
import {
	ICredentialsHelper,
	NodeHelpers,
	Workflow,
	createEmptyRunExecutionData,
	createRunExecutionData,
} from 'n8n-workflow';

export const ROOT = path.resolve(__dirname, '../..');
export const PACKAGE = 'n8n-nodes-triptych';
export const CREDENTIAL = 'triptychApi';

/** n8n-nodes-base nodes the tests and examples use (loaded one by one: the whole package is ~500 nodes). */
const BASE_NODES = [
	'ManualTrigger/ManualTrigger.node.js',
	'Schedule/ScheduleTrigger.node.js',
	'If/If.node.js',
	'Transform/Aggregate/Aggregate.node.js',
	'Set/Set.node.js',
	'NoOp/NoOp.node.js',
	'HttpRequest/HttpRequest.node.js',
	'Transform/SplitOut/SplitOut.node.js',
	'Filter/Filter.node.js',
];

// n8n-core carries its own copies of @n8n/di and @n8n/backend-common: use the ones it resolves, so the logger
// registered here is the one the node contexts get.
const coreDir = path.dirname(require.resolve('n8n-core/package.json'));
const { Container } = require(
	require.resolve('@n8n/di', { paths: [coreDir] }),
) as typeof import('@n8n/di');
const { Logger } = require(require.resolve('@n8n/backend-common', { paths: [coreDir] })) as {
	Logger: abstract new (...args: never[]) => unknown;
};

/** Every log line n8n and the nodes wrote during the tests (the logger is n8n's DI `Logger`). */
export const logs: Array<{ level: string; message: string; meta?: unknown }> = [];
const recordingLogger = Object.fromEntries(
	['error', 'warn', 'info', 'debug'].map((level) => [
		level,
		(message: string, meta?: unknown) => logs.push({ level, message: String(message), meta }),
	]),
);
(recordingLogger as IDataObject).scoped = () => recordingLogger;
Container.set(Logger as never, recordingLogger as never);

let loaded: { pkg: PackageDirectoryLoader; base: DirectoryLoader } | undefined;

/** Loads the built package from dist/ exactly as n8n does (build first: `npm run build`). */
export async function loadPackage() {
	if (loaded) return loaded;
	if (!fs.existsSync(path.join(ROOT, 'dist/nodes'))) {
		throw new Error('dist/ is missing: run `npm run build` before the tests');
	}
	const pkg = new PackageDirectoryLoader(ROOT);
	await pkg.loadAll();
	const base = new PackageDirectoryLoader(
		path.dirname(require.resolve('n8n-nodes-base/package.json')),
	);
	for (const file of BASE_NODES) base.loadNodeFromFile(path.join('dist/nodes', file));
	loaded = { pkg, base };
	return loaded;
}

/** Each node of the package by name (quoteTags, …): its newest version, the one a node added to a workflow gets. */
export async function newestVersions(): Promise<Record<string, number>> {
	const { pkg } = await loadPackage();
	return Object.fromEntries(
		Object.entries(pkg.nodeTypes).map(([name, { type }]) => {
			const { description } = type as INodeType;
			return [name, description.defaultVersion ?? Math.max(...[description.version].flat())];
		}),
	);
}

export class HarnessNodeTypes implements INodeTypes {
	constructor(private readonly loaders: Record<string, DirectoryLoader>) {}

	getByName(type: string): INodeType | IVersionedNodeType {
		const dot = type.lastIndexOf('.');
		const loader = this.loaders[type.slice(0, dot)];
		const entry = loader?.nodeTypes[type.slice(dot + 1)];
		if (!entry) throw new Error(`Unrecognized node type: ${type}`);
		return entry.type;
	}

	getByNameAndVersion(type: string, version?: number): INodeType {
		return NodeHelpers.getVersionedNodeType(this.getByName(type), version);
	}

	getKnownTypes() {
		return {};
	}
}

/** Applies a credential type's `authenticate` (generic or function) like n8n's CredentialsHelper. */
export class HarnessCredentialsHelper extends ICredentialsHelper {
	constructor(
		private readonly types: Record<string, ICredentialType>,
		private readonly data: Record<string, ICredentialDataDecryptedObject>,
		/** A credential per ID a node names, before the one per type */
		private readonly byId: Record<string, ICredentialDataDecryptedObject> = {},
	) {
		super();
	}

	getParentTypes(): string[] {
		return [];
	}

	isCredentialUsableByNode(): boolean {
		return true;
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions,
		workflow?: Workflow,
		node?: INode,
	): Promise<IHttpRequestOptions> {
		const auth = this.types[typeName]?.authenticate;
		if (!auth) return requestOptions;
		if (typeof auth === 'function') return await auth(credentials, requestOptions);
		const resolve = (value: unknown) =>
			typeof value === 'string' && value.startsWith('=') && workflow && node
				? workflow.expression.getSimpleParameterValue(
						node,
						value,
						'internal',
						{ $credentials: credentials },
						undefined,
						'',
					)
				: value;
		const options = requestOptions as unknown as IDataObject;
		for (const [outer, props] of Object.entries(auth.properties as IDataObject)) {
			const target = ((options[outer] as IDataObject) ??= {});
			for (const [key, value] of Object.entries(props as IDataObject)) {
				target[String(resolve(key))] = resolve(value) as IDataObject[string];
			}
		}
		return requestOptions;
	}

	async preAuthentication() {
		return undefined;
	}

	async runPreAuthentication() {
		return undefined;
	}

	async getCredentials(): Promise<ICredentials> {
		throw new Error('not used by the harness');
	}

	async getDecrypted(
		_additionalData: IWorkflowExecuteAdditionalData,
		nodeCredentials: INodeCredentialsDetails,
		type: string,
	): Promise<ICredentialDataDecryptedObject> {
		const data = this.byId[nodeCredentials.id ?? ''] ?? this.data[type];
		if (!data) throw new Error(`No credentials of type ${type} were given to the harness`);
		return { ...data };
	}

	async updateCredentials() {}

	async updateCredentialsOauthTokenData() {}

	getCredentialsProperties(type: string): INodeProperties[] {
		return this.types[type]?.properties ?? [];
	}
}

export interface WorkflowSpec {
	nodes: INode[];
	connections: IConnections;
	settings?: IDataObject;
}

export interface RunResult {
	run: IRun;
	/** Output items of a node's first output (its last run) */
	output(nodeName: string, outputIndex?: number): INodeExecutionData[];
	/** The error a node stopped with, if any */
	error(nodeName: string): (Error & IDataObject) | undefined;
	/** The workflow's error, if it stopped */
	workflowError: (Error & IDataObject) | undefined;
	/** Names of the nodes in the order they ran */
	order: string[];
}

function makeAdditionalData(
	credentialsHelper: ICredentialsHelper,
	hooks?: ExecutionLifecycleHooks,
): IWorkflowExecuteAdditionalData {
	return {
		credentialsHelper,
		hooks,
		currentNodeExecutionIndex: 0,
		restApiUrl: 'http://127.0.0.1:5678/rest',
		instanceBaseUrl: 'http://127.0.0.1:5678',
		formBaseUrl: 'http://127.0.0.1:5678/form',
		formWaitingBaseUrl: 'http://127.0.0.1:5678/form-waiting',
		formTestBaseUrl: 'http://127.0.0.1:5678/form-test',
		webhookBaseUrl: 'http://127.0.0.1:5678/webhook',
		webhookWaitingBaseUrl: 'http://127.0.0.1:5678/webhook-waiting',
		webhookTestBaseUrl: 'http://127.0.0.1:5678/webhook-test',
		mcpBaseUrl: 'http://127.0.0.1:5678/mcp',
		mcpTestBaseUrl: 'http://127.0.0.1:5678/mcp-test',
		variables: {},
		executeWorkflow: async () => {
			throw new Error('sub-workflows are not supported by the harness');
		},
		getRunExecutionData: async () => undefined,
		logAiEvent: () => {},
		getRuntimeCredential: async () => undefined,
		startRunnerTask: async () => {
			throw new Error('task runners are not available in the harness');
		},
	} as unknown as IWorkflowExecuteAdditionalData;
}

let executionCounter = 0;

export interface RunOptions {
	credentials?: Record<string, ICredentialDataDecryptedObject>;
	/** Credentials by the ID a node names (a workflow with one credential per service), before those by type */
	credentialsById?: Record<string, ICredentialDataDecryptedObject>;
	/** Pinned output per node name (n8n's "pin data"): e.g. several input items for the trigger */
	pinData?: Record<string, IDataObject[]>;
	/**
	 * Called as soon as the run has started, with `stop`: what n8n's Stop button does (cancels the engine's
	 * PCancelable, which aborts the signal nodes get from getExecutionCancelSignal()). runWorkflow still waits for
	 * the engine to really finish (the nodes to return), so a test can time how long that took after the stop.
	 */
	onStart?: (stop: () => void) => void;
}

/** Runs a workflow from its trigger node through n8n's WorkflowExecute and returns every node's output. */
export async function runWorkflow(
	spec: WorkflowSpec,
	options: RunOptions = {},
): Promise<RunResult> {
	const { credentials = {}, credentialsById } = options;
	const { pkg, base } = await loadPackage();
	const nodeTypes = new HarnessNodeTypes({ [PACKAGE]: pkg, 'n8n-nodes-base': base });
	const credentialTypes = Object.fromEntries(
		Object.entries(pkg.credentialTypes).map(([name, entry]) => [name, entry.type]),
	);
	const credentialsHelper = new HarnessCredentialsHelper(
		credentialTypes,
		credentials,
		credentialsById,
	);
	const workflow = new Workflow({
		id: `harness-${++executionCounter}`,
		name: 'harness',
		nodes: spec.nodes,
		connections: spec.connections,
		active: false,
		nodeTypes,
		settings: spec.settings,
	});
	const executionId = String(executionCounter);
	const hooks = new ExecutionLifecycleHooks('manual', executionId, {
		id: workflow.id,
		name: 'harness',
		nodes: spec.nodes,
		connections: spec.connections,
		active: false,
		activeVersionId: null,
		isArchived: false,
		createdAt: new Date(),
		updatedAt: new Date(),
	} as never);
	const order: string[] = [];
	hooks.addHandler('nodeExecuteAfter', (nodeName) => {
		order.push(nodeName);
	});
	let finished: (run: IRun) => void = () => {};
	const done = new Promise<IRun>((resolve) => (finished = resolve));
	let lastRun: IRun | undefined; // a stopped run calls the hook twice: at the stop, and when the engine is done
	hooks.addHandler('workflowExecuteAfter', (data) => {
		lastRun = data;
		finished(data);
	});

	const start = spec.nodes.find((n) => {
		const type = nodeTypes.getByNameAndVersion(n.type, n.typeVersion);
		return type.description.group.includes('trigger');
	});
	if (!start) throw new Error('the workflow needs a trigger node to start from');

	const additionalData = makeAdditionalData(credentialsHelper, hooks);
	additionalData.executionId = executionId;
	const runExecutionData = createRunExecutionData({
		resultData: {
			runData: {},
			pinData: options.pinData
				? Object.fromEntries(
						Object.entries(options.pinData).map(([name, items]) => [
							name,
							items.map((json) => ({ json })),
						]),
					)
				: undefined,
		},
		executionData: {
			nodeExecutionStack: [{ node: start, data: { main: [[{ json: {} }]] }, source: null }],
		},
	});
	const execute = new WorkflowExecute(additionalData, 'manual', runExecutionData);
	const execution = execute.processRunExecutionData(workflow);
	options.onStart?.(() => execution.cancel());
	await execution;
	await done;
	const run = lastRun!;

	const runData = run.data.resultData.runData;
	return {
		run,
		order,
		workflowError: run.data.resultData.error as RunResult['workflowError'],
		output(nodeName, outputIndex = 0) {
			const runs = runData[nodeName];
			if (!runs?.length)
				throw new Error(`node "${nodeName}" did not run (ran: ${order.join(', ')})`);
			return runs[runs.length - 1].data?.main?.[outputIndex] ?? [];
		},
		error(nodeName) {
			const runs = runData[nodeName];
			return runs?.[runs.length - 1]?.error as RunResult['workflowError'];
		},
	};
}

/**
 * Runs the credential's Test the way n8n's editor "Test" button does (CredentialsTester): the credential type has no
 * declarative `test`, so n8n looks for a node that names a test function (`testedBy`) and calls it with n8n-core's
 * CredentialTestContext (whose `request` helper is n8n's own), then redacts the secrets from its message.
 */
export async function testCredential(
	data: ICredentialDataDecryptedObject,
): Promise<{ status: 'OK' | 'Error'; message: string }> {
	const { pkg } = await loadPackage();
	const credentialType = pkg.credentialTypes[CREDENTIAL].type;
	if (credentialType.test)
		throw new Error('the credential type has a declarative test: n8n would use that');
	let testFunction:
		| ((this: unknown, cred: unknown) => Promise<{ status: 'OK' | 'Error'; message: string }>)
		| undefined;
	for (const { type } of Object.values(pkg.nodeTypes)) {
		const t = type as INodeType;
		const entry = t.description.credentials?.find(
			(c) => c.name === CREDENTIAL && typeof c.testedBy === 'string',
		);
		const fn = entry && t.methods?.credentialTest?.[entry.testedBy as string];
		if (fn) {
			testFunction = fn as typeof testFunction;
			break;
		}
	}
	if (!testFunction) throw new Error('no node names a credential test function (testedBy)');
	const context = new CredentialTestContext(
		makeAdditionalData(new HarnessCredentialsHelper({}, {})),
	);
	const result = await testFunction.call(context, {
		id: '1',
		name: 'test',
		type: CREDENTIAL,
		data,
	});
	const key = String(data.apiKey ?? '');
	// n8n redacts the password fields' values from the message
	return key ? { ...result, message: result.message.split(key).join('*****') } : result;
}

/** A server for one test file: started before all, reset (with the logs) before each test, closed after all. */
export function useServer<T extends { reset(): void; close(): Promise<unknown> }>(
	start: () => Promise<T>,
): T {
	let server: T | undefined;
	beforeAll(async () => void (server = await start()));
	beforeEach(() => {
		server!.reset();
		logs.length = 0;
	});
	afterAll(() => server?.close());
	return new Proxy({} as T, { get: (_, key) => Reflect.get(server!, key) });
}

/** Runs Manual Trigger → one node of the package with the Triptych credential, `items` pinned on the trigger. */
export async function runNode(
	type: string,
	name: string,
	params: IDataObject,
	opts: {
		credentials?: IDataObject;
		items?: IDataObject[];
		/** Node settings, e.g. { continueOnFail: true } */
		extra?: Partial<INode>;
		onStart?: RunOptions['onStart'];
	} = {},
): Promise<RunResult> {
	const trigger = manualTrigger();
	return await runWorkflow(chain(trigger, node(type, name, params, opts.extra)), {
		credentials: { [CREDENTIAL]: (opts.credentials ?? {}) as ICredentialDataDecryptedObject },
		pinData: opts.items && { [trigger.name]: opts.items },
		onStart: opts.onStart,
	});
}

// Small builders for workflows in tests

let nodeCounter = 0;

export function node(
	type: string,
	name: string,
	parameters: IDataObject = {},
	extra: Partial<INode> = {},
): INode {
	const full = type.includes('.') ? type : `${PACKAGE}.${type}`;
	return {
		id: `node-${++nodeCounter}`,
		name,
		type: full,
		typeVersion: 1,
		position: [nodeCounter * 200, 0],
		parameters: parameters as INode['parameters'],
		...(full.startsWith(PACKAGE)
			? { credentials: { [CREDENTIAL]: { id: '1', name: 'Triptych' } } }
			: {}),
		...extra,
	};
}

export function manualTrigger(name = 'When clicking Execute'): INode {
	return node('n8n-nodes-base.manualTrigger', name);
}

/** Connects nodes one after another, first output to first input. */
export function chain(...nodes: INode[]): WorkflowSpec {
	const connections: IConnections = {};
	for (let i = 0; i + 1 < nodes.length; i++) {
		connections[nodes[i].name] = { main: [[{ node: nodes[i + 1].name, type: 'main', index: 0 }]] };
	}
	return { nodes, connections };
}
