// The figures of `npm run test:reliability` (scripts/reliability-report.mjs): the rows the suites record
// (test/reliability/metrics.js, one JSON line each in GS_RELIABILITY_OUT) summed into the summary it prints and
// docs/reliability.md, which keeps the chaos soak's section (soak/doc-section.mjs) when it is rewritten.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { REPO } from './repo.mjs';
import { DOC_END, DOC_START } from './soak/doc-section.mjs';

/**
 * Runs the reliability suites, each recording its rows into `out`: jest's test/reliability, then in real n8n
 * (hosts `hosts`) the money-safety scenarios (execution retries, crashes) and the examples suite (Retry On
 * Fail). Resolves { jest, e2e (their exit codes), seconds }.
 */
export function runReliabilitySuites(out, hosts) {
	const t0 = Date.now();
	const suite = (args, env) =>
		spawnSync(process.execPath, args, {
			cwd: REPO,
			env: { ...process.env, GS_RELIABILITY_OUT: out, ...env },
			stdio: ['ignore', 'inherit', 'inherit'],
		}).status;
	const jest = suite([
		path.join(REPO, 'node_modules', 'jest', 'bin', 'jest.js'),
		'--runInBand',
		'test/reliability',
	]);
	const e2e = suite(
		[
			'--import',
			'tsx',
			'--test',
			'--test-concurrency=1',
			'test/e2e/money-safety.test.mjs',
			'test/e2e/examples.test.mjs',
		],
		{ GS_E2E_HOSTS: hosts },
	);
	return { jest, e2e, seconds: ((Date.now() - t0) / 1000).toFixed(1) };
}

/** The rows recorded in `file` (none when the suites wrote nothing). */
export function readFigures(file) {
	return fs.existsSync(file)
		? fs
				.readFileSync(file, 'utf8')
				.trim()
				.split('\n')
				.filter(Boolean)
				.map((l) => JSON.parse(l))
		: [];
}

/** The rows by kind and the figures summed over them. */
export function summarize(rows) {
	const faults = rows.filter((r) => r.kind === 'fault');
	const contract = rows.filter((r) => r.kind === 'contract');
	const bad = rows.filter((r) => r.kind === 'badInput');
	const secretRows = rows.filter((r) => r.kind === 'secrets');
	const sum = (list, key) => list.reduce((n, r) => n + (r[key] ?? 0), 0);
	const figures = {
		faultsInjected: faults.length,
		duplicateJobs: sum(faults, 'duplicateJobs'),
		lostOutputs: sum(faults, 'lostOutputs'),
		badInputs: bad.length,
		refusedLocally: bad.filter((r) => r.refusedLocally).length,
		refusedByService: bad.filter((r) => !r.refusedLocally && !r.repaired).length,
		repaired: bad.filter((r) => r.repaired).length,
		checkedForKey: sum(secretRows, 'itemsAndErrorsChecked'),
		logLines: sum(secretRows, 'logLines'),
		keyLeaks: secretRows.length ? sum(secretRows, 'leaks') : 'not measured',
	};
	return { faults, contract, bad, figures };
}

/** The summary printed at the end (`run`: { jest, e2e (exit codes), seconds }). */
export function summaryLines({ figures }, run, date = new Date()) {
	return [
		`Reliability summary (${date.toISOString().slice(0, 10)}, jest exit ${run.jest}, real-n8n suites exit ${run.e2e}, ${run.seconds} s)`,
		`  faults injected            ${figures.faultsInjected}`,
		`  duplicate jobs             ${figures.duplicateJobs}`,
		`  lost outputs               ${figures.lostOutputs}`,
		`  bad inputs tried           ${figures.badInputs}`,
		`    refused locally (no request)  ${figures.refusedLocally}`,
		`    refused by the service        ${figures.refusedByService}`,
		`    repaired by the node          ${figures.repaired}`,
		`  key leaks                  ${figures.keyLeaks} (in ${figures.checkedForKey} items/errors and ${figures.logLines} log lines)`,
	];
}

/**
 * docs/reliability.md for these figures (`run`: { jest, e2e, seconds, hosts }), without the soak's section.
 */
export function reliabilityDoc({ faults, contract, bad, figures }, run, date = new Date()) {
	return `# Reliability

Figures of the last \`npm run test:reliability\` (${date.toISOString()}, Node ${process.version},
${os.cpus().length} cores; jest exit code ${run.jest}, real-n8n suites exit code ${run.e2e}, ${run.seconds} s).
Every figure below was counted by the suites while they ran against the local emulator over real HTTP: the
jest suites in \`test/reliability/\` and, in real n8n (hosts ${run.hosts}),
\`test/e2e/money-safety.test.mjs\` and the Retry On Fail test of \`test/e2e/examples.test.mjs\`; the same
suites run inside \`npm test\`.

| Figure | Value |
|---|---|
| Faults injected (scenarios) | ${figures.faultsInjected} |
| Duplicate jobs | ${figures.duplicateJobs} |
| Lost outputs | ${figures.lostOutputs} |
| Bad inputs tried | ${figures.badInputs} |
| — refused locally, no request sent | ${figures.refusedLocally} |
| — refused by the service (the node cannot know), clear message | ${figures.refusedByService} |
| — repaired by the node (long / unicode file names) | ${figures.repaired} |
| Key leaks | ${figures.keyLeaks} (searched in ${figures.checkedForKey} output items and errors, and ${figures.logLines} captured log lines) |

## Rate-limit contract

Every row is a scenario of \`test/reliability/rate-limits.test.ts\`, run through n8n-core's real contexts against
the emulator on a virtual clock; the emulator (referee) judges each request: sent before a Retry-After ended
(per key, per IP, uploads), into an exhausted rate window, a job polled less than 5 s after its previous read,
a refused key used again, a creation retried with another Idempotency-Key or body, a refused request repeated.
Counts are the emulator's own.

| Scenario | Items | Requests | 429s | Violations |
|---|---|---|---|---|
${contract.map((c) => `| ${c.scenario} | ${c.items} | ${c.requests} | ${c.rateLimited} | ${c.violations} |`).join('\n')}

## Faults injected

${faults.map((f) => `- ${f.fault}: duplicate jobs ${f.duplicateJobs}, lost outputs ${f.lostOutputs}`).join('\n')}

## Bad inputs

${bad.map((b) => `- ${b.name}: ${b.repaired ? 'repaired by the node' : b.refusedLocally ? 'refused locally' : 'refused by the service'}`).join('\n')}

## Known limits

- **A create whose every try fails after the service committed it** (connection reset three times in a row):
  the node fails, but the job exists and is charged once. Retry On Fail and n8n's Retry of the execution reuse
  the key (it is anchored on the root execution, which n8n keeps across retries) or pick the job up (retried
  executions look for a job of the same input first); a *new* run of the workflow is a new intent and creates a
  new job, unless the Idempotency Key option is set (e.g. from a row ID).
- **Downloads are retried whole, not resumed with Range**: a cut download is fetched again from the start
  (3 tries). For the sizes of this service (MP4 outputs of short clips) this costs little; resuming would
  need a stream concatenation the n8n helpers do not offer without Node's stream module, which node code
  may not import.
- **A sha256 mismatch that persists** fails the item after 3 downloads; the video stays on the service and
  can be downloaded later with Download Output.
- **Uploads replay by content**: the default upload key is the file's sha256, so the same bytes under another
  name return the first asset (with its first name). Set the Idempotency Key option to upload a copy.
- **Rate-limit waits longer than Max Rate-Limit Wait** (default 60 s) fail the item with the time to retry
  instead of waiting; raise the option to wait longer. Waiting for a turn behind other requests of the key (a
  batch) is not limited by it.
- **Processes sharing a key learn about each other only from the service's answers** (queue-mode workers,
  several n8n instances): a process that sees more requests counted than it sent spreads its requests and keeps
  one per window in reserve, which makes collisions rare, not impossible; a Retry-After one process receives
  does not reach the others. The same holds for the IP limit (429 \`ip_rate_limited\`): processes behind one
  address (the workers of one host) each learn of it from their own 429. The soak counts these collisions
  apart from the violations, naming the process that was told and the one that was not.
- **A poll's jobs are emitted once, even when their execution is lost**: n8n keeps the Job Finished trigger's
  cursor as the poll ends, before the execution it started has run. If that execution dies (a worker killed in
  queue mode; in regular mode, the n8n process stopped as the poll fires: seen in the soak, a restart at the
  poll's second lost that poll's 40 jobs), those jobs are not emitted again; find them with Job → Get Many.
- **The referee allows 500 ms for requests already on their way** when it answers 429 or 401 (a request the
  client sent before it could read that answer); later requests count.
`;
}

/** `doc` followed by the soak's section of `previous` (the file as it was), when it had one. */
export function withSoakSection(doc, previous) {
	const soakStart = previous.indexOf(DOC_START);
	const soakEnd = previous.indexOf(DOC_END);
	const soakSection =
		soakStart >= 0 && soakEnd > soakStart
			? `\n${previous.slice(soakStart, soakEnd + DOC_END.length)}\n`
			: '';
	return doc + soakSection;
}
