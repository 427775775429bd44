/**
 * Runs our nodes inside n8n-core's real execution contexts (ExecuteContext, LoadOptionsContext,
 * PollContext): real parameter resolution, real httpRequestWithAuthentication (so nock and the
 * emulator see real HTTP), real binary helpers. Only the credential store is replaced.
 */
import { Container } from '@n8n/di';
import {
	BinaryDataService,
	ExecuteContext,
	LoadOptionsContext,
	PollContext,
	WebhookContext,
} from 'n8n-core';
import type {
	IConnections,
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	INode,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	IRunExecutionData,
	IWebhookData,
	IWorkflowExecuteAdditionalData,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { Workflow, createRunExecutionData } from 'n8n-workflow';

import { GenerationServiceApi } from '../../credentials/GenerationServiceApi.credentials';
import { testClock } from './serviceClock';

/** A recognisable key (built at run time so it is not a literal in the source). */
export const TEST_KEY = `svc_sk_key_${'5ec12e7a'.repeat(4)}.${'c0ffee00'.repeat(8)}`;

let binaryReady: Promise<void> | undefined;
export async function initBinaryData(): Promise<void> {
	binaryReady ??= Container.get(BinaryDataService).init();
	await binaryReady;
}

const credentialType = new GenerationServiceApi();

export interface NodeRun {
	node: INodeType;
	parameters: INodeParameters;
	items?: INodeExecutionData[];
	credentials?: { apiKey: string; baseUrl: string } | null;
	continueOnFail?: boolean;
	executionId?: string;
	workflowId?: string;
	nodeId?: string;
	nodeName?: string;
	abortSignal?: AbortSignal;
	mode?: WorkflowExecuteMode;
	/** Run as n8n runs a node used as a tool of an AI agent: under the node type `<type>Tool`. */
	asTool?: boolean;
	staticData?: IDataObject;
	/**
	 * The execution's data, shared by the nodes of one execution as n8n does (its flow context, its
	 * execution context); a Retry gets a copy of the retried execution's. A fresh one when absent.
	 */
	runExecutionData?: IRunExecutionData;
	/** Which run of the node in its execution (a loop runs a node again); 0 by default. */
	runIndex?: number;
	/**
	 * How long (virtual ms) n8n takes to read the credential for each request in turn (0 when the list is
	 * used up): in n8n that is a database read and a decryption inside its HTTP helper, between the pacer
	 * letting a request go and the request going out.
	 */
	credentialDelaysMs?: number[];
	/** n8n's Retry On Fail on the node (tries: maxTries, no wait between them). */
	retryOnFail?: boolean;
	maxTries?: number;
}

/** The data of a new execution (for `runExecutionData`), optionally with n8n's execution context. */
export function newExecutionData(
	runtimeData?: NonNullable<IRunExecutionData['executionData']>['runtimeData'],
): IRunExecutionData {
	const data = createRunExecutionData();
	if (runtimeData && data.executionData) data.executionData.runtimeData = runtimeData;
	return data;
}

/** What a workflow holds besides the node under test (an MCP Server Trigger it is a tool of). */
interface Surroundings {
	nodes: INode[];
	connections: IConnections;
	types: Record<string, INodeType>;
}

function makeWorkflow(run: NodeRun, around?: Surroundings) {
	const nodeType = run.node;
	const node: INode = {
		id: run.nodeId ?? 'node-under-test',
		name: run.nodeName ?? nodeType.description.displayName,
		type: `n8n-nodes-generation-service.${nodeType.description.name}${run.asTool ? 'Tool' : ''}`,
		typeVersion: 1,
		position: [0, 0],
		parameters: run.parameters,
		continueOnFail: run.continueOnFail ?? false,
		retryOnFail: run.retryOnFail,
		maxTries: run.maxTries,
		waitBetweenTries: 0,
		credentials:
			run.credentials === null
				? undefined
				: { generationServiceApi: { id: 'cred-1', name: 'Generation Service account' } },
	};
	const typeOf = (type: string) => around?.types[type] ?? nodeType;
	const nodeTypes = {
		getByName: typeOf,
		getByNameAndVersion: typeOf,
		getKnownTypes: () => ({}),
	};
	const workflow = new Workflow({
		id: run.workflowId ?? 'wf-test',
		name: 'test',
		nodes: [node, ...(around?.nodes ?? [])],
		connections: around?.connections ?? {},
		active: false,
		nodeTypes,
		staticData: run.staticData ?? {},
		settings: { binaryMode: 'separate' } as IDataObject,
	});
	const credentials = run.credentials === undefined ? null : run.credentials;
	const credentialDelays = [...(run.credentialDelaysMs ?? [])];
	const additionalData = {
		// an MCP tool call runs before n8n has created its execution: no id yet
		executionId: around ? run.executionId : (run.executionId ?? 'exec-1'),
		restApiUrl: 'http://localhost:5678/rest',
		webhookBaseUrl: 'http://localhost:5678/webhook',
		webhookTestBaseUrl: 'http://localhost:5678/webhook-test',
		webhookWaitingBaseUrl: 'http://localhost:5678/webhook-waiting',
		formWaitingBaseUrl: 'http://localhost:5678/form-waiting',
		instanceBaseUrl: 'http://localhost:5678/',
		variables: {},
		credentialsHelper: {
			getParentTypes: () => [],
			isCredentialUsableByNode: () => true,
			getDecrypted: async () => {
				if (!credentials) throw new Error('no credentials in this test');
				const delay = credentialDelays.shift() ?? 0;
				// a wait on the clock while the request counts as on its way: time may move meanwhile
				if (delay > 0) await testClock.serviceHold(delay);
				return { ...credentials };
			},
			authenticate: async (
				creds: ICredentialDataDecryptedObject,
				_type: string,
				options: IHttpRequestOptions,
			) => credentialType.authenticate(creds, options),
			preAuthentication: async () => undefined,
		},
		hooks: undefined,
		currentNodeParameters: undefined,
	} as unknown as IWorkflowExecuteAdditionalData;
	return { workflow, node, additionalData };
}

/**
 * The virtual clock's discrete-event mode stands still while a request of the node is on its way, being
 * answered or its body being stored: the helpers that do so count as work in progress.
 */
const BUSY_HELPERS = ['httpRequestWithAuthentication', 'httpRequest', 'prepareBinaryData'] as const;
function countWork<C extends { helpers: object }>(context: C): C {
	const helpers = context.helpers as Record<string, unknown>;
	for (const name of BUSY_HELPERS) {
		const helper = helpers[name];
		if (typeof helper !== 'function') continue;
		const call = helper as (this: unknown, ...a: unknown[]) => Promise<unknown>;
		// keeps `this`: the node calls helpers with its context (n8n-core's helpers use it)
		helpers[name] = async function (this: unknown, ...args: unknown[]) {
			return await testClock.whileBusy(async () => await call.apply(this, args));
		};
	}
	return context;
}

/** Executes a node once over `items`, as n8n would. Throws what the node throws. */
export async function runNode(run: NodeRun): Promise<INodeExecutionData[][]> {
	await initBinaryData();
	const { workflow, node, additionalData } = makeWorkflow(run);
	const items = run.items ?? [{ json: {} }];
	const runExecutionData = run.runExecutionData ?? createRunExecutionData();
	const inputData = { main: [items] };
	const context = countWork(
		new ExecuteContext(
			workflow,
			node,
			additionalData,
			run.mode ?? 'manual',
			runExecutionData,
			run.runIndex ?? 0,
			items,
			inputData,
			{ node, data: inputData, source: null },
			[],
			run.abortSignal,
		),
	);
	const result = await run.node.execute!.call(context);
	return result as INodeExecutionData[][];
}

/** n8n's MCP Server Trigger (2.1), as far as a tool call needs it: one input of AI tools. */
const MCP_TRIGGER_TYPE = '@n8n/n8n-nodes-langchain.mcpTrigger';
const mcpTrigger: INodeType = {
	description: {
		displayName: 'MCP Server Trigger',
		name: 'mcpTrigger',
		group: ['trigger'],
		version: 2.1,
		description: 'Expose n8n tools as an MCP Server endpoint',
		defaults: { name: 'MCP Server Trigger' },
		inputs: [{ type: 'ai_tool', displayName: 'Tools' }],
		outputs: [],
		properties: [],
	},
};

/**
 * One `tools/call` of an MCP client, as n8n 2.x's MCP Server Trigger runs it in regular mode: inside the
 * trigger's webhook handler, before the call's execution exists (mode `webhook`, no execution id, new
 * execution data for each request, as n8n's webhook-helpers.js builds it), through n8n-core's own tool
 * wrapper — WebhookContext.getInputConnectionData → createNodeAsTool → makeHandleToolInvocation, which runs
 * the node under the type `<type>Tool` in a SupplyDataContext, again on Retry On Fail — called the way
 * the trigger's DirectExecutionStrategy calls it: `tool.invoke(arguments)`. Parameters take the
 * arguments with `$fromAI`. Resolves with the answer the MCP client gets (parsed JSON); rejects with the
 * tool's error. `runExecutionData` (optional) receives the call's execution data.
 */
export async function callAsMcpTool(
	run: NodeRun & { arguments: IDataObject },
): Promise<IDataObject[]> {
	await initBinaryData();
	const base = run.node;
	// the tool variant n8n derives from a node with usableAsTool (n8n's convertNodeToAiTool)
	const toolType = Object.create(base, {
		description: {
			value: {
				...base.description,
				name: `${base.description.name}Tool`,
				inputs: [],
				outputs: ['ai_tool'],
			},
		},
		execute: {
			value: async function (this: IExecuteFunctions) {
				countWork(this);
				return await base.execute!.call(this);
			},
		},
	}) as INodeType;
	const trigger: INode = {
		id: 'mcp-trigger',
		name: 'MCP Server Trigger',
		type: MCP_TRIGGER_TYPE,
		typeVersion: 2.1,
		position: [0, 0],
		parameters: { path: 'mcp' },
	};
	const toolName = run.nodeName ?? base.description.displayName;
	const { workflow, additionalData } = makeWorkflow(
		{ ...run, node: toolType, asTool: false }, // toolType's name already ends in Tool
		{
			nodes: [trigger],
			connections: {
				[toolName]: { ai_tool: [[{ node: trigger.name, type: 'ai_tool', index: 0 }]] },
			},
			types: { [MCP_TRIGGER_TYPE]: mcpTrigger },
		},
	);
	const runExecutionData =
		run.runExecutionData ??
		createRunExecutionData({
			executionData: { nodeExecutionStack: [{ node: trigger, data: { main: [] }, source: null }] },
		});
	const webhook = new WebhookContext(
		workflow,
		trigger,
		additionalData,
		'webhook',
		{ node: trigger.name, httpMethod: 'POST', path: 'mcp' } as unknown as IWebhookData,
		[],
		runExecutionData,
	);
	const message = {
		jsonrpc: '2.0',
		id: 1,
		method: 'tools/call',
		params: { arguments: run.arguments },
	};
	const tools = (await webhook.getInputConnectionData('ai_tool', 0, {
		inputData: { body: message, headers: {} },
	} as never)) as Array<{ invoke(args: IDataObject): Promise<string> }>;
	const answer = await tools[0].invoke(run.arguments);
	return JSON.parse(answer) as IDataObject[];
}

/** Calls a listSearch method of a node. */
export async function runListSearch(
	run: NodeRun,
	method: string,
	filter?: string,
	paginationToken?: string,
) {
	await initBinaryData();
	const { workflow, node, additionalData } = makeWorkflow(run);
	additionalData.currentNodeParameters = run.parameters;
	const context = countWork(new LoadOptionsContext(workflow, node, additionalData, ''));
	const fn = run.node.methods?.listSearch?.[method];
	if (!fn) throw new Error(`no listSearch method ${method}`);
	return await fn.call(context, filter, paginationToken);
}

/**
 * Calls a polling trigger's poll() once, as n8n's poll tick does (mode 'trigger', or 'manual' for a
 * test run). `staticData` is the workflow's static data before the call; the returned `staticData` is
 * a JSON copy of it afterwards (what n8n would save), so passing it to the next call also models a
 * restart. `dataChanged` tells whether the node wrote to it. `pollBudgetMs` is what
 * getPollBudgetMs() answers (n8n's default: 5 min).
 */
export async function runPoll(run: NodeRun & { pollBudgetMs?: number }) {
	await initBinaryData();
	const staticData = JSON.parse(JSON.stringify(run.staticData ?? {})) as IDataObject;
	const { workflow, node, additionalData } = makeWorkflow({ ...run, staticData });
	const mode = run.mode ?? 'trigger';
	const budget = run.pollBudgetMs;
	const context = countWork(
		new PollContext(
			workflow,
			node,
			additionalData,
			mode,
			mode === 'manual' ? 'manual' : 'activate',
			undefined,
			undefined,
			undefined,
			undefined,
			undefined,
			budget === undefined ? undefined : () => budget,
		),
	);
	const result = await run.node.poll!.call(context);
	const observed = workflow.staticData as IDataObject & { __dataChanged?: boolean };
	return {
		result,
		staticData: JSON.parse(JSON.stringify(workflow.staticData)) as IDataObject,
		dataChanged: observed.__dataChanged === true,
	};
}

/** The bytes of an output binary, wherever n8n stored them (filesystem mode keeps only an id in the item). */
export async function binaryBytes(item: INodeExecutionData, property = 'data'): Promise<Buffer> {
	const binary = item.binary?.[property];
	if (!binary) throw new Error(`no binary property "${property}" in the item`);
	return await Container.get(BinaryDataService).getAsBuffer(binary);
}

/** Binary helper: an input item holding `bytes` as n8n binary data (in memory). */
export async function binaryItem(
	bytes: Buffer,
	fileName: string,
	mimeType: string,
	property = 'data',
): Promise<INodeExecutionData> {
	return {
		json: {},
		binary: {
			[property]: {
				data: bytes.toString('base64'),
				mimeType,
				fileName,
				fileSize: String(bytes.length),
			},
		},
	};
}
