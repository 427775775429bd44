// n8n workflow JSON, built in one place for the bench, the soak, the smoke check, the fixture package and the
// e2e suites: node factories for the package's four nodes and for the n8n nodes the tooling uses, the
// connections of a line of nodes, and `workflow()`, which gives each node its id and position and wraps them in
// what `n8n import:workflow` and the REST API take. Each caller keeps only what is its own (names, inputs,
// credentials, extra edges).
import { randomUUID } from 'node:crypto';

import { packageNodeType } from './repo.mjs';

/** The credential type of the package's nodes. */
export const CREDENTIAL_TYPE = 'generationServiceApi';
/** n8n's Header Auth credential (`Authorization: Bearer <key>` for the HTTP Request node). */
export const HEADER_AUTH_TYPE = 'httpHeaderAuth';

/** Node types that carry a webhookId (n8n's webhook paths for them). */
const WITH_WEBHOOK_ID = new Set(['n8n-nodes-base.webhook', 'n8n-nodes-base.wait']);

/**
 * One node: `extra` adds top-level fields (credentials, webhookId, retryOnFail, maxTries, …, or an explicit
 * id or position). Without them workflow() gives the node an id and its place in the line.
 */
export function node(name, type, typeVersion, parameters = {}, extra = {}) {
	return { name, type, typeVersion, parameters, ...extra };
}

/** The credentials field for a credential { id, name } of the package's type (or `type`). */
export const credentialsOf = (credential, type = CREDENTIAL_TYPE) => ({
	[type]: { id: credential.id, name: credential.name },
});

// ---------------------------------------------------------------------------------------------------
// The package's nodes: `options.credential` ({ id, name }), `options.typeVersion` (default 1), and any
// other top-level field (retryOnFail, …).

function ours(nodeName, name, parameters, { credential, typeVersion = 1, ...extra } = {}) {
	return node(name, packageNodeType(nodeName), typeVersion, parameters, {
		...(credential && { credentials: credentialsOf(credential) }),
		...extra,
	});
}

/** A resource locator by id (an expression when it starts with `=`). */
export const byId = (value) => ({ __rl: true, mode: 'id', value });

/** The Job node's Create: `input` is the form (mode, prompt, durationSeconds, …, options). */
export const createJob = (name, input, options) =>
	ours('generationServiceJob', name, { resource: 'job', operation: 'create', ...input }, options);

/** The Job node's Wait for Job on `jobId` (an id or an expression). */
export const waitForJob = (name, jobId, jobOptions, options) =>
	ours(
		'generationServiceJob',
		name,
		{ resource: 'job', operation: 'waitForJob', jobId: byId(jobId), options: jobOptions },
		options,
	);

/** The Job node's Download Output of `jobId`. */
export const downloadOutput = (name, jobId, options) =>
	ours(
		'generationServiceJob',
		name,
		{ resource: 'job', operation: 'downloadOutput', jobId: byId(jobId), options: {} },
		options,
	);

/** The Job node's Get of `jobId`. */
export const getJob = (name, jobId, options) =>
	ours(
		'generationServiceJob',
		name,
		{ resource: 'job', operation: 'get', jobId: byId(jobId) },
		options,
	);

/** The Asset node's Upload of the binary field `binaryPropertyName`. */
export const uploadAsset = (name, options, binaryPropertyName = 'data') =>
	ours(
		'generationServiceAsset',
		name,
		{ resource: 'asset', operation: 'upload', binaryPropertyName, options: {} },
		options,
	);

/** An Account node operation without fields (getIdentity, getBalance). */
export const account = (name, operation, options) =>
	ours('generationServiceAccount', name, { resource: 'account', operation }, options);

/**
 * The Job Finished trigger: `jobState` succeeded|failed|both, `modes` ([] = all), `second` (when given: polls at
 * that second of every minute), `jobOptions` its options.
 */
export function jobFinished(name, { jobState, modes, second, jobOptions = {} }, options) {
	return ours(
		'generationServiceTrigger',
		name,
		{
			...(second !== undefined && {
				pollTimes: { item: [{ mode: 'custom', cronExpression: `${second} * * * * *` }] },
			}),
			event: 'jobFinished',
			jobState,
			...(modes && { modes }),
			options: jobOptions,
		},
		options,
	);
}

// ---------------------------------------------------------------------------------------------------
// n8n's own nodes

export const manualTrigger = (name = 'Manual', extra) =>
	node(name, 'n8n-nodes-base.manualTrigger', 1, {}, extra);

/**
 * A production webhook: `path`, `responseMode` (onReceived, lastNode), `responseData` (firstEntryJson,
 * firstEntryBinary (of the field `data`), allEntries), `webhookId` (default: workflow() gives one).
 */
export function webhook(
	name,
	{ path, method = 'POST', responseMode, responseData, typeVersion = 2.1, webhookId },
) {
	return node(
		name,
		'n8n-nodes-base.webhook',
		typeVersion,
		{
			httpMethod: method,
			path,
			responseMode,
			...(responseData && { responseData }),
			...(responseData === 'firstEntryBinary' && { responseBinaryPropertyName: 'data' }),
			options: {},
		},
		webhookId ? { webhookId } : {},
	);
}

/** Set (v3.4) with these assignments ({ name, value, type }; ids a0, a1, … unless given). */
export const set = (name, assignments) =>
	node(name, 'n8n-nodes-base.set', 3.4, {
		mode: 'manual',
		assignments: {
			assignments: assignments.map((a, i) => ({ id: a.id ?? `a${i}`, ...a })),
		},
		options: {},
	});

/** Set of one item with these fields: strings as strings, arrays JSON, anything else a number. */
export const setFields = (name, fields) =>
	set(
		name,
		Object.entries(fields).map(([k, v]) => ({
			name: k,
			value: typeof v === 'string' ? v : JSON.stringify(v),
			type: typeof v === 'string' ? 'string' : Array.isArray(v) ? 'array' : 'number',
		})),
	);

export const splitOut = (name, field) =>
	node(name, 'n8n-nodes-base.splitOut', 1, { fieldToSplitOut: field, options: {} });

/** n items `{ [field]: value }` from n8n's own nodes only (Set an array, Split Out; no Code node). */
export const itemsOf = (values, field) => [
	setFields('List', { [field]: values }),
	splitOut('Split Out', field),
];

export const code = (name, jsCode) => node(name, 'n8n-nodes-base.code', 2, { jsCode });

export const noOp = (name) => node(name, 'n8n-nodes-base.noOp', 1, {});

/** IF (v2.2) on a boolean expression: output 0 = true, 1 = false. */
export const ifTrue = (name, expression) =>
	node(name, 'n8n-nodes-base.if', 2.2, {
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

/** n8n's Wait node for `seconds` (a number or an expression). */
export const waitSeconds = (name, seconds) =>
	node(name, 'n8n-nodes-base.wait', 1.1, {
		resume: 'timeInterval',
		amount: seconds,
		unit: 'seconds',
	});

/** Read/Write Files: read `filePath` into the binary field `data`. */
export const readFile = (name, filePath) =>
	node(name, 'n8n-nodes-base.readWriteFile', 1, {
		operation: 'read',
		fileSelector: filePath,
		options: { dataPropertyName: 'data' },
	});

/** Read/Write Files: write the binary field `data` to `fileName` (an expression: starts with `=`). */
export const writeFile = (name, fileName) =>
	node(name, 'n8n-nodes-base.readWriteFile', 1, {
		operation: 'write',
		fileName,
		dataPropertyName: 'data',
		options: {},
	});

/**
 * HTTP Request (v4.2): `method`, `url`, `headers` ({ name: value }), `jsonBody` (an expression), `binaryField`
 * (the body is that binary field), `responseFile` (the answer into the binary field `data`), `headerAuth` (the
 * id, also the name, of a Header Auth credential). `extra`: top-level fields.
 */
export function httpRequest(
	name,
	{ method = 'GET', url, headers, jsonBody, binaryField, responseFile, headerAuth },
	extra = {},
) {
	const p = { method, url };
	if (headerAuth)
		Object.assign(p, {
			authentication: 'genericCredentialType',
			genericAuthType: HEADER_AUTH_TYPE,
		});
	p.options = {};
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
	if (responseFile)
		p.options.response = { response: { responseFormat: 'file', outputPropertyName: 'data' } };
	return node(name, 'n8n-nodes-base.httpRequest', 4.2, p, {
		...(headerAuth && {
			credentials: credentialsOf({ id: headerAuth, name: headerAuth }, HEADER_AUTH_TYPE),
		}),
		...extra,
	});
}

// ---------------------------------------------------------------------------------------------------
// Connections and the workflow

/**
 * Connections: `names` in a line (each one's main output 0 → the next one's input 0), then `edges`
 * [from, outputIndex, to].
 */
export function chain(names, edges = []) {
	const connections = {};
	const add = (from, outputIndex, to) => {
		connections[from] ??= { main: [] };
		while (connections[from].main.length <= outputIndex) connections[from].main.push([]);
		connections[from].main[outputIndex].push({ node: to, type: 'main', index: 0 });
	};
	names.forEach((to, k) => k > 0 && add(names[k - 1], 0, to));
	for (const [from, outputIndex, to] of edges) add(from, outputIndex, to);
	return connections;
}

/** The id of node `index` (0-based) of a workflow whose ids are made from `prefix` (8 hex digits). */
export const idOf = (prefix, index) =>
	`${prefix}-0000-4000-8000-${String(index + 1).padStart(12, '0')}`;

/**
 * A workflow to import: `nodes` in a line from left to right (each at [k × 220, 0] unless it has a position),
 * `connections` (default: the nodes chained in their order). Node ids: a node's own, else made from `ids`
 * (a prefix of 8 hex digits, see idOf(), or a function of the index), else random; a webhook's or a Wait
 * node's webhookId likewise (`<prefix>-0000-4000-8000-0000000000aa`). `id` is n8n's workflow id (1–21
 * characters).
 */
export function workflow({ id, name, nodes, connections, ids }) {
	if (id !== undefined && (id.length < 1 || id.length > 21))
		throw new Error(`workflow id must have 1 to 21 characters: ${id}`);
	const idAt = typeof ids === 'function' ? ids : ids ? (k) => idOf(ids, k) : () => randomUUID();
	const placed = nodes.map((n, k) => ({
		id: n.id ?? idAt(k),
		...n,
		position: n.position ?? [k * 220, 0],
		...(WITH_WEBHOOK_ID.has(n.type) && {
			webhookId:
				n.webhookId ??
				(ids && typeof ids !== 'function' ? `${ids}-0000-4000-8000-0000000000aa` : randomUUID()),
		}),
	}));
	return {
		...(id !== undefined && { id }),
		name,
		active: false,
		nodes: placed,
		connections: connections ?? chain(placed.map((n) => n.name)),
		settings: { executionOrder: 'v1' },
		pinData: {},
	};
}
