/**
 * Runs our nodes inside n8n-core's real execution contexts (ExecuteContext, LoadOptionsContext,
 * PollContext): real parameter resolution, real httpRequestWithAuthentication (so nock and the
 * emulator see real HTTP), real binary helpers. Only the credential store is replaced.
 */
import { Container } from '@n8n/di';
import { BinaryDataService, ExecuteContext, LoadOptionsContext, PollContext } from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IHttpRequestOptions,
	INode,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	IRunExecutionData,
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
}

/** The data of a new execution (for `runExecutionData`), optionally with n8n's execution context. */
export function newExecutionData(
	runtimeData?: NonNullable<IRunExecutionData['executionData']>['runtimeData'],
): IRunExecutionData {
	const data = createRunExecutionData();
	if (runtimeData && data.executionData) data.executionData.runtimeData = runtimeData;
	return data;
}

function makeWorkflow(run: NodeRun) {
	const nodeType = run.node;
	const node: INode = {
		id: run.nodeId ?? 'node-under-test',
		name: run.nodeName ?? nodeType.description.displayName,
		type: `n8n-nodes-generation-service.${nodeType.description.name}${run.asTool ? 'Tool' : ''}`,
		typeVersion: 1,
		position: [0, 0],
		parameters: run.parameters,
		continueOnFail: run.continueOnFail ?? false,
		credentials:
			run.credentials === null
				? undefined
				: { generationServiceApi: { id: 'cred-1', name: 'Generation Service account' } },
	};
	const nodeTypes = {
		getByName: () => nodeType,
		getByNameAndVersion: () => nodeType,
		getKnownTypes: () => ({}),
	};
	const workflow = new Workflow({
		id: run.workflowId ?? 'wf-test',
		name: 'test',
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes,
		staticData: run.staticData ?? {},
		settings: { binaryMode: 'separate' } as IDataObject,
	});
	const credentials = run.credentials === undefined ? null : run.credentials;
	const additionalData = {
		executionId: run.executionId ?? 'exec-1',
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
