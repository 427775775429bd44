// When a job should end, for Create's output without Wait for Completion: what n8n's Wait node needs to
// resume near the end ("At Specified Time" = estimatedReadyAt) instead of holding a worker slot. Learned
// from the account's jobs that this n8n process saw succeed (any list, read or wait: rememberJobs).
import type { Job } from '../job';
import { isFinished } from '../job';
import { processStore } from '../../processState';

/** Bounds of what is learned: a long-running process must not grow with every job it saw. */
export const ESTIMATE_MEMORY = {
	/** Keys whose durations are kept at most; beyond, the least recently used goes first. */
	maxKeys: 100,
	/** Kinds (mode and duration) per key at most: 3 modes × 30 durations fit. */
	maxKinds: 100,
	/** Durations kept per kind: the most recently seen jobs. */
	samples: 20,
};

/** No job of the same mode and duration seen finished: the guess (a Wait for Job after it polls on). */
export const FALLBACK_ESTIMATE_SECONDS = 120;

/** One succeeded job's duration and when it ended. */
interface Sample {
	ms: number;
	endedAt: number;
}

/**
 * Module state on purpose: per service key, per kind (`mode|durationSeconds`), the durations
 * (updatedAt − createdAt) of its last succeeded jobs by id. ≤ maxKeys keys (least recently used out
 * first), each ≤ maxKinds kinds (least recently seen out first), each ≤ samples jobs (the ones that
 * ended first go first).
 */
export const processDurations = processStore(
	'durations',
	{ byKey: new Map<string, Map<string, Map<string, Sample>>>() },
	(state) => state.byKey.clear(),
);

function kindOf(job: Pick<Job, 'input'>): string | undefined {
	const mode = job.input?.mode;
	if (typeof mode !== 'string') return undefined;
	return `${mode}|${Number(job.input?.durationSeconds ?? 5)}`;
}

function bounded<V>(map: Map<string, V>, key: string, value: V, max: number): void {
	map.delete(key); // re-insert: the map stays in order of last use
	map.set(key, value);
	while (map.size > max) map.delete(map.keys().next().value as string);
}

/** Jobs the process was just told about: the succeeded ones teach how long their kind takes. */
export function noteFinished(serviceKey: string, jobs: readonly Job[]): void {
	for (const job of jobs) {
		const kind = kindOf(job);
		const ms = job.updatedAt - job.createdAt;
		if (job.state !== 'succeeded' || !kind || !(ms > 0)) continue;
		const kinds = processDurations.byKey.get(serviceKey) ?? new Map<string, Map<string, Sample>>();
		bounded(processDurations.byKey, serviceKey, kinds, ESTIMATE_MEMORY.maxKeys);
		const samples = kinds.get(kind) ?? new Map<string, Sample>();
		bounded(kinds, kind, samples, ESTIMATE_MEMORY.maxKinds);
		if (samples.has(job.id)) continue;
		samples.set(job.id, { ms, endedAt: job.updatedAt });
		if (samples.size <= ESTIMATE_MEMORY.samples) continue;
		let first: [string, Sample] | undefined;
		for (const entry of samples) if (!first || entry[1].endedAt < first[1].endedAt) first = entry;
		samples.delete(first![0]);
	}
}

function median(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	const mid = Math.floor(sorted.length / 2);
	return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Create's estimate of when its job ends, and from what. */
export interface Estimate {
	/** Seconds from the job's creation to its end. */
	estimatedSeconds: number;
	/** createdAt + estimatedSeconds, as an ISO date (n8n's Wait node: "At Specified Time"). */
	estimatedReadyAt: string;
	/** What the estimate is based on, in words. */
	estimatedFrom: string;
}

/**
 * The median duration of the last succeeded jobs of the same mode and duration this process saw on the
 * key (up to ESTIMATE_MEMORY.samples), else FALLBACK_ESTIMATE_SECONDS; a finished job: its own.
 */
export function estimateOf(serviceKey: string, job: Job): Estimate {
	const kind = kindOf(job);
	const mode = String(job.input?.mode ?? 'this mode');
	const seconds = Number(job.input?.durationSeconds ?? 5);
	let ms: number;
	let from: string;
	const samples = kind ? processDurations.byKey.get(serviceKey)?.get(kind) : undefined;
	if (isFinished(job)) {
		ms = Math.max(0, job.updatedAt - job.createdAt);
		from = `the job itself (${job.state})`;
	} else if (samples && samples.size > 0) {
		ms = median([...samples.values()].map((sample) => sample.ms));
		from = `the median of ${samples.size} recent ${mode} job(s) of ${seconds} s that succeeded on this account`;
	} else {
		ms = FALLBACK_ESTIMATE_SECONDS * 1000;
		from = `the default of ${FALLBACK_ESTIMATE_SECONDS} s: no ${mode} job of ${seconds} s seen finished by this n8n process yet`;
	}
	return {
		estimatedSeconds: Math.ceil(ms / 1000),
		estimatedReadyAt: new Date(job.createdAt + Math.ceil(ms / 1000) * 1000).toISOString(),
		estimatedFrom: from,
	};
}
