// A seeded chaos soak of the package in n8n's queue mode: a main and 2 workers of n8n 2.41.1, PostgreSQL 17,
// Redis, database binary mode (tools/lib/queue-stack.mjs), against the local emulator (emulator/), for M wall
// minutes with a random schedule drawn from a seed:
//
//   load      callers of two webhooks, each calling again when its call failed (as real callers do):
//               batch    Webhook {items:[{prompt}]} → Split Out → Create text to video, Wait for Completion
//                        (5–20 items; Retry On Fail), key A
//               replace  Webhook (an MP4) → Upload (key B) → Create character replacement (persona, wait, no
//                        download; key A) → Download Output (key B)
//             and the Job Finished trigger (on the main, key C, download off) → Download Output (key A, on a
//             worker, Retry On Fail) → HTTP Request posting the MP4 to this script's sink (sha256 checked here)
//             Key A has a low limit and is used by every execution.
//   service faults (emulator), one every 5–20 s, in rounds of every kind once (a seeded order per round):
//             reset after commit (jobs, uploads), 500 before commit, 503, 429 storms with Retry-After (key B),
//             the IP limit (429 ip_rate_limited with Retry-After: the emulator's per-IP limiter on for one or
//             two windows; every n8n process sends from 127.0.0.1, so all share that IP's window), truncated
//             and corrupted downloads, answers slower than the node's timeout
//   process faults: SIGKILL a worker while its execution waits for a job and while it downloads, restart the
//             main, restart Redis (each once per 10 minutes of load; runSoak's processFaultKinds picks some)
//   time      the emulator's rate window is 10 s instead of a minute and jobs take 1–20 s, so a wall minute
//             holds several service minutes of traffic (the node's own waits, 5 s polls and Retry-After, stay
//             real: the emulator's clock is the wall clock, which the node's X-RateLimit-Reset reading needs)
//
// The seed draws, each from its own stream, the service faults (moments, kinds, parameters), the process
// faults' moments and each caller's batches and pauses.
//
// At the end, from the emulator's jobs, ledger and referee and n8n's executions: every intent charged at most
// once, every succeeded job's MP4 delivered through the trigger path exactly once with the right sha256, the
// ledger invariant, 0 referee violations, no execution left running, RSS per process over time. A request
// sent before the end of a Retry-After (key or IP) that another process was told, or into key A's used-up
// window when another process's requests counted in that window too, is a collision of processes sharing a
// limit (they share no memory), counted apart and described (which process, how long after the other was
// told, how early; which other process used the window). So is a first page of a key's job list
// judged too soon (list_poll_too_soon: the referee keeps one budget of looks per key) when its process's
// own looks, judged alone with the referee's rule (judgeListLooks in emulator/src/referee.ts), were within
// that budget and other processes looked at that key's list too (described: which process, the looks it had
// left by itself, which others looked). The process behind each such request (and each first-page look) is
// found as it arrives (the emulator's arrival watcher gives the client's port; /proc gives its owner), and
// the process told to wait while its 429 is answered (the journal watcher). The soak only collects these facts;
// the judging is pure functions over them (tools/lib/soak/judge.mjs, unit-tested in test/tools/).
// Violations fail the soak (`npm run soak` and the short soak in npm test, test/e2e/queue-mode.test.mjs test
// e); collisions are counted and described, not failed on: a process that shares nothing with the others
// cannot know what they were told or how much of the window they used, and learns it from its own 429, as
// the spec asks (wait Retry-After). Each collision is one 429 more, never a charge or an output.
//
//   npm run soak -- --minutes 30 --seed 7        (node --import tsx scripts/soak.mjs …)
//   npm run soak -- --minutes 2 --seed 7 --process-faults kills     (worker SIGKILLs only; or none)
//   npm run soak -- --minutes 2 --seed 7 --mode regular   (regular mode: one n8n 1.123.81 process, SQLite,
//                                          filesystem binary mode; same load and service faults, its only
//                                          process fault is restarting that process; no --doc)
//
// setupSoak / publishSoak / runSoak also work on another suite's stack (pass setupSoak's credentials and
// workflows to startQueueStack), so a short soak can share a stack with test/e2e/queue-mode.test.mjs.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { groupPids, rssByGroup } from '../process.mjs';
import { callWebhook, jsonBody } from '../rest.mjs';
import { waitUntil } from '../wait.mjs';
import {
	arrivalFact,
	countCollisionKinds,
	describeCollisions,
	ipLimitedByRole,
	journalFact,
	judgeExecutions,
	judgeViolations,
	ownerNeededAtArrival,
	ownerNeededInJournal,
	processName,
	reportedCollisions,
	RUNNING_STATUSES,
	stillRunning,
	UNKNOWN,
	violationsProblem,
} from './judge.mjs';

export { describeCollisions };

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const PACKAGE_NAME = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')).name;
const nodeType = (name) => `${PACKAGE_NAME}.${name}`;
const sha256 = (buf) => createHash('sha256').update(buf).digest('hex');
const pause = (ms) => new Promise((r) => setTimeout(r, ms));
const mib = (b) => `${Math.round((b ?? 0) / 2 ** 20)}`;
const secs = (ms) => `${(ms / 1000).toFixed(1)} s`;

/** mulberry32: a small seeded PRNG; returns rand() in [0, 1) with int(a, b) and pick(list) helpers. */
export function prng(seed) {
	let a = seed >>> 0;
	const rand = () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
	rand.int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));
	rand.pick = (list) => list[Math.floor(rand() * list.length)];
	return rand;
}

export const SOAK_EMULATOR = {
	jobTiming: { queuedMs: 500, runningMs: 4000 },
	rateWindowMs: 10_000,
	initialCredits: 10_000_000,
};
const RATE_WINDOW_MS = SOAK_EMULATOR.rateWindowMs;
const KEY_A_LIMIT = 25; // requests per 10 s window, shared by every execution
const CRED = {
	a: { id: 'gsSoakKeyA', name: 'Generation Service soak A (low limit, shared)' },
	b: { id: 'gsSoakKeyB', name: 'Generation Service soak B (uploads, downloads)' },
	c: { id: 'gsSoakKeyC', name: 'Generation Service soak C (trigger)' },
};
const creds = (k) => ({ generationServiceApi: CRED[k] });
const WF = { batch: 'gsSoakBatch', replace: 'gsSoakReplace', deliver: 'gsSoakDeliver' };
const HOOK = { batch: 'gs-soak-batch', replace: 'gs-soak-replace' };

function webhookNode(id, hookPath, responseData) {
	return {
		id: `${id}-0000-4000-8000-000000000001`,
		name: 'Webhook',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2.1,
		webhookId: `${id}-0000-4000-8000-0000000000aa`,
		position: [0, 0],
		parameters: {
			httpMethod: 'POST',
			path: hookPath,
			responseMode: 'lastNode',
			responseData,
			...(responseData === 'firstEntryBinary' && { responseBinaryPropertyName: 'data' }),
			options: {},
		},
	};
}

/** The soak's three workflows (ids WF.*), for n8n 2.x and 1.x alike. */
export function soakWorkflows({ sinkUrl, personaId, pollSecond }) {
	const batch = {
		id: WF.batch,
		name: 'Soak: batch text to video',
		active: false,
		nodes: [
			webhookNode('c1000000', HOOK.batch, 'allEntries'),
			{
				id: 'c1000000-0000-4000-8000-000000000002',
				name: 'Split Out',
				type: 'n8n-nodes-base.splitOut',
				typeVersion: 1,
				position: [220, 0],
				parameters: { fieldToSplitOut: 'body.items', options: {} },
			},
			{
				id: 'c1000000-0000-4000-8000-000000000003',
				name: 'Create and Wait',
				type: nodeType('generationServiceJob'),
				typeVersion: 1,
				position: [440, 0],
				retryOnFail: true,
				maxTries: 2,
				waitBetweenTries: 3000,
				parameters: {
					resource: 'job',
					operation: 'create',
					mode: 'text_to_video',
					prompt: '={{ $json.prompt }}',
					durationSeconds: 5,
					aspectRatio: '16:9',
					options: { waitForCompletion: true, maxCreditsPerRun: 1000 },
				},
				credentials: creds('a'),
			},
		],
		connections: {
			Webhook: { main: [[{ node: 'Split Out', type: 'main', index: 0 }]] },
			'Split Out': { main: [[{ node: 'Create and Wait', type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
		pinData: {},
	};
	const replace = {
		id: WF.replace,
		name: 'Soak: upload, character replacement, download',
		active: false,
		nodes: [
			webhookNode('c2000000', HOOK.replace, 'firstEntryBinary'),
			{
				id: 'c2000000-0000-4000-8000-000000000002',
				name: 'Upload',
				type: nodeType('generationServiceAsset'),
				typeVersion: 1,
				position: [220, 0],
				parameters: {
					resource: 'asset',
					operation: 'upload',
					binaryPropertyName: 'data',
					options: {},
				},
				credentials: creds('b'),
			},
			{
				id: 'c2000000-0000-4000-8000-000000000003',
				name: 'Replace',
				type: nodeType('generationServiceJob'),
				typeVersion: 1,
				position: [440, 0],
				parameters: {
					resource: 'job',
					operation: 'create',
					mode: 'character_replacement',
					sourceVideo: { __rl: true, mode: 'id', value: '={{ $json.id }}' },
					characterSource: 'persona',
					persona: { __rl: true, mode: 'id', value: personaId },
					// each call its own input (a replacement has no prompt; the upload replays by content)
					durationSeconds: "={{ Number($('Webhook').first().json.query.d) }}",
					aspectRatio: "={{ $('Webhook').first().json.query.r }}",
					options: { waitForCompletion: true, downloadOutput: false },
				},
				credentials: creds('a'),
			},
			{
				id: 'c2000000-0000-4000-8000-000000000004',
				name: 'Download Output',
				type: nodeType('generationServiceJob'),
				typeVersion: 1,
				position: [660, 0],
				parameters: {
					resource: 'job',
					operation: 'downloadOutput',
					jobId: { __rl: true, mode: 'id', value: '={{ $json.id }}' },
					options: {},
				},
				credentials: creds('b'),
			},
		],
		connections: {
			Webhook: { main: [[{ node: 'Upload', type: 'main', index: 0 }]] },
			Upload: { main: [[{ node: 'Replace', type: 'main', index: 0 }]] },
			Replace: { main: [[{ node: 'Download Output', type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
		pinData: {},
	};
	const deliver = {
		id: WF.deliver,
		name: 'Soak: Job Finished → Download Output → sink',
		active: false,
		nodes: [
			{
				id: 'c3000000-0000-4000-8000-000000000001',
				name: 'Job Finished',
				type: nodeType('generationServiceTrigger'),
				typeVersion: 1,
				position: [0, 0],
				parameters: {
					pollTimes: { item: [{ mode: 'custom', cronExpression: `${pollSecond} * * * * *` }] },
					event: 'jobFinished',
					jobState: 'succeeded',
					modes: [],
					options: {},
				},
				credentials: creds('c'),
			},
			{
				id: 'c3000000-0000-4000-8000-000000000002',
				name: 'Download Output',
				type: nodeType('generationServiceJob'),
				typeVersion: 1,
				position: [220, 0],
				retryOnFail: true,
				maxTries: 3,
				waitBetweenTries: 3000,
				parameters: {
					resource: 'job',
					operation: 'downloadOutput',
					jobId: { __rl: true, mode: 'id', value: '={{ $json.id }}' },
					options: {},
				},
				credentials: creds('a'),
			},
			{
				id: 'c3000000-0000-4000-8000-000000000003',
				name: 'Deliver',
				type: 'n8n-nodes-base.httpRequest',
				typeVersion: 4.2,
				position: [440, 0],
				retryOnFail: true,
				maxTries: 3,
				waitBetweenTries: 2000,
				parameters: {
					method: 'POST',
					url: `=${sinkUrl}?job={{ $json.id }}`,
					sendBody: true,
					contentType: 'binaryData',
					inputDataFieldName: 'data',
					options: {},
				},
			},
		],
		connections: {
			'Job Finished': { main: [[{ node: 'Download Output', type: 'main', index: 0 }]] },
			'Download Output': { main: [[{ node: 'Deliver', type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
		pinData: {},
	};
	return { batch, replace, deliver };
}

/** The sink the trigger path delivers MP4s to: job id → [{ sha256, bytes, at }]. */
export async function startSink() {
	const deliveries = new Map();
	const server = http.createServer((req, res) => {
		const chunks = [];
		req.on('data', (c) => chunks.push(c));
		req.on('end', () => {
			const job = new URL(req.url, 'http://x').searchParams.get('job');
			const body = Buffer.concat(chunks);
			if (!deliveries.has(job)) deliveries.set(job, []);
			deliveries.get(job).push({ sha256: sha256(body), bytes: body.length, at: Date.now() });
			res.writeHead(200, { 'Content-Type': 'application/json' });
			res.end('{"ok":true}');
		});
	});
	await new Promise((r) => server.listen(0, '127.0.0.1', r));
	return {
		url: `http://127.0.0.1:${server.address().port}/deliver`,
		deliveries,
		close: () => new Promise((r) => server.close(r)),
	};
}

/** Credentials of the soak (keys A, B, C created on the emulator now). */
export function soakCredentials(emu) {
	const keys = {
		a: emu.control.createKey({
			requestsPerMinute: KEY_A_LIMIT,
			creditCeiling: null,
			label: 'soak-a-low',
		}),
		b: emu.control.createKey({ requestsPerMinute: 120, creditCeiling: null, label: 'soak-b' }),
		c: emu.control.createKey({ requestsPerMinute: 120, creditCeiling: null, label: 'soak-c' }),
	};
	const credentials = Object.entries(CRED).map(([k, c]) => ({
		...c,
		type: 'generationServiceApi',
		data: { apiKey: keys[k].secret, baseUrl: emu.baseUrl },
	}));
	return { keys, credentials };
}

async function personaIdOf(emu) {
	const res = await fetch(`${emu.baseUrl}/personas`, {
		headers: { Authorization: `Bearer ${emu.keys.full}` },
	});
	const body = await res.json();
	return body.data.items[0].id;
}

/**
 * Before the stack starts: the sink, the keys A, B, C on the emulator, and the credentials and workflows to
 * import (startQueueStack's `credentials` / `workflows`: n8n wants them before the main starts).
 * Returns { sink, keys, credentials, workflows (list), pollSecond (the trigger's second of each minute) }.
 */
export async function setupSoak(emu) {
	const sink = await startSink();
	const { keys, credentials } = soakCredentials(emu);
	const pollSecond = (new Date().getUTCSeconds() + 30) % 60;
	const workflows = soakWorkflows({
		sinkUrl: sink.url,
		personaId: await personaIdOf(emu),
		pollSecond,
	});
	return { sink, keys, credentials, workflows: Object.values(workflows), pollSecond };
}

/** Publish the soak's workflows on the running stack (webhooks answering, trigger polling). */
export async function publishSoak(stack, log) {
	for (const id of [WF.batch, WF.replace, WF.deliver]) await stack.activate(id);
	log('soak workflows published (the trigger polls once a minute)');
}

/**
 * The IP limit (429 ip_rate_limited with Retry-After until the end of the IP's window): the emulator's own
 * per-IP limiter (its `ipLimit` setting) switched on for one or two windows. Every n8n process of the soak
 * sends from 127.0.0.1, so all of them share that IP's window, as the workers of one host behind one address do.
 */
const IP_LIMIT = 'IP limit (429 ip_rate_limited, Retry-After)';

const SERVICE_FAULTS = [
	'reset_after_commit (job)',
	'reset_after_commit (upload)',
	'error_500_before_commit',
	'error_503',
	'429 storm (Retry-After)',
	'truncate (download)',
	'corrupt (download)',
	'slow answer (beyond the timeout)',
	IP_LIMIT,
];

/** The emulator fault for a kind; keys: the soak's keys (429 storms only on key B: see the header). */
function faultOf(kind, rand, keys) {
	switch (kind) {
		case 'reset_after_commit (job)':
			return { method: 'POST', path: '/v1/jobs', action: 'reset_after_commit' };
		case 'reset_after_commit (upload)':
			return { method: 'POST', path: '/v1/assets', action: 'reset_after_commit' };
		case 'error_500_before_commit':
			return { method: 'POST', path: /^\/v1\/jobs(\/quote)?$/, action: 'error_500_before_commit' };
		case 'error_503':
			return { method: 'POST', path: '/v1/jobs', action: 'error_503', retryAfter: rand.int(1, 3) };
		case '429 storm (Retry-After)':
			return {
				path: /^\/v1\//,
				keyId: keys.b.keyId,
				action: 'rate_limit',
				times: rand.int(2, 5),
				retryAfter: rand.int(1, 4),
			};
		case 'truncate (download)':
			return { method: 'GET', path: /^\/v1\/jobs\/[^/]+\/output$/, action: 'truncate' };
		case 'corrupt (download)':
			return { method: 'GET', path: /^\/v1\/jobs\/[^/]+\/output$/, action: 'corrupt' };
		case 'slow answer (beyond the timeout)':
			// the node gives a request 60 s; this read of a job is answered after 65 s
			return { method: 'GET', path: /^\/v1\/jobs\/job_[^/]+$/, action: 'delay', delayMs: 65_000 };
		default:
			throw new Error(kind);
	}
}

/**
 * The stack's n8n process holding the client end of a loopback TCP connection to the emulator, as its name
 * and pid (`worker2 (pid 571)`: a restarted worker is another process, which remembers nothing of the one
 * before), from /proc: the socket of `clientPort` → `emuPort` in /proc/net/tcp{,6}, then the process with
 * that socket among its file descriptors. Called while the connection is open (the emulator's arrival and
 * journal watchers). undefined when not found.
 */
export function socketOwner(stack, emuPort, clientPort) {
	const hex = (n) => `:${n.toString(16).toUpperCase().padStart(4, '0')}`;
	let inode;
	for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
		let text;
		try {
			text = fs.readFileSync(file, 'utf8');
		} catch {
			continue;
		}
		for (const line of text.split('\n').slice(1)) {
			const cols = line.trim().split(/\s+/);
			if (cols.length > 9 && cols[1].endsWith(hex(clientPort)) && cols[2].endsWith(hex(emuPort))) {
				inode = cols[9];
				break;
			}
		}
		if (inode) break;
	}
	if (!inode || inode === '0') return undefined;
	const target = `socket:[${inode}]`;
	const holds = (pid) => {
		try {
			return fs.readdirSync(`/proc/${pid}/fd`).some((fd) => {
				try {
					return fs.readlinkSync(`/proc/${pid}/fd/${fd}`) === target;
				} catch {
					return false;
				}
			});
		} catch {
			return false;
		}
	};
	const running = stack.processes().filter((p) => p.running && p.pid);
	// the node's requests leave from n8n's own process; its task runner (same group) is looked at last
	for (const p of running) if (holds(p.pid)) return processName(p);
	for (const p of running)
		for (const pid of groupPids(p.pid)) if (pid !== p.pid && holds(pid)) return processName(p);
	return undefined;
}

/** The process faults, in the order of their moments within each 10-minute block of load. */
export const PROCESS_FAULTS = [
	'SIGKILL a worker mid-wait',
	'SIGKILL a worker mid-download',
	'restart the main',
	'restart Redis',
];

/** A seeded shuffle (Fisher–Yates) of a copy of `list`. */
function shuffled(list, rand) {
	const out = [...list];
	for (let i = out.length - 1; i > 0; i--) {
		const j = Math.floor(rand() * (i + 1));
		[out[i], out[j]] = [out[j], out[i]];
	}
	return out;
}

/** What one caller's item asks for: a prompt, or (a replacement has none) its mode, duration and ratio. */
const intentOf = (input) =>
	input.mode === 'character_replacement'
		? `replace ${input.durationSeconds} ${input.aspectRatio}`
		: `prompt ${input.prompt}`;

/**
 * Run the soak on a stack prepared with prepareSoak. Returns a report object; `report.problems` lists every
 * failed check (empty = passed). Prints progress through `log`.
 */
export async function runSoak({
	stack,
	emu,
	prepared,
	minutes,
	seed,
	log,
	video,
	drainMinutes = 5,
	processFaultKinds = PROCESS_FAULTS,
}) {
	// one seeded stream per actor, so the faults' schedule does not depend on how the callers' calls interleave
	const rand = prng(seed); // the process faults' moments
	const faultRand = prng(seed ^ 0x5eed5eed); // the service faults: moments, kinds, parameters
	const callerRand = [1, 2, 3].map((i) => prng(seed + i * 7919)); // each caller's batches and pauses
	const { sink, keys } = prepared;
	const loadMs = minutes * 60_000;
	const t0 = Date.now();
	const elapsed = () => Date.now() - t0;
	const stamp = () => `${(elapsed() / 1000).toFixed(0).padStart(4)} s`;
	emu.control.setSettings({ rateWindowMs: RATE_WINDOW_MS });
	emu.control.setJobTiming(SOAK_EMULATOR.jobTiming);
	emu.control.clearViolations();
	emu.control.clearFaults();
	emu.control.setSettings({ ipLimit: null });
	const emuPort = Number(new URL(emu.baseUrl).port);
	// what the judge needs (tools/lib/soak/judge.mjs), with the process behind each request, looked up while
	// its socket is open: as it arrives (an early arrival, a request into a used-up window, a first-page look
	// and every request of key A: a request the emulator answers after the client gave up, a slow answer
	// beyond the timeout, has no socket any more when its journal entry is written), else as it is answered
	// (a 429 telling its process to wait)
	const facts = { arrivals: [], entries: [] };
	const ownerAtArrival = new Map(); // requestId -> process, until its journal entry
	const unwatchArrivals = emu.control.watchArrivals((a) => {
		if (!ownerNeededAtArrival(a, keys.a.keyId)) return;
		const owner = a.remotePort && socketOwner(stack, emuPort, a.remotePort);
		if (owner) ownerAtArrival.set(a.requestId, owner);
		facts.arrivals.push(arrivalFact(a, owner || UNKNOWN));
	});
	const unwatch = emu.control.watchJournal((e) => {
		const atArrival = ownerAtArrival.get(e.requestId);
		ownerAtArrival.delete(e.requestId);
		if (!ownerNeededInJournal(e)) return;
		const owner =
			atArrival || (e.remotePort && socketOwner(stack, emuPort, e.remotePort)) || UNKNOWN;
		facts.entries.push(journalFact(e, owner));
	});
	let ipLimitTimer;
	const liftIpLimit = () => {
		clearTimeout(ipLimitTimer);
		emu.control.setSettings({ ipLimit: null });
	};
	const jobsBefore = new Set(emu.control.jobs().map((j) => j.id));
	const execsBefore = new Set((await stack.allExecutions()).map((e) => String(e.id)));

	const stats = {
		calls: { batch: 0, replace: 0 },
		attempts: { batch: 0, replace: 0 },
		failedAttempts: {},
		abandoned: [],
		items: 0,
		faults: {},
		processFaults: {},
		skipped: {},
	};
	// Redis restarts (it saves and reloads its data; one that kept nothing lost executions): an execution the
	// main enqueued before one and no worker ever started was lost with the queue (n8n leaves it `new`)
	const redisRestartedAt = [];
	const intents = new Map(); // intent (prompt, or a replacement's duration and ratio) -> { workflow, call }
	let replaceCalls = 0;
	const count = (map, key, n = 1) => (map[key] = (map[key] ?? 0) + n);
	const rss = []; // { at, label, rss: {name: bytes} }
	const sampleRss = (label) => rss.push({ at: elapsed(), label, rss: stack.currentRss() });
	let stopping = false;

	/** A caller: calls, and calls again with the same body when the call failed (up to 8 times). */
	async function call(kind, n, rand) {
		const id = `${kind[0]}${n}`;
		let route;
		let req;
		if (kind === 'batch') {
			const size = rand.int(5, 20);
			const items = Array.from({ length: size }, (_, k) => ({
				prompt: `soak ${seed} ${id} item ${k + 1}: a lighthouse at dusk, take ${k + 1}`,
			}));
			for (const it of items)
				intents.set(intentOf({ prompt: it.prompt }), { workflow: 'batch', call: id });
			stats.items += size;
			route = HOOK.batch;
			req = jsonBody({ items });
		} else {
			// a replacement's input differs from the others' by duration and aspect ratio (90 combinations)
			const k = replaceCalls++;
			const d = 1 + (k % 30);
			const r = ['9:16', '16:9', '1:1'][Math.floor(k / 30) % 3];
			intents.set(intentOf({ mode: 'character_replacement', durationSeconds: d, aspectRatio: r }), {
				workflow: 'replace',
				call: id,
			});
			stats.items += 1;
			route = `${HOOK.replace}?d=${d}&r=${encodeURIComponent(r)}`;
			req = {
				body: video,
				headers: {
					'Content-Type': 'video/mp4',
					'Content-Disposition': 'attachment; filename="sample-video.mp4"',
				},
			};
		}
		stats.calls[kind] += 1;
		for (let attempt = 1; attempt <= 8; attempt++) {
			stats.attempts[kind] += 1;
			let outcome;
			try {
				// a caller gives up after 3 minutes (n8n may never answer a call whose execution was lost
				// with a main or Redis restart) and calls again
				const r = await callWebhook(stack.base, route, { ...req, timeoutMs: 3 * 60_000 });
				if (r.status === 200) return { id, ok: true, attempts: attempt };
				outcome = `HTTP ${r.status}`;
			} catch (error) {
				outcome = error.cause?.code ?? error.name ?? 'error';
			}
			count(stats.failedAttempts, `${kind}: ${outcome}`);
			// a caller waits a little and calls again (longer while the main restarts)
			await pause(rand.int(2000, 6000) * attempt);
		}
		stats.abandoned.push(id);
		return { id, ok: false };
	}

	// callers: two batch callers and one replace caller, each call after the other
	let n = 0;
	const caller = async (kind, gapMs, rand) => {
		while (!stopping) {
			await call(kind, ++n, rand);
			await pause(rand.int(gapMs[0], gapMs[1]));
		}
	};

	// service faults: one every 5–20 s; rounds of every kind once, each round in a seeded order
	const faultLoop = async () => {
		let round = [];
		while (!stopping) {
			await pause(faultRand.int(5000, 20_000));
			if (stopping) break;
			if (!round.length) round = shuffled(SERVICE_FAULTS, faultRand);
			const kind = round.shift();
			if (kind === IP_LIMIT) {
				// a few requests per IP window for one or two windows, then no IP limit again
				const requests = faultRand.int(3, 8);
				const windows = faultRand.int(1, 2);
				clearTimeout(ipLimitTimer);
				emu.control.setSettings({ ipLimit: { requests, windowMs: RATE_WINDOW_MS } });
				ipLimitTimer = setTimeout(liftIpLimit, windows * RATE_WINDOW_MS);
				log(
					`${stamp()}  ${kind}: ${requests} requests per ${secs(RATE_WINDOW_MS)} for ${secs(windows * RATE_WINDOW_MS)}`,
				);
			} else emu.control.injectFault(faultOf(kind, faultRand, keys));
			count(stats.faults, kind);
		}
	};

	// process faults, at seeded moments of each 10-minute block (a short soak gets one of each)
	// the workers running now (a stack may hold workers started later, e.g. the queue-mode suite's test f)
	const workerNames = stack.workers.filter((w) => w.pid !== undefined).map((w) => w.name);
	const runningOf = async (workflowId) =>
		(await stack.executions(workflowId)).filter((e) => RUNNING_STATUSES.includes(e.status));
	/** Workers running no trigger-path execution: a worker killed during one loses that poll's items (n8n). */
	const killableWorkers = async () => {
		const busy = new Set(
			(await runningOf(WF.deliver)).map((e) => stack.workerOfExecution(e.id)).filter(Boolean),
		);
		return workerNames.filter((w) => !busy.has(w));
	};
	/** Jobs a worker created (its log) that are now in state `states`. */
	const jobsOfWorker = (worker, states) => {
		const ids = [
			...stack.logOf(worker).matchAll(/Generation Service job (job_[0-9a-f]+) created/g),
		].map((m) => m[1]);
		const byId = new Map(emu.control.jobs().map((j) => [j.id, j]));
		return ids.filter((id) => states.includes(byId.get(id)?.state));
	};
	const killAndRestart = async (kind, worker) => {
		const killed = await stack.killWorker(worker);
		count(stats.processFaults, kind);
		log(`${stamp()}  ${kind}: ${worker} (pid ${killed.pid}) SIGKILLed; restarting it`);
		await stack.startWorker(worker);
	};
	const processFaults = {
		'SIGKILL a worker mid-wait': async () => {
			// make the next jobs long, then kill a worker that follows a running job
			emu.control.scriptJobs([{ runningMs: 20_000 }, { runningMs: 20_000 }]);
			return waitUntil(
				'a worker waiting for a job',
				async () => {
					for (const w of await killableWorkers()) {
						if (jobsOfWorker(w, ['running']).length) {
							await killAndRestart('SIGKILL a worker mid-wait', w);
							return true;
						}
					}
					return false;
				},
				{ timeoutMs: 90_000, everyMs: 500 },
			);
		},
		'SIGKILL a worker mid-download': async () => {
			// hold the next download answer of key B (the replace workflow's Download Output) for 20 s; once
			// held (the fault is used up when the request arrives), kill the worker running that execution
			const armed = () =>
				emu.control.faults().some((f) => f.action === 'delay' && f.keyId === keys.b.keyId);
			for (let tries = 1; tries <= 3; tries++) {
				emu.control.injectFault({
					method: 'GET',
					path: /^\/v1\/jobs\/[^/]+\/output$/,
					keyId: keys.b.keyId,
					action: 'delay',
					delayMs: 20_000,
				});
				await waitUntil('a download held', () => !armed(), { timeoutMs: 180_000, everyMs: 300 });
				const heldAt = Date.now();
				while (Date.now() - heldAt < 12_000) {
					const killable = await killableWorkers();
					for (const e of await runningOf(WF.replace)) {
						const w = stack.workerOfExecution(e.id);
						if (w && killable.includes(w)) {
							await killAndRestart('SIGKILL a worker mid-download', w);
							return true;
						}
					}
					await pause(300);
				}
			}
			throw new Error('no killable worker while a download was held');
		},
		'restart the main': async () => {
			if (!stack.workers.length) {
				// regular mode: the trigger path's executions run in the main itself, and n8n keeps a poll's
				// cursor when the execution it started is lost (a main stopped at a poll lost that poll's 40
				// items): as with a worker in queue mode, restart it while no such execution runs nor starts
				const nearPoll = () => {
					const s = new Date().getUTCSeconds();
					const d = (s - prepared.pollSecond + 60) % 60;
					return d <= 3 || d >= 50;
				};
				await waitUntil(
					'no trigger-path execution running nor due',
					async () => !nearPoll() && (await runningOf(WF.deliver)).length === 0,
					{ timeoutMs: 180_000, everyMs: 500 },
				);
			}
			const r = await stack.restartMain();
			count(stats.processFaults, 'restart the main');
			log(
				`${stamp()}  restart the main: stopped in ${secs(r.stopped.ms)}, ready in ${secs(r.started.ms)}`,
			);
		},
		'restart Redis': async () => {
			const r = await stack.restartRedis();
			redisRestartedAt.push(Date.now());
			count(stats.processFaults, 'restart Redis');
			log(`${stamp()}  restart Redis: back in ${secs(r.ms)}`);
		},
	};
	const blocks = Math.max(1, Math.round(minutes / 10));
	const plan = [];
	for (let b = 0; b < blocks; b++) {
		const start = (b * loadMs) / blocks;
		const len = loadMs / blocks;
		PROCESS_FAULTS.forEach((kind, i) => {
			const at = start + len * (0.1 + 0.2 * i + 0.15 * rand());
			if (processFaultKinds.includes(kind)) plan.push({ at, kind });
		});
	}
	// every planned process fault runs (the load goes on until the last one is done)
	const processLoop = async () => {
		for (const step of plan) {
			if (elapsed() < step.at) await pause(step.at - elapsed());
			try {
				await processFaults[step.kind]();
			} catch (error) {
				count(stats.skipped, step.kind);
				log(`${stamp()}  ${step.kind}: not done (${error.message.split('\n')[0]})`);
			}
		}
	};

	const progress = () => {
		const jobs = emu.control.jobs().filter((j) => !jobsBefore.has(j.id));
		const states = {};
		for (const j of jobs) count(states, j.state);
		log(
			`${stamp()}  calls ${stats.calls.batch}+${stats.calls.replace} (attempts ${stats.attempts.batch + stats.attempts.replace}), items ${stats.items}, jobs ${JSON.stringify(states)}, delivered ${sink.deliveries.size}, faults ${Object.values(stats.faults).reduce((a, b) => a + b, 0)}+${Object.values(stats.processFaults).reduce((a, b) => a + b, 0)}, RSS MiB ${Object.entries(
				stack.currentRss(),
			)
				.map(([k, v]) => `${k} ${mib(v)}`)
				.join(' ')}`,
		);
	};

	log(
		`soak: seed ${seed}, ${minutes} min of load, then up to ${drainMinutes} min to drain; process faults at ${plan.map((p) => `${p.kind} ${secs(p.at)}`).join(', ')}`,
	);
	const ticker = setInterval(() => {
		progress();
		sampleRss(rss.length === 0 ? 'start' : 'during');
	}, 15_000);
	const warmupAt = Math.min(60_000, loadMs / 4);
	const warmup = setTimeout(() => sampleRss('after warm-up'), warmupAt);
	const callers = [
		caller('batch', [1000, 5000], callerRand[0]),
		caller('batch', [1000, 5000], callerRand[1]),
		caller('replace', [5000, 20_000], callerRand[2]),
	];
	const processDone = processLoop();
	const faultsDone = faultLoop();
	await pause(loadMs);
	await processDone;
	stopping = true;
	log(`${stamp()}  load ends; waiting for the callers' last calls`);
	await Promise.all(callers);
	await faultsDone;
	emu.control.clearFaults();
	liftIpLimit();
	clearTimeout(warmup);

	// drain: every soak job finished, no soak execution running, every succeeded job delivered
	const soakJobs = () =>
		emu.control.jobs().filter((j) => !jobsBefore.has(j.id) && intents.has(intentOf(j.input)));
	const drainStart = Date.now();
	let drained;
	try {
		drained = await waitUntil(
			'drained',
			async () => {
				const jobs = soakJobs();
				if (jobs.some((j) => ['queued', 'running'].includes(j.state))) return false;
				const byWorker = stack.executionsByWorker();
				const running = (await stack.allExecutions()).filter(
					(e) => !execsBefore.has(String(e.id)) && stillRunning(e, byWorker, redisRestartedAt),
				);
				if (running.length) return false;
				return jobs.filter((j) => j.state === 'succeeded').every((j) => sink.deliveries.has(j.id));
			},
			{ timeoutMs: drainMinutes * 60_000, everyMs: 5000 },
		);
	} catch {
		drained = false;
	}
	// one more trigger poll must deliver nothing new
	const settleMs = Date.now() - drainStart;
	clearInterval(ticker);
	progress();
	sampleRss('end');

	// the checks
	const problems = [];
	const jobs = soakJobs();
	const byIntent = new Map();
	for (const j of jobs) {
		if (!byIntent.has(intentOf(j.input))) byIntent.set(intentOf(j.input), []);
		byIntent.get(intentOf(j.input)).push(j);
	}
	const ledger = emu.control.ledger();
	const settles = new Map();
	const reserves = new Map();
	for (const e of ledger.entries) {
		const m = e.kind === 'settle' ? settles : e.kind === 'reserve' ? reserves : undefined;
		if (m) m.set(e.jobId, (m.get(e.jobId) ?? 0) + 1);
	}
	const duplicates = [];
	const chargedTwice = [];
	for (const [prompt, list] of byIntent) {
		const live = list.filter((j) => j.state !== 'failed');
		if (live.length > 1) duplicates.push({ prompt, jobs: live.map((j) => j.id) });
		const charged = list.filter((j) => settles.get(j.id));
		if (charged.length > 1) chargedTwice.push({ prompt, jobs: charged.map((j) => j.id) });
	}
	const doubleReserve = jobs.filter((j) => (reserves.get(j.id) ?? 0) !== 1).map((j) => j.id);
	const succeeded = jobs.filter((j) => j.state === 'succeeded');
	const lost = succeeded.filter((j) => !sink.deliveries.has(j.id)).map((j) => j.id);
	const twice = succeeded
		.filter((j) => (sink.deliveries.get(j.id)?.length ?? 0) > 1)
		.map((j) => j.id);
	const badSha = succeeded
		.filter((j) => (sink.deliveries.get(j.id) ?? []).some((d) => d.sha256 !== j.output.sha256))
		.map((j) => j.id);
	const strangers = [...sink.deliveries.keys()].filter((id) => !succeeded.some((j) => j.id === id));
	unwatch();
	unwatchArrivals();
	// Processes sharing a limit (key A, used by every execution; the IP all of them send from) learn of each
	// other only from the service's answers (a documented limit): the judge tells their collisions from a
	// process ignoring what it was itself told (its rules: tools/lib/soak/judge.mjs). Violations fail the
	// soak; collisions are reported (see the header).
	const settings = emu.control.settings();
	const { violations, collisions } = judgeViolations(emu.control.violations(), facts, {
		sharedKeyId: keys.a.keyId,
		rateWindowMs: RATE_WINDOW_MS,
		graceMs: settings.inFlightGraceMs,
		minPollIntervalMs: settings.minPollIntervalMs,
	});
	const collisionKinds = countCollisionKinds(collisions, (id) => (id === keys.a.keyId ? 'A' : id));
	const executions = (await stack.allExecutions()).filter((e) => !execsBefore.has(String(e.id)));
	const byWorker = stack.executionsByWorker();
	const { lostWithQueue: lostInQueue, leftRunning } = judgeExecutions(executions, {
		byWorker,
		redisRestartedAt,
	});
	const execStatus = {};
	for (const e of executions) count(execStatus, `${e.workflowId}: ${e.status}`);
	const perWorker = {};
	for (const e of executions) count(perWorker, byWorker[e.id] ?? 'no worker logged');

	if (!drained) problems.push(`not drained after ${drainMinutes} min`);
	if (duplicates.length) problems.push(`duplicate jobs: ${JSON.stringify(duplicates)}`);
	if (chargedTwice.length) problems.push(`intents charged twice: ${JSON.stringify(chargedTwice)}`);
	if (doubleReserve.length) problems.push(`jobs reserved ≠ once: ${doubleReserve.join(', ')}`);
	if (lost.length) problems.push(`outputs lost (never delivered): ${lost.join(', ')}`);
	if (twice.length) problems.push(`outputs delivered twice: ${twice.join(', ')}`);
	if (badSha.length) problems.push(`outputs with a wrong sha256: ${badSha.join(', ')}`);
	if (strangers.length) problems.push(`deliveries of unknown jobs: ${strangers.join(', ')}`);
	if (!ledger.invariantHolds) problems.push('the ledger invariant does not hold');
	if (violations.length) problems.push(violationsProblem(violations, t0));
	if (leftRunning.length)
		problems.push(
			`executions left running: ${leftRunning.map((e) => `${e.id} (${e.workflowId}, ${e.status})`).join(', ')}`,
		);

	const jobStates = {};
	for (const j of jobs) count(jobStates, j.state);
	const report = {
		seed,
		minutes,
		wallMs: elapsed(),
		drainMs: settleMs,
		calls: stats.calls,
		attempts: stats.attempts,
		failedAttempts: stats.failedAttempts,
		abandoned: stats.abandoned,
		intents: intents.size,
		items: stats.items,
		jobs: jobs.length,
		jobStates,
		adoptedOrReplayed: intents.size - byIntent.size,
		delivered: sink.deliveries.size,
		requests: emu.control.journal().length,
		faults: stats.faults,
		processFaults: stats.processFaults,
		skippedProcessFaults: stats.skipped,
		executions: executions.length,
		executionStatus: execStatus,
		executionsPerWorker: perWorker,
		duplicates: duplicates.length,
		chargedTwice: chargedTwice.length,
		lost: lost.length,
		deliveredTwice: twice.length,
		violations: violations.length,
		sharedKeyCollisions: collisionKinds,
		// each collision: kind, key, then for an early arrival process (the early one), toldProcess, afterMs
		// (since the other was told), earlyMs (before its wait ended); for a list look process, ownCredit (the
		// first-page looks it had left by itself, judged alone) and sharedWith (the other processes that looked
		// at that key's list while its budget refilled); for a used-up window process and sharedWith (the other
		// processes whose requests counted in that window)
		collisions: reportedCollisions(collisions, (keyId) =>
			keyId === keys.a.keyId
				? 'A'
				: keyId === keys.b.keyId
					? 'B'
					: keyId === keys.c.keyId
						? 'C'
						: keyId,
		),
		ipLimited: ipLimitedByRole(facts.entries), // process name -> 429 ip_rate_limited answers it got
		leftRunning: leftRunning.length,
		// executions the main enqueued before a Redis restart that no worker started (n8n leaves them `new`)
		lostWithQueue: lostInQueue.map((e) => `${e.id} (${e.workflowId})`),
		ledgerInvariant: ledger.invariantHolds,
		rss: rss.map((r) => ({
			at: Math.round(r.at / 1000),
			label: r.label,
			mib: Object.fromEntries(Object.entries(r.rss).map(([k, v]) => [k, Number(mib(v))])),
		})),
		problems,
	};
	report.collisionNote = collisions.length ? describeCollisions(report) : '';
	return report;
}

/** Human summary of a report (also what docs/reliability.md quotes). */
export function formatReport(r) {
	const warm = r.rss.find((x) => x.label === 'after warm-up') ?? r.rss[0];
	const end = r.rss[r.rss.length - 1];
	const lines = [
		`seed ${r.seed}, ${r.minutes} min of load, wall ${secs(r.wallMs)} (drain ${secs(r.drainMs)})`,
		`calls: batch ${r.calls.batch}, replace ${r.calls.replace}; attempts ${r.attempts.batch}+${r.attempts.replace}; failed attempts ${JSON.stringify(r.failedAttempts)}; abandoned ${r.abandoned.length}`,
		`intents ${r.intents} (items), jobs ${r.jobs} ${JSON.stringify(r.jobStates)}, delivered ${r.delivered}, API requests ${r.requests}`,
		`service faults ${JSON.stringify(r.faults)}`,
		`process faults ${JSON.stringify(r.processFaults)}${Object.keys(r.skippedProcessFaults).length ? `, not done ${JSON.stringify(r.skippedProcessFaults)}` : ''}`,
		`executions ${r.executions} ${JSON.stringify(r.executionStatus)}; per worker ${JSON.stringify(r.executionsPerWorker)}`,
		`429 ip_rate_limited answers per process ${JSON.stringify(r.ipLimited)}`,
		`duplicate jobs ${r.duplicates}, intents charged twice ${r.chargedTwice}, lost outputs ${r.lost}, delivered twice ${r.deliveredTwice}, referee violations ${r.violations} (+ collisions of processes sharing a limit ${JSON.stringify(r.sharedKeyCollisions)}), left running ${r.leftRunning} (+ lost with Redis's queue, never started: ${r.lostWithQueue.length ? r.lostWithQueue.join(', ') : 'none'}), ledger invariant ${r.ledgerInvariant}`,
		`RSS MiB after warm-up (${warm?.at} s): ${JSON.stringify(warm?.mib)}; at the end (${end?.at} s): ${JSON.stringify(end?.mib)}`,
		`RSS MiB over time: ${r.rss.map((x) => `${x.at}s ${Object.values(x.mib).join('/')}`).join(', ')} (${Object.keys(end?.mib ?? {}).join('/')})`,
		r.collisionNote
			? `COLLISIONS: ${r.collisionNote}`
			: 'no collisions of processes sharing a limit',
		r.problems.length ? `PROBLEMS:\n  ${r.problems.join('\n  ')}` : 'all other checks passed',
	];
	return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------------------
// The soak's section of docs/reliability.md (kept by scripts/reliability-report.mjs when it rewrites the file)

export const DOC_START = '<!-- soak:start -->';
export const DOC_END = '<!-- soak:end -->';

function docSection(r, meta) {
	const rows = (obj) =>
		Object.entries(obj)
			.map(([k, v]) => `| ${k} | ${v} |`)
			.join('\n');
	const names = Object.keys(r.rss[r.rss.length - 1]?.mib ?? {});
	const warm = r.rss.find((x) => x.label === 'after warm-up') ?? r.rss[0];
	const end = r.rss[r.rss.length - 1];
	return `${DOC_START}
## Chaos soak (queue mode)

\`npm run soak -- --minutes ${r.minutes} --seed ${r.seed}${meta.processFaults && meta.processFaults !== 'all' ? ` --process-faults ${meta.processFaults}` : ''}\` (${meta.date}, ${meta.cpus} cores, shared with other work):
n8n 2.41.1 in queue mode (a main and 2 workers × concurrency 3), PostgreSQL ${meta.postgres}, Redis ${meta.redis},
database binary mode, against the emulator with a 10 s rate window (key A: ${KEY_A_LIMIT} requests per window,
used by every execution) and 4.5–20 s jobs. ${(r.wallMs / 60_000).toFixed(1)} wall minutes in all (load, then
${(r.drainMs / 1000).toFixed(0)} s to drain). How it works: \`scripts/soak.mjs\`. The service faults include
the IP limit (the emulator's per-IP limiter on for one or two windows; every n8n process sends from 127.0.0.1).
A request sent before the end of a Retry-After (key or IP) that another process was told, or into key A's
used-up window that another process used too, is counted as a collision of processes sharing a limit, apart
from the violations: the soak finds the process behind each request of key A and each early one (its TCP port,
as it arrives) and counts as a violation any request of a process that was itself told to wait, or that used
up a window alone. Likewise a first page of key A's job list judged too
soon (\`list_poll_too_soon\`, one budget of looks per key) is a collision only when its process's own looks,
judged alone with the referee's rule, were within that budget. \`npm test\` runs a short one on the
queue-mode suite's stack (test/e2e/queue-mode.test.mjs, test e: 2 minutes of load, seed 20261125, every
service fault kind, the two worker SIGKILLs). Both fail on violations and report collisions: a process
that shares nothing with the others cannot know what they were told, and learns it from its own 429.

| Figure | Value |
|---|---|
| Webhook calls (batch / replace) | ${r.calls.batch} / ${r.calls.replace} (${r.attempts.batch + r.attempts.replace} attempts; callers called again after ${Object.values(r.failedAttempts).reduce((a, b) => a + b, 0)} failed ones, abandoned ${r.abandoned.length}) |
| Intents (items) | ${r.intents} |
| Jobs | ${r.jobs} ${JSON.stringify(r.jobStates)} |
| API requests | ${r.requests} |
| Executions | ${r.executions} ${JSON.stringify(r.executionStatus)} |
| Executions per worker | ${JSON.stringify(r.executionsPerWorker)} |
| Duplicate jobs / intents charged twice | ${r.duplicates} / ${r.chargedTwice} |
| Outputs delivered through the trigger path (sha256 checked) | ${r.delivered}; lost ${r.lost}, twice ${r.deliveredTwice} |
| Ledger invariant | ${r.ledgerInvariant ? 'holds' : 'BROKEN'} |
| 429 ip_rate_limited answers, per process | ${JSON.stringify(r.ipLimited ?? {})} |
| Referee violations | ${r.violations}; collisions of processes sharing key A or the IP, each not told itself or within its own list-look budget (documented limit, see Known limits): ${JSON.stringify(r.sharedKeyCollisions)} |
| Executions left running | ${r.leftRunning} (and lost with Redis's queue — enqueued by the main before a Redis restart, never started by a worker, left \`new\` by n8n; their callers called again: ${r.lostWithQueue.length ? r.lostWithQueue.join(', ') : 'none'}) |

Faults injected, by kind:

| Fault | Count |
|---|---|
${rows(r.faults)}
${rows(r.processFaults)}

RSS per process (MiB; n8n and its task runner; a restarted process starts again from its base):

| At | ${names.join(' | ')} |
|---|${names.map(() => '---|').join('')}
${r.rss.map((x) => `| ${x.at} s${x.label === 'during' ? '' : ` (${x.label})`} | ${names.map((n) => x.mib[n] ?? '').join(' | ')} |`).join('\n')}

After warm-up vs after the soak: ${names.map((n) => `${n} ${warm?.mib[n]} → ${end?.mib[n]}`).join(', ')} MiB.
${r.collisionNote ? `\n**Collisions:** ${r.collisionNote}\n` : ''}${r.problems.length ? `\n**Problems:**\n\n${r.problems.map((p) => `- ${p}`).join('\n')}\n` : ''}${DOC_END}`;
}

/** Replace (or append) the soak's section of docs/reliability.md. */
export function writeDocSection(report, meta) {
	const file = path.join(REPO, 'docs', 'reliability.md');
	const text = fs.readFileSync(file, 'utf8');
	const section = docSection(report, meta);
	const i = text.indexOf(DOC_START);
	const j = text.indexOf(DOC_END);
	const next =
		i >= 0 && j > i
			? `${text.slice(0, i)}${section}${text.slice(j + DOC_END.length)}`
			: `${text.trimEnd()}\n\n${section}\n`;
	fs.writeFileSync(file, next);
}
