// The nodes as tools of an AI agent: how a node knows it runs as a tool (n8n names the type `<type>Tool`),
// no binary in a tool answer (and no download for one), the automatic tool description n8n builds from an
// operation's action, and refusals whose message stands alone (n8n hands a model only the message).
import { createHash } from 'crypto';
import nock from 'nock';
import type { IDataObject, INode, INodeExecutionData } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { GenerationServiceAsset } from '../../nodes/GenerationServiceAsset/GenerationServiceAsset.node';
import { GenerationServiceJob } from '../../nodes/GenerationServiceJob/GenerationServiceJob.node';
import { runsAsTool, withoutBinary } from '../../nodes/shared/router';
import { SAMPLE_VIDEO_MP4 } from '../../emulator/src/samples';
import { TEST_KEY, runNode } from '../helpers/n8n';
import { useNock } from '../helpers/nock';

const BASE = 'https://api.gen.test/v1';
const hex = (c: string) => c.repeat(32);
const JOB = `job_${hex('d')}`;
const ASSET = `asset_${hex('a')}`;
const rl = (value: string) => ({ __rl: true, mode: 'id', value });
const mp4 = Buffer.from(SAMPLE_VIDEO_MP4, 'base64');
const mp4Sha = createHash('sha256').update(mp4).digest('hex');
const capabilities = {
	data: {
		generation: {
			available: true,
			modes: ['character_replacement', 'image_to_video', 'text_to_video'],
			pricing: {
				unit: 'credits',
				blockSeconds: 5,
				creditsPerBlock: { character_replacement: 10, image_to_video: 8, text_to_video: 8 },
			},
		},
	},
};
const job = (state: string) => ({
	id: JOB,
	state,
	input: { mode: 'text_to_video', prompt: 'a boat', durationSeconds: 5, aspectRatio: '9:16' },
	reservedCredits: 8,
	chargedCredits: state === 'succeeded' ? 7 : 0,
	output:
		state === 'succeeded'
			? { assetId: `asset_${hex('e')}`, mimeType: 'video/mp4', sha256: mp4Sha }
			: null,
	outputUrl: state === 'succeeded' ? `/v1/jobs/${JOB}/output` : null,
	errorCode: null,
	createdAt: 1,
	updatedAt: 1,
});

useNock();
const runJob = (parameters: IDataObject, asTool = true) =>
	runNode({
		node: new GenerationServiceJob(),
		parameters: { resource: 'job', ...parameters } as never,
		credentials: { apiKey: TEST_KEY, baseUrl: BASE },
		asTool,
	});

const nodeOfType = (type: string) => ({ getNode: () => ({ type }) as INode });

describe('runs as a tool', () => {
	it('is told by the node type n8n runs: `<type>Tool`', () => {
		expect(runsAsTool(nodeOfType('n8n-nodes-generation-service.generationServiceJobTool'))).toBe(
			true,
		);
		expect(runsAsTool(nodeOfType('n8n-nodes-generation-service.generationServiceJob'))).toBe(false);
	});

	it('Wait for Job as a tool downloads nothing and answers with the job (no binary)', async () => {
		// no /output route: a download would fail the test (nock refuses unmatched requests)
		nock(BASE)
			.get(`/jobs/${JOB}`)
			.reply(200, { data: job('succeeded') });
		const [[item]] = await runJob({ operation: 'waitForJob', jobId: rl(JOB), options: {} });
		expect(item.binary).toBeUndefined();
		expect(item.json).toMatchObject({ id: JOB, state: 'succeeded', output: { sha256: mp4Sha } });
		expect(nock.isDone()).toBe(true);
	});

	it('the same node outside an agent downloads the MP4 as before', async () => {
		nock(BASE)
			.get(`/jobs/${JOB}`)
			.reply(200, { data: job('succeeded') })
			.get(`/jobs/${JOB}/output`)
			.reply(200, mp4, { 'Content-Type': 'video/mp4', 'Content-Length': String(mp4.length) });
		const [[item]] = await runJob(
			{ operation: 'waitForJob', jobId: rl(JOB), options: { downloadOutput: true } },
			false,
		);
		expect(item.binary?.data).toMatchObject({ mimeType: 'video/mp4' });
	});

	it('Create as a tool answers at once with the job: one POST, no wait, no binary', async () => {
		nock(BASE)
			.get('/capabilities')
			.reply(200, capabilities)
			.post('/jobs')
			.reply(202, { data: job('queued') });
		const [[item]] = await runJob({
			operation: 'create',
			mode: 'text_to_video',
			prompt: 'a boat',
			durationSeconds: 5,
			aspectRatio: '9:16',
			options: {},
		});
		expect(item.json).toMatchObject({ id: JOB, state: 'queued', reservedCredits: 8 });
		expect(item.binary).toBeUndefined();
		expect(nock.isDone()).toBe(true);
	});

	it('a file another operation would output is left out of a tool answer, which says so', async () => {
		const asset = {
			id: ASSET,
			fileName: 'a.mp4',
			mimeType: 'video/mp4',
			sizeBytes: mp4.length,
			kind: 'video',
		};
		nock(BASE)
			.get(`/assets/${ASSET}`)
			.reply(200, { data: asset })
			.get(`/assets/${ASSET}/content`)
			.reply(200, mp4, { 'Content-Type': 'video/mp4', 'Content-Length': String(mp4.length) });
		const [[item]] = await runNode({
			node: new GenerationServiceAsset(),
			parameters: { resource: 'asset', operation: 'download', assetId: rl(ASSET), options: {} },
			credentials: { apiKey: TEST_KEY, baseUrl: BASE },
			asTool: true,
		});
		expect(item.binary).toBeUndefined();
		expect(item.json.id).toBe(ASSET);
		expect(String(item.json.binaryOmitted)).toMatch(/^data: files are not sent to an AI agent/);
		expect(JSON.stringify(item.json)).not.toMatch(/[A-Za-z0-9+/]{200}/);
	});

	it('withoutBinary leaves items without a file as they are', () => {
		const item: INodeExecutionData = { json: { a: 1 }, pairedItem: { item: 0 } };
		expect(withoutBinary([item])).toEqual([item]);
	});
});

describe('what a model reads', () => {
	const description = (node: GenerationServiceJob, parameters: IDataObject) =>
		NodeHelpers.getToolDescriptionForNode(
			{ parameters, type: 'x', typeVersion: 1.1 } as unknown as INode,
			node,
		);

	it("n8n's automatic tool description says what Create and Quote cost", () => {
		const node = new GenerationServiceJob();
		expect(description(node, { resource: 'job', operation: 'create' })).toBe(
			'Create a video (spends credits) in Generation Service Job',
		);
		expect(description(node, { resource: 'job', operation: 'quote' })).toBe(
			'Quote a video generation (free) in Generation Service Job',
		);
		expect(description(node, { resource: 'job', operation: 'get' })).toBe(
			'Get a job (state and credits) in Generation Service Job',
		);
	});

	it('a Max Credits refusal stands alone: the quote, the limit, the price and what to do', async () => {
		nock(BASE)
			.get('/capabilities')
			.reply(200, capabilities)
			.post('/jobs/quote')
			.reply(200, {
				data: { reservedCredits: 16, sufficient: true, available: 992, keyRemaining: null },
			});
		await expect(
			runJob({
				operation: 'create',
				mode: 'text_to_video',
				prompt: 'a boat',
				durationSeconds: 10,
				aspectRatio: '9:16',
				options: { maxCredits: 8 },
			}),
		).rejects.toThrow(
			"The quote is 16 credits, above Max Credits (8): nothing was created and nothing was reserved. Price: 8 credits per started 5 s of text_to_video; this job asks for 10 s. Ask for a shorter duration, or raise Max Credits in the node's options.",
		);
	});

	it('a not-found answer names the id it was about', async () => {
		nock(BASE)
			.get(`/jobs/${JOB}`)
			.reply(404, { error: { code: 'not_found', message: 'não encontrado' }, requestId: 'req_1' });
		await expect(runJob({ operation: 'get', jobId: rl(JOB), options: {} })).rejects.toThrow(
			`Not found: ${JOB} does not exist or belongs to another account. Check the id.`,
		);
	});
});
