// One run of part 7 (a thousand videos): a fresh queue-mode stack (PostgreSQL, Redis, a main and workers) with
// only the run's workflow, a fresh key, a fresh S3 bucket; the trigger (one webhook call with N rows, or N
// calls of one row each); until every MP4 is in the bucket and no execution of the run is left; then what
// it cost: requests by route and process, 429s, the referee's records, jobs per prompt, objects and their
// sha256, memory per n8n process, database growth, worker slots, parked executions and their resumes.
import { startQueueStack } from '../../tools/lib/queue-stack.mjs';
import { databaseSizes, pgClient } from '../../tools/lib/postgres.mjs';
import { callWebhook, jsonBody } from '../../tools/lib/rest.mjs';
import { BUCKET, FOLDER, s3Credential, startS3 } from '../../tools/lib/s3.mjs';
import { pause, waitUntil } from '../../tools/lib/wait.mjs';
import { baseCredential, ourCredential } from '../context.mjs';
import { byRoute, routeText } from '../journal.mjs';

/** A request's route as byRoute counts it (cap, quote, create, list, get, download, other); `list+`: a further page. */
const routeOf = (e) => {
	const route = Object.entries(byRoute([e])).find(([, c]) => c)?.[0];
	return route === 'list' && /(^|&)cursor=/.test(e.query ?? '') ? 'list+' : route;
};
import { fmtS } from '../measure.mjs';
import { CURRENT, followWorkerLogs, sampleEvery, watchProcesses } from './queue-collect.mjs';
import { byProcess, judged } from './queue-measure.mjs';
import { busyByWorker, integrateSamples, slotsOf } from './queue-figures.mjs';
import {
	createdOnce,
	floorOfRun,
	memoryOf,
	msToWindowStart,
	refereeSplit,
	requestsByPhase,
	resumesOf,
	verifyBucket,
	keyWindows,
} from './thousand-figures.mjs';
import { MANUAL_TRIGGER, RUNS, promptOf, thousandWorkflow } from './thousand-workflows.mjs';

/** How long a fresh stack idles before a run starts (its RSS at that moment is the run's start). */
const SETTLE_MS = 20_000;
/** Webhook calls in flight at once for the executions shapes (all N are sent within seconds). */
const CALLS_AT_ONCE = 25;

/**
 * The run's current executions (`new`: waiting for a slot, `running`, `waiting`: parked), counted every
 * `everyMs` in n8n's database (execution_entity), not through the main's REST API: a REST call every second
 * grew the main's RSS by about 150 MiB a minute (measured while it idled), which is what this part measures.
 */
async function countExecutions(stack, workflowId, everyMs) {
	const client = await pgClient(stack.postgres);
	return sampleEvery(
		everyMs,
		async () => {
			const { rows } = await client.query(
				`SELECT status, count(*)::int AS n FROM execution_entity
				 WHERE "workflowId" = $1 AND status = ANY($2) GROUP BY status`,
				[workflowId, CURRENT],
			);
			const counts = Object.fromEntries(CURRENT.map((st) => [st, 0]));
			for (const r of rows) counts[r.status] = r.n;
			return counts;
		},
		() => client.end(),
	);
}

/** RSS per n8n process (its group), sampled every `everyMs`: [{ at, rss: { process: bytes } }]. */
function sampleRss(stack, everyMs) {
	const samples = [];
	const take = () => samples.push({ at: Date.now(), rss: stack.currentRss() });
	take();
	const timer = setInterval(take, everyMs);
	return {
		samples,
		stop() {
			clearInterval(timer);
			take();
		},
	};
}

/** Starts the run: a manual run of N items (items shapes) or N webhook calls of one row (executions shapes). */
async function trigger(stack, run, { n, tag }) {
	if (run.shape === 'items') {
		await stack.startFromTrigger(run.workflow, MANUAL_TRIGGER);
		return { calls: 1, answered: 1 };
	}
	let next = 1;
	let answered = 0;
	const worker = async () => {
		while (next <= n) {
			const row = next++;
			const answer = await callWebhook(
				stack.base,
				run.hook,
				jsonBody({ row, prompt: promptOf(tag, row) }),
			).catch(() => ({ status: 0 }));
			if (answer.status === 200) answered++;
		}
	};
	await Promise.all(Array.from({ length: Math.min(CALLS_AT_ONCE, n) }, worker));
	return { calls: n, answered };
}

/**
 * The run's executions ({ id, status }), from n8n's database: its REST list, paged by a cursor, showed 10
 * executions of an 8-worker run twice and 2 not at all (998 read for 1,000 calls, after every execution had
 * ended), and the run before it 308 for 300.
 */
async function executionsOf(stack, workflowId) {
	const client = await pgClient(stack.postgres);
	try {
		const { rows } = await client.query(
			`SELECT id, status FROM execution_entity WHERE "workflowId" = $1 ORDER BY id`,
			[workflowId],
		);
		return rows.map((r) => ({ id: String(r.id), status: r.status }));
	} finally {
		await client.end();
	}
}

/** Each execution of the run with its run data (REST), `concurrency` reads at a time. */
async function executionData(stack, ids, concurrency = 4) {
	const out = [];
	let next = 0;
	const worker = async () => {
		while (next < ids.length) {
			const id = ids[next++];
			try {
				out.push(await stack.execution(id));
			} catch {
				/* a read the main refused: counted as unread */
			}
		}
	};
	await Promise.all(Array.from({ length: concurrency }, worker));
	return out;
}

/** The run's credentials: ours (or n8n's Header Auth for a baseline) and the publish example's S3. */
function credentialsOf(run, key, emu, s3) {
	const service =
		run.side === 'ours'
			? ourCredential(run.cred, key.secret, emu.baseUrl)
			: baseCredential(run.cred, key.secret);
	return [service, s3Credential(s3)];
}

/**
 * Runs `name` (thousand-workflows.mjs RUNS) on a fresh stack and returns its record. `settings`: { n, jobS,
 * limit, windowMs, pollMs, workers, concurrency, sampleMs, log }; every run of the part, items-large too
 * (thousand.mjs runPlan), is measured here.
 */
export async function measureRun(ctx, name, settings) {
	const { emu } = ctx;
	const { n, jobS, limit, windowMs, pollMs, workers, concurrency, sampleMs, log } = settings;
	const run = RUNS[name];
	// its own key in its own account for each run, a run per worker count too
	const account = `acct_bench_thousand_${name}_w${workers}`;
	const key = ctx.key(`thousand_${name}_w${workers}`, {
		requestsPerMinute: limit,
		accountId: account,
	});
	emu.control.grantCredits(n * 8 + 100, account);
	emu.control.setJobTiming({ queuedMs: 1000, runningMs: jobS * 1000 - 1000 });
	const s3 = await startS3();
	const tag = `bench thousand ${name} w${workers} ${Date.now().toString(36)}`;
	const tStack = Date.now();
	let stack;
	try {
		stack = await startQueueStack({
			tarball: ctx.tarball,
			workers,
			concurrency,
			credentials: credentialsOf(run, key, emu, s3),
			workflows: [thousandWorkflow(name, { jobS, baseUrl: emu.baseUrl, n, tag })],
			env: {
				N8N_WORKFLOW_PUBLICATION_OUTBOX_POLL_INTERVAL_MS: '1000',
				// the items shapes' manual run on a worker, as n8n 3.0 always runs manual executions
				OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS: 'true',
			},
			log: (m) => log(`    ${m}`),
		});
		const stackMs = Date.now() - tStack;
		if (run.hook) await stack.activate(run.workflow); // webhooks; a manual run needs no publishing
		await pause(SETTLE_MS); // n8n's processes settle after their start (a worker's RSS falls by ~200 MiB)
		await pause(msToWindowStart(Date.now(), windowMs)); // the trigger at a window's start (see there)
		const dbAtStart = await databaseSizes(stack.postgres);
		stack.resetRss();
		const rssAtStart = stack.currentRss();
		const procs = watchProcesses(emu, stack, key.keyId);
		const logs = followWorkerLogs(stack);
		const sampler = await countExecutions(stack, run.workflow, sampleMs);
		const rss = sampleRss(stack, 5000);
		const t0 = Date.now();
		let timedOut = false;
		let calls;
		try {
			calls = await trigger(stack, run, { n, tag });
			log(`  ${name}: ${calls.answered}/${calls.calls} calls answered in ${fmtS(Date.now() - t0)}`);
			const floorGuess = floorOfRun({ t0, n, jobMs: jobS * 1000, limit, windowMs, pollMs });
			// a bound to fail instead of hang: the executions shape at 500 prompts took 1.6 × its floor
			const timeoutMs = 6 * floorGuess.floorMs + 15 * 60_000;
			const inBucket = () =>
				[...s3.created.keys()].filter((k) => k.startsWith(`${BUCKET}/`)).length;
			let lastCount = -1;
			await waitUntil(
				`run ${name}: every MP4 in the bucket, no execution left`,
				() => {
					const objects = inBucket();
					if (objects !== lastCount && objects % Math.max(1, Math.round(n / 10)) === 0)
						log(`  ${name}: ${objects}/${n} MP4s in the bucket after ${fmtS(Date.now() - t0)}`);
					lastCount = objects;
					// no execution of the run new, running or parked in the last three samples
					const last = sampler.samples.slice(-3);
					const settled =
						last.length === 3 && last.every((x) => x.total === 0) && last[0].at > t0 + 5000;
					return settled && (objects >= n || Date.now() - t0 > 60_000);
				},
				{ timeoutMs, everyMs: 1000 },
			);
		} catch (error) {
			timedOut = true;
			log(`  ${name}: ${error.message}`);
		} finally {
			await sampler.stop();
			rss.stop();
			logs.stop();
			procs.stop();
		}
		const endAt = Date.now();
		const peakRss = stack.peakRss({ window: true });
		const dbAtEnd = await databaseSizes(stack.postgres);
		const executions = await executionsOf(stack, run.workflow);
		const details = await executionData(
			stack,
			executions.map((x) => x.id),
		);
		if (run.hook) await stack.deactivate(run.workflow);
		// the record: everything below is computed from what was collected
		const onKey = new Set(
			emu.control
				.snapshot()
				.jobs.filter((j) => j.keyId === key.keyId)
				.map((j) => j.id),
		);
		const jobs = emu.control
			.jobs()
			.filter((j) => onKey.has(j.id))
			.map((j) => ({
				id: j.id,
				prompt: j.input.prompt,
				state: j.state,
				createdAt: j.createdAt,
				updatedAt: j.updatedAt,
				outputSha256: j.output?.sha256,
			}));
		const objects = new Map();
		for (const j of jobs) objects.set(j.id, await s3.object(BUCKET, `${FOLDER}/${j.id}.mp4`));
		const journal = ctx.journalOf(key.keyId).filter((e) => e.at >= t0 - 1000);
		const slots = slotsOf(logs.events, endAt);
		const floor = floorOfRun({
			t0: journal[0]?.at ?? t0,
			n,
			jobMs: jobS * 1000,
			limit,
			windowMs,
			pollMs,
		});
		const bucket = verifyBucket({
			jobs,
			objects,
			keys: await s3.keys(BUCKET),
			created: s3.created,
			prefix: `${FOLDER}/`,
		});
		const status = {};
		for (const x of executions) status[x.status] = (status[x.status] ?? 0) + 1;
		const record = {
			name,
			...run,
			n,
			jobS,
			limit,
			windowMs,
			workers,
			concurrency,
			postgres: stack.postgres.version,
			t0,
			endAt,
			stackMs,
			timedOut,
			calls,
			firstRequestAt: journal[0]?.at,
			journalCount: journal.length,
			route: byRoute(journal),
			r429: journal.filter((e) => e.status === 429).length,
			windows: undefined, // below, from the trace
			floor,
			bucket,
			lastMp4Ms: bucket.lastAt - floor.t0,
			timeline: {
				lastCreate: Math.max(...jobs.map((j) => j.createdAt)) - floor.t0,
				lastEnd: Math.max(...jobs.map((j) => j.updatedAt)) - floor.t0,
				lastDownload:
					Math.max(...journal.filter((e) => /\/output$/.test(e.path)).map((e) => e.at)) - floor.t0,
			},
			phases: undefined, // below, from the trace
			// every request of the key: [ms from the first, route, status, process] (for --thousand-dump)
			trace: journal.map((e) => [e.at - floor.t0, routeOf(e), e.status, procs.ownerOf(e)]),
			ratio: (bucket.lastAt - floor.t0) / floor.floorMs,
			created: createdOnce({
				prompts: Array.from({ length: n }, (_, k) => promptOf(tag, k + 1)),
				jobs,
			}),
			referee: refereeSplit(judged(emu, ctx.violationsOf(key.keyId), procs.facts, key.keyId)),
			perProcess: byProcess(journal, procs.ownerOf),
			memory: memoryOf(rssAtStart, peakRss, rss.samples),
			database: { start: dbAtStart, end: dbAtEnd },
			slots: {
				queueJobs: slots.length,
				seconds: slots.reduce((a, s) => a + s.to - s.from, 0) / 1000,
				open: slots.filter((s) => s.open).length,
				busy: busyByWorker(slots),
				byWorker: countBy(slots.map((s) => s.worker)),
				parked: parkedExecutions(slots),
			},
			sampled: integrateSamples(sampler.samples, endAt),
			executions: { count: executions.length, status, read: details.length },
			resumes: resumesOf(details, { jobs, side: run.side, waitS: jobS + 5 }),
		};
		record.phases = requestsByPhase(record.trace, record.timeline.lastCreate);
		record.windows = keyWindows(record);
		log(
			`  ${name} (${workers} workers): last MP4 ${fmtS(record.lastMp4Ms)} floor ${fmtS(floor.floorMs)} (×${record.ratio.toFixed(2)}); ${routeText(record.route)}; 429 ${record.r429}; referee ${record.referee.total} (alone ${record.referee.alone.length}); objects ${bucket.verified}/${n}; executions ${JSON.stringify(status)}`,
		);
		return record;
	} finally {
		await stack?.stop();
		await s3.close();
	}
}

const countBy = (list) => {
	const out = {};
	for (const x of list) out[x] = (out[x] ?? 0) + 1;
	return out;
};

/** Executions that ran as two queue jobs or more: parked by their Wait node, then resumed. */
function parkedExecutions(slots) {
	const perExecution = countBy(slots.map((s) => s.executionId));
	return Object.values(perExecution).filter((c) => c >= 2).length;
}
