// The workflows of `npm run bench`: OUR nodes and the do-it-yourself BASELINE built only from n8n's own nodes
// (HTTP Request + Wait + IF, Header Auth credential `Authorization: Bearer <key>`). The nodes and the workflow
// JSON come from tools/lib/workflow.mjs; here only what the bench runs.
import * as B from '../tools/lib/workflow.mjs';

export const OUR_CRED_TYPE = B.CREDENTIAL_TYPE;
export const BASE_CRED_TYPE = B.HEADER_AUTH_TYPE;

/** A bench workflow: `nodes` in a line, `edges` [from, outputIndex, to] besides; `unchained`: nodes no line enters. */
function workflow(id, name, nodes, { edges = [], unchained = [] } = {}) {
	const line = nodes.map((n) => n.name).filter((n) => !unchained.includes(n));
	return B.workflow({ id, name: `bench: ${name}`, nodes, connections: B.chain(line, edges) });
}

/** One of our nodes on the bench credential `cred` (its id is also its name). */
const on = (cred) => ({ credential: { id: cred, name: cred } });

const TEXT_TO_VIDEO = { mode: 'text_to_video', durationSeconds: 5, aspectRatio: '16:9' };
const JOB_BODY = (promptExpr) =>
	`={{ JSON.stringify({ mode: 'text_to_video', prompt: ${promptExpr}, durationSeconds: 5, aspectRatio: '16:9' }) }}`;

// ---------------------------------------------------------------------------------------------------
// 1. Requests per finished job

/**
 * Ours: one Create with Max Credits (quote first) and Wait for Completion (default 5 s poll). Each run
 * gets its own prompt, so a look-up for a recent job of the same input (where it is on) finds none.
 */
export function jobOurs(cred, id = 'benchJobOurs', prompt = 'benchmark: a lighthouse in a storm') {
	return workflow(id, 'job, ours (Create + Max Credits + Wait for Completion)', [
		B.manualTrigger(),
		B.createJob(
			'Create and Wait',
			{
				...TEXT_TO_VIDEO,
				prompt,
				options: { maxCredits: 20, waitForCompletion: true, binaryPropertyName: 'data' },
			},
			on(cred),
		),
	]);
}

/**
 * Baseline: HTTP quote → IF affordable → HTTP create (Idempotency-Key) → HTTP GET job → IF ended →
 * (no) Wait 5 s → back to GET job; (yes) HTTP GET output as file.
 */
export function jobBaseline(
	cred,
	baseUrl,
	id = 'benchJobBase',
	prompt = 'benchmark: a lighthouse in a storm',
) {
	const body = JOB_BODY(JSON.stringify(prompt).replace(/"/g, "'"));
	const job = `$('Create').first().json.data.id`;
	return workflow(
		id,
		'job, baseline (HTTP Request + IF + Wait loop)',
		[
			B.manualTrigger(),
			B.httpRequest('Quote', {
				method: 'POST',
				url: `${baseUrl}/jobs/quote`,
				jsonBody: body,
				headerAuth: cred,
			}),
			B.ifTrue('Affordable', '={{ $json.data.sufficient && $json.data.reservedCredits <= 20 }}'),
			B.httpRequest('Create', {
				method: 'POST',
				url: `${baseUrl}/jobs`,
				headers: {
					'Idempotency-Key': `={{ 'bench-job-' + $execution.id + '-' + $now.toMillis() }}`,
				},
				jsonBody: body,
				headerAuth: cred,
			}),
			B.httpRequest('Get Job', { url: `=${baseUrl}/jobs/{{ ${job} }}`, headerAuth: cred }),
			B.ifTrue('Ended', `={{ ['succeeded', 'failed'].includes($json.data.state) }}`),
			B.httpRequest('Download', {
				url: `=${baseUrl}/jobs/{{ ${job} }}/output`,
				responseFile: true,
				headerAuth: cred,
			}),
			B.waitSeconds('Wait 5 s', 5),
		],
		{
			unchained: ['Wait 5 s'],
			edges: [
				['Ended', 1, 'Wait 5 s'],
				['Wait 5 s', 0, 'Get Job'],
			],
		},
	);
}

// ---------------------------------------------------------------------------------------------------
// 2. Peak memory moving files (downloads and uploads of several sizes)

export const upIdle = (file) =>
	workflow('benchUpIdle', 'upload idle (read the file only)', [
		B.manualTrigger(),
		B.readFile('Read', file),
	]);

export const upOurs = (file, cred, id = 'benchUpOurs') =>
	workflow(id, `upload, ours (Asset Upload) ${file}`, [
		B.manualTrigger(),
		B.readFile('Read', file),
		B.uploadAsset('Upload', on(cred)),
	]);

export const upBaseline = (
	file,
	cred,
	baseUrl,
	id = 'benchUpBase',
	key = 'bench-baseline-upload-20mib-0001',
) =>
	workflow(id, `upload, baseline (HTTP Request binary body) ${file}`, [
		B.manualTrigger(),
		B.readFile('Read', file),
		B.httpRequest('Upload', {
			method: 'POST',
			url: `${baseUrl}/assets`,
			headers: {
				'Idempotency-Key': key,
				'X-Service-Filename': file.split('/').pop(),
				'Content-Type': 'video/mp4',
			},
			binaryField: 'data',
			headerAuth: cred,
		}),
	]);

export const dlIdle = (jobId) =>
	workflow('benchDlIdle', 'download idle (job id only)', [
		B.manualTrigger(),
		B.setFields('Job', { jobId }),
	]);

export const dlOurs = (jobId, cred, id = 'benchDlOurs') =>
	workflow(id, `download, ours (Wait for Job) ${jobId}`, [
		B.manualTrigger(),
		B.setFields('Job', { jobId }),
		B.waitForJob('Wait for Job', '={{ $json.jobId }}', { binaryPropertyName: 'data' }, on(cred)),
	]);

export const dlBaseline = (jobId, cred, baseUrl, id = 'benchDlBase') =>
	workflow(id, `download, baseline (HTTP Request file) ${jobId}`, [
		B.manualTrigger(),
		B.setFields('Job', { jobId }),
		B.httpRequest('Download', {
			url: `=${baseUrl}/jobs/{{ $json.jobId }}/output`,
			responseFile: true,
			headerAuth: cred,
		}),
	]);

// ---------------------------------------------------------------------------------------------------
// 3. Batch: N text-to-video jobs created, waited for and downloaded by one Create node

const prompts = (n) =>
	Array.from({ length: n }, (_, i) => `benchmark batch prompt number ${i + 1}`);

/**
 * N prompts → one Job node "Create" with Wait for Completion (defaults: 5 s poll, download on) → Write
 * Files, each MP4 to `<outDir>/<job id>.mp4` (for the bench to check its sha256; the write comes after the
 * last download, so it is outside the measured wall time). The same workflow runs on our current package
 * and on the previous version (same node type names).
 *
 * `phase`: the run waits in n8n (a Wait node, before the items) until that second of the clock minute, so the
 * batch's first request leaves near it however long n8n took to start.
 */
export const batchWait = (id, n, cred, outDir, phase) =>
	workflow(id, `batch of ${n}: Create with Wait for Completion, from second ${phase}`, [
		B.manualTrigger(),
		B.waitSeconds(
			'Until the phase',
			`={{ Math.max(0.05, (((${phase} - $now.second - $now.millisecond / 1000) % 60) + 60) % 60) }}`,
		),
		...B.itemsOf(prompts(n), 'prompt'),
		B.createJob(
			'Create',
			{
				...TEXT_TO_VIDEO,
				prompt: '={{ $json.prompt }}',
				options: { waitForCompletion: true, binaryPropertyName: 'data' },
			},
			on(cred),
		),
		B.writeFile('Write MP4', `=${outDir}/{{ $json.id }}.mp4`),
	]);

// ---------------------------------------------------------------------------------------------------
// 4. Creates only: N text-to-video creates on a 60 requests/minute key

export const createsOurs = (n, cred) =>
	workflow('benchCreatesOurs', `creates only, ${n}, ours (Create)`, [
		B.manualTrigger(),
		...B.itemsOf(prompts(n), 'prompt'),
		B.createJob(
			'Create',
			{ ...TEXT_TO_VIDEO, prompt: '={{ $json.prompt }}', options: {} },
			on(cred),
		),
	]);

export const createsBaseline = (n, cred, baseUrl) =>
	workflow('benchCreatesBase', `creates only, ${n}, baseline (HTTP Request, default settings)`, [
		B.manualTrigger(),
		...B.itemsOf(prompts(n), 'prompt'),
		B.httpRequest('Create', {
			method: 'POST',
			url: `${baseUrl}/jobs`,
			// 16 to 128 characters, as the spec wants: 'bench-creates-1-0' on a fresh instance ('bench-batch-1-0',
			// 15, was refused with 400 invalid_idempotency_key when the part ran alone)
			headers: { 'Idempotency-Key': `={{ 'bench-creates-' + $execution.id + '-' + $itemIndex }}` },
			jsonBody: JOB_BODY('$json.prompt'),
			headerAuth: cred,
		}),
	]);

// ---------------------------------------------------------------------------------------------------
// 5. CPU per item: `chains` nodes in a row, each with its own credential/key, `perNode` items each

const range = (n) => Array.from({ length: n }, (_, i) => i + 1);

export const cpuOurs = (id, creds, perNode) =>
	workflow(id, `cpu, ours (${creds.length} x Get Balance x ${perNode} items)`, [
		B.manualTrigger(),
		...B.itemsOf(range(perNode), 'n'),
		...creds.map((c, i) => B.account(`Balance ${i + 1}`, 'getBalance', on(c))),
	]);

export const cpuHttp = (id, creds, perNode, baseUrl) =>
	workflow(id, `cpu, HTTP Request (${creds.length} x GET /balance x ${perNode} items)`, [
		B.manualTrigger(),
		...B.itemsOf(range(perNode), 'n'),
		...creds.map((c, i) =>
			B.httpRequest(`Balance ${i + 1}`, { url: `${baseUrl}/balance`, headerAuth: c }),
		),
	]);

export const cpuNoOp = (id, nodes, perNode) =>
	workflow(id, `cpu, NoOp (${nodes} x NoOp x ${perNode} items)`, [
		B.manualTrigger(),
		...B.itemsOf(range(perNode), 'n'),
		...range(nodes).map((i) => B.noOp(`NoOp ${i}`)),
	]);
