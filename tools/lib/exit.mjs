// What this process leaves behind when it ends — also on Ctrl-C or SIGTERM — is removed here, in one place:
// the process groups it started, the temporary folders it made and the install locks it holds.
import fs from 'node:fs';

const groups = new Set();
const dirs = new Set();
const locks = new Set();
let installed = false;

function cleanupNow() {
	for (const g of groups) {
		try {
			process.kill(-g, 'SIGKILL');
		} catch {
			/* gone */
		}
	}
	groups.clear();
	for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
	dirs.clear();
	for (const l of locks) fs.rmSync(l, { recursive: true, force: true });
	locks.clear();
}

function install() {
	if (installed) return;
	installed = true;
	process.on('exit', cleanupNow);
	for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
		process.once(sig, () => {
			cleanupNow();
			process.kill(process.pid, sig);
		});
	}
}

/** A process group (a child started detached) killed if this process ends first. */
export function trackGroup(pid) {
	groups.add(pid);
	install();
}

/** A process group that ended or was stopped: no longer killed at exit. */
export function untrackGroup(pid) {
	groups.delete(pid);
}

/** A temporary folder removed when this process ends (unless untracked first). */
export function trackDir(dir) {
	dirs.add(dir);
	install();
}

export function untrackDir(dir) {
	dirs.delete(dir);
}

/** An install lock (a folder) this process holds: released if it ends while holding it. */
export function holdLock(lockPath) {
	locks.add(lockPath);
	install();
}

export function releaseLockOnExit(lockPath) {
	locks.delete(lockPath);
}

/** The locks this process holds now (their owner files record the children it starts). */
export function heldLocks() {
	return [...locks];
}
