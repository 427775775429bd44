// Part 1 of `npm run bench`: requests per finished job. One text-to-video job of T seconds through ours
// (Create, Wait for Completion) and through the baseline built from n8n's own nodes, counted by kind from
// the emulator's journal, against the minimum a client needs, with the delay until the job's end is seen.
import { POLL_S } from '../context.mjs';
import { fmtS } from '../measure.mjs';
import { numbers } from '../options.mjs';
import { ms1, table } from '../report.mjs';
import * as W from '../workflows.mjs';

export const name = 'requests';

export const options = [
	{
		flags: ['durations'],
		key: 'durations',
		parse: numbers,
		default: [10, 30, 60],
		help: 'part 1: job durations in seconds',
	},
];

export function prepare({ opt, emu }) {
	const workflows = [];
	for (const T of opt.durations) {
		// a prompt per run, so a look-up for a recent job of the same input (where it is on) picks nothing up
		const prompt = `benchmark: a lighthouse in a storm, ${T} s job`;
		workflows.push(
			W.jobOurs('benchOurs', `benchJobOurs${T}`, prompt),
			W.jobBaseline('benchBase', emu.baseUrl, `benchJobBase${T}`, prompt),
		);
	}
	return { workflows };
}

export async function run(ctx) {
	const { opt, emu } = ctx;
	ctx.log('part 1: requests per finished job');
	const found = [];
	for (const T of opt.durations) {
		emu.control.setJobTiming({ queuedMs: 1000, runningMs: T * 1000 - 1000 });
		for (const side of ['ours', 'base']) found.push(await measureJob(ctx, T, side));
	}
	emitRequests(ctx, found);
	ctx.report.goals.push(...requestGoals(found));
}

/** One job of T seconds through one side: requests by kind, minimum, detection delay. */
async function measureJob({ emu, run, journalOf, keys, failText, log }, T, side) {
	emu.control.clearJournal();
	const r = await run(side === 'ours' ? `benchJobOurs${T}` : `benchJobBase${T}`, {
		timeoutMs: T * 1000 + 180_000,
		sampleMs: 250,
	});
	const j = journalOf(keys[side].keyId);
	const polls = j.filter((e) => e.method === 'GET' && /^\/v1\/jobs\/[^/]+$/.test(e.path));
	const jobId = j
		.find((e) => e.method === 'GET' && /^\/v1\/jobs\/[^/]+/.test(e.path))
		?.path.split('/')[3];
	const job = emu.control.jobs().find((x) => x.id === jobId);
	const count = (f) => j.filter(f).length;
	const c = {
		capabilities: count((e) => e.path === '/v1/capabilities'),
		list: count((e) => e.method === 'GET' && e.path === '/v1/jobs'),
		quote: count((e) => e.path === '/v1/jobs/quote'),
		create: count((e) => e.method === 'POST' && e.path === '/v1/jobs'),
		polls: polls.length,
		download: count((e) => /\/output$/.test(e.path)),
		total: j.length,
		non2xx: count((e) => e.status >= 300),
	};
	const end = job?.state === 'succeeded' ? job.updatedAt : NaN;
	const seen = polls.find((e) => e.at >= end);
	const delay = seen ? seen.at - end : NaN;
	const min = 1 + 1 + Math.ceil(T / POLL_S) + 1 + 1;
	const okRun = r.ok && job?.state === 'succeeded' && c.download >= 1 && c.non2xx === 0;
	if (!okRun) log(`  run not clean: ${failText(r)} job=${JSON.stringify(job)}`);
	return { T, side, c, min, delay, ok: okRun, ms: r.ms };
}

function emitRequests({ emit }, found) {
	emit('## 1. Requests per finished job');
	emit();
	emit(
		`A text-to-video job that lasts T seconds on the emulator (queued 1 s, then running), real time. Ours: one **Create** with **Max Credits** 20 (quote first) and **Wait for Completion** (default ${POLL_S} s poll, MP4 downloaded and sha256-checked). Baseline: HTTP quote → IF affordable → HTTP create (Idempotency-Key) → HTTP GET job → IF succeeded/failed → else Wait ${POLL_S} s → GET job again; then HTTP GET output as file. Minimum = 1 quote + 1 create + ceil(T/${POLL_S})+1 polls + 1 download. Detection delay = journal time of the first GET of the job at or after its end (\`updatedAt\`) minus that end. (A lone job is read with \`GET /v1/jobs/{id}\`; part 3 covers batches, which ours follows through the job list.)`,
	);
	emit();
	emit(
		table(
			[
				'Job',
				'Workflow',
				'Capabilities',
				'Job list',
				'Quote',
				'Create',
				'Polls',
				'Download',
				'Total',
				'Minimum',
				'vs min',
				'Detection delay',
				'Execution',
				'Run',
			],
			found.map(({ T, side, c, min, delay, ok, ms }) => [
				`${T} s`,
				side === 'ours' ? 'ours' : 'baseline',
				c.capabilities,
				c.list,
				c.quote,
				c.create,
				c.polls,
				c.download,
				c.total,
				min,
				c.total - min >= 0 ? `+${c.total - min}` : String(c.total - min),
				ms1(delay),
				fmtS(ms),
				ok ? 'ok' : `FAILED`,
			]),
		),
	);
	emit();
	const ours = found.filter((f) => f.side === 'ours');
	emit(
		`Ours reads \`GET /v1/capabilities\` once per node run (before the first quote/create) and, where "Reuse Identical Recent Job" looks (by default only n8n's Retry and webhook calls; \`n8n execute\` runs in mode \`cli\`, which creates), one page of \`GET /v1/jobs\` to pick up a recent job of the same input instead of paying twice; both are counted in "Total" above (capabilities ${ours.map((f) => f.c.capabilities).join(', ')}; job list ${ours.map((f) => f.c.list).join(', ')} for the ${ours.length} runs). Each run has its own prompt, so nothing is picked up.`,
	);
	emit();
}

function requestGoals(found) {
	const ours = found.filter((f) => f.side === 'ours');
	const reqMet = ours.length > 0 && ours.every((f) => f.ok && f.c.total <= f.min + 1);
	const delayMet = ours.length > 0 && ours.every((f) => f.ok && f.delay <= POLL_S * 1000);
	return [
		{
			goal: 'Requests per finished job ≤ minimum + 1',
			result: ours.map((f) => `${f.T} s: ${f.c.total} (min ${f.min})`).join('; '),
			met: reqMet,
			note: reqMet
				? `Beyond the minimum's kinds ours sends ${ours.map((f) => `${f.c.capabilities} capabilities + ${f.c.list} job list`)[0]} per run and ${ours.map((f) => `${f.c.polls}`).join(' / ')} polls where the minimum counts ${ours.map((f) => Math.ceil(f.T / POLL_S) + 1).join(' / ')} (looks every ${POLL_S} s from the create answer: the one at T s already sees the job finished, see the detection delay).`
				: ours.every((f) => f.ok && f.c.total - f.c.list <= f.min + 1 && f.c.list > 0)
					? `Without the job-list read the totals would be within minimum + 1 (${ours.map((f) => f.c.total - f.c.list).join(', ')}): the extra request is the look-up for a recent job of the same input (Reuse Identical Recent Job), one per node run where it looks; set it to "Never" (or use an Idempotency Key) to drop it.`
					: 'See part 1: the extra requests are listed per kind.',
		},
		{
			goal: `Detection delay ≤ one poll interval (${POLL_S} s)`,
			result: ours.map((f) => `${f.T} s: ${ms1(f.delay)}`).join('; '),
			met: delayMet,
			note: delayMet ? '' : 'The first poll after the end came later than one interval.',
		},
	];
}
