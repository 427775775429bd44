// Jobs: what the Job node and the trigger know about generations, in two rooms — creating a job exactly
// once (create/) and following jobs until they end, with their output and what the process learns from
// them, the recent-jobs view and job durations (follow/; it never imports create/) — and what a node
// run of the Job node shares (run.ts). docs/architecture.md has the words used here (glossary).
//
// Create, file by file, from the node to the HTTP request (the main path; each further concern is one
// call from create/create.ts or transport/attempt.ts, listed in docs/architecture.md):
//  1. GenerationServiceJob/GenerationServiceJob.node.ts     execute → the node's router
//  2. GenerationServiceJob/actions/router.ts                openJobRun (run.ts), then routeItems with the
//                                                           operations actions/job/index.ts exports
//  3. shared/router.ts                                      routeItems: one operation per item, then the
//                                                           items that went on in the background, in order
//  4. GenerationServiceJob/actions/job/create.operation.ts  the form; reads and checks it → createJob
//  5. shared/jobs/create/create.ts                          createJob: capabilities and Max Credits
//                                                           (generation.ts), picking up an earlier job
//                                                           (adoption.ts), the key (idempotency.ts), the run
//                                                           budget (budget.ts), POST /jobs, the estimate
//                                                           (follow/estimate.ts) or Wait for Completion
//                                                           (follow/waiting.ts)
//  6. shared/transport/request.ts                           sendRequest: prepared once, then the retry loop
//  7. shared/transport/retry.ts                             withRetries: which failures get another try
//  8. shared/transport/attempt.ts                           sendOnce: the key's pacer (pacers.ts) lets it
//                                                           leave; n8n's httpRequestWithAuthentication
//  9. shared/transport/answer.ts                            classify: the answer's meaning, told to the pacer
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
export { RECENT_JOBS_MEMORY, processRecentJobs } from './follow/recent';
export { ESTIMATE_MEMORY, FALLBACK_ESTIMATE_SECONDS, processDurations } from './follow/estimate';
export { CAPABILITIES_MEMORY, processCapabilities } from './create/generation';
