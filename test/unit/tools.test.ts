// The Job node as a tool (of an AI agent, or of an MCP client through n8n's MCP Server Trigger): lean
// answers for a model (no Idempotency-Key, no echo of the input) while workflows keep every field, the
// next step while a job runs, "Max Wait as a Tool" in the form, and what tells one call from another
// in the derived Idempotency-Key (outside tools the key is derived exactly as before).
import { createHash } from 'crypto';
import nock from 'nock';
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { GenerationServiceJob } from '../../nodes/GenerationServiceJob/GenerationServiceJob.node';
import { canonicalJson, deriveIdempotencyKey, toolCallOf } from '../../nodes/shared/jobs/reuse';
import { lookAgainInSeconds, readWaitOptions } from '../../nodes/shared/jobs/wait';
import { TEST_KEY, callAsMcpTool, runNode } from '../helpers/n8n';
import { useNock } from '../helpers/nock';
import { testClock } from '../helpers/serviceClock';

const BASE = 'https://api.gen.test/v1';
const node = new GenerationServiceJob();
const JOB = `job_${'d'.repeat(32)}`;
const rl = (value: string) => ({ __rl: true, mode: 'id', value });
const START = Date.UTC(2026, 10, 22, 12, 0, 0);
const input = { mode: 'text_to_video', prompt: 'a boat', durationSeconds: 5, aspectRatio: '9:16' };
const job = (state: string) => ({
	id: JOB,
	state,
	input,
	reservedCredits: 8,
	chargedCredits: state === 'succeeded' ? 7 : 0,
	output:
		state === 'succeeded'
			? { assetId: `asset_${'e'.repeat(32)}`, mimeType: 'video/mp4', sha256: 'f'.repeat(64) }
			: null,
	outputUrl: state === 'succeeded' ? `/v1/jobs/${JOB}/output` : null,
	errorCode: null,
	createdAt: START - 30_000,
	updatedAt: START - 1_000,
	replayed: false,
});
const capabilities = {
	data: { generation: { available: true, modes: ['text_to_video'], pricing: { unit: 'credits' } } },
};
/** `json` without `fields`. */
const without = (json: IDataObject, ...fields: string[]) =>
	Object.fromEntries(Object.entries(json).filter(([key]) => !fields.includes(key)));
const quote = {
	mode: 'text_to_video',
	durationSeconds: 5,
	reservedCredits: 8,
	unit: 'credits',
	available: 992,
	keyRemaining: null,
	sufficient: true,
};

useNock();
beforeEach(() => testClock.useAuto(START));

const run = (parameters: IDataObject, asTool: boolean) =>
	runNode({
		node,
		parameters: { resource: 'job', ...parameters } as never,
		credentials: { apiKey: TEST_KEY, baseUrl: BASE },
		asTool,
		mode: 'webhook',
	});
const create = { operation: 'create', ...input, options: {} };

describe('lean answers for a model; workflows keep every field', () => {
	it('Create: no Idempotency-Key and no input as a tool, with the next step; all of it in a workflow', async () => {
		nock(BASE)
			.get('/capabilities')
			.times(2)
			.reply(200, capabilities)
			.post('/jobs')
			.times(2)
			.reply(202, { data: job('queued') });
		const [[tool]] = await run(create, true);
		expect(tool.json).toEqual({
			...job('queued'),
			input: undefined,
			adopted: false,
			nextStep: `Still queued: the job keeps running and is not lost. Call Get Job with job ID ${JOB} in about 30 s.`,
		});
		expect(Object.keys(tool.json)).not.toContain('input');
		expect(Object.keys(tool.json)).not.toContain('idempotencyKey');
		// a webhook's run looks for a recent job of the same input first (a tool call does not)
		nock(BASE)
			.get('/jobs')
			.query(true)
			.reply(200, { data: { items: [], nextCursor: null } });
		const [[workflow]] = await run(create, false);
		expect(workflow.json).toEqual({
			...job('queued'),
			adopted: false,
			idempotencyKey: expect.stringMatching(/^n8n\.intent\.job\.[0-9a-f]{48}$/),
			// in a workflow Create without Wait for Completion says when the job should end (parking)
			estimatedSeconds: 120,
			estimatedReadyAt: expect.any(String),
			estimatedFrom: expect.stringMatching(/^the default of 120 s/),
		});
	});

	it('Get: lean with the next step while the job runs; lean without one once it ended', async () => {
		nock(BASE)
			.get(`/jobs/${JOB}`)
			.reply(200, { data: job('running') })
			.get(`/jobs/${JOB}`)
			.reply(200, { data: job('running') });
		const [[tool]] = await run({ operation: 'get', jobId: rl(JOB), options: {} }, true);
		expect(tool.json).toEqual({
			...without(job('running'), 'input'),
			nextStep: `Still running: the job keeps running and is not lost. Call Get Job with job ID ${JOB} in about 30 s.`,
		});
		testClock.advance(5_000); // the service's 5 s between reads of a job
		const [[workflow]] = await run({ operation: 'get', jobId: rl(JOB), options: {} }, false);
		expect(workflow.json).toEqual(job('running'));
	});

	it('Wait for Job that ends: the lean job, no next step, no file', async () => {
		nock(BASE)
			.get(`/jobs/${JOB}`)
			.reply(200, { data: job('succeeded') });
		const [[tool]] = await run({ operation: 'waitForJob', jobId: rl(JOB), options: {} }, true);
		expect(tool.json).toEqual(without(job('succeeded'), 'input'));
		expect(tool.binary).toBeUndefined();
	});

	it('Quote: the price without the echo of mode and duration as a tool; all of it in a workflow', async () => {
		nock(BASE)
			.get('/capabilities')
			.times(2)
			.reply(200, capabilities)
			.post('/jobs/quote')
			.times(2)
			.reply(200, { data: quote });
		const parameters = { operation: 'quote', ...input, options: {} };
		const [[tool]] = await run(parameters, true);
		expect(tool.json).toEqual({
			...without(quote, 'mode', 'durationSeconds'),
			pricing: { unit: 'credits' },
		});
		const [[workflow]] = await run(parameters, false);
		expect(workflow.json).toEqual({ ...quote, pricing: { unit: 'credits' } });
	});

	it('when to look again: about the job’s age, 10 to 60 s, in steps of 5', () => {
		const at = (ageSeconds: number) => lookAgainInSeconds(START - ageSeconds * 1000, START);
		expect([0, 3, 10, 12, 30, 45, 59, 60, 300].map(at)).toEqual([
			10, 10, 10, 15, 30, 45, 60, 60, 60,
		]);
		expect(lookAgainInSeconds(undefined, START)).toBe(10);
		expect(lookAgainInSeconds(START + 60_000, START)).toBe(10); // a clock ahead of the service's
	});
});

describe('Max Wait as a Tool (Seconds)', () => {
	const optionsOf = (operation: string) =>
		node.description.properties.find(
			(p) => p.name === 'options' && p.displayOptions?.show?.operation?.includes(operation),
		)?.options as INodeProperties[];

	it('is offered by Create (once Wait for Completion is on) and by Wait for Job, default 45', () => {
		const inCreate = optionsOf('create').find((p) => p.name === 'maxToolWait')!;
		expect(inCreate).toMatchObject({
			displayName: 'Max Wait as a Tool (Seconds)',
			default: 45,
			displayOptions: { show: { waitForCompletion: [true] } },
		});
		const inWait = optionsOf('waitForJob').find((p) => p.name === 'maxToolWait')!;
		expect(inWait).toMatchObject({ default: 45 });
		expect(inWait.description).toMatch(/Only when the node runs as a tool/);
	});

	it('bounds the wait only as a tool, within Timeout', () => {
		const ctx = (type: string) =>
			({ getNode: () => ({ type, name: 'Create Video' }) }) as unknown as IExecuteFunctions;
		const tool = ctx('n8n-nodes-generation-service.generationServiceJobTool');
		const workflow = ctx('n8n-nodes-generation-service.generationServiceJob');
		expect(readWaitOptions(tool, 0, {}).answerWithinSeconds).toBe(45);
		expect(readWaitOptions(tool, 0, { maxToolWait: 600, timeout: 2 }).answerWithinSeconds).toBe(
			120,
		);
		expect(readWaitOptions(workflow, 0, { maxToolWait: 20 }).answerWithinSeconds).toBeUndefined();
		expect(() => readWaitOptions(tool, 0, { maxToolWait: 0 })).toThrow(
			'Max Wait as a Tool must be above 0 seconds.',
		);
	});
});

describe('what tells one tool call from another', () => {
	const contextOf = (items: IDataObject[], type: string, executionId = 'e1') =>
		({
			getInputData: () => items.map((json) => ({ json })),
			getNode: () => ({ id: 'n1', name: 'Create Video', type }),
			getWorkflow: () => ({ id: 'wf' }),
			getExecutionId: () => executionId,
			getExecutionContext: () => undefined,
		}) as unknown as IExecuteFunctions;
	const TOOL = 'n8n-nodes-generation-service.generationServiceJobTool';

	it("the agent's toolCallId when n8n gives one; else one id per arguments object", () => {
		expect(toolCallOf(contextOf([{ prompt: 'x', toolCallId: 'call_7' }], TOOL), 0)).toBe(
			'toolCallId:call_7',
		);
		const args = { prompt: 'x' };
		const first = toolCallOf(contextOf([args], TOOL), 0);
		// every try of the call gets the same arguments object, so the same id (Retry On Fail)
		expect(toolCallOf(contextOf([args], TOOL), 0)).toBe(first);
		// another call: another object with the same content
		expect(toolCallOf(contextOf([{ prompt: 'x' }], TOOL), 0)).not.toBe(first);
	});

	it('two MCP calls with one input get two keys; outside tools the key is derived exactly as before', () => {
		const one = deriveIdempotencyKey(contextOf([{ prompt: 'x' }], TOOL, ''), 0, 'job', input);
		const two = deriveIdempotencyKey(contextOf([{ prompt: 'x' }], TOOL, ''), 0, 'job', input);
		expect(one).toMatch(/^n8n\.tool\.job\.[0-9a-f]{48}$/);
		expect(two).not.toBe(one);
		const plain = 'n8n-nodes-generation-service.generationServiceJob';
		const material = ['wf', 'execution:e1', 'n1', '0', 'job', canonicalJson(input)].join('\u0000');
		const hash = createHash('sha256').update(material).digest('hex').slice(0, 48);
		for (let n = 0; n < 2; n++) {
			expect(deriveIdempotencyKey(contextOf([{ prompt: 'x' }], plain), 0, 'job', input)).toBe(
				`n8n.job.${hash}`,
			);
		}
	});

	it('through the MCP Server Trigger the node sees no execution: the call alone tells it apart', async () => {
		let seen: IDataObject = {};
		const probe = Object.create(node, {
			execute: {
				value: async function (this: IExecuteFunctions) {
					seen = {
						mode: this.getMode(),
						executionId: this.getExecutionId() ?? null,
						executionContext: this.getExecutionContext() ?? null,
						type: this.getNode().type,
						item: this.getInputData()[0].json,
					};
					return [[{ json: {} }]];
				},
			},
		}) as GenerationServiceJob;
		await callAsMcpTool({
			node: probe,
			parameters: {
				resource: 'job',
				operation: 'get',
				jobId: rl("={{ $fromAI('jobId') }}"),
			} as never,
			credentials: { apiKey: TEST_KEY, baseUrl: BASE },
			arguments: { jobId: JOB },
		});
		expect(seen).toEqual({
			mode: 'webhook',
			executionId: null,
			executionContext: null,
			type: 'n8n-nodes-generation-service.generationServiceJobTool',
			item: { jobId: JOB },
		});
	});
});
