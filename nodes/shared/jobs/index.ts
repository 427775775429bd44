// Jobs: what the Job node and the trigger know about generations.
export type { Job } from './job';
export { MIN_POLL_SECONDS, MIN_POLL_MS, isFinished } from './job';
export { JOB_READS_MEMORY, nextReadAt, processJobReads, readJob, rememberJobs } from './reads';
export { JobWatcher } from './watcher';
export {
	capabilitiesOf,
	ensureGenerationAvailable,
	guardCost,
	pricingOf,
	quoteJob,
} from './generation';
export { downloadJobOutput, failedJobError, finishedItem } from './output';
export { readWaitOptions, waitForJob } from './waiting';
export type { WaitOptions } from './waiting';
export {
	DEFAULT_REUSE,
	failedOfInput,
	findAdoptable,
	intentKeyApplies,
	recordUsedJob,
	reuseApplies,
	usedInEarlierRun,
} from './adoption';
export type { ReuseRecentJob } from './adoption';
export { RunBudget } from './budget';
export type { BudgetHold } from './budget';
export { DOWNLOAD_CONCURRENCY, JobRun, openJobRun } from './run';
export type { JobFollower } from './run';
