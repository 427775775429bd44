// The section of part 6 (queue mode) in the report, between its markers (doc-section.mjs: `npm run bench --
// --only=queue --doc` replaces only it): how it was run and measured, the three patterns beside the table
// measured by hand before the package's per-process watcher, where the time and the requests went, and the
// part's goals (also added to the closing Goals table).
import os from 'node:os';

import { sectionEnd, sectionStart } from '../doc-section.mjs';
import { queueChart, queueSlotsChart } from '../charts.mjs';
import { describeViolation } from '../../tools/lib/soak/judge.mjs';
import { routeText } from '../journal.mjs';
import { fmtS, median } from '../measure.mjs';
import { REPO } from '../../tools/lib/repo.mjs';
import { goalsTable, ratio2, table } from '../report.mjs';
import { commitOf } from '../setup.mjs';
import { POLL_S } from '../context.mjs';
import { LIMIT, SLOTS } from './queue-measure.mjs';

/** Measured by hand before these changes (see the section). Columns as in the main table. */
const BY_HAND = [
	[
		'Webhook → Create with Wait for Completion',
		'384 s',
		'120.5 s',
		'3.19',
		'1,510',
		'26.7 (272 of 320 are per-job polls)',
	],
	[
		"Webhook → Create → n8n's Wait node (125 s) → Wait for Job",
		'136 s',
		'122.0 s',
		'1.12',
		'42',
		'5.0',
	],
	['Webhook → Create; the Job Finished trigger downloads', '159 s', '120.9 s', '1.32', '19', '4.3'],
];

const perJob = (r, n) => (r.requests / n).toFixed(1);

/** Where the time went: when the last job was created, how long jobs ran, how long their MP4s took after. */
function timeline(r) {
	const created = r.jobs.map((j) => j.createdAt - r.t0);
	const after = r.jobs
		.map((j) => (r.deliveredAt[j.id] ?? NaN) - j.updatedAt)
		.filter(Number.isFinite);
	return {
		lastCreated: created.length ? Math.max(...created) : NaN,
		duration: median(r.jobs.map((j) => j.updatedAt - j.createdAt)),
		afterEnd: after.length ? { median: median(after), max: Math.max(...after) } : undefined,
	};
}

function mainTable(results, n) {
	return table(
		[
			'Pattern',
			'Last MP4 after',
			'Floor',
			'Ratio',
			'Worker slot-seconds (logs; sampled)',
			'Requests per job',
			'Requests by route',
			'429',
			'Violations',
			'MP4s verified',
			'Jobs created',
		],
		results.map((r) => [
			r.label,
			fmtS(r.lastMp4Ms),
			fmtS(r.floor.floorMs),
			ratio2(r.lastMp4Ms, r.floor.floorMs),
			`${r.slotSeconds.toFixed(0)}${r.openSlots ? ` (${r.openSlots} never finished)` : ''}; ${r.sampled.running.toFixed(0)}`,
			perJob(r, n),
			routeText(r.route),
			r.r429,
			r.violations
				? `${JSON.stringify(r.vCounts)}: ${r.judged.collisions.length} collisions of processes sharing the key, ${r.judged.own.length} by a process alone`
				: 0,
			`${r.checked.verified}/${n}${r.checked.twice.length ? `, ${r.checked.twice.length} twice` : ''}${r.checked.badSha.length ? `, ${r.checked.badSha.length} bad sha256` : ''}`,
			`${r.onKey} for ${r.answered} calls answered (${r.prompts} prompts)`,
		]),
	);
}

function timeTable(results) {
	return table(
		[
			'Pattern',
			'Last job created after the first call',
			'Job duration (median)',
			'MP4 delivered after its job ended (median; max)',
			'Executions waiting for a slot (s)',
			'Parked (s)',
			'Most running at once',
			'Queue jobs run by workers',
			'Executions',
		],
		results.map((r) => {
			const t = timeline(r);
			return [
				r.label,
				fmtS(t.lastCreated),
				fmtS(t.duration),
				t.afterEnd ? `${fmtS(t.afterEnd.median)}; ${fmtS(t.afterEnd.max)}` : 'n/a',
				r.sampled.new.toFixed(0),
				r.sampled.waiting.toFixed(0),
				r.sampled.maxRunning,
				r.queueJobs,
				JSON.stringify(r.executionStatus),
			];
		}),
	);
}

function processTable(results) {
	const rows = [];
	for (const r of results)
		for (const [p, x] of Object.entries(r.perProcess)) {
			const busy = r.busy[p];
			const allowed = r.budget?.perProcess[p];
			rows.push([
				r.pattern,
				p,
				routeText(x),
				x.looks,
				Number.isFinite(busy) ? fmtS(busy) : '—',
				allowed ? `${allowed.looks} looks, ${allowed.capabilities} capabilities` : '—',
			]);
		}
	return table(
		[
			'Pattern',
			'n8n process',
			'Requests by route',
			'Looks (first list pages + job reads)',
			'Ran executions for',
			'Goal allows (waiting in the node)',
		],
		rows,
	);
}

/** The part's goals: { goal, result, met, note }. */
function goalsOf(results, n) {
	const goals = [];
	const wait = results.find((r) => r.pattern === 'wait');
	if (wait) {
		const over = Object.entries(wait.perProcess).filter(
			([p, x]) => x.looks > (wait.budget.perProcess[p]?.looks ?? 0),
		);
		const met = wait.requests <= wait.budget.total && over.length === 0;
		goals.push({
			goal: `Queue mode, waiting in the node (${n} calls, ${SLOTS.workers} workers × ${SLOTS.concurrency}): requests ≤ the floor's creates and downloads + per worker one look per ${POLL_S} s while it ran executions (+ one capabilities read per minute)`,
			result: `${wait.requests} requests (${perJob(wait, n)} per job) ≤ ${wait.budget.total} allowed; looks per process: ${Object.entries(
				wait.perProcess,
			)
				.map(([p, x]) => `${p} ${x.looks} (≤ ${wait.budget.perProcess[p]?.looks ?? 0})`)
				.join(', ')}`,
			met,
			note: met
				? `One watcher per key per worker looks once per interval for every execution it holds; what waiting in the node costs is the slots: ${wait.slotSeconds.toFixed(0)} worker slot-seconds and ${fmtS(wait.lastMp4Ms)} to the last MP4, the executions waiting for a free slot for ${wait.sampled.new.toFixed(0)} s in all.`
				: `Over the budget: ${over.map(([p, x]) => `${p} looked ${x.looks} times`).join(', ') || `${wait.requests - wait.budget.total} requests more than allowed`} (see the table of requests by process).`,
		});
	}
	const park = results.find((r) => r.pattern === 'park');
	if (park) {
		const t = timeline(park);
		const met = park.ratio <= 1.1;
		goals.push({
			goal: 'Queue mode, parked: last MP4 ≤ 1.1 × the floor',
			result: `${fmtS(park.lastMp4Ms)} / floor ${fmtS(park.floor.floorMs)} = ${ratio2(park.lastMp4Ms, park.floor.floorMs)}`,
			met,
			note: `The last job was created ${fmtS(t.lastCreated)} after the first call and ran ${fmtS(t.duration)}; MP4s arrived ${t.afterEnd ? `${fmtS(t.afterEnd.median)} (median), at most ${fmtS(t.afterEnd.max)}` : 'n/a'} after their job's end (the resume at Create's estimate, Wait for Job's look, the download, the post).${met ? '' : ' The floor creates every job at the first call and sees it end at once; the wait for a webhook execution to create its job and the time after the end are what the ratio adds.'}`,
		});
	}
	const bad = results.filter(
		(r) =>
			r.r429 ||
			r.violations ||
			r.onKey !== n ||
			r.prompts !== n ||
			r.checked.verified !== n ||
			r.timedOut,
	);
	goals.push({
		goal: `Queue mode, every pattern: 0 × 429, 0 referee violations, each call's job created once, ${n}/${n} MP4s with their sha256`,
		result: results
			.map(
				(r) =>
					`${r.pattern}: ${r.r429} × 429, ${r.violations} violations${r.violations ? ` (${r.judged.collisions.length} collisions of processes sharing the key)` : ''}, ${r.onKey} jobs, ${r.checked.verified}/${n} MP4s`,
			)
			.join('; '),
		met: bad.length === 0,
		note: bad.length
			? `Missed by ${bad.map((r) => r.pattern).join(', ')}${bad.some((r) => r.violations) ? ': see "Referee records" under part 6' : ''}.${bad.some((r) => r.judged.collisions.length) ? " Each worker follows its executions' jobs with one look at the key's list per interval, so with two workers the list is read twice per interval: each process within the rule alone, the key not. The processes cannot see each other's looks (n8n offers a community node no shared state across workers); what would fix it: a process that sees unfinished jobs it does not follow spacing its looks at the spec's 10 s, or parking (the second pattern)." : ''}`
			: '',
	});
	return goals;
}

const since = (r, at) => `${((at - r.t0) / 1000).toFixed(1)} s`;

/**
 * What the referee recorded on the pattern's key, precisely: by kind, which process sent the requests, when
 * (after the first call), and how the soak's judge tells them apart (tools/lib/soak/judge.mjs).
 */
export function refereeText(r) {
	const { all, own, collisions } = r.judged;
	if (!all.length) return '';
	const kinds = {};
	for (const v of all) (kinds[v.kind] ??= []).push(v);
	const each = Object.entries(kinds).map(([kind, list]) => {
		const by = {};
		for (const v of list) by[v.process] = (by[v.process] ?? 0) + 1;
		const ats = list.map((v) => v.at);
		return `${kind} × ${list.length} (${Object.entries(by)
			.map(([proc, c]) => `${proc} × ${c}`)
			.join(
				', ',
			)}; ${list[0].method} ${list[0].path}; from ${since(r, Math.min(...ats))} to ${since(r, Math.max(...ats))} after the first call)`;
	});
	const c = collisions[0]?.detail;
	const sample = c?.sharedWith
		? `, e.g. ${c.process}${c.ownCredit !== undefined ? ` with ${c.ownCredit} first-page look(s) of its own budget left` : ''}, the key's spent with ${c.sharedWith.join(', ')}`
		: '';
	return `${each.join('; ')}. Told apart as the soak does (tools/lib/soak/judge.mjs): ${collisions.length} collision(s) of processes sharing the key — each process's own requests within the referee's rule when judged alone${sample} — and ${own.length} by a process alone${
		own.length
			? `: ${own
					.slice(0, 5)
					.map((v) => describeViolation(v, r.t0))
					.join('; ')}`
			: ''
	}.`;
}

/** Part 6's section (between its markers) and its goals. meta: versions, load, durations. */
export function emitQueue(ctx, results, meta) {
	const { opt, emit, report } = ctx;
	const n = opt.queueCalls;
	report.keep(sectionStart('queue'));
	emit(
		`## 6. Queue mode: ${n} long jobs at once — waiting in the node, parked in n8n's database, or the trigger`,
	);
	emit();
	emit(
		`Run on ${new Date().toISOString()} (commit ${commitOf(REPO)}, ${os.cpus().length} cores, load average ${meta.loadAtStart} at the start, ${meta.loadAtEnd} at the end); the part took ${fmtS(meta.partMs)}, of which ${fmtS(meta.stackMs)} to start the stack. n8n 2.41.1 in queue mode (tools/lib/queue-stack.mjs): a main and ${SLOTS.workers} workers × concurrency ${SLOTS.concurrency} = ${SLOTS.workers * SLOTS.concurrency} slots, PostgreSQL ${meta.postgres ?? '?'}, Redis ${meta.redis ?? '?'}, database binary mode. Jobs of ${opt.queueJobS} s on the emulator (queued 1 s, then running; MP4s of ${meta.outputBytes} bytes). Each pattern has its own key at ${LIMIT} requests/minute in its own account, and runs on the same stack after the previous one, once no execution of the stack is new, running or waiting, with only its own workflows published. The package keeps its state per key and n8n process (pacer, watcher, capabilities, recent-jobs view, job durations for the estimate), so each pattern starts that state empty; n8n itself stays warm after the first pattern. ${n} webhook calls at once, one distinct prompt each; every MP4 is posted by n8n's HTTP Request node to a sink in the bench process, which checks its sha256 against the job's.`,
	);
	emit();
	emit(
		'- **Waiting in the node**: Webhook (answers at once) → Create, Wait for Completion, download on → post the MP4. Each execution holds a worker slot until its MP4 is posted.',
	);
	emit(
		`- **Parked**: \`examples/many-long-jobs.json\` as shipped (its Write MP4 replaced by the post): Webhook → Create → Respond to Webhook (the job) → n8n's Wait node, At Specified Time = Create's \`estimatedReadyAt\` → Wait for Job → post. n8n parks waits of 65 s or more in its database and frees the slot. Not warmed up: on a fresh key no worker has seen a job of the kind finish, so every Create gets the package's default estimate of 120 s — Create's outputs said ${park(results)}.${opt.queueJobS === 120 ? ' With 120 s jobs that default happens to be the jobs’ real duration, so the parked executions resume at their job’s end; with other durations a fresh worker’s first calls resume early (Wait for Job then polls the rest in a slot) or late, until the worker has seen jobs of the kind finish.' : ''}`,
	);
	emit(
		`- **Trigger**: Webhook → Create (answers with the job); the Job Finished trigger, polling on the main at second ${meta.pollSecond} of every minute → Download Output (on a worker) → post. The calls start ${opt.queueTriggerPhase} s after a poll, so the jobs end about ${(60 - ((opt.queueTriggerPhase + opt.queueJobS) % 60)) % 60} s before the poll that sees them (a phase between 0 and 60 s, here set, not drawn).`,
	);
	emit();
	emit(
		`**How it is measured.** *Last MP4 after*: from the moment the calls were sent to the sink's receipt of the last job's MP4. *Floor* (bench/floor.mjs, the same perfect client as part 3, starting at the calls): 1 capabilities read, the ${n} creates at once as far as the ${LIMIT}/minute windows allow (aligned to the clock minute as the emulator counts them), one list look every 5 s, each download as soon as a look shows its job finished, requests taking no time; for ${n} jobs nothing waits for the rate limit, so the floor is the job's duration plus the wait for the look that sees its end. *Worker slot-seconds*: from the workers' logs, each queue job from "Worker started execution N (job J)" to "Worker finished execution N (job J)" (n8n logs no time on them: the bench reads the logs every 0.2 s and times each line as it appears); a parked execution is two queue jobs, up to its Wait node and from its resume, so its parked time is in no slot. *Sampled*: the same from the main's REST list of executions, read every ${opt.queueSampleMs / 1000} s: the seconds executions were \`running\` (also \`new\`, waiting for a slot, and \`waiting\`, parked, below). *Requests*: the emulator's journal of the pattern's key from the calls to the end, by route (cap = \`GET /v1/capabilities\`, list = \`GET /v1/jobs\` pages, get = \`GET /v1/jobs/{id}\`); the process behind each request is found from its TCP port while it is open, as the soak does. *Violations*: the referee's records of the key over the whole part. *MP4s verified*: jobs whose MP4 reached the sink exactly once with the job's sha256.`,
	);
	emit();
	emit(mainTable(results, n));
	emit();
	// the pictures: each pattern's MP4s over time against the floor, and the worker slots each one held
	for (const chart of [queueChart(results, n), queueSlotsChart(results)]) {
		report.charts.push(chart);
		emit(`![${chart.alt}](images/${chart.file})`);
		emit();
	}
	emit(
		`Measured by hand before the package's changes since (one watcher per key per n8n process, capabilities and the recent-jobs look-up shared per process and key, Create's \`estimatedReadyAt\`): n8n 2.41.1 queue mode, a main and 2 workers at concurrency 2, a key at 60 requests/minute, 12 webhook calls at once of 120 s text-to-video jobs, the floors then computed by hand (labels as recorded then; the parked pattern waited a fixed 125 s):`,
	);
	emit();
	emit(
		table(
			[
				'Pattern (by hand, before)',
				'Last MP4 after',
				'Floor',
				'Ratio',
				'Worker slot-seconds',
				'Requests per job',
			],
			BY_HAND,
		),
	);
	emit();
	emit(
		'(By hand: 0 × 429, 0 violations, every job created once, 36/36 MP4s matching their sha256.)',
	);
	emit();
	for (const r of results.filter((x) => x.violations)) {
		emit(`**Referee records, ${r.pattern}.** ${refereeText(r)}`);
		emit();
	}
	emit('Where the time went (execution-seconds from the sampled list):');
	emit();
	emit(timeTable(results));
	emit();
	emit('Requests by n8n process (a look = a first page of the job list or a job read):');
	emit();
	emit(processTable(results));
	emit();
	const goals = goalsOf(results, n);
	emit('Goals of this part (also in the Goals table at the end of a full run):');
	emit();
	emit(goalsTable(goals));
	emit();
	report.keep(sectionEnd('queue'));
	report.goals.push(...goals);
}

/** Create's estimates in the parked pattern, counted ("12 × 120 s: the default of …"), and the resumes. */
function park(results) {
	const p = results.find((r) => r.pattern === 'park')?.park;
	if (!p) return 'nothing (the pattern did not run)';
	const from = Object.entries(p.from)
		.map(([k, c]) => `${c} × "${k}"`)
		.join(', ');
	const lag = p.resumeAfterEnd;
	return `${from}; Wait for Job started ${lag ? `${fmtS(lag.min)} to ${fmtS(lag.max)} (median ${fmtS(lag.median)})` : 'n/a'} after its job's end`;
}
