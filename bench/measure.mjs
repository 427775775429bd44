// Measuring one `n8n execute` run: wall time, peak RSS of the whole process group and CPU time
// (utime + stime) of every process in it. Same spawn as the e2e harness (scripts/n8n-host.mjs:
// `execute --id=<id> --rawOutput`, detached process group, the instance's env and user folder), but sampled
// faster (a 20 MiB transfer on loopback lasts a fraction of a second; the harness samples every 100 ms)
// and with CPU accounting, which the harness does not do.
import { spawn } from 'node:child_process';
import fs from 'node:fs';

import { processStats } from '../tools/lib/process.mjs';
import { extractResult, runError } from '../tools/lib/run-data.mjs';

const CLK_TCK = 100; // USER_HZ on Linux (getconf CLK_TCK); /proc/<pid>/stat times are in these ticks

/** { pid -> { ppid, ticks (utime+stime), childTicks (cutime+cstime), rss } } of one process group. */
function readGroup(pgid) {
	const out = new Map();
	for (const { pid, fields: f } of processStats()) {
		if (Number(f[2]) !== pgid) continue; // field 5: pgrp
		const ticks = Number(f[11]) + Number(f[12]); // fields 14, 15: utime, stime
		const childTicks = Number(f[13]) + Number(f[14]); // fields 16, 17: cutime, cstime
		const rss = Number(f[21]) * 4096; // field 24: rss in pages
		out.set(pid, { ppid: Number(f[1]), ticks, childTicks, rss });
	}
	return out;
}

/**
 * Runs `n8n execute --id=<workflowId> --rawOutput` in `inst` and measures it.
 * `env`: extra environment variables for this run only (e.g. the memory probe's NODE_OPTIONS).
 * Returns { ok, result, error, exitCode, signal, timedOut, ms, peakRssBytes (process group),
 * mainPeakRssBytes (n8n's main process only), cpuMs, mainCpuMs, cpuByProcess, stdout, stderr }.
 *
 * CPU: the command runs under `/usr/bin/time`, which reports the rusage of n8n's main process including every
 * child it waited for; processes of the group that n8n did not wait for (e.g. a task runner still alive when
 * n8n exits, then killed with the group) are added from their last /proc sample.
 */
export function executeMeasured(
	inst,
	workflowId,
	{ timeoutMs = 300_000, sampleMs = 20, env = {} } = {},
) {
	const timeFile = `${inst.userFolder}/tmp/time-${process.pid}-${Date.now()}.txt`;
	const started = Date.now();
	const child = spawn(
		'/usr/bin/time',
		[
			'-f',
			'%e %U %S',
			'-o',
			timeFile,
			inst.host.nodeBin,
			inst.host.n8nBin,
			'execute',
			`--id=${workflowId}`,
			'--rawOutput',
		],
		{
			cwd: inst.userFolder,
			env: { ...inst.env, ...env },
			stdio: ['ignore', 'pipe', 'pipe'],
			detached: true,
		},
	);
	const pgid = child.pid;
	const out = [];
	const err = [];
	child.stdout.on('data', (c) => out.push(c));
	child.stderr.on('data', (c) => err.push(c));
	let peak = 0;
	let mainPeak = 0;
	const seen = new Map(); // pid -> last sample
	let mainPid;
	const sample = () => {
		const group = readGroup(pgid);
		let rss = 0;
		for (const [pid, s] of group) {
			if (pid === pgid) continue; // /usr/bin/time itself
			if (mainPid === undefined && s.ppid === pgid) mainPid = pid;
			rss += s.rss;
			seen.set(pid, s);
		}
		peak = Math.max(peak, rss);
		if (mainPid !== undefined && group.has(mainPid))
			mainPeak = Math.max(mainPeak, group.get(mainPid).rss);
	};
	const sampler = setInterval(sample, sampleMs);
	let timedOut = false;
	const timer = setTimeout(() => {
		timedOut = true;
		try {
			process.kill(-pgid, 'SIGKILL');
		} catch {
			/* gone */
		}
	}, timeoutMs);
	return new Promise((resolve, reject) => {
		child.on('error', reject);
		child.on('close', (code, signal) => {
			clearInterval(sampler);
			clearTimeout(timer);
			const ms = Date.now() - started;
			try {
				process.kill(-pgid, 'SIGKILL'); // helpers of the group must not outlive the command
			} catch {
				/* all gone */
			}
			let mainCpuMs;
			let exitCode = code;
			let text = '';
			try {
				text = fs.readFileSync(timeFile, 'utf8');
				fs.rmSync(timeFile, { force: true });
			} catch {
				/* time did not write it */
			}
			// "Command exited with non-zero status N" / "Command terminated by signal N" come first
			const last = text.trim().split('\n').pop() ?? '';
			const m = /^([\d.]+) ([\d.]+) ([\d.]+)$/.exec(last);
			if (m) mainCpuMs = (Number(m[2]) + Number(m[3])) * 1000;
			const sig = /terminated by signal (\d+)/.exec(text);
			// processes n8n did not reap itself (not children of main, or children still alive at its exit)
			let strayTicks = 0;
			const byProcess = [];
			for (const [pid, s] of seen) {
				byProcess.push({ pid, ppid: s.ppid, cpuMs: (s.ticks * 1000) / CLK_TCK });
				if (pid === mainPid) continue;
				strayTicks += s.ticks;
			}
			// children reaped by main are already in main's rusage: subtract what we saw of them
			// only if they were reaped (they vanish before main exits). We cannot tell reaped from killed
			// after the fact, so count a child as reaped when main's last childTicks covers it.
			const mainLast = mainPid !== undefined ? seen.get(mainPid) : undefined;
			const reapedTicks = mainLast ? mainLast.childTicks : 0;
			const extraTicks = Math.max(0, strayTicks - reapedTicks);
			const cpuMs =
				mainCpuMs !== undefined
					? mainCpuMs + (extraTicks * 1000) / CLK_TCK
					: [...seen.values()].reduce((a, s) => a + s.ticks, 0) * (1000 / CLK_TCK);
			const stdout = Buffer.concat(out).toString();
			const stderr = Buffer.concat(err).toString();
			const result = extractResult(stdout);
			const error = result ? runError(result) : undefined;
			resolve({
				ok: Boolean(result?.data?.resultData) && !error,
				result,
				error,
				exitCode,
				signal: signal ?? (sig ? `signal ${sig[1]}` : null),
				timedOut,
				ms,
				peakRssBytes: peak || undefined,
				mainPeakRssBytes: mainPeak || undefined,
				cpuMs,
				mainCpuMs,
				cpuByProcess: byProcess,
				stdout,
				stderr,
			});
		});
	});
}

export const median = (xs) => {
	const s = [...xs].filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
	if (!s.length) return NaN;
	const mid = Math.floor(s.length / 2);
	return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};

export const MiB = 1024 * 1024;
export const fmtMiB = (b) => (Number.isFinite(b) ? `${(b / MiB).toFixed(1)} MiB` : 'n/a');
export const fmtS = (ms) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(1)} s` : 'n/a');

/**
 * A valid MP4 of exactly `size` bytes: the sample MP4 followed by one ISO-BMFF `free` box (players skip it).
 * A `free` box larger than 4 GiB is not needed here; its 32-bit size field covers 20 MiB.
 */
export function paddedMp4(sample, size) {
	if (size < sample.length + 8)
		throw new Error(`size ${size} below the sample (${sample.length} + 8)`);
	const out = Buffer.alloc(size);
	sample.copy(out, 0);
	out.writeUInt32BE(size - sample.length, sample.length);
	out.write('free', sample.length + 4, 'latin1');
	// fill the box with a non-trivial pattern (so nothing along the way compresses it away)
	for (let i = sample.length + 8; i < size; i++) out[i] = (i * 2654435761) >>> 24;
	return out;
}
