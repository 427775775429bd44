// The workflows of part 6 (queue mode), one set per pattern, each pattern on its own credential (its own key):
//   wait     Webhook (answers at once) → Create, Wait for Completion (download on) → Deliver MP4
//   park     examples/many-long-jobs.json as shipped — Webhook → Create → Answer With the Job → n8n's Wait
//            node until Create's estimatedReadyAt → Wait for Job — with its Write MP4 swapped for Deliver MP4
//   trigger  Webhook (answers with the job) → Create; and the Job Finished trigger (polling on the main at
//            second `pollSecond` of every minute) → Download Output → Deliver MP4
// Deliver MP4 = n8n's HTTP Request node posting the MP4 to the bench's sink (`?job=<id>`), which checks its
// sha256 (tools/lib/soak/sink.mjs startSink).
import { randomUUID } from 'node:crypto';

import { loadExample, packageNodeType } from '../../tools/lib/repo.mjs';
import { postToSink } from '../../tools/lib/soak/sink.mjs';

const JOB = packageNodeType('generationServiceJob');
const TRIGGER = packageNodeType('generationServiceTrigger');

/** The patterns, in the order they run: ids of their workflows and credential, and their webhook path. */
export const PATTERNS = {
	wait: {
		label: 'Webhook → Create with Wait for Completion',
		cred: 'benchQueueWait',
		hook: 'gs-bench-queue-wait',
		workflows: ['benchQueueWait'],
	},
	park: {
		label: "Webhook → Create → n8n's Wait node (Create's estimatedReadyAt) → Wait for Job",
		cred: 'benchQueuePark',
		hook: 'gs-bench-queue-park',
		workflows: ['benchQueuePark'],
	},
	trigger: {
		label: 'Webhook → Create; the Job Finished trigger → Download Output',
		cred: 'benchQueueTrigger',
		hook: 'gs-bench-queue-create',
		workflows: ['benchQueueCreate', 'benchQueueFinished'],
	},
};

const uuid = () => randomUUID();

function node(name, type, typeVersion, parameters, extra = {}) {
	return { id: uuid(), name, type, typeVersion, position: [0, 0], parameters, ...extra };
}

const credentials = (cred) => ({ generationServiceApi: { id: cred, name: cred } });

/** A production webhook (POST): `onReceived` answers at once, `lastNode` with the last node's first item. */
function webhook(hookPath, responseMode) {
	return node(
		'Webhook',
		'n8n-nodes-base.webhook',
		2.1,
		{
			httpMethod: 'POST',
			path: hookPath,
			responseMode,
			...(responseMode === 'lastNode' && { responseData: 'firstEntryJson' }),
			options: {},
		},
		{ webhookId: uuid() },
	);
}

/** Create text to video with the call's prompt; `options`: the Create options (e.g. Wait for Completion). */
const create = (cred, options) =>
	node(
		'Create',
		JOB,
		1.1,
		{
			resource: 'job',
			operation: 'create',
			mode: 'text_to_video',
			prompt: "={{ $('Webhook').item.json.body.prompt }}",
			durationSeconds: 5,
			aspectRatio: '9:16',
			options,
		},
		{ credentials: credentials(cred) },
	);

/** n8n's HTTP Request node posting the item's MP4 (binary field `data`) to the sink, for job `$json.id`. */
const deliver = (sinkUrl) =>
	node('Deliver MP4', 'n8n-nodes-base.httpRequest', 4.2, postToSink(sinkUrl));

/** Connections of nodes in a line. */
function chain(...names) {
	const out = {};
	for (let k = 0; k + 1 < names.length; k++)
		out[names[k]] = { main: [[{ node: names[k + 1], type: 'main', index: 0 }]] };
	return out;
}

function workflow(id, name, nodes) {
	nodes.forEach((n, k) => (n.position = [k * 220, 0]));
	return {
		id,
		name,
		active: false,
		nodes,
		connections: chain(...nodes.map((n) => n.name)),
		settings: { executionOrder: 'v1' },
		pinData: {},
	};
}

function waitWorkflow(sinkUrl) {
	const p = PATTERNS.wait;
	return workflow(p.workflows[0], `Bench queue: ${p.label}`, [
		webhook(p.hook, 'onReceived'),
		create(p.cred, { waitForCompletion: true, downloadOutput: true }),
		deliver(sinkUrl),
	]);
}

/** examples/many-long-jobs.json with this pattern's id, path and credential, delivering to the sink. */
function parkWorkflow(sinkUrl) {
	const p = PATTERNS.park;
	const wf = loadExample('many-long-jobs.json', p.workflows[0]);
	const write = wf.nodes.find((n) => n.name === 'Write MP4');
	if (!write) throw new Error('examples/many-long-jobs.json has no "Write MP4" node any more');
	const sink = { ...deliver(sinkUrl), position: write.position };
	wf.nodes = wf.nodes.map((n) => (n === write ? sink : n));
	for (const n of wf.nodes) {
		if (n.credentials?.generationServiceApi) n.credentials = credentials(p.cred);
		if (n.type === 'n8n-nodes-base.webhook') n.parameters.path = p.hook;
	}
	wf.connections['Wait for Job'] = { main: [[{ node: sink.name, type: 'main', index: 0 }]] };
	wf.name = `Bench queue: ${p.label} (examples/many-long-jobs.json)`;
	return wf;
}

function triggerWorkflows(sinkUrl, pollSecond) {
	const p = PATTERNS.trigger;
	const calls = workflow(p.workflows[0], `Bench queue: Webhook → Create (for the trigger)`, [
		webhook(p.hook, 'lastNode'),
		create(p.cred, {}),
	]);
	const finished = workflow(p.workflows[1], 'Bench queue: Job Finished → Download Output → sink', [
		node(
			'Job Finished',
			TRIGGER,
			1,
			{
				pollTimes: { item: [{ mode: 'custom', cronExpression: `${pollSecond} * * * * *` }] },
				event: 'jobFinished',
				jobState: 'succeeded',
				modes: [],
				options: {},
			},
			{ credentials: credentials(p.cred) },
		),
		node(
			'Download Output',
			JOB,
			1.1,
			{
				resource: 'job',
				operation: 'downloadOutput',
				jobId: { __rl: true, mode: 'id', value: '={{ $json.id }}' },
				options: {},
			},
			{ credentials: credentials(p.cred) },
		),
		deliver(sinkUrl),
	]);
	return [calls, finished];
}

/** Every workflow of the chosen patterns (to import before the stack's main starts). */
export function queueWorkflows(patterns, { sinkUrl, pollSecond }) {
	const out = [];
	if (patterns.includes('wait')) out.push(waitWorkflow(sinkUrl));
	if (patterns.includes('park')) out.push(parkWorkflow(sinkUrl));
	if (patterns.includes('trigger')) out.push(...triggerWorkflows(sinkUrl, pollSecond));
	return out;
}
