// Waiting, said once: a pause, a bounded wait for a promise, and polling until a condition holds.
import fs from 'node:fs';

import { lastLines, secs } from './format.mjs';

export const pause = (ms) => new Promise((r) => setTimeout(r, ms));

/** `promise`, or undefined once `ms` have passed (the promise is not cancelled). */
export function within(promise, ms) {
	let timer;
	return Promise.race([
		promise,
		new Promise((resolve) => (timer = setTimeout(resolve, ms))),
	]).finally(() => clearTimeout(timer));
}

/**
 * Polls `check` (sync or async) every `everyMs` until it returns something truthy, which it returns. Fails
 * after `timeoutMs` — or as soon as `proc` (a spawnLogged process) has exited — naming `what` and, when given,
 * the last lines of `logFile`. A throw from `check` fails the wait, unless `tolerateErrors` (a server not
 * listening yet: its health check throws until it does).
 */
export async function waitUntil(
	what,
	check,
	{ timeoutMs = 60_000, everyMs = 250, proc, logFile, tolerateErrors = false } = {},
) {
	const t0 = Date.now();
	const logTail = () => {
		if (!logFile) return '';
		try {
			return `:\n${lastLines(fs.readFileSync(logFile, 'utf8'), 40)}`;
		} catch {
			return '';
		}
	};
	for (;;) {
		if (proc?.exited)
			throw new Error(`${what}: process exited (${JSON.stringify(proc.exited)})${logTail()}`);
		const value = tolerateErrors
			? await Promise.resolve()
					.then(check)
					.catch(() => false)
			: await check();
		if (value) return value;
		if (Date.now() - t0 > timeoutMs)
			throw new Error(`${what}: not ready after ${secs(timeoutMs)}${logTail()}`);
		await pause(everyMs);
	}
}
