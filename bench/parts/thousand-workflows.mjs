// The workflows of part 7 (a thousand videos through queue mode), one per run, each on its own credential (its
// own key) and the publish example's S3 credential; every MP4 ends as `generated/<job id>.mp4` in the bucket.
//   items            one execution: a manual run (Manual Trigger, as the publish example starts; on a worker with
//                    OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS) → Code (N prompts) → the publish example's Create
//                    and Wait and Upload to S3 (examples/publish-to-s3.json)
//   executions       one execution per row: examples/many-long-jobs.json's Webhook → Create → n8n's Wait node
//                    until Create's estimatedReadyAt → Wait for Job, then the publish example's Upload to S3
//   items-large      the items shape at a size of its own (10,000 by default) on one worker, the emulator's
//                    window shortened (thousand.mjs): where n8n itself becomes the limit
//   items-base       the items shape with n8n's own nodes: HTTP Request create (batching 1 item per 510 ms) →
//                    Wait (the job's duration + 5 s) → HTTP Request output as a file (same batching) → S3
//   executions-base  the executions shape with n8n's own nodes: HTTP Request create (Retry On Fail) → Wait (the
//                    job's duration + 5 s, parked from 65 s) → HTTP Request output as a file (Retry On Fail) → S3
// The examples' Max Credits options are removed: Max Credits quotes every job first (one request more per
// job), and the publish example's run budget (40 credits) fits its four prompts, not a catalogue.
import { BUCKET, FOLDER, PUBLISH_EXAMPLE, S3_CREDENTIAL } from '../../tools/lib/s3.mjs';
import { loadExample } from '../../tools/lib/repo.mjs';
import * as B from '../../tools/lib/workflow.mjs';

/** The runs, in the order they run by default: their shape, side, workflow id, webhook path, credential. */
export const RUNS = {
	items: {
		shape: 'items',
		side: 'ours',
		label: 'One execution, N items: Code → Create with Wait for Completion → S3',
		workflow: 'benchThItems',
		cred: 'benchThItems',
	},
	executions: {
		shape: 'executions',
		side: 'ours',
		label:
			"N executions: Webhook → Create → n8n's Wait node (estimatedReadyAt) → Wait for Job → S3",
		workflow: 'benchThExecs',
		hook: 'gs-bench-thousand-execs',
		cred: 'benchThExecs',
	},
	// the items workflow at a size and window of its own, once, on one worker (thousand.mjs runPlan)
	'items-large': {
		shape: 'items',
		side: 'ours',
		large: true,
		label: 'One execution, N items on one worker: Code → Create with Wait for Completion → S3',
		workflow: 'benchThItems',
		cred: 'benchThItems',
	},
	'items-base': {
		shape: 'items',
		side: 'base',
		label: "One execution, N items, n8n's own nodes: HTTP Request → Wait → HTTP Request → S3",
		workflow: 'benchThItemsBase',
		cred: 'benchThItemsBase',
	},
	'executions-base': {
		shape: 'executions',
		side: 'base',
		label: "N executions, n8n's own nodes: Webhook → HTTP Request → Wait → HTTP Request → S3",
		workflow: 'benchThExecsBase',
		hook: 'gs-bench-thousand-execs-base',
		cred: 'benchThExecsBase',
	},
};

/** The examples the workflows are built from (their nodes run as they are there, Max Credits off). */
const MANY_LONG_JOBS = 'many-long-jobs.json';
export const EXAMPLES_USED = [PUBLISH_EXAMPLE, MANY_LONG_JOBS];

/** The manual trigger the items shapes start from (a manual run: "Execute workflow"). */
export const MANUAL_TRIGGER = 'Manual';

const SUBJECT = 'a product turning on a plinth';

/** The prompt of row `row` of a run tagged `tag`. */
export const promptOf = (tag, row) => `${tag} row ${row}: ${SUBJECT}`;

/** The Code node of the items shapes: `n` items { row, prompt } (the prompts of promptOf). */
const prompts = (n, tag) =>
	B.code(
		'Prompts',
		`const [tag, subject] = ${JSON.stringify([tag, SUBJECT])};
return Array.from({ length: ${n} }, (_, i) => ({ json: { row: i + 1, prompt: \`\${tag} row \${i + 1}: \${subject}\` } }));`,
	);

const S3_KEY_OF_JOB = (jobIdExpr) => `={{ ${jobIdExpr} }}.mp4`;

/** The publish example's Upload to S3 node (its key: the binary's file name, `<job id>.mp4`, unless given). */
function uploadToS3(fileName) {
	const node = loadExample(PUBLISH_EXAMPLE).nodes.find((n) => n.type === 'n8n-nodes-base.s3');
	if (!node) throw new Error(`examples/${PUBLISH_EXAMPLE} has no S3 node any more`);
	if (
		node.parameters.bucketName !== BUCKET ||
		node.parameters.additionalFields?.parentFolderKey !== FOLDER
	)
		throw new Error(`examples/${PUBLISH_EXAMPLE}'s S3 node no longer writes ${BUCKET}/${FOLDER}/`);
	const { id: _id, position: _position, ...rest } = node;
	return {
		...rest,
		parameters: { ...rest.parameters, ...(fileName && { fileName }) },
		credentials: { s3: S3_CREDENTIAL },
	};
}

const ourCredentials = (cred) => ({ generationServiceApi: { id: cred, name: cred } });

/** A node's options without Max Credits (see the header). */
function withoutMaxCredits(node) {
	const { maxCredits: _m, maxCreditsPerRun: _r, ...options } = node.parameters.options ?? {};
	return { ...node, parameters: { ...node.parameters, options } };
}

const webhook = (hook) => B.webhook('Webhook', { path: hook, responseMode: 'onReceived' });
const manual = () => B.manualTrigger(MANUAL_TRIGGER);

function items({ n, tag }) {
	const r = RUNS.items;
	const create = loadExample(PUBLISH_EXAMPLE).nodes.find((n) => n.name === 'Create and Wait');
	if (!create?.parameters.options?.waitForCompletion)
		throw new Error(
			`examples/${PUBLISH_EXAMPLE} has no "Create and Wait" with Wait for Completion`,
		);
	const { id: _id, position: _position, ...node } = withoutMaxCredits(create);
	return B.workflow({
		id: r.workflow,
		name: 'Bench thousand: items (examples/publish-to-s3.json)',
		nodes: [
			manual(),
			prompts(n, tag),
			{
				...node,
				parameters: { ...node.parameters, prompt: '={{ $json.prompt }}' },
				credentials: ourCredentials(r.cred),
			},
			uploadToS3(),
		],
	});
}

/** examples/many-long-jobs.json: its Create, Wait node and Wait for Job, between a webhook and the S3 node. */
function executions() {
	const r = RUNS.executions;
	const example = loadExample(MANY_LONG_JOBS);
	const pick = (name) => {
		const found = example.nodes.find((n) => n.name === name);
		if (!found) throw new Error(`examples/many-long-jobs.json has no "${name}" node any more`);
		const { id: _id, position: _position, ...node } = found;
		return node.credentials ? { ...node, credentials: ourCredentials(r.cred) } : node;
	};
	return B.workflow({
		id: r.workflow,
		name: 'Bench thousand: executions (examples/many-long-jobs.json)',
		nodes: [
			webhook(r.hook),
			withoutMaxCredits(pick('Create')),
			pick('Park Until the Estimate'),
			pick('Wait for Job'),
			uploadToS3(),
		],
	});
}

const JOB_BODY = `={{ JSON.stringify({ mode: 'text_to_video', prompt: $json.prompt, durationSeconds: 5, aspectRatio: '16:9' }) }}`;
/** n8n's HTTP Request batching: one item every `ms` (its Batching option). */
const batching = (ms) => ({ batching: { batch: { batchSize: 1, batchInterval: ms } } });
/** n8n's Retry On Fail at its most patient (5 tries, 5 s apart: the node's maximums). */
const RETRY = { retryOnFail: true, maxTries: 5, waitBetweenTries: 5000 };

/**
 * n8n's own nodes: create (POST /jobs with an Idempotency-Key of the row), wait `waitS`, download the output
 * as a file, upload it to S3 as `<job id>.mp4`. `perItemMs`: HTTP Request's batching (one execution of N
 * items); else Retry On Fail (one execution per row).
 */
function baseline(r, { baseUrl, waitS, perItemMs, promptExpr, rowExpr, n, tag }) {
	const cred = r.cred;
	const extra = (http) => {
		if (perItemMs) http.parameters.options = { ...http.parameters.options, ...batching(perItemMs) };
		else Object.assign(http, RETRY);
		return http;
	};
	const create = extra(
		B.httpRequest('Create', {
			method: 'POST',
			url: `${baseUrl}/jobs`,
			headers: {
				'Idempotency-Key': `={{ 'bench-thousand-' + $execution.id + '-row-' + ${rowExpr} }}`,
			},
			jsonBody: JOB_BODY.replace('$json.prompt', promptExpr),
			headerAuth: cred,
		}),
	);
	const download = extra(
		B.httpRequest('Download', {
			url: `=${baseUrl}/jobs/{{ $json.data.id }}/output`,
			responseFile: true,
			headerAuth: cred,
		}),
	);
	return B.workflow({
		id: r.workflow,
		name: `Bench thousand: ${r.shape}, n8n's own nodes`,
		nodes: [
			...(perItemMs ? [manual(), prompts(n, tag)] : [webhook(r.hook)]),
			create,
			B.waitSeconds('Wait', waitS),
			download,
			uploadToS3(S3_KEY_OF_JOB("$('Create').item.json.data.id")),
		],
	});
}

/**
 * The workflow of run `name` (RUNS); `jobS`: its jobs' duration in seconds (the baselines wait that + 5 s);
 * `baseUrl`: the service's, for the baselines' HTTP Request nodes; `n` prompts tagged `tag` (promptOf) for
 * the items shapes' Code node.
 */
export function thousandWorkflow(name, { jobS, baseUrl, n, tag }) {
	if (name === 'items' || name === 'items-large') return items({ n, tag });
	if (name === 'executions') return executions();
	const waitS = jobS + 5;
	if (name === 'items-base')
		return baseline(RUNS[name], {
			baseUrl,
			waitS,
			n,
			tag,
			perItemMs: 510,
			promptExpr: '$json.prompt',
			rowExpr: '$json.row',
		});
	if (name === 'executions-base')
		return baseline(RUNS[name], {
			baseUrl,
			waitS,
			promptExpr: '$json.body.prompt',
			rowExpr: '$json.body.row',
		});
	throw new Error(`unknown run ${name}`);
}
