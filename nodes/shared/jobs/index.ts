// Jobs: what the Job node and the trigger know about generations — creating one (create.ts), waiting for
// it (waiting.ts, watcher.ts) and its output (output.ts), with what a node run shares (run.ts).
//
// Create with Wait for Completion, file by file, from the node to the HTTP request:
//  1. GenerationServiceJob/GenerationServiceJob.node.ts     execute → the node's router
//  2. GenerationServiceJob/actions/router.ts                the operations, and openJobRun (run.ts) for
//                                                           the run's state
//  3. shared/router.ts                                      routeItems: one operation per item, then the
//                                                           items that went on in the background, in order
//  4. GenerationServiceJob/actions/job/create.operation.ts  the form; reads and checks it → createJob
//  5. shared/jobs/create.ts                                 createJob: capabilities and the cost guard's
//                                                           quote (generation.ts), a recent job picked up
//                                                           (adoption.ts), the run budget's hold (budget.ts),
//                                                           POST /jobs under the intent's key
//                                                           (idempotency.ts), then run.continueLater → wait
//  6. shared/jobs/waiting.ts                                waitForJob: the run's watcher, then the item
//                                                           with its MP4 (output.ts); as a tool the item
//                                                           comes by Max Wait as a Tool, lean (answers.ts)
//  7. shared/jobs/watcher.ts, keyWatcher.ts, looks.ts       the process-wide watcher of the key: one list
//                                                           page per interval for every execution waiting
//                                                           on the key, room for the next look reserved in
//                                                           the key's window; a follower answered at
//                                                           its answerBy
//  8. shared/transport/request.ts                           sendRequest: paced, authenticated by n8n
//                                                           (httpRequestWithAuthentication), retried
//  9. shared/transport/pacer.ts                             KeyPacer.acquire: when the request may leave
//                                                           (pacers.ts finds the key's pacer, holds.ts
//                                                           has what holds a key back besides its window)
export type { Job } from './job';
export { isFinished } from './job';
export { JOB_READS_MEMORY, processJobReads, readJob, rememberJobs } from './follow/reads';
export { ensureGenerationAvailable, pricingOf, quoteJob } from './create/generation';
export { downloadJobOutput } from './follow/output';
export { readWaitOptions, waitForJob } from './follow/waiting';
export { jobAnswer, quoteAnswer } from './follow/answers';
export type { WaitOptions } from './follow/waiting';
export { DEFAULT_REUSE } from './create/adoption';
export type { ReuseRecentJob } from './create/adoption';
export { createJob } from './create/create';
export type { CreateRequest } from './create/create';
export { RunBudget } from './create/budget';
export { DOWNLOAD_CONCURRENCY, JobRun, openJobRun } from './run';
export type { JobFollower } from './follow/watcher';
export { processWatchers } from './follow/watcher';
export { RECENT_JOBS_MEMORY, processRecentJobs } from './create/recent';
export { ESTIMATE_MEMORY, FALLBACK_ESTIMATE_SECONDS, processDurations } from './create/estimate';
export { CAPABILITIES_MEMORY, processCapabilities } from './create/generation';
