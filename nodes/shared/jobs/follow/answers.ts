// What the Job node answers a model when it runs as a tool (of an AI agent, or of an MCP client through
// n8n's MCP Server Trigger): the job without what the model sent (`input`) and without what only the
// transport needs (`idempotencyKey`) — context a model pays for and never uses — and, while the job
// has not ended, the next step. In a workflow the items stay exactly as they are (workflows use those
// fields).
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { runsAsTool } from '../../agent';
import { now } from '../../transport';
import type { Job } from '../job';
import { isFinished } from '../job';

/** Fields of a job answer a model never needs. */
const NOT_FOR_MODELS = ['input', 'idempotencyKey'];
/** Fields of a quote that only repeat what the model asked for. */
const QUOTE_ECHO = ['mode', 'durationSeconds'];

function without(json: IDataObject, fields: readonly string[]): IDataObject {
	return Object.fromEntries(Object.entries(json).filter(([key]) => !fields.includes(key)));
}

/**
 * When a model should look at an unfinished job again: about as long as the job has already existed
 * (the service gives no estimate of the time left; asking again after as long again keeps a model's
 * calls few however long the job takes), never sooner than 10 s (the service advises reading a job
 * every 5 to 10 s) and never later than 60 s; in steps of 5 s.
 */
export function lookAgainInSeconds(createdAt: unknown, clockNow: number): number {
	const age = typeof createdAt === 'number' ? (clockNow - createdAt) / 1000 : 0;
	return Math.ceil(Math.min(60, Math.max(10, age)) / 5) * 5;
}

/** The next step for a model while a job has not ended; `waitedSeconds`: how long the call waited. */
export function nextStep(job: IDataObject, clockNow: number, waitedSeconds?: number): string {
	const state = String(job.state ?? 'unknown');
	const waited = waitedSeconds === undefined ? '' : ` after ${waitedSeconds} s`;
	const again = lookAgainInSeconds(job.createdAt, clockNow);
	return `Still ${state}${waited}: the job keeps running and is not lost. Call Get Job with job ID ${String(job.id)} in about ${again} s.`;
}

/**
 * A job (Create, Get, Wait for Job) as the node outputs it: unchanged in a workflow; for a model lean,
 * with `nextStep` while it has not ended. `waitedSince`: when the call began to wait (the node run's
 * start), for a wait that ended before the job did.
 */
export function jobAnswer(
	ctx: IExecuteFunctions,
	json: IDataObject,
	waitedSince?: number,
): IDataObject {
	if (!runsAsTool(ctx)) return json;
	const answer = without(json, NOT_FOR_MODELS);
	if (!isFinished(json as Pick<Job, 'state'>)) {
		const at = now();
		const waited = waitedSince === undefined ? undefined : Math.round((at - waitedSince) / 1000);
		answer.nextStep = nextStep(json, at, waited);
	}
	return answer;
}

/** A quote as the node outputs it: unchanged in a workflow; for a model without the echo of its input. */
export function quoteAnswer(ctx: IExecuteFunctions, json: IDataObject): IDataObject {
	return runsAsTool(ctx) ? without(json, QUOTE_ECHO) : json;
}
