// What every stack offers, whatever runs it — one n8n process (regular-stack.mjs) or a main and workers
// (queue-stack.mjs): the REST calls of its main as the owner, its processes' logs and their memory. The soak,
// the bench and the suites use a stack through this shape only.
import fs from 'node:fs';

import { lastLines, mib } from './format.mjs';
import { rssByGroup } from './process.mjs';

/** The REST surface of a stack, from the one client of its main (rest.mjs n8nRest). */
export function restFacade(client) {
	return {
		rest: (method, route, body, options) => client.request(method, route, body, options),
		session: () => client.session(),
		executions: (workflowId) => client.executions(workflowId),
		allExecutions: (pageSize) => client.allExecutions(pageSize),
		execution: (id) => client.execution(id),
		startFromTrigger: (workflowId, triggerName) => client.startFromTrigger(workflowId, triggerName),
		waitForExecutions: (workflowId, check, options) =>
			client.waitForExecutions(workflowId, check, options),
		waitForWebhook: (webhookPath, method, timeoutMs) =>
			client.waitForWebhook(webhookPath, method, timeoutMs),
	};
}

/**
 * Logs and memory of a stack's processes. `processes()` lists { name, pid (of its group, running or not),
 * logFile } as the stack knows them now.
 */
export function processFacade(processes, { rssIntervalMs = 500 } = {}) {
	const byName = (name) => processes().find((p) => p.name === name);
	const logOf = (name) => {
		try {
			return fs.readFileSync(byName(name).logFile, 'utf8');
		} catch {
			return '';
		}
	};
	const workers = () => processes().filter((p) => p.name !== 'main');
	// peak RSS per n8n process group (n8n + its task runner), sampled from /proc
	const peaks = new Map();
	const running = () => processes().filter((p) => p.running);
	const sampleRss = () => {
		const current = running();
		const totals = rssByGroup(current.map((p) => p.pid));
		for (const p of current) {
			const v = totals.get(p.pid) ?? 0;
			for (const key of [`all:${p.name}`, `window:${p.name}`])
				peaks.set(key, Math.max(peaks.get(key) ?? 0, v));
		}
	};
	const sampler = setInterval(sampleRss, rssIntervalMs);
	sampler.unref();
	return {
		/** Current log text of a process. */
		logOf,
		/** Last lines of every log, for failure messages. */
		logTails: (n = 30) =>
			processes()
				.map((p) => `--- ${p.name} (${p.logFile})\n${lastLines(logOf(p.name) || '(no log)', n)}`)
				.join('\n'),
		/** Which worker logged "Worker started execution <id>"; undefined when none (yet), or in regular mode. */
		workerOfExecution(executionId) {
			const re = new RegExp(`Worker started execution ${executionId} \\(job`);
			return workers().find((w) => re.test(logOf(w.name)))?.name;
		},
		/** execution id -> the process that ran it (in regular mode: every one, 'main'). */
		executionsByWorker() {
			if (workers().length === 0) return new Proxy({}, { get: () => 'main' });
			const map = {};
			for (const w of workers()) {
				for (const m of logOf(w.name).matchAll(/Worker started execution (\d+) \(job/g))
					map[m[1]] = w.name;
			}
			return map;
		},
		/** Peak RSS (bytes) per n8n process (its group) since start / since resetRss(). */
		peakRss({ window = false } = {}) {
			sampleRss();
			const out = {};
			for (const p of processes())
				out[p.name] = peaks.get(`${window ? 'window' : 'all'}:${p.name}`) ?? 0;
			return out;
		},
		resetRss() {
			for (const p of processes()) peaks.delete(`window:${p.name}`);
		},
		/** Current RSS per running process group. */
		currentRss() {
			const current = running();
			const totals = rssByGroup(current.map((p) => p.pid));
			return Object.fromEntries(current.map((p) => [p.name, totals.get(p.pid)]));
		},
		formatRss: (rss) =>
			Object.entries(rss)
				.map(([n, b]) => `${n} ${mib(b)}`)
				.join(', '),
		stopSampling: () => clearInterval(sampler),
	};
}
