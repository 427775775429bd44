// What part 6 (queue mode) collects while a pattern runs on the stack: the workers' slot lines as they
// appear in their logs, the main's list of current executions sampled over time (REST), and the n8n process
// behind each request of the pattern's key (its TCP port while the connection is open, as the soak finds it).
import fs from 'node:fs';

import { journalFact } from '../../tools/lib/soak/judge.mjs';
import { socketOwner } from '../../tools/lib/soak/watchers.mjs';
import { pause } from '../../tools/lib/wait.mjs';
import { workerLogEvent } from './queue-figures.mjs';

const sizeOf = (file) => {
	try {
		return fs.statSync(file).size;
	} catch {
		return 0;
	}
};

/** The bytes of `file` from `offset` to its end now. */
function readFrom(file, offset) {
	const fd = fs.openSync(file, 'r');
	try {
		const size = fs.fstatSync(fd).size;
		const buf = Buffer.alloc(Math.max(0, size - offset));
		if (buf.length) fs.readSync(fd, buf, 0, buf.length, offset);
		return buf;
	} finally {
		fs.closeSync(fd);
	}
}

/**
 * Follows every worker's log from now on, reading what was added every `everyMs`: the "Worker started / finished
 * execution N (job J)" lines (n8n logs no time on them: each is timed when read, within `everyMs`).
 * stop() reads a last time and returns the events [{ worker, kind, executionId, bullJob, at }].
 */
export function followWorkerLogs(stack, everyMs = 200) {
	const workers = stack.processes().filter((p) => p.name !== 'main');
	const state = new Map(workers.map((w) => [w.name, { offset: sizeOf(w.logFile), rest: '' }]));
	const events = [];
	const read = () => {
		const at = Date.now();
		for (const w of workers) {
			const s = state.get(w.name);
			const buf = readFrom(w.logFile, s.offset);
			s.offset += buf.length;
			const lines = (s.rest + buf.toString('utf8')).split('\n');
			s.rest = lines.pop();
			for (const line of lines) {
				const e = workerLogEvent(line);
				if (e) events.push({ worker: w.name, at, ...e });
			}
		}
	};
	const timer = setInterval(read, everyMs);
	return {
		events,
		stop() {
			clearInterval(timer);
			read();
			return events;
		},
	};
}

/** Execution statuses of executions not done: waiting for a worker slot, running, parked. */
export const CURRENT = ['new', 'running', 'waiting'];

/**
 * Counts executions every `everyMs` with `count()` (→ { status: n }), until stop(). Each sample { at (the
 * middle of its count), counts, total }; a count that throws is skipped (counted in `errors`). stop() waits
 * for the last count, calls `onStop` and returns { samples, errors }.
 */
export function sampleEvery(everyMs, count, onStop) {
	const samples = [];
	let errors = 0;
	let stopped = false;
	const loop = (async () => {
		while (!stopped) {
			const sent = Date.now();
			try {
				const counts = await count();
				const total = Object.values(counts).reduce((a, b) => a + b, 0);
				samples.push({ at: (sent + Date.now()) / 2, counts, total });
			} catch {
				errors++;
			}
			await pause(Math.max(0, everyMs - (Date.now() - sent)));
		}
	})();
	return {
		samples,
		last: () => samples[samples.length - 1],
		async stop() {
			stopped = true;
			await loop;
			await onStop?.();
			return { samples, errors };
		},
	};
}

/**
 * Samples the main's current executions (`new`: waiting for a worker slot, `running`, `waiting`: parked) of
 * `workflowIds` every `everyMs` through its REST API (sampleEvery).
 */
export function sampleExecutions(stack, workflowIds, everyMs = 1000) {
	const filter = encodeURIComponent(JSON.stringify({ status: CURRENT }));
	return sampleEvery(everyMs, async () => {
		const data = await stack.rest('GET', `/executions?limit=100&filter=${filter}`);
		const mine = (data.results ?? data).filter((e) => workflowIds.includes(e.workflowId));
		return Object.fromEntries(CURRENT.map((s) => [s, mine.filter((e) => e.status === s).length]));
	});
}

/** Waits until no execution of any workflow is new, running or waiting (a clean state between patterns). */
export async function untilNoCurrentExecutions(stack, timeoutMs) {
	const filter = encodeURIComponent(JSON.stringify({ status: CURRENT }));
	const t0 = Date.now();
	for (;;) {
		const data = await stack.rest('GET', `/executions?limit=100&filter=${filter}`);
		const list = data.results ?? data;
		if (list.length === 0) return;
		if (Date.now() - t0 > timeoutMs)
			throw new Error(
				`executions still current after ${timeoutMs} ms: ${JSON.stringify(list.map((e) => ({ id: e.id, workflowId: e.workflowId, status: e.status })))}`,
			);
		await pause(1000);
	}
}

/**
 * The n8n process (main, worker1, …) behind each request of key `keyId`, found while its connection is open
 * (the emulator's journal watcher runs before the answer leaves). ownerOf(entry) → name or 'unknown';
 * `facts`: each request as the soak's judge reads it (tools/lib/soak/judge.mjs journalFact), with its process.
 */
export function watchProcesses(emu, stack, keyId) {
	const emuPort = Number(new URL(emu.baseUrl).port);
	const owners = new Map();
	const facts = [];
	const stop = emu.control.watchJournal((e) => {
		if (e.keyId !== keyId) return;
		const owner = e.remotePort && socketOwner(stack, emuPort, e.remotePort);
		const name = owner ? owner.replace(/ \(pid \d+\)$/, '') : 'unknown';
		owners.set(e.requestId, name);
		facts.push(journalFact(e, name));
	});
	return { ownerOf: (e) => owners.get(e.requestId) ?? 'unknown', facts, stop };
}
