// The soak's section of docs/reliability.md, from a report (written by `npm run soak -- … --doc`; kept by
// scripts/reliability-report.mjs when it rewrites the file).
import fs from 'node:fs';
import path from 'node:path';

import { REPO } from '../repo.mjs';
import { KEY_A_LIMIT } from './settings.mjs';

export const DOC_START = '<!-- soak:start -->';
export const DOC_END = '<!-- soak:end -->';

/** The section for a report (`meta`: { date, cpus, processFaults, postgres, redis }), between its markers. */
export function docSection(r, meta) {
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
judged alone with the referee's rule, were within that budget; and a read of a job within 5 s of another
answer naming it (\`poll_too_soon\`, counted per account) is a collision only when that answer went to another
process (e.g. the Job Finished trigger on the main reading an open job that a worker's wait follows) and the
reader's own last read of the job was 5 s or more before. \`npm test\` runs a short one on the
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
