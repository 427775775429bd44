// The workflows of part 6 (queue mode), one set per pattern, each pattern on its own credential (its own key):
//   wait     Webhook (answers at once) → Create, Wait for Completion (download on) → Deliver MP4
//   park     examples/many-long-jobs.json as shipped — Webhook → Create → Answer With the Job → n8n's Wait
//            node until Create's estimatedReadyAt → Wait for Job — with its Write MP4 swapped for Deliver MP4
//   trigger  Webhook (answers with the job) → Create; and the Job Finished trigger (polling on the main at
//            second `pollSecond` of every minute) → Download Output → Deliver MP4
// Deliver MP4 = n8n's HTTP Request node posting the MP4 to the bench's sink (`?job=<id>`), which checks its
// sha256 (tools/lib/soak/sink.mjs startSink).
import { randomUUID } from 'node:crypto';

import { loadExample } from '../../tools/lib/repo.mjs';
import * as B from '../../tools/lib/workflow.mjs';
import { deliverToSink } from '../../tools/lib/soak/sink.mjs';

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

const on = (cred) => ({ credential: { id: cred, name: cred } });

/** A production webhook (POST): `onReceived` answers at once, `lastNode` with the last node's first item. */
const webhook = (hookPath, responseMode) =>
	B.webhook('Webhook', {
		path: hookPath,
		responseMode,
		responseData: responseMode === 'lastNode' ? 'firstEntryJson' : undefined,
	});

/** Create text to video with the call's prompt; `options`: the Create options (e.g. Wait for Completion). */
const create = (cred, options) =>
	B.createJob(
		'Create',
		{
			mode: 'text_to_video',
			prompt: "={{ $('Webhook').item.json.body.prompt }}",
			durationSeconds: 5,
			aspectRatio: '9:16',
			options,
		},
		{ ...on(cred), typeVersion: 1.1 },
	);

/** n8n's HTTP Request node posting the item's MP4 (binary field `data`) to the sink, for job `$json.id`. */
const deliver = (sinkUrl) => deliverToSink('Deliver MP4', sinkUrl);

const workflow = (id, name, nodes) => B.workflow({ id, name, nodes });

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
	const sink = { ...deliver(sinkUrl), id: randomUUID(), position: write.position };
	wf.nodes = wf.nodes.map((n) => (n === write ? sink : n));
	for (const n of wf.nodes) {
		if (n.credentials?.generationServiceApi) n.credentials = B.credentialsOf(on(p.cred).credential);
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
		B.jobFinished(
			'Job Finished',
			{ second: pollSecond, jobState: 'succeeded', modes: [] },
			on(p.cred),
		),
		B.downloadOutput('Download Output', '={{ $json.id }}', { ...on(p.cred), typeVersion: 1.1 }),
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
