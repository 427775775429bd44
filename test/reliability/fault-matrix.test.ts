/**
 * Fault matrix: faults injected by the emulator on real HTTP, driven through the nodes. Each case
 * asserts the jobs that exist, the credits reserved/charged, the ledger invariant, and the output or
 * the error message.
 */
import type { IDataObject } from 'n8n-workflow';

import { GenerationServiceJob } from '../../nodes/GenerationServiceJob/GenerationServiceJob.node';
import type { Emulated } from '../helpers/emulated';
import { sha256, startEmulated } from '../helpers/emulated';
import { binaryBytes, runNode } from '../helpers/n8n';
import { record } from './metrics';

const jobNode = new GenerationServiceJob();
const textJob = {
	mode: 'text_to_video',
	prompt: 'a lighthouse in a storm',
	durationSeconds: 5,
	aspectRatio: '9:16',
};

let env: Emulated;
beforeEach(async () => {
	env = await startEmulated();
});
afterEach(async () => {
	await env.close();
});

function runJob(parameters: IDataObject, extra: Partial<Parameters<typeof runNode>[0]> = {}) {
	return runNode({
		node: jobNode,
		parameters: { resource: 'job', ...parameters } as never,
		credentials: env.credentials,
		...extra,
	});
}

async function failure(promise: Promise<unknown>) {
	try {
		await promise;
	} catch (error) {
		return error as Error & { context: IDataObject };
	}
	throw new Error('expected a failure');
}

function books() {
	const { balance, entries, invariantHolds } = env.emu.control.ledger();
	return {
		jobs: env.emu.control.jobs().length,
		reserves: entries.filter((e) => e.kind === 'reserve').length,
		reserved: balance.reserved,
		spent: balance.spent,
		invariantHolds,
	};
}

function report(
	fault: string,
	outcome: { duplicateJobs: number; lostOutputs: number; ok: boolean },
) {
	record('fault', { fault, ...outcome });
}

describe('fault matrix (Job node, emulator faults over real HTTP)', () => {
	it('connection reset after POST /v1/jobs was committed → retried with the same key, replayed: one job, one reservation', async () => {
		env.emu.control.injectFault({ method: 'POST', path: '/v1/jobs', action: 'reset_after_commit' });
		const [[item]] = await runJob({ operation: 'create', ...textJob });
		const posts = env.emu.control
			.journal()
			.filter((e) => e.method === 'POST' && e.path === '/v1/jobs');
		expect(posts).toHaveLength(2);
		expect(posts[0].idempotencyKey).toBe(posts[1].idempotencyKey);
		expect(item.json.replayed).toBe(true);
		expect(books()).toEqual({ jobs: 1, reserves: 1, reserved: 8, spent: 0, invariantHolds: true });
		report('reset after commit on create', {
			duplicateJobs: books().jobs - 1,
			lostOutputs: 0,
			ok: true,
		});
	});

	it('500 before commit on create → retried, one job', async () => {
		env.emu.control.injectFault({
			method: 'POST',
			path: '/v1/jobs',
			action: 'error_500_before_commit',
		});
		const [[item]] = await runJob({ operation: 'create', ...textJob });
		expect(item.json.state).toBe('queued');
		expect(item.json.replayed).toBe(false);
		expect(books()).toEqual({ jobs: 1, reserves: 1, reserved: 8, spent: 0, invariantHolds: true });
		report('500 before commit on create', {
			duplicateJobs: books().jobs - 1,
			lostOutputs: 0,
			ok: true,
		});
	});

	it.each(['/v1/jobs/quote', '/v1/jobs'])(
		'503 engine_unavailable on %s → clear error, nothing reserved',
		async (path) => {
			env.emu.control.injectFault({
				method: 'POST',
				path,
				action: 'error_503',
				code: 'engine_unavailable',
				times: 5,
			});
			const error = await failure(
				runJob({ operation: path.endsWith('quote') ? 'quote' : 'create', ...textJob }),
			);
			expect(error.message).toBe(
				'The generation engine is unavailable right now; no credits were reserved. Try again later (see Get Capabilities for the reason).',
			);
			expect(books()).toEqual({
				jobs: 0,
				reserves: 0,
				reserved: 0,
				spent: 0,
				invariantHolds: true,
			});
			report(`503 engine_unavailable on ${path}`, { duplicateJobs: 0, lostOutputs: 0, ok: true });
		},
	);

	it('429 storm on create and on polls → completes, never requests before Retry-After', async () => {
		env.emu.control.injectFault({
			method: 'POST',
			path: '/v1/jobs',
			action: 'rate_limit',
			retryAfter: 3,
			times: 3,
		});
		env.emu.control.injectFault({
			method: 'GET',
			path: /^\/v1\/jobs\/job_[0-9a-f]+$/,
			action: 'rate_limit',
			retryAfter: 7,
			times: 2,
		});
		const [[item]] = await runJob({
			operation: 'create',
			...textJob,
			options: { waitForCompletion: true },
		});
		expect(item.json.state).toBe('succeeded');
		expect(sha256(await binaryBytes(item))).toBe((item.json.output as IDataObject).sha256);
		const journal = env.emu.control.journal();
		let limited = 0;
		journal.forEach((entry, i) => {
			if (entry.status !== 429) return;
			limited++;
			const retryAfter = entry.method === 'POST' ? 3 : 7;
			const next = journal
				.slice(i + 1)
				.find((e) => e.method === entry.method && e.path === entry.path);
			expect(next!.at - entry.at).toBeGreaterThanOrEqual(retryAfter * 1000);
		});
		expect(limited).toBe(5);
		expect(books()).toMatchObject({ jobs: 1, reserves: 1, invariantHolds: true });
		report('429 storm on create and polls', {
			duplicateJobs: books().jobs - 1,
			lostOutputs: 0,
			ok: true,
		});
	});

	it('download of the output truncated mid-stream → fetched again, sha256 matches', async () => {
		env.emu.control.setOutputBytes(256 * 1024);
		env.emu.control.injectFault({
			method: 'GET',
			path: /\/output$/,
			action: 'truncate',
			afterBytes: 100_000,
		});
		const [[item]] = await runJob({
			operation: 'create',
			...textJob,
			options: { waitForCompletion: true },
		});
		const bytes = await binaryBytes(item);
		expect(bytes.length).toBe(256 * 1024);
		expect(sha256(bytes)).toBe((item.json.output as IDataObject).sha256);
		expect(env.emu.control.journal().filter((e) => e.path.endsWith('/output'))).toHaveLength(2);
		report('output download truncated', { duplicateJobs: 0, lostOutputs: 0, ok: true });
	});

	it('a corrupted output body every time → sha256 mismatch error, no file output', async () => {
		env.emu.control.injectFault({ method: 'GET', path: /\/output$/, action: 'corrupt', times: 3 });
		const error = await failure(
			runJob({ operation: 'create', ...textJob, options: { waitForCompletion: true } }),
		);
		expect(error.message).toMatch(
			/^Download failed after 3 tries: the downloaded file's sha256 \([0-9a-f]{64}\) does not match the service's output.sha256 \([0-9a-f]{64}\)\. No file was output\./,
		);
		report('output body corrupted (persistent)', { duplicateJobs: 0, lostOutputs: 0, ok: true });
	});

	it('a corrupted output body once → fetched again, the file is right', async () => {
		env.emu.control.injectFault({ method: 'GET', path: /\/output$/, action: 'corrupt', times: 1 });
		const [[item]] = await runJob({
			operation: 'create',
			...textJob,
			options: { waitForCompletion: true },
		});
		expect(sha256(await binaryBytes(item))).toBe((item.json.output as IDataObject).sha256);
		report('output body corrupted (once)', { duplicateJobs: 0, lostOutputs: 0, ok: true });
	});

	it('key revoked in the middle of a batch → clear 401 error, no retry loop', async () => {
		await env.close();
		let keyId = '';
		// The emulator calls onChange after each request: revoke the key once the first job exists.
		env = await startEmulated({
			onChange: (control) => {
				if (keyId && control.jobs().length >= 1) {
					const id = keyId;
					keyId = '';
					control.revokeKey(id);
				}
			},
		});
		const key = env.emu.control.createKey({});
		keyId = key.keyId;
		const items = [{ json: { n: 1 } }, { json: { n: 2 } }, { json: { n: 3 } }];
		const error = await failure(
			runNode({
				node: jobNode,
				parameters: {
					resource: 'job',
					operation: 'create',
					...textJob,
					prompt: '={{ "scene " + $json.n }}',
				} as never,
				credentials: { ...env.credentials, apiKey: key.secret },
				items,
			}),
		);
		expect(error.message).toBe(
			'The API key was refused: it is wrong, expired or revoked. Create a new key in the dashboard and update the credential.',
		);
		expect(env.emu.control.journal().filter((e) => e.status === 401)).toHaveLength(1);
		expect(books().jobs).toBe(1);
		report('key revoked mid-batch', { duplicateJobs: 0, lostOutputs: 0, ok: true });
	});

	it('account frozen between quote and create → billing_financial_review message, nothing reserved', async () => {
		const [[quote]] = await runJob({ operation: 'quote', ...textJob });
		expect(quote.json.sufficient).toBe(true);
		env.emu.control.freeze(true);
		const error = await failure(runJob({ operation: 'create', ...textJob }));
		expect(error.message).toBe(
			'The account is frozen for a financial review, so new generations are blocked (running jobs still finish). Resolve the pending payment matter in the dashboard.',
		);
		expect(error.context.errorCode).toBe('billing_financial_review');
		expect(books()).toEqual({ jobs: 0, reserves: 0, reserved: 0, spent: 0, invariantHolds: true });
		report('account frozen between quote and create', {
			duplicateJobs: 0,
			lostOutputs: 0,
			ok: true,
		});
	});

	it('a job that fails → whole reservation released, the node reports the errorCode', async () => {
		env.emu.control.scriptJobs([{ outcome: 'failed', errorCode: 'content_policy' }]);
		const error = await failure(
			runJob({ operation: 'create', ...textJob, options: { waitForCompletion: true } }),
		);
		expect(error.context.errorCode).toBe('content_policy');
		expect(books()).toEqual({ jobs: 1, reserves: 1, reserved: 0, spent: 0, invariantHolds: true });
		report('job fails', { duplicateJobs: 0, lostOutputs: 0, ok: true });
	});
});
