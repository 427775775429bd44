// Part 4 of `npm run bench`: creates only. N text-to-video creates (no wait) on a fresh 60 requests/minute
// key per side, ours (Create, paced per key) against n8n's HTTP Request node with its defaults: requests,
// 429s, the referee's violations, items that came out of the node, and the span against the fixed-window
// floor.
import { PACING } from '../../nodes/shared/service/pacing.ts';
import { byRoute, kindCounts, perWindow } from '../journal.mjs';
import { fmtS } from '../measure.mjs';
import { table } from '../report.mjs';
import { nodeOutput } from '../../tools/lib/run-data.mjs';
import * as W from '../workflows.mjs';

export const name = 'creates';

export const options = [
	// --batch=N: its old name
	{
		flags: ['creates', 'batch'],
		key: 'creates',
		parse: Number,
		default: 100,
		help: 'part 4: how many creates',
	},
];

export function prepare({ opt, emu, key, keys, ourCred, baseCred }) {
	key('createsOurs', { requestsPerMinute: 60, accountId: 'acct_bench_creates_ours' });
	key('createsBase', { requestsPerMinute: 60, accountId: 'acct_bench_creates_base' });
	emu.control.grantCredits(opt.creates * 8 + 100, 'acct_bench_creates_ours');
	emu.control.grantCredits(opt.creates * 8 + 100, 'acct_bench_creates_base');
	ourCred('createsOurs', keys.createsOurs.secret);
	baseCred('createsBase', keys.createsBase.secret);
	return {
		workflows: [
			W.createsOurs(opt.creates, 'createsOurs'),
			W.createsBaseline(opt.creates, 'createsBase', emu.baseUrl),
		],
	};
}

export async function run(ctx) {
	const { opt, emu } = ctx;
	ctx.log(`part 4: ${opt.creates} creates, 60 requests/minute`);
	emu.control.setJobTiming({ queuedMs: 1000, runningMs: 2000 });
	const res = {};
	for (const side of ['createsOurs', 'createsBase']) res[side] = await measureSide(ctx, side);
	emitCreates(ctx, res.createsOurs, res.createsBase);
	ctx.report.goals.push(createsGoal(opt, res.createsOurs));
}

/** One side's run: what the key saw (requests, answers, windows) and what came out of the node. */
async function measureSide({ opt, emu, run, journalOf, violationsOf, keys, log }, side) {
	emu.control.clearJournal();
	const r = await run(side === 'createsOurs' ? 'benchCreatesOurs' : 'benchCreatesBase', {
		timeoutMs: 600_000,
		sampleMs: 250,
	});
	const j = journalOf(keys[side].keyId);
	const creates = j.filter((e) => e.method === 'POST' && e.path === '/v1/jobs');
	const created = creates.filter((e) => e.status === 202 || e.status === 200).length;
	const out = nodeOutput(r.result, 'Create') ?? [];
	// ours outputs the job; the HTTP Request node outputs the response envelope { data: job }
	const outOk = out.filter((x) => typeof (x?.id ?? x?.data?.id) === 'string' && !x.error).length;
	const first = j.length ? j[0].at : NaN;
	const last = j.length ? j[j.length - 1].at : NaN;
	const v = violationsOf(keys[side].keyId);
	const answers = {};
	for (const e of j)
		answers[`${e.status}${e.errorCode ? ` ${e.errorCode}` : ''}`] =
			(answers[`${e.status}${e.errorCode ? ` ${e.errorCode}` : ''}`] ?? 0) + 1;
	log(`  ${side}: answers ${JSON.stringify(answers)}`);
	return {
		answers,
		r,
		route: byRoute(j),
		requests: j.length,
		creates: creates.length,
		created,
		status429: j.filter((e) => e.status === 429).length,
		violations: v.length,
		vCounts: kindCounts(v),
		failedItems: opt.creates - outOk,
		outputItems: outOk,
		spanMs: last - first,
		phaseS: ((first % 60_000) / 1000).toFixed(1),
		windows: perWindow(j),
		error: r.ok ? '' : (r.error?.message ?? 'no result').slice(0, 200),
	};
}

const minMsOf = (opt) => (opt.creates / 60) * 60_000;

function windowFloor(x) {
	// fixed one-minute windows: the last of ceil(counted/60) windows starts (60 - phase) + 60 × (w - 2) s after the
	// first request (counted = requests against the key: all but the public GET /v1/capabilities)
	const w = Math.ceil((x.requests - x.route.capabilities) / 60);
	return w <= 1 ? 0 : (60 - Number(x.phaseS)) * 1000 + (w - 2) * 60_000;
}

function emitCreates({ opt, emit }, o, b) {
	const minMs = minMsOf(opt);
	emit(`## 4. Creates only: ${opt.creates} text-to-video creates on a 60 requests/minute key`);
	emit();
	emit(
		`Create only (no wait), ${opt.creates} items, a fresh key (and account) per side created with \`requestsPerMinute: 60\`. Rate-limit minimum = creates needed ÷ rate = ${opt.creates} ÷ 60/min = ${fmtS(minMs)}. The emulator counts fixed one-minute windows aligned to the clock minute, so a client that starts late in a minute can finish sooner than that; the "fixed-window floor" column is the earliest possible last request for the phase the run actually started at, counting the requests each side made against the key (the public \`GET /v1/capabilities\` does not count). Ours sends through the key's pacer (nodes/shared/service/pacing.ts: one pacer per API key per n8n process; alone on a key it sends as fast as the window allows, then waits for the window's reset + ${PACING.resetMarginMs} ms; it spreads the budget only while the service counts requests of other processes). "Failed items" = input items that did not come out of the node as a created job.`,
	);
	emit();
	emit(
		table(
			[
				'Workflow',
				'Requests',
				'Creates sent',
				'Jobs created',
				'429 received',
				'Referee violations',
				'Failed items (no job out of the node)',
				'First request at (s into minute)',
				'Requests per window',
				'Request span',
				'Fixed-window floor',
				'Execution (incl. n8n start)',
				'Workflow result',
			],
			[
				['ours: Create', o],
				['baseline: HTTP Request (defaults)', b],
			].map(([label, x]) => [
				label,
				x.requests,
				x.creates,
				x.created,
				x.status429,
				x.violations ? JSON.stringify(x.vCounts) : 0,
				x.failedItems,
				x.phaseS,
				x.windows.join(' / '),
				fmtS(x.spanMs),
				fmtS(windowFloor(x)),
				fmtS(x.r.ms),
				x.r.ok ? 'success' : `error: ${x.error}`,
			]),
		),
	);
	emit();
	emit(
		`Ours sends ${o.requests - o.creates} request${o.requests - o.creates === 1 ? '' : 's'} besides the creates (${o.route.capabilities} \`GET /v1/capabilities\` and ${o.route.list} \`GET /v1/jobs\`, the look-up for a recent job of the same input, once per node run where Reuse Identical Recent Job looks). ` +
			(b.r.ok
				? `The baseline finished without error here (${b.status429} × 429).`
				: `The baseline sends every item's request at once (n8n's HTTP Request node does not pace unless its Batching option is set by hand); the ${b.status429} requests over the window's limit got 429 and the node failed the whole run (no item reaches the next node), although ${b.created} jobs were created and charged — re-running it creates them again unless the Idempotency-Keys are stable per row.`),
	);
	emit();
}

function createsGoal(opt, o) {
	const minMs = minMsOf(opt);
	const createsMet =
		o.failedItems === 0 &&
		o.r.ok &&
		o.r.ms <= 1.1 * minMs &&
		o.status429 === 0 &&
		o.violations === 0;
	return {
		goal: `Creates only: 0 failed items, 0 × 429, 0 violations and wall ≤ 1.1 × minimum (${fmtS(1.1 * minMs)})`,
		result: `${o.failedItems} failed, ${o.status429} × 429, ${o.violations} violations, wall ${fmtS(o.r.ms)} (requests span ${fmtS(o.spanMs)}) vs minimum ${fmtS(minMs)}`,
		met: createsMet,
		note: createsMet
			? "The key's pacer keeps the requests inside each window's budget and waits for the reset instead of drawing 429s."
			: 'See part 4.',
	};
}
