// The Job object of the service, and what the package can tell from it.
import type { IDataObject } from 'n8n-workflow';

export interface Job extends IDataObject {
	id: string;
	state: 'queued' | 'running' | 'succeeded' | 'failed';
	reservedCredits: number;
	chargedCredits: number;
	output: { assetId: string; mimeType: string; sha256: string } | null;
	outputUrl: string | null;
	errorCode: string | null;
	createdAt: number;
	updatedAt: number;
	input?: IDataObject;
	replayed?: boolean;
}

/** The service asks for 5 to 10 seconds between reads of one job. */
export const MIN_POLL_SECONDS = 5;
export const MIN_POLL_MS = MIN_POLL_SECONDS * 1000;

export function isFinished(job: Pick<Job, 'state'>): boolean {
	return job.state === 'succeeded' || job.state === 'failed';
}
