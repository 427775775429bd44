// The Job node as a tool, against the emulator: called through n8n-core's own tool wrapper the way n8n
// 2.x's MCP Server Trigger calls it (callAsMcpTool: mode webhook, no execution yet, new execution data per
// call), and the way the AI Agent (version 3) runs it (a node of the execution whose input item carries
// the model's toolCallId). Each call is its own intent — two calls with the same input make two jobs —
// while n8n's recoveries of one call (the transport's retries, Retry On Fail, n8n's Retry) never pay
// twice; a call that waits answers within "Max Wait as a Tool"; answers are lean for a model.
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { GenerationServiceJob } from '../../nodes/GenerationServiceJob/GenerationServiceJob.node';
import type { Emulated } from '../helpers/emulated';
import { journalCount, startEmulated } from '../helpers/emulated';
import { callAsMcpTool, newExecutionData, runNode } from '../helpers/n8n';

const node = new GenerationServiceJob();
const rl = (value: string) => ({ __rl: true, mode: 'id', value });
/** What n8n hands a Retry: a copy of the retried execution's data (its flow context included). */
const copyOf = <T>(data: T): T => JSON.parse(JSON.stringify(data)) as T;

let env: Emulated;
beforeEach(async () => {
	env = await startEmulated();
});
afterEach(async () => {
	await env.close();
});

const createVideo = (options: IDataObject = {}) => ({
	resource: 'job',
	operation: 'create',
	mode: 'text_to_video',
	prompt: "={{ $fromAI('prompt', 'What the video shows', 'string') }}",
	durationSeconds: "={{ $fromAI('durationSeconds', 'Length in seconds', 'number') }}",
	aspectRatio: '9:16',
	options,
});
const getJob = {
	resource: 'job',
	operation: 'get',
	jobId: rl("={{ $fromAI('jobId', 'The job ID', 'string') }}"),
	options: {},
};
const waitForJob = (options: IDataObject = {}) => ({
	resource: 'job',
	operation: 'waitForJob',
	jobId: rl("={{ $fromAI('jobId', 'The job ID', 'string') }}"),
	options,
});
const boat = { prompt: 'a boat at dawn', durationSeconds: 5 };

/** One MCP tools/call of a tool node with these parameters. */
function mcpCall(parameters: IDataObject, args: IDataObject, extra: IDataObject = {}) {
	return callAsMcpTool({
		node,
		nodeName: 'Create Video',
		parameters: parameters as never,
		credentials: env.credentials,
		arguments: args,
		...extra,
	});
}

const posts = () =>
	env.emu.control.journal().filter((e) => e.method === 'POST' && e.path === '/v1/jobs');
const reserves = () => env.emu.control.ledger().entries.filter((e) => e.kind === 'reserve');
const now = () => env.clock.clock.now();

describe('each MCP tool call is its own intent', () => {
	it.each(['recoveries', 'never', 'always'])(
		'two identical calls at once make two jobs, each under its own key (Reuse: %s)',
		async (reuseRecentJob) => {
			const [[a], [b]] = await Promise.all([
				mcpCall(createVideo({ reuseRecentJob }), boat),
				mcpCall(createVideo({ reuseRecentJob }), boat),
			]);
			expect(a.id).not.toBe(b.id);
			expect([a.replayed, b.replayed, a.adopted, b.adopted]).toEqual([false, false, false, false]);
			expect(env.emu.control.jobs()).toHaveLength(2);
			expect(reserves()).toHaveLength(2);
			const keys = posts().map((e) => e.idempotencyKey);
			expect(new Set(keys).size).toBe(2);
			for (const key of keys) expect(key).toMatch(/^n8n\.tool\.job\.[0-9a-f]{48}$/);
			// no call looked for another call's job
			expect(journalCount(env.emu, 'GET', /^\/v1\/jobs$/)).toBe(0);
		},
	);

	it('the same request a second later is a new video, not the first one picked up', async () => {
		const [first] = await mcpCall(createVideo(), boat);
		await env.clock.clock.sleep(1_000);
		const [second] = await mcpCall(createVideo(), boat);
		expect(second.id).not.toBe(first.id);
		expect(second.adopted).toBe(false);
		expect(env.emu.control.jobs()).toHaveLength(2);
	});

	it('a create reset after the service committed it is sent again with its key: one job', async () => {
		env.emu.control.injectFault({ method: 'POST', path: '/v1/jobs', action: 'reset_after_commit' });
		const [answer] = await mcpCall(createVideo(), boat);
		expect(answer).toMatchObject({ state: 'queued', replayed: true });
		expect(posts()).toHaveLength(2);
		expect(new Set(posts().map((e) => e.idempotencyKey)).size).toBe(1);
		expect(env.emu.control.jobs()).toHaveLength(1);
		expect(reserves()).toHaveLength(1);
	});

	it('Retry On Fail after a create whose answer never came: the next try replays the same job', async () => {
		// every attempt of the first try is reset after the service committed it: the try fails
		env.emu.control.injectFault({
			method: 'POST',
			path: '/v1/jobs',
			action: 'reset_after_commit',
			times: 3,
		});
		const [answer] = await mcpCall(createVideo(), boat, { retryOnFail: true, maxTries: 2 });
		expect(answer).toMatchObject({ state: 'queued', replayed: true });
		expect(posts()).toHaveLength(4);
		expect(new Set(posts().map((e) => e.idempotencyKey)).size).toBe(1);
		expect(env.emu.control.jobs()).toHaveLength(1);
		expect(reserves()).toHaveLength(1);
		// (and the referee saw no new key for a create whose outcome was unknown)
	});
});

describe('calls of an AI Agent (n8n 2.x: the tool runs as a node of the execution)', () => {
	/** The agent's execution, started by a chat message through a webhook at `at`. */
	const agentExecution = (at: number) =>
		newExecutionData({
			version: 1,
			establishedAt: at,
			source: 'webhook',
			triggerNode: { name: 'Chat', type: 'n8n-nodes-base.webhook' },
		});
	/** One tool call: the node's input item is the model's arguments plus its toolCallId. */
	const agentCall = (
		toolCallId: string,
		run: { executionId: string; runExecutionData: ReturnType<typeof newExecutionData> },
		extra: IDataObject = {},
	) =>
		runNode({
			node,
			nodeName: 'Create Video',
			// (n8n fills $fromAI from the run data it keeps for the call; here the item's JSON says the same)
			parameters: {
				...createVideo(),
				prompt: '={{ $json.prompt }}',
				durationSeconds: '={{ $json.durationSeconds }}',
			} as never,
			credentials: env.credentials,
			asTool: true,
			mode: 'webhook',
			items: [{ json: { ...boat, toolCallId } }],
			...run,
			...extra,
		}).then(([[item]]: INodeExecutionData[][]) => item.json);

	// a production Chat Trigger (webhook), n8n Chat (chat), a schedule (trigger), the editor (manual)
	it.each(['webhook', 'chat', 'trigger', 'manual'])(
		'two calls with the same input in one agent run make two jobs (mode %s)',
		async (mode) => {
			const run = { executionId: 'e1', runExecutionData: agentExecution(1_000) };
			const a = await agentCall('call_1', run, { mode });
			const b = await agentCall('call_2', run, { mode, runIndex: 1 });
			expect(a.id).not.toBe(b.id);
			expect([a.replayed, b.replayed]).toEqual([false, false]);
			expect(env.emu.control.jobs()).toHaveLength(2);
		},
	);

	it("n8n's Retry runs a call whose create never answered again (same toolCallId): replayed", async () => {
		const data = agentExecution(1_000);
		env.emu.control.injectFault({
			method: 'POST',
			path: '/v1/jobs',
			action: 'reset_after_commit',
			times: 3,
		});
		await expect(
			agentCall('call_1', { executionId: 'e1', runExecutionData: data }),
		).rejects.toThrow();
		const retry = { executionId: 'e2', runExecutionData: copyOf(data) };
		const again = await agentCall('call_1', retry, { mode: 'retry' });
		expect(again).toMatchObject({ replayed: true, adopted: false });
		expect(env.emu.control.jobs()).toHaveLength(1);
		expect(reserves()).toHaveLength(1);
	});

	it("n8n's Retry that asks the model again gets back this node's jobs, never another call's", async () => {
		// another call (another execution) made a video of the same input
		const [other] = await mcpCall(createVideo(), boat);
		const data = agentExecution(2_000);
		const e1 = { executionId: 'e1', runExecutionData: data };
		const a = await agentCall('call_1', e1);
		const b = await agentCall('call_2', e1, { runIndex: 1 });
		// the execution failed later; n8n's Retry runs the agent again, whose model calls the tool anew
		const e2 = { executionId: 'e2', runExecutionData: copyOf(data) };
		const a2 = await agentCall('call_3', e2, { mode: 'retry', runIndex: 2 });
		const b2 = await agentCall('call_4', e2, { mode: 'retry', runIndex: 3 });
		expect([a2.id, b2.id]).toEqual([a.id, b.id]);
		expect([a2.adopted, b2.adopted]).toEqual([true, true]);
		// a third call of the same input in the Retry is a new intent: a new job, not the other call's
		const c2 = await agentCall('call_5', e2, { mode: 'retry', runIndex: 4 });
		expect(c2.adopted).toBe(false);
		expect([other.id, a.id, b.id]).not.toContain(c2.id);
		expect(env.emu.control.jobs()).toHaveLength(4);
		// every create named its call, never the input's time slot that other calls share
		for (const post of posts()) expect(post.idempotencyKey).toMatch(/^n8n\.tool\.job\./);
	});
});

describe('a call that waits answers within Max Wait as a Tool', () => {
	it('Create with Wait for Completion on a 90 s job: state, ID and next step by 45 s; the job goes on', async () => {
		env.emu.control.scriptJobs([{ runningMs: 88_000 }]); // 2 s queued, then 88 s running
		const start = now();
		const [answer] = await mcpCall(createVideo({ waitForCompletion: true }), boat);
		const answeredAt = now();
		expect(answeredAt - start).toBeLessThanOrEqual(45_000);
		expect(answeredAt - start).toBeGreaterThanOrEqual(40_000);
		const id = String(answer.id);
		expect(answer).toMatchObject({ state: 'running', reservedCredits: 8, adopted: false });
		expect(answer.nextStep).toBe(
			`Still running after 45 s: the job keeps running and is not lost. Call Get Job with job ID ${id} in about 45 s.`,
		);
		expect(answer).not.toHaveProperty('idempotencyKey');
		expect(answer).not.toHaveProperty('input');
		// the node looks no more once it has answered; the job ends on the service
		await env.clock.clock.sleep(60_000);
		expect(env.emu.control.journal().filter((e) => e.at > answeredAt)).toHaveLength(0);
		expect(env.emu.control.jobs()[0]).toMatchObject({ id, state: 'succeeded' });
		const [done] = await mcpCall(getJob, { jobId: id });
		expect(done).toMatchObject({ id, state: 'succeeded', chargedCredits: expect.any(Number) });
		expect(done).not.toHaveProperty('nextStep');
		expect(reserves()).toHaveLength(1);
	});

	it('a job that ends in time: the answer is the finished job (no file, no next step)', async () => {
		const start = now();
		const [answer] = await mcpCall(createVideo({ waitForCompletion: true }), boat);
		expect(now() - start).toBeLessThan(20_000); // 10 s job, looks every 5 s
		expect(answer).toMatchObject({ state: 'succeeded', output: { mimeType: 'video/mp4' } });
		expect(Object.keys(answer).sort()).toEqual(
			[
				'id',
				'state',
				'reservedCredits',
				'chargedCredits',
				'output',
				'outputUrl',
				'errorCode',
				'createdAt',
				'updatedAt',
				'replayed',
				'adopted',
			].sort(),
		);
		expect(answer).not.toHaveProperty('binaryOmitted'); // nothing was downloaded
		expect(journalCount(env.emu, 'GET', /\/output$/)).toBe(0);
	});

	it('Wait for Job as a tool answers by its own Max Wait as a Tool (22 s), then looks no more', async () => {
		env.emu.control.scriptJobs([{ runningMs: 60_000 }]);
		const [created] = await mcpCall(createVideo(), boat);
		const start = now();
		const [answer] = await mcpCall(waitForJob({ maxToolWait: 22 }), { jobId: created.id });
		const answeredAt = now();
		// looks at 0, 5, …, 20 s; the answer at 22 s, before the look that would be due at 25 s
		expect(answeredAt - start).toBe(22_000);
		expect(answer).toMatchObject({ id: created.id, state: 'running' });
		expect(answer.nextStep).toBe(
			`Still running after 22 s: the job keeps running and is not lost. Call Get Job with job ID ${String(created.id)} in about 25 s.`,
		);
		await env.clock.clock.sleep(60_000);
		expect(env.emu.control.journal().filter((e) => e.at > answeredAt)).toHaveLength(0);
		expect(env.emu.control.jobs()[0]).toMatchObject({ id: created.id, state: 'succeeded' });
	});

	it('in a workflow the same node waits to the end, as before (Timeout, MP4, key and input)', async () => {
		env.emu.control.scriptJobs([{ runningMs: 88_000 }]);
		const [[item]] = await runNode({
			node,
			parameters: {
				...createVideo({ waitForCompletion: true }),
				prompt: 'a boat',
				durationSeconds: 5,
			} as never,
			credentials: env.credentials,
			mode: 'webhook',
		});
		expect(item.json).toMatchObject({ state: 'succeeded', input: { prompt: 'a boat' } });
		expect(item.json.idempotencyKey).toMatch(/^n8n\./);
		expect(item.json).not.toHaveProperty('nextStep');
		expect(item.binary?.data).toMatchObject({ mimeType: 'video/mp4' });
	});
});

describe('Get as a tool', () => {
	it('while the job runs says when to look again; the answer carries no input', async () => {
		env.emu.control.scriptJobs([{ runningMs: 60_000 }]);
		const [created] = await mcpCall(createVideo(), boat);
		await env.clock.clock.sleep(20_000);
		const [read] = await mcpCall(getJob, { jobId: created.id });
		expect(read).toMatchObject({ id: created.id, state: 'running', reservedCredits: 8 });
		expect(read.nextStep).toBe(
			`Still running: the job keeps running and is not lost. Call Get Job with job ID ${String(created.id)} in about 20 s.`,
		);
		expect(read).not.toHaveProperty('input');
	});
});
