// The Job Finished trigger within the time n8n gives a poll (getPollBudgetMs: under n8n's durable scheduler
// the poll timeout less n8n's margin; n8n abandons a poll that takes longer and keeps nothing of it), against
// the emulator on the discrete-event clock: the poll's deadline is a sleep on that clock like every wait of the
// package, so a wait for the key's rate window, a slow page or a download is cut off at the deadline in
// virtual time. Each test counts every job the trigger emitted over all its polls.
import type { IDataObject } from 'n8n-workflow';

import type { JobScript } from '../../emulator/src';
import { GenerationServiceTrigger } from '../../nodes/GenerationServiceTrigger/GenerationServiceTrigger.node';
import { OVERLAP_MS, type TriggerCursor } from '../../nodes/GenerationServiceTrigger/cursor';
import { DEFAULT_BUDGET_MS } from '../../nodes/GenerationServiceTrigger/poll';
import type { Emulated } from '../helpers/emulated';
import { sha256, startEmulated } from '../helpers/emulated';
import { binaryBytes, runPoll } from '../helpers/n8n';
import { clock, testClock } from '../helpers/serviceClock';
import { cursorOf, ids, items, tally } from '../helpers/trigger-output';

let env: Emulated;
let creators: string[] = [];
let keyCounter = 0;

/** A minute of the service's rate windows starts at a round minute: tests start 5 s into one. */
const START = Date.UTC(2026, 10, 22, 12, 0, 5);

beforeEach(async () => {
	env = await startEmulated({ jobTiming: { queuedMs: 0, runningMs: 1000 } });
	testClock.useAuto(START);
	env.emu.control.grantCredits(100_000);
	creators = [1, 2, 3].map(() => env.emu.control.createKey({ requestsPerMinute: 120 }).secret);
});
afterEach(async () => {
	await env.close();
});

const textJob = { mode: 'text_to_video', prompt: 'a cat surfing at dawn', durationSeconds: 5 };

/** POST /v1/jobs over real HTTP with the creator keys (never the trigger's). */
async function createJob(script: JobScript = {}): Promise<string> {
	env.emu.control.scriptJobs([script]);
	const key = `trigger-budget-job-${String(++keyCounter).padStart(6, '0')}`;
	const res = await fetch(`${env.emu.baseUrl}/jobs`, {
		method: 'POST',
		headers: {
			Authorization: `Bearer ${creators[keyCounter % creators.length]}`,
			'Content-Type': 'application/json',
			'Idempotency-Key': key,
		},
		body: JSON.stringify(textJob),
	});
	const json = (await res.json()) as { data: { id: string } };
	if (res.status !== 202) throw new Error(`create failed: ${res.status} ${JSON.stringify(json)}`);
	return json.data.id;
}

async function createJobs(n: number, everyMs = 0): Promise<string[]> {
	const ids: string[] = [];
	for (let i = 0; i < n; i++) {
		ids.push(await createJob());
		if (everyMs) testClock.advance(everyMs);
	}
	return ids;
}

const PARAMS = { event: 'jobFinished', jobState: 'both', modes: [], options: {} };

/** One poll (a fresh node instance, as after a restart) with n8n's budget, and how long it took. */
async function poll(
	apiKey: string,
	staticData: IDataObject | undefined,
	budgetMs: number,
	parameters: IDataObject = {},
) {
	const startedAt = clock.now();
	const run = await runPoll({
		node: new GenerationServiceTrigger(),
		parameters: { ...PARAMS, ...parameters } as never,
		credentials: { apiKey, baseUrl: env.emu.baseUrl },
		staticData,
		pollBudgetMs: budgetMs,
	});
	return { ...run, tookMs: clock.now() - startedAt };
}

/** The next poll a minute after this one started (n8n polls at most once a minute). */
const nextMinute = (took: number) => testClock.advance(60_000 - took);

describe("Generation Service Trigger within n8n's poll budget", () => {
	it("downloads that wait for the key's rate window: each poll ends by its budget with what it downloaded, the next goes on", async () => {
		// 10 requests a minute: a poll lists one page, downloads what the window has left, and the next
		// download would wait ~50 s for the window; n8n's budget is 20 s
		const { secret, keyId } = env.emu.control.createKey({ requestsPerMinute: 10 });
		const budgetMs = 20_000;
		const emitted = tally();
		let state = (await poll(secret, undefined, budgetMs)).staticData;
		const created = await createJobs(24);
		testClock.advance(5_000);
		const options = { options: { downloadOutput: true } };
		const took: number[] = [];
		const perPoll: number[] = [];
		for (let i = 0; i < 8 && emitted.counts.size < created.length; i++) {
			const run = await poll(secret, state, budgetMs, options);
			took.push(run.tookMs);
			perPoll.push(emitted.add(run.result).length);
			for (const item of items(run.result)) {
				expect(sha256(await binaryBytes(item))).toBe((item.json.output as IDataObject).sha256);
			}
			// the cursor says exactly what was emitted: the others stay open, none is done
			const cursor = cursorOf(run.staticData);
			const left = created.filter((id) => !emitted.counts.has(id));
			expect(Object.keys(cursor.open).sort()).toEqual(left.sort());
			for (const id of ids(run.result)) expect(cursor.done[id]).toBeDefined();
			state = run.staticData;
			nextMinute(run.tookMs);
		}
		expect([...emitted.counts.keys()].sort()).toEqual([...created].sort());
		expect(emitted.once()).toBe(true);
		// every poll ended by its budget, several were cut off by it, and each emitted something
		for (const ms of took) expect(ms).toBeLessThanOrEqual(budgetMs);
		expect(took.filter((ms) => ms === budgetMs).length).toBeGreaterThanOrEqual(2);
		expect(perPoll.every((n) => n > 0)).toBe(true);
		// no request of the key beyond its window (the referee), and no download sent twice for a job
		const outputs = env.emu.control
			.journal()
			.filter((e) => e.keyId === keyId && e.path.endsWith('/output'));
		expect(outputs.every((e) => e.status === 200)).toBe(true);
		expect(new Set(outputs.map((e) => e.path)).size).toBe(outputs.length);
	});

	it('a job list longer than a poll can walk: the walk goes on from its page at the next poll, none missed, none twice', async () => {
		const { secret, keyId } = env.emu.control.createKey({ requestsPerMinute: 120 });
		const budgetMs = 10_000;
		const emitted = tally();
		const history = await createJobs(1);
		testClock.advance(5_000);
		let state = (await poll(secret, undefined, budgetMs)).staticData;
		let run = await poll(secret, state, budgetMs);
		expect(run.result).toBeNull();
		state = run.staticData;
		// 250 jobs created over 10 minutes (twice the overlap): a pass that stopped after its first page and
		// took the floor up to what it listed would lose those created in the first half
		const created = await createJobs(250, 2_400);
		testClock.advance(5_000);
		// every page takes 6 s at the service: a 10 s poll lists one
		env.emu.control.injectFault({
			method: 'GET',
			path: '/v1/jobs',
			keyId,
			times: 1000,
			action: 'delay',
			delayMs: 6_000,
		});
		const later: string[] = [];
		const continued: boolean[] = [];
		const perPoll: number[] = [];
		for (let i = 0; i < 8; i++) {
			const pass = cursorOf(state).pass;
			if (!pass && emitted.counts.size === created.length + later.length) break;
			continued.push(pass !== undefined);
			run = await poll(secret, state, budgetMs);
			expect(run.tookMs).toBeLessThanOrEqual(budgetMs);
			perPoll.push(emitted.add(run.result).length);
			state = run.staticData;
			// jobs created while the pass is under way come first in the list: the next pass lists them
			if (i === 0) later.push(...(await createJobs(5)));
			nextMinute(run.tookMs);
		}
		expect([...emitted.counts.keys()].sort()).toEqual([...created, ...later].sort());
		expect(emitted.once()).toBe(true);
		expect(emitted.counts.has(history[0])).toBe(false);
		// the first pass took three polls: the top page, then on from its page twice; then a pass from the
		// top for the 5 new jobs, cut too, and finished by the next poll
		expect(continued).toEqual([false, true, true, false, true]);
		expect(perPoll).toEqual([100, 100, 50, 5, 0]);
		const cursor = cursorOf(state);
		expect(cursor.pass).toBeUndefined();
		expect(cursor.floor).toBe(cursor.newest - OVERLAP_MS);
	});

	it('a page cursor the service no longer takes: the walk starts again from the top, nothing missed', async () => {
		const { secret, keyId } = env.emu.control.createKey({ requestsPerMinute: 120 });
		const budgetMs = 10_000;
		const emitted = tally();
		let state = (await poll(secret, undefined, budgetMs)).staticData;
		const created = await createJobs(150);
		testClock.advance(5_000);
		env.emu.control.injectFault({
			method: 'GET',
			path: '/v1/jobs',
			keyId,
			times: 2,
			action: 'delay',
			delayMs: 6_000,
		});
		let run = await poll(secret, state, budgetMs);
		expect(emitted.add(run.result)).toHaveLength(100);
		const pass = cursorOf(run.staticData).pass!;
		expect(pass.page).toEqual(expect.any(String));
		// what the service would answer for a page cursor it lost or changed: 400 invalid_field
		const stored = run.staticData['node:Generation Service Trigger'] as IDataObject;
		(stored.cursor as TriggerCursor).pass = { ...pass, page: 'not-a-cursor' };
		nextMinute(run.tookMs);
		run = await poll(secret, run.staticData, budgetMs);
		emitted.add(run.result);
		expect(cursorOf(run.staticData).pass).toBeUndefined();
		state = run.staticData;
		nextMinute(run.tookMs);
		run = await poll(secret, state, budgetMs);
		emitted.add(run.result);
		expect([...emitted.counts.keys()].sort()).toEqual([...created].sort());
		expect(emitted.once()).toBe(true);
		const refused = env.emu.control.journal().filter((e) => e.keyId === keyId && e.status === 400);
		expect(refused).toHaveLength(1);
	});

	it('without a budget from n8n (its legacy poller abandons nothing): no new download after 5 min, the one under way ends', async () => {
		const { secret, keyId } = env.emu.control.createKey({ requestsPerMinute: 120 });
		const emitted = tally();
		let state = (await poll(secret, undefined, DEFAULT_BUDGET_MS)).staticData;
		const created = await createJobs(5);
		testClock.advance(5_000);
		// each download takes 2 min at the service
		env.emu.control.injectFault({
			method: 'GET',
			path: /\/output$/,
			keyId,
			times: 1000,
			action: 'delay',
			delayMs: 120_000,
		});
		const options = { options: { downloadOutput: true } };
		let run = await poll(secret, state, DEFAULT_BUDGET_MS, options);
		// three downloads started before 5 min (at 0, 2 and 4 min), the third ran to its end
		expect(emitted.add(run.result)).toHaveLength(3);
		expect(run.tookMs).toBe(6 * 60_000);
		state = run.staticData;
		expect(Object.keys(cursorOf(state).open)).toHaveLength(2);
		testClock.advance(60_000);
		run = await poll(secret, state, DEFAULT_BUDGET_MS, options);
		expect(emitted.add(run.result)).toHaveLength(2);
		expect([...emitted.counts.keys()].sort()).toEqual([...created].sort());
		expect(emitted.once()).toBe(true);
	});
});
