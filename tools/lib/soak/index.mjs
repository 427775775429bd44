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
// the judging is pure functions over them (judge.mjs, unit-tested in test/tools/), as are the end-of-run checks
// (checks.mjs).
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
//
// The modules, one job each (imports go from run.mjs down, none back up):
//   index.mjs           this: the API the soak command (scripts/soak.mjs) and the queue-mode suite use
//   settings.mjs        the emulator's settings, key A's limit, the ids of credentials, workflows, webhooks
//   sink.mjs            the sink MP4s are posted to (also the bench's), and the post's parameters
//   workflows.mjs       the three workflows
//   setup.mjs           the keys and credentials, setupSoak and publishSoak
//   run-state.mjs       what a run's actors share: its clock, counters, intents, Redis restarts, the end flag
//   load.mjs            the callers
//   faults.mjs          the seeded streams (prng) and the service faults
//   process-faults.mjs  the process faults: their seeded plan and their actions on the stack
//   watchers.mjs        the facts for the judge: the process behind each request (socketOwner)
//   monitor.mjs         progress lines and RSS samples
//   checks.mjs          the end-of-run checks (pure)
//   judge.mjs           violations told from collisions of processes sharing a limit; executions (pure)
//   report.mjs          the report object and its human summary (formatReport)
//   doc-section.mjs     the soak's section of docs/reliability.md (writeDocSection)
//   run.mjs             runSoak: schedules, runs and reports by calling the others
export { writeDocSection } from './doc-section.mjs';
export { describeCollisions } from './judge.mjs';
export { PROCESS_FAULTS } from './process-faults.mjs';
export { formatReport } from './report.mjs';
export { runSoak } from './run.mjs';
export { SOAK_EMULATOR } from './settings.mjs';
export { publishSoak, setupSoak } from './setup.mjs';
