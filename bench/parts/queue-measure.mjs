// One pattern of part 6 (queue mode) on the running stack: its workflows published, N webhook calls at once,
// until every job's MP4 reached the sink and none of the pattern's executions is left; then its figures:
// last MP4 against the floor, worker slot-seconds, requests by route and by process, 429s, the referee's
// violations, the MP4s verified, and for the parked pattern the estimates Create gave and the resumes.
import fs from 'node:fs';
import path from 'node:path';

import { callWebhook, jsonBody } from '../../tools/lib/rest.mjs';
import { pause, waitUntil } from '../../tools/lib/wait.mjs';
import { POLL_S } from '../context.mjs';
import { simulateFloor } from '../floor.mjs';
import { byRoute, kindCounts, routeText } from '../journal.mjs';
import { fmtS, median } from '../measure.mjs';
import { ratio2 } from '../report.mjs';
import {
	followWorkerLogs,
	sampleExecutions,
	untilNoCurrentExecutions,
	watchProcesses,
} from './queue-collect.mjs';
import {
	busyByWorker,
	integrateSamples,
	isLook,
	judgeKeyRecords,
	slotsOf,
	verifyDeliveries,
	waitBudget,
} from './queue-figures.mjs';
import { PATTERNS } from './queue-workflows.mjs';

export const LIMIT = 60; // requests per minute of each pattern's key
export const SLOTS = { workers: 2, concurrency: 2 };

/** Waits for the next moment that is `second` s into a clock minute (at least 2 s from now). */
async function untilSecond(second) {
	const now = Date.now();
	let at = Math.floor(now / 60_000) * 60_000 + second * 1000;
	while (at < now + 2000) at += 60_000;
	await pause(at - now);
}

/** The pattern's requests by n8n process: { process: { route counts, looks, total } }. */
export function byProcess(j, ownerOf) {
	const groups = {};
	for (const e of j) (groups[ownerOf(e)] ??= []).push(e);
	return Object.fromEntries(
		Object.entries(groups)
			.sort(([a], [b]) => a.localeCompare(b))
			.map(([p, list]) => [
				p,
				{ ...byRoute(list), looks: list.filter(isLook).length, total: list.length },
			]),
	);
}

/** The parked pattern: each Create's estimate, and when Wait for Job ran against its job's end. */
async function parkDetails(stack, executions, jobs) {
	const rows = [];
	for (const x of executions) {
		const run = (await stack.execution(x.id)).data?.resultData?.runData ?? {};
		const out = run.Create?.[0]?.data?.main?.[0]?.[0]?.json ?? {};
		const job = jobs.find((j) => j.id === out.id);
		const resumedAt = run['Wait for Job']?.[0]?.startTime;
		rows.push({
			estimatedSeconds: out.estimatedSeconds,
			estimatedFrom: out.estimatedFrom,
			jobMs: job ? job.updatedAt - job.createdAt : NaN,
			resumeAfterEndMs: job && resumedAt ? resumedAt - job.updatedAt : NaN,
		});
	}
	const from = {};
	for (const r of rows) {
		const k = `${r.estimatedSeconds} s: ${r.estimatedFrom}`;
		from[k] = (from[k] ?? 0) + 1;
	}
	const lags = rows.map((r) => r.resumeAfterEndMs).filter(Number.isFinite);
	return {
		from,
		resumeAfterEnd: lags.length
			? { min: Math.min(...lags), median: median(lags), max: Math.max(...lags) }
			: undefined,
	};
}

/** N calls at once, then waits until every job's MP4 arrived and no execution of the pattern is current. */
async function callAndWait(ctx, { stack, sink, pattern, tag, sampler }) {
	const { opt, emu, log } = ctx;
	const p = PATTERNS[pattern];
	const t0 = Date.now();
	const calls = await Promise.all(
		Array.from({ length: opt.queueCalls }, (_, k) =>
			callWebhook(stack.base, p.hook, {
				...jsonBody({ prompt: `${tag} call ${k + 1}: a paper boat on a pond at dawn` }),
				timeoutMs: 10 * 60_000,
			}).catch((error) => ({ status: error.cause?.code ?? error.name, ms: Date.now() - t0 })),
		),
	);
	const answered = calls.filter((c) => c.status === 200).length;
	log(
		`  ${pattern}: ${answered}/${calls.length} calls answered 200 within ${fmtS(Date.now() - t0)}`,
	);
	const jobsOf = () => emu.control.jobs().filter((j) => j.input.prompt?.startsWith(`${tag} call`));
	const rounds = Math.ceil(opt.queueCalls / (SLOTS.workers * SLOTS.concurrency));
	let timedOut = false;
	try {
		await waitUntil(
			`pattern ${pattern}: every MP4 delivered, no execution left`,
			() => {
				const jobs = jobsOf();
				const lastDelivery = Math.max(
					0,
					...jobs.flatMap((j) => (sink.deliveries.get(j.id) ?? []).map((d) => d.at)),
				);
				const last = sampler.last();
				return (
					jobs.length >= answered &&
					jobs.every((j) => sink.deliveries.has(j.id)) &&
					last?.total === 0 &&
					last.at > lastDelivery
				);
			},
			{ timeoutMs: (rounds + 3) * opt.queueJobS * 1000 + 5 * 60_000, everyMs: 1000 },
		);
	} catch (error) {
		timedOut = true;
		log(`  ${pattern}: ${error.message}`);
	}
	return { t0, calls, answered, timedOut, endAt: Date.now(), jobs: jobsOf() };
}

/**
 * The referee's records of the key told apart as the soak tells them (tools/lib/soak/judge.mjs): a
 * collision of processes sharing the key (each within its own budget, e.g. two workers' list looks) or a
 * violation by a process alone; each record with the process behind its request.
 */
export function judged(emu, v, facts, keyId) {
	const settings = emu.control.settings();
	return judgeKeyRecords(v, facts, {
		sharedKeyId: keyId,
		rateWindowMs: settings.rateWindowMs,
		graceMs: settings.inFlightGraceMs,
		minPollIntervalMs: settings.minPollIntervalMs,
	});
}

/** The pattern's figures from what was collected while it ran (see the header). */
async function figuresOf(ctx, { stack, sink, pattern, key, run, logs, sampler, procs }) {
	const { opt, emu } = ctx;
	const p = PATTERNS[pattern];
	const { t0, endAt, jobs } = run;
	// the pattern's workflows ran only now (each pattern has its own)
	const executions = (await stack.allExecutions(100)).filter((x) =>
		p.workflows.includes(x.workflowId),
	);
	const execIds = new Set(executions.map((x) => String(x.id)));
	const slots = slotsOf(
		logs.events.filter((e) => execIds.has(e.executionId)),
		endAt,
	);
	// every job on the key came from the calls (none picked up or made twice): counted against the calls
	const onKey = emu.control.snapshot().jobs.filter((j) => j.keyId === key.keyId).length;
	const checked = verifyDeliveries(
		jobs.map((j) => ({ id: j.id, state: j.state, outputSha256: j.output?.sha256 })),
		sink.deliveries,
	);
	const j = ctx.journalOf(key.keyId).filter((e) => e.at >= t0 && e.at <= endAt);
	const v = ctx.violationsOf(key.keyId);
	const busy = busyByWorker(slots);
	const floor = simulateFloor({
		t0,
		n: opt.queueCalls,
		jobMs: opt.queueJobS * 1000,
		limit: LIMIT,
		pollMs: POLL_S * 1000,
	});
	const status = {};
	for (const x of executions)
		status[`${x.workflowId}: ${x.status}`] = (status[`${x.workflowId}: ${x.status}`] ?? 0) + 1;
	return {
		pattern,
		label: p.label,
		...run,
		prompts: new Set(jobs.map((x) => x.input.prompt)).size,
		onKey,
		checked,
		deliveredAt: Object.fromEntries(
			jobs.map((x) => [x.id, Math.min(...(sink.deliveries.get(x.id) ?? []).map((d) => d.at))]),
		),
		lastMp4Ms: checked.lastAt - t0,
		floor,
		ratio: (checked.lastAt - t0) / floor.floorMs,
		slots,
		slotSeconds: slots.reduce((a, s) => a + s.to - s.from, 0) / 1000,
		openSlots: slots.filter((s) => s.open).length,
		queueJobs: slots.length,
		busy,
		sampled: integrateSamples(sampler.samples, endAt),
		route: byRoute(j),
		requests: j.length,
		r429: j.filter((e) => e.status === 429).length,
		violations: v.length,
		vCounts: kindCounts(v),
		judged: judged(emu, v, procs.facts, key.keyId),
		perProcess: byProcess(j, procs.ownerOf),
		executionStatus: status,
		budget:
			pattern === 'wait'
				? waitBudget({ n: opt.queueCalls, busy, intervalMs: POLL_S * 1000 })
				: undefined,
		park: pattern === 'park' ? await parkDetails(stack, executions, jobs) : undefined,
	};
}

/** --queue-dump: what one pattern collected, as JSON (its key's requests with their process, slots, samples). */
function dump(dir, rec, { j, procs, sampler, sink }) {
	fs.mkdirSync(dir, { recursive: true });
	const data = {
		...rec,
		journal: j.map((e) => ({ ...e, process: procs.ownerOf(e) })),
		samples: sampler.samples,
		deliveries: Object.fromEntries(rec.jobs.map((x) => [x.id, sink.deliveries.get(x.id) ?? []])),
	};
	fs.writeFileSync(path.join(dir, `queue-${rec.pattern}.json`), JSON.stringify(data, null, 1));
}

/** Publishes the pattern's workflows, runs it and returns its record (see the header). */
export async function measurePattern(ctx, { stack, sink, pattern, keyName, pollSecond }) {
	const { opt, emu, keys, log } = ctx;
	const p = PATTERNS[pattern];
	const key = keys[keyName];
	await untilNoCurrentExecutions(stack, 10 * 60_000); // nothing of an earlier pattern left
	for (const id of p.workflows) await stack.activate(id);
	if (pattern === 'trigger') await untilSecond((pollSecond + opt.queueTriggerPhase) % 60);
	const procs = watchProcesses(emu, stack, key.keyId);
	const logs = followWorkerLogs(stack);
	const sampler = sampleExecutions(stack, p.workflows, opt.queueSampleMs);
	const tag = `bench queue ${pattern} ${Date.now().toString(36)}`;
	let run;
	try {
		run = await callAndWait(ctx, { stack, sink, pattern, tag, sampler });
	} finally {
		await sampler.stop();
		logs.stop();
		procs.stop();
		for (const id of p.workflows) await stack.deactivate(id);
	}
	const rec = await figuresOf(ctx, { stack, sink, pattern, key, run, logs, sampler, procs });
	if (opt.queueDump) {
		const j = ctx.journalOf(key.keyId).filter((e) => e.at >= run.t0 - 120_000);
		dump(opt.queueDump, rec, { j, procs, sampler, sink });
	}
	log(
		`  ${pattern}: last MP4 ${fmtS(rec.lastMp4Ms)} floor ${fmtS(rec.floor.floorMs)} ratio ${ratio2(rec.lastMp4Ms, rec.floor.floorMs)}; slot-seconds ${rec.slotSeconds.toFixed(0)} (sampled ${rec.sampled.running.toFixed(0)}); ${routeText(rec.route)}; 429 ${rec.r429}; violations ${JSON.stringify(rec.vCounts)} (collisions of processes sharing the key ${rec.judged.collisions.length}); MP4s ${rec.checked.verified}/${opt.queueCalls}; executions ${JSON.stringify(rec.executionStatus)}`,
	);
	return rec;
}
