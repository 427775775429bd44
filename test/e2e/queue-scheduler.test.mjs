// The Job Finished trigger under n8n's durable poll scheduler, in queue mode: n8n 2.41.1, a main and two workers
// sharing PostgreSQL 17 and Redis, with the four settings that hand poll triggers to the scheduler and keep their
// cursor in n8n's poller_state table (committed with the execution a poll starts):
//
//   N8N_SCHEDULER_ENABLED=true  N8N_SCHEDULER_POLL_TRIGGERS_ENABLED=true
//   N8N_USE_WORKFLOW_PUBLICATION_SERVICE=true  N8N_POLLER_DURABLE_CURSORS_ENABLED=true
//
// and a short N8N_SCHEDULER_POLL_TIMEOUT (20 s instead of 45 s: n8n abandons a longer poll and keeps nothing
// of it; it gives the node 15 s). Each case has its own emulator account (its own job list), its own key and
// its own trigger workflow (Download Output on), and counts every finished job the trigger emitted over all
// the executions it started; n8n's own record of each poll (its scheduled_task rows) says how long it took.
//
//   a. a poll that fails part-way: the 4th of 6 downloads answers 500 three times (the client's tries), so the
//      poll fails after 3 downloads; n8n records the failure and polls again: all 6 come out once
//   b. polls that would outlast the poll timeout: a catalogue (the suite) creates a batch of 100 jobs with the
//      trigger's own key, a key of 60 requests a minute, on top of 300 older jobs (4 pages of the list); the
//      jobs end within seconds, so the trigger has 100 MP4s to download on a key whose window the catalogue
//      used, and each download beyond the window's room waits for the next window (up to a minute): every
//      poll ends within n8n's budget, emits what it downloaded, and the next poll goes on; all 100 come out
//      once, each with its MP4 (the trigger of 0.3.0 was abandoned at every poll from the third on and never
//      sent 85 of them)
//   c. the main SIGKILLed mid-poll (its downloads slowed by the emulator) and started again: every job once
//
// a and b run at once (their keys, accounts and workflows are their own), c alone. The emulator's rate windows
// are the service's minute and its jobs last about a second. Runs on host 2 (n8n 2.41.1) when GS_E2E_HOSTS
// includes it; needs what the queue-mode suite needs.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';

import { pidAlive } from '../../tools/lib/locks.mjs';
import { pgClient } from '../../tools/lib/postgres.mjs';
import { groupPids } from '../../tools/lib/process.mjs';
import { startQueueStack } from '../../tools/lib/queue-stack.mjs';
import { itemsOf } from '../../tools/lib/run-data.mjs';
import { pause, waitUntil } from '../../tools/lib/wait.mjs';
import { jobFinished, workflow } from '../../tools/lib/workflow.mjs';
import { INSTALL_TIMEOUT_MS, e2eHosts, ensureHost, packOnce, startEmulator } from './harness.mjs';

const log = (msg) => process.stderr.write(`[queue-scheduler] ${msg}\n`);
const secs = (ms) => `${(ms / 1000).toFixed(1)} s`;
const clock = (ms) => new Date(ms).toISOString().slice(14, 19);

const POLL_TIMEOUT_S = 20;
/** The scheduler with durable cursors, as issue 49 names it; the timeout shortened from n8n's 45 s. */
const SCHEDULER_ENV = {
	N8N_SCHEDULER_ENABLED: 'true',
	N8N_SCHEDULER_POLL_TRIGGERS_ENABLED: 'true',
	N8N_USE_WORKFLOW_PUBLICATION_SERVICE: 'true',
	N8N_POLLER_DURABLE_CURSORS_ENABLED: 'true',
	N8N_SCHEDULER_POLL_TIMEOUT: String(POLL_TIMEOUT_S),
};
/** The emulator's rate window: the service's minute (longer than the poll timeout, as in production). */
const WINDOW_MS = 60_000;
const JOB_TIMING = { queuedMs: 200, runningMs: 800 };
/** Requests of each window the catalogue of case b leaves to the trigger at least. */
const CATALOGUE_LEAVES = 5;
const WORKERS = 2;
const TRIGGER = 'Job Finished';
const ENDED = (status) => !['running', 'new', 'waiting', 'unknown'].includes(status);
const ABANDONED = /Poll exceeded its timeout and was abandoned/g;

const runQueue = e2eHosts().includes('2');

describe(
	'Job Finished under the durable poll scheduler (n8n 2.41.1 queue mode, durable cursors, 20 s poll timeout)',
	{
		skip: runQueue ? false : 'GS_E2E_HOSTS does not include host 2',
		timeout: INSTALL_TIMEOUT_MS + 25 * 60_000,
	},
	() => {
		let emu;
		let stack;
		const suiteStart = Date.now();
		const cases = {};

		/** A case: its own account, trigger key, creator keys, credential and trigger workflow. */
		const makeCase = (name, { second, rpm = 120, creatorKeys = 2 }) => {
			const accountId = `acct_sched_${name}`;
			emu.control.grantCredits(1_000_000, accountId);
			const key = emu.control.createKey({
				accountId,
				requestsPerMinute: rpm,
				label: `sched-${name}`,
			});
			const creators = Array.from({ length: creatorKeys }, (_, i) => i + 1).map(
				(i) =>
					emu.control.createKey({ accountId, requestsPerMinute: 120, label: `sched-${name}-c${i}` })
						.secret,
			);
			const credential = {
				id: `gsSched${name}Cred`,
				name: `Generation Service (scheduler ${name})`,
			};
			const id = `gsSched${name}`;
			return {
				name,
				key,
				creators,
				id,
				credential: {
					...credential,
					type: 'generationServiceApi',
					data: { apiKey: key.secret, baseUrl: emu.baseUrl },
				},
				workflow: workflow({
					id,
					name: `Scheduler ${name}: Job Finished`,
					ids: `d${'abc'.indexOf(name) + 1}000000`,
					nodes: [
						jobFinished(
							TRIGGER,
							{ second, jobState: 'both', jobOptions: { downloadOutput: true } },
							{ credential },
						),
					],
				}),
			};
		};

		/**
		 * Creates `n` text-to-video jobs, one after the other, with the case's creator keys (never its trigger
		 * key): they end in the order they were created. Their ids.
		 */
		const createJobs = async (c, n, what) => {
			const ids = [];
			for (let i = 0; i < n; i++) {
				const res = await fetch(`${emu.baseUrl}/jobs`, {
					method: 'POST',
					headers: {
						Authorization: `Bearer ${c.creators[i % c.creators.length]}`,
						'Content-Type': 'application/json',
						'Idempotency-Key': `sched-${c.name}-${randomUUID()}`,
					},
					body: JSON.stringify({
						mode: 'text_to_video',
						prompt: `scheduler ${c.name}: ${what} ${i + 1}`,
						durationSeconds: 5,
					}),
				});
				assert.equal(res.status, 202, await res.clone().text());
				ids.push((await res.json()).data.id);
			}
			return ids;
		};
		const jobState = (id) => emu.control.jobs().find((j) => j.id === id)?.state;
		const allEnded = (ids) => () =>
			ids.every((id) => ['succeeded', 'failed'].includes(jobState(id)));

		/** The trigger's requests (GET with its key: the catalogue of case b only creates). */
		const triggerRequests = (c) =>
			emu.control.journal().filter((e) => e.keyId === c.key.keyId && e.method === 'GET');
		const looks = (c) =>
			triggerRequests(c).filter((e) => e.path === '/v1/jobs' && !/cursor=/.test(e.query ?? ''));

		/** n8n's scheduler rows and poller state for the case's trigger (PostgreSQL, beside n8n). */
		const schedulerState = async (c) => {
			const db = await pgClient(stack.postgres);
			try {
				const tasks = await db.query(
					`SELECT id, status, attempts, "leaseEpoch", "runAt", "startedAt", "finishedAt", "errorMessage"
					 FROM scheduled_task WHERE payload->>'workflowId' = $1 ORDER BY "startedAt" NULLS LAST`,
					[c.id],
				);
				const state = await db.query(
					`SELECT cursor, "consecutiveErrors", "backoffUntil" FROM poller_state WHERE "workflowId" = $1`,
					[c.id],
				);
				return { tasks: tasks.rows, poller: state.rows[0] };
			} finally {
				await db.end();
			}
		};
		const cursorOf = (poller) => poller?.cursor?.cursor;

		/**
		 * The polls n8n ran for the case since `from` (its scheduled_task rows: when each started, how long n8n
		 * gave it before it finished) with the trigger's requests from each poll's start to the next one's:
		 * pages (whether the first went on from a page of an earlier poll), MP4s, answers ≥ 400, and requests
		 * that came after n8n had ended the poll (an abandoned poll going on by itself).
		 */
		const pollsOf = async (c, from) => {
			const { tasks } = await schedulerState(c);
			const requests = triggerRequests(c);
			const ran = tasks.filter((x) => x.startedAt && x.startedAt.getTime() >= from);
			return ran.map((x, i) => {
				const start = x.startedAt.getTime();
				const end = x.finishedAt?.getTime();
				const next = ran[i + 1]?.startedAt.getTime() ?? Infinity;
				const mine = requests.filter((e) => e.at >= start && e.at < next);
				const pages = mine.filter((e) => e.path === '/v1/jobs');
				return {
					start,
					ms: end === undefined ? undefined : end - start,
					status: x.status,
					attempts: x.attempts,
					pages: pages.length,
					continued: /cursor=/.test(pages[0]?.query ?? ''),
					mp4s: mine.filter((e) => e.path.endsWith('/output') && e.status === 200).length,
					errors: mine.filter((e) => e.status >= 400).length,
					// a delayed answer is journaled when the emulator handles it, up to 2 s after it arrived
					afterEnd: end === undefined ? 0 : mine.filter((e) => e.at > end + 2500).length,
				};
			});
		};
		const describePolls = (polls) =>
			polls
				.map(
					(p) =>
						`${clock(p.start)} ${p.ms === undefined ? '?' : secs(p.ms)} ${p.continued ? 'on:' : ''}${p.pages}p/${p.mp4s}mp4${p.errors ? `/${p.errors}err` : ''}${p.afterEnd ? ` +${p.afterEnd} after n8n ended it` : ''}${p.attempts ? ` (attempt ${p.attempts + 1})` : ''}`,
				)
				.join('; ');

		/**
		 * Every execution of the case's workflow, with the job ids and MP4s its trigger emitted; `pending`: the
		 * executions not ended yet.
		 */
		const emissions = (c) => {
			const seen = new Map();
			return async () => {
				const list = await stack.executions(c.id);
				for (const e of list) {
					if (seen.has(e.id) || !ENDED(e.status)) continue;
					const full = await stack.execution(e.id);
					const items = itemsOf(full, TRIGGER);
					seen.set(e.id, {
						id: e.id,
						status: e.status,
						mode: e.mode,
						ids: items.map((i) => i.json.id),
						mp4s: items.filter(
							(i) =>
								i.binary?.data?.mimeType === 'video/mp4' &&
								i.binary.data.fileName === `${i.json.id}.mp4`,
						).length,
						succeeded: items.filter((i) => i.json.state === 'succeeded').length,
						error: full.data?.resultData?.error?.message,
					});
				}
				const executions = [...seen.values()];
				const counts = new Map();
				for (const x of executions)
					for (const id of x.ids) counts.set(id, (counts.get(id) ?? 0) + 1);
				return { executions, counts, pending: list.filter((e) => !seen.has(e.id)).length };
			};
		};
		const coverage = (read, ids) => async () => {
			const now = await read();
			return now.pending === 0 && ids.every((id) => now.counts.has(id)) ? now : undefined;
		};
		/** Every id emitted exactly once, no other id; each succeeded job with its MP4. */
		const assertExactlyOnce = (now, ids) => {
			const twice = [...now.counts].filter(([, n]) => n > 1);
			assert.deepEqual(twice, [], 'jobs emitted more than once');
			assert.deepEqual(
				[...now.counts.keys()].sort(),
				[...ids].sort(),
				'every job emitted, no other',
			);
			for (const x of now.executions.filter((e) => e.ids.length > 0)) {
				assert.equal(x.status, 'success', `execution ${x.id}: ${x.error}`);
				assert.equal(x.mode, 'trigger');
				assert.equal(x.mp4s, x.succeeded, `execution ${x.id}: an MP4 for each succeeded job`);
			}
		};
		/** The referee saw no mistake by the case's key (the cases run at once: each judges its own). */
		const assertNoViolations = (c) =>
			assert.deepEqual(
				emu.control.violations().filter((v) => v.keyId === c.key.keyId),
				[],
				'referee violations',
			);
		const abandonedSince = (from) =>
			(stack.logOf('main').slice(from).match(ABANDONED) ?? []).length;

		/**
		 * Publishes the case's workflow: n8n polls at once (the activation poll), then on its schedule.
		 * `c.published` resolves once a scheduled poll has committed the trigger's cursor, noting whether the
		 * activation poll had.
		 */
		const publish = async (c) => {
			const t0 = Date.now();
			await stack.activate(c.id);
			c.published = (async () => {
				await waitUntil(`${c.name}'s poll at activation`, () => looks(c).length >= 1, {
					timeoutMs: 30_000,
				});
				const afterActivation = cursorOf((await schedulerState(c)).poller) !== undefined;
				await waitUntil(
					`${c.name}'s cursor committed by a scheduled poll`,
					async () => cursorOf((await schedulerState(c)).poller),
					{ timeoutMs: 90_000, everyMs: 1000 },
				);
				c.activation = { ms: Date.now() - t0, afterActivation };
			})();
			c.published.catch(() => {}); // awaited with the others' (Promise.all)
		};

		before(
			async () => {
				await ensureHost({ version: '2' });
				const tarball = await packOnce();
				emu = await startEmulator({ jobTiming: JOB_TIMING, rateWindowMs: WINDOW_MS });
				cases.a = makeCase('a', { second: 10 });
				cases.b = makeCase('b', { second: 22, rpm: 60, creatorKeys: 4 });
				cases.c = makeCase('c', { second: 35 });
				// b's list: 300 older jobs, ended before the trigger is published (history, never emitted); with
				// b's batch on top, 4 pages that every poll walks (all created within its 5 min overlap). Made while the
				// stack starts, not after it: they need only the emulator.
				const older = (async () => {
					cases.b.older = await createJobs(cases.b, 300, 'older');
					await waitUntil('the older jobs ended', allEnded(cases.b.older), { timeoutMs: 60_000 });
				})();
				older.catch(() => {}); // awaited below, after the stack
				stack = await startQueueStack({
					tarball,
					workers: WORKERS,
					concurrency: 3,
					env: { ...SCHEDULER_ENV, N8N_WORKFLOW_PUBLICATION_OUTBOX_POLL_INTERVAL_MS: '1000' },
					log,
					credentials: Object.values(cases).map((c) => c.credential),
					workflows: Object.values(cases).map((c) => c.workflow),
				});
				await older;
				for (const c of Object.values(cases)) await publish(c); // one REST session: one at a time
				await Promise.all(Object.values(cases).map((c) => c.published));
				log(
					`stack up and triggers published after ${secs(Date.now() - suiteStart)}: ${Object.values(
						cases,
					)
						.map((c) => `${c.name} ${secs(c.activation.ms)}`)
						.join(', ')}`,
				);
			},
			{ timeout: INSTALL_TIMEOUT_MS },
		);

		after(async () => {
			if (stack) {
				log(`peak RSS over the suite: ${stack.formatRss(stack.peakRss())}`);
				log(`main log: ${abandonedSince(0)} poll(s) abandoned at the timeout over the suite`);
				await stack.stop({ keepLogs: process.env.GS_E2E_KEEP_LOGS === '1' });
			}
			await emu?.close(); // the referee: no client mistake over the whole suite
			log(`suite wall time ${secs(Date.now() - suiteStart)}`);
		});

		describe('a and b at once', { concurrency: true }, () => {
			it('a. a poll that fails part-way (a download answers 500 three times) is polled again: each job once', async (t) => {
				const c = cases.a;
				const t0 = Date.now();
				const read = emissions(c);
				// the activation poll at publishing kept no cursor: the first scheduled poll was the trigger's
				// activation (docs/nodes.md)
				assert.equal(c.activation.afterActivation, false, "n8n kept the activation poll's cursor");
				const ids = await createJobs(c, 6, 'fault');
				await waitUntil('the 6 jobs ended', allEnded(ids), { timeoutMs: 30_000 });
				// the 4th to end fails on every try the client makes (3): the poll fails after 3 downloads
				emu.control.injectFault({
					method: 'GET',
					path: new RegExp(`^/v1/jobs/${ids[3]}/output$`),
					keyId: c.key.keyId,
					times: 3,
					action: 'error_500_before_commit',
				});
				const failed = () =>
					triggerRequests(c).filter((e) => e.path.endsWith(`${ids[3]}/output`)).length >= 3;
				await waitUntil('the failing poll', failed, { timeoutMs: 75_000, everyMs: 500 });
				await pause(2000);
				const afterFailure = await schedulerState(c);
				const now = await waitUntil('all 6 emitted', coverage(read, ids), {
					timeoutMs: 150_000,
					everyMs: 2000,
				});
				const polls = await pollsOf(c, t0);
				const state = await schedulerState(c);
				t.diagnostic(
					`published: the first scheduled poll committed the cursor ${secs(c.activation.ms)} after publishing; the activation poll kept none`,
				);
				t.diagnostic(
					`polls: ${describePolls(polls)}; poller_state after the failure: consecutiveErrors ${afterFailure.poller?.consecutiveErrors}, backoff until ${afterFailure.poller?.backoffUntil?.toISOString?.().slice(11, 23)}; now ${state.poller?.consecutiveErrors}`,
				);
				t.diagnostic(
					`executions: ${now.executions.map((x) => `#${x.id} ${x.status} ${x.ids.length} job(s)${x.error ? ` (${x.error})` : ''}`).join('; ')}; case ${secs(Date.now() - t0)}`,
				);
				const failing = polls.find((p) => p.errors > 0);
				assert.ok(failing, 'a poll met the faults');
				assert.equal(failing.mp4s, 3, 'the failing poll downloaded 3 MP4s first');
				assert.equal(afterFailure.poller?.consecutiveErrors, 1, 'n8n recorded the failed poll');
				assert.equal(state.poller?.consecutiveErrors, 0, 'and cleared it after the next');
				assertExactlyOnce(now, ids);
				assert.ok(
					now.executions.some((x) => x.status === 'error' && x.ids.length === 0),
					'n8n recorded the failed poll as an error execution',
				);
				assertNoViolations(c);
			});

			it("b. a catalogue creates 100 jobs with the trigger's key of 60 requests a minute: every poll ends within the timeout, each job once", async (t) => {
				const c = cases.b;
				const t0 = Date.now();
				const read = emissions(c);
				const logFrom = stack.logOf('main').length;
				let now;
				let batch = [];
				try {
					batch = await catalogue(c, 100);
					await waitUntil('the batch ended', allEnded(batch), { timeoutMs: 60_000 });
					now = await waitUntil('the batch emitted', coverage(read, batch), {
						timeoutMs: 8 * 60_000,
						everyMs: 3000,
					});
				} finally {
					const polls = await pollsOf(c, t0).catch(() => []);
					t.diagnostic(
						`polls since the catalogue started: ${describePolls(polls)}; abandoned at the timeout (main's log): ${abandonedSince(logFrom)}`,
					);
					if (now)
						t.diagnostic(
							`executions: ${now.executions.map((x) => `#${x.id} ${x.ids.length}`).join(', ')}; case ${secs(Date.now() - t0)}`,
						);
				}
				assertExactlyOnce(now, batch);
				assert.equal(abandonedSince(logFrom), 0, 'no poll abandoned at the timeout');
				const polls = await pollsOf(c, t0);
				for (const p of polls) {
					assert.equal(p.status, 'succeeded');
					assert.ok(p.ms < POLL_TIMEOUT_S * 1000, `a poll took ${secs(p.ms)}`);
					assert.equal(p.afterEnd, 0, 'no request after n8n ended a poll');
				}
				assertNoViolations(c);
			});
		});

		/**
		 * A catalogue's batch: `n` jobs created with the trigger's own key, as fast as its window allows and
		 * never beyond (it reads X-RateLimit-Remaining after each create, leaves a few requests for the trigger
		 * and waits for the next window when they are used up).
		 */
		async function catalogue(c, n) {
			const ids = [];
			while (ids.length < n) {
				const res = await fetch(`${emu.baseUrl}/jobs`, {
					method: 'POST',
					headers: {
						Authorization: `Bearer ${c.key.secret}`,
						'Content-Type': 'application/json',
						'Idempotency-Key': `sched-${c.name}-catalogue-${randomUUID()}`,
					},
					body: JSON.stringify({
						mode: 'text_to_video',
						prompt: `scheduler ${c.name}: catalogue ${ids.length + 1}`,
						durationSeconds: 5,
					}),
				});
				assert.equal(res.status, 202, await res.clone().text());
				ids.push((await res.json()).data.id);
				if (Number(res.headers.get('x-ratelimit-remaining')) <= CATALOGUE_LEAVES) {
					const resetAt = Number(res.headers.get('x-ratelimit-reset')) * 1000;
					await pause(Math.max(0, resetAt - Date.now()) + 1000);
				}
			}
			return ids;
		}

		describe('c alone', () => {
			it('c. the main SIGKILLed mid-poll and started again: each job once', async (t) => {
				const c = cases.c;
				const t0 = Date.now();
				const read = emissions(c);
				const ids = await createJobs(c, 12, 'kill');
				await waitUntil('the 12 jobs ended', allEnded(ids), { timeoutMs: 30_000 });
				// each download takes 2 s at the emulator: a poll lasts long enough to be cut
				emu.control.injectFault({
					method: 'GET',
					path: /^\/v1\/jobs\/job_[0-9a-f]+\/output$/,
					keyId: c.key.keyId,
					times: 1000,
					action: 'delay',
					delayMs: 2000,
				});
				const outputs = () => triggerRequests(c).filter((e) => e.path.endsWith('/output')).length;
				await waitUntil('the poll downloading', () => outputs() >= 2, {
					timeoutMs: 75_000,
					everyMs: 100,
				});
				const main = stack.processes().find((p) => p.name === 'main');
				const killedAt = Date.now();
				process.kill(main.pid, 'SIGKILL');
				await waitUntil(
					'the main gone',
					() => !stack.processes().find((p) => p.name === 'main').running,
					{ timeoutMs: 15_000 },
				);
				await pause(1000);
				for (const pid of groupPids(main.pid).filter(pidAlive)) process.kill(pid, 'SIGKILL');
				const downloadsAtKill = outputs();
				const restart = await stack.startMain();
				let now;
				try {
					now = await waitUntil('all 12 emitted', coverage(read, ids), {
						timeoutMs: 6 * 60_000,
						everyMs: 2000,
					});
				} finally {
					emu.control.clearFaults();
					const polls = await pollsOf(c, t0).catch(() => []);
					t.diagnostic(
						`main SIGKILLed after ${downloadsAtKill} MP4(s) of the poll, ready again in ${secs(restart.ms)}; polls: ${describePolls(polls)}`,
					);
					if (now)
						t.diagnostic(
							`executions: ${now.executions.map((x) => `#${x.id} ${x.status} ${x.ids.length}`).join(', ')}; all emitted ${secs(Date.now() - killedAt)} after the kill; case ${secs(Date.now() - t0)}`,
						);
				}
				assertExactlyOnce(now, ids);
				assertNoViolations(c);
			});
		});
	},
);
