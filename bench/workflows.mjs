// Workflow JSON builders for `npm run bench`: OUR nodes and the do-it-yourself BASELINE built only from
// n8n's own nodes (HTTP Request + Wait + IF, Header Auth credential `Authorization: Bearer <key>`).
import { randomUUID } from 'node:crypto';

export const PKG = 'n8n-nodes-generation-service';
export const OUR_CRED_TYPE = 'generationServiceApi';
export const BASE_CRED_TYPE = 'httpHeaderAuth';

let counter = 0;
const nid = () =>
	`b${String(++counter).padStart(4, '0')}-0000-4000-8000-${randomUUID().slice(-12)}`;

function node(name, type, typeVersion, parameters, extra = {}) {
	return { id: nid(), name, type, typeVersion, position: [0, 0], parameters, ...extra };
}

const manual = () => node('Manual', 'n8n-nodes-base.manualTrigger', 1, {});

/** Set node that outputs one item with the given fields. */
function setFields(name, fields) {
	return node('' + name, 'n8n-nodes-base.set', 3.4, {
		mode: 'manual',
		assignments: {
			assignments: Object.entries(fields).map(([k, v], i) => ({
				id: `a${i}`,
				name: k,
				value: typeof v === 'string' ? v : JSON.stringify(v),
				type: typeof v === 'string' ? 'string' : Array.isArray(v) ? 'array' : 'number',
			})),
		},
		options: {},
	});
}

/** n items `{ [field]: value }` from a Set (array) + Split Out, n8n's own nodes only (no Code node/task runner). */
function itemsOf(values, field) {
	return [
		setFields('List', { [field]: values }),
		node('Split Out', 'n8n-nodes-base.splitOut', 1, { fieldToSplitOut: field, options: {} }),
	];
}

function ours(name, kind, parameters, credId) {
	return node(name, `${PKG}.${kind}`, 1, parameters, {
		credentials: { [OUR_CRED_TYPE]: { id: credId, name: credId } },
	});
}

/** HTTP Request (v4.2) with the Header Auth credential `credId`. */
function http(name, { method = 'GET', url, headers, jsonBody, binaryField, responseFile }, credId) {
	const p = {
		method,
		url,
		authentication: 'genericCredentialType',
		genericAuthType: BASE_CRED_TYPE,
		options: {},
	};
	if (headers) {
		p.sendHeaders = true;
		p.headerParameters = {
			parameters: Object.entries(headers).map(([k, v]) => ({ name: k, value: v })),
		};
	}
	if (jsonBody !== undefined) {
		p.sendBody = true;
		p.specifyBody = 'json';
		p.jsonBody = jsonBody;
	}
	if (binaryField) {
		p.sendBody = true;
		p.contentType = 'binaryData';
		p.inputDataFieldName = binaryField;
	}
	if (responseFile) {
		p.options.response = { response: { responseFormat: 'file', outputPropertyName: 'data' } };
	}
	return node(name, 'n8n-nodes-base.httpRequest', 4.2, p, {
		credentials: { [BASE_CRED_TYPE]: { id: credId, name: credId } },
	});
}

/** IF (v2.2) on a boolean expression: output 0 = true, 1 = false. */
function ifTrue(name, expression) {
	return node(name, 'n8n-nodes-base.if', 2.2, {
		conditions: {
			options: { caseSensitive: true, leftValue: '', typeValidation: 'loose', version: 2 },
			conditions: [
				{
					id: 'c0',
					leftValue: expression,
					rightValue: '',
					operator: { type: 'boolean', operation: 'true', singleValue: true },
				},
			],
			combinator: 'and',
		},
		looseTypeValidation: true,
		options: {},
	});
}

function waitSeconds(name, seconds) {
	return node(
		name,
		'n8n-nodes-base.wait',
		1.1,
		{ resume: 'timeInterval', amount: seconds, unit: 'seconds' },
		{ webhookId: randomUUID() },
	);
}

const readFile = (name, filePath) =>
	node(name, 'n8n-nodes-base.readWriteFile', 1, {
		operation: 'read',
		fileSelector: filePath,
		options: { dataPropertyName: 'data' },
	});

/** Chain the nodes in order (main output 0 → input 0), extra edges as [from, outputIndex, to]. */
function workflow(id, name, nodes, extraEdges = []) {
	const connections = {};
	const add = (from, outputIndex, to) => {
		connections[from] ??= { main: [] };
		while (connections[from].main.length <= outputIndex) connections[from].main.push([]);
		connections[from].main[outputIndex].push({ node: to, type: 'main', index: 0 });
	};
	nodes.forEach((n, i) => {
		n.position = [i * 220, 0];
		if (i > 0 && !n.noChainIn) add(nodes[i - 1].name, 0, n.name);
		delete n.noChainIn;
	});
	for (const [from, idx, to] of extraEdges) add(from, idx, to);
	if (id.length > 21) throw new Error(`workflow id too long: ${id}`);
	return {
		id,
		name: `bench: ${name}`,
		active: false,
		nodes,
		connections,
		settings: { executionOrder: 'v1' },
		pinData: {},
	};
}

const TEXT_TO_VIDEO = {
	resource: 'job',
	mode: 'text_to_video',
	durationSeconds: 5,
	aspectRatio: '16:9',
};
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
		manual(),
		ours(
			'Create and Wait',
			'generationServiceJob',
			{
				...TEXT_TO_VIDEO,
				operation: 'create',
				prompt,
				options: { maxCredits: 20, waitForCompletion: true, binaryPropertyName: 'data' },
			},
			cred,
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
	const nodes = [
		manual(),
		http(
			'Quote',
			{
				method: 'POST',
				url: `${baseUrl}/jobs/quote`,
				jsonBody: body,
			},
			cred,
		),
		ifTrue('Affordable', '={{ $json.data.sufficient && $json.data.reservedCredits <= 20 }}'),
		http(
			'Create',
			{
				method: 'POST',
				url: `${baseUrl}/jobs`,
				headers: {
					'Idempotency-Key': `={{ 'bench-job-' + $execution.id + '-' + $now.toMillis() }}`,
				},
				jsonBody: body,
			},
			cred,
		),
		http('Get Job', { url: `=${baseUrl}/jobs/{{ $('Create').first().json.data.id }}` }, cred),
		ifTrue('Ended', `={{ ['succeeded', 'failed'].includes($json.data.state) }}`),
		http(
			'Download',
			{ url: `=${baseUrl}/jobs/{{ $('Create').first().json.data.id }}/output`, responseFile: true },
			cred,
		),
		Object.assign(waitSeconds('Wait 5 s', 5), { noChainIn: true }),
	];
	return workflow(id, 'job, baseline (HTTP Request + IF + Wait loop)', nodes, [
		['Ended', 1, 'Wait 5 s'],
		['Wait 5 s', 0, 'Get Job'],
	]);
}

// ---------------------------------------------------------------------------------------------------
// 2. Peak memory moving files (downloads and uploads of several sizes)

export const upIdle = (file) =>
	workflow('benchUpIdle', 'upload idle (read the file only)', [manual(), readFile('Read', file)]);

export const upOurs = (file, cred, id = 'benchUpOurs') =>
	workflow(id, `upload, ours (Asset Upload) ${file}`, [
		manual(),
		readFile('Read', file),
		ours(
			'Upload',
			'generationServiceAsset',
			{ resource: 'asset', operation: 'upload', binaryPropertyName: 'data', options: {} },
			cred,
		),
	]);

export const upBaseline = (
	file,
	cred,
	baseUrl,
	id = 'benchUpBase',
	key = 'bench-baseline-upload-20mib-0001',
) =>
	workflow(id, `upload, baseline (HTTP Request binary body) ${file}`, [
		manual(),
		readFile('Read', file),
		http(
			'Upload',
			{
				method: 'POST',
				url: `${baseUrl}/assets`,
				headers: {
					'Idempotency-Key': key,
					'X-Service-Filename': file.split('/').pop(),
					'Content-Type': 'video/mp4',
				},
				binaryField: 'data',
			},
			cred,
		),
	]);

export const dlIdle = (jobId) =>
	workflow('benchDlIdle', 'download idle (job id only)', [manual(), setFields('Job', { jobId })]);

export const dlOurs = (jobId, cred, id = 'benchDlOurs') =>
	workflow(id, `download, ours (Wait for Job) ${jobId}`, [
		manual(),
		setFields('Job', { jobId }),
		ours(
			'Wait for Job',
			'generationServiceJob',
			{
				resource: 'job',
				operation: 'waitForJob',
				jobId: { __rl: true, mode: 'id', value: '={{ $json.jobId }}' },
				options: { binaryPropertyName: 'data' },
			},
			cred,
		),
	]);

export const dlBaseline = (jobId, cred, baseUrl, id = 'benchDlBase') =>
	workflow(id, `download, baseline (HTTP Request file) ${jobId}`, [
		manual(),
		setFields('Job', { jobId }),
		http(
			'Download',
			{ url: `=${baseUrl}/jobs/{{ $json.jobId }}/output`, responseFile: true },
			cred,
		),
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
 */
/**
 * `phase`: the run waits in n8n (a Wait node, before the items) until that second of the clock minute, so the
 * batch's first request leaves near it however long n8n took to start.
 */
export const batchWait = (id, n, cred, outDir, phase) =>
	workflow(id, `batch of ${n}: Create with Wait for Completion, from second ${phase}`, [
		manual(),
		waitSeconds(
			'Until the phase',
			`={{ Math.max(0.05, (((${phase} - $now.second - $now.millisecond / 1000) % 60) + 60) % 60) }}`,
		),
		...itemsOf(prompts(n), 'prompt'),
		ours(
			'Create',
			'generationServiceJob',
			{
				...TEXT_TO_VIDEO,
				operation: 'create',
				prompt: '={{ $json.prompt }}',
				options: { waitForCompletion: true, binaryPropertyName: 'data' },
			},
			cred,
		),
		node('Write MP4', 'n8n-nodes-base.readWriteFile', 1, {
			operation: 'write',
			fileName: `=${outDir}/{{ $json.id }}.mp4`,
			dataPropertyName: 'data',
			options: {},
		}),
	]);

// ---------------------------------------------------------------------------------------------------
// 4. Creates only: N text-to-video creates on a 60 requests/minute key

export const createsOurs = (n, cred) =>
	workflow('benchCreatesOurs', `creates only, ${n}, ours (Create)`, [
		manual(),
		...itemsOf(prompts(n), 'prompt'),
		ours(
			'Create',
			'generationServiceJob',
			{ ...TEXT_TO_VIDEO, operation: 'create', prompt: '={{ $json.prompt }}', options: {} },
			cred,
		),
	]);

export const createsBaseline = (n, cred, baseUrl) =>
	workflow('benchCreatesBase', `creates only, ${n}, baseline (HTTP Request, default settings)`, [
		manual(),
		...itemsOf(prompts(n), 'prompt'),
		http(
			'Create',
			{
				method: 'POST',
				url: `${baseUrl}/jobs`,
				headers: { 'Idempotency-Key': `={{ 'bench-batch-' + $execution.id + '-' + $itemIndex }}` },
				jsonBody: JOB_BODY('$json.prompt'),
			},
			cred,
		),
	]);

// ---------------------------------------------------------------------------------------------------
// 5. CPU per item: `chains` nodes in a row, each with its own credential/key, `perNode` items each

const range = (n) => Array.from({ length: n }, (_, i) => i + 1);

export const cpuOurs = (id, creds, perNode) =>
	workflow(id, `cpu, ours (${creds.length} x Get Balance x ${perNode} items)`, [
		manual(),
		...itemsOf(range(perNode), 'n'),
		...creds.map((c, i) =>
			ours(
				`Balance ${i + 1}`,
				'generationServiceAccount',
				{ resource: 'account', operation: 'getBalance' },
				c,
			),
		),
	]);

export const cpuHttp = (id, creds, perNode, baseUrl) =>
	workflow(id, `cpu, HTTP Request (${creds.length} x GET /balance x ${perNode} items)`, [
		manual(),
		...itemsOf(range(perNode), 'n'),
		...creds.map((c, i) => http(`Balance ${i + 1}`, { url: `${baseUrl}/balance` }, c)),
	]);

export const cpuNoOp = (id, nodes, perNode) =>
	workflow(id, `cpu, NoOp (${nodes} x NoOp x ${perNode} items)`, [
		manual(),
		...itemsOf(range(perNode), 'n'),
		...range(nodes).map((i) => node(`NoOp ${i}`, 'n8n-nodes-base.noOp', 1, {})),
	]);
