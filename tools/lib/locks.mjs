// Install locks: one installer per cache entry (or N queue stacks per machine) at a time. A lock is a folder
// holding owner.json ({ pid, host, since, children }); a lock whose owner died on this machine is taken over,
// and the process groups it had started (recorded as children) are stopped first.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { heldLocks, holdLock, releaseLockOnExit } from './exit.mjs';
import { fmtMs } from './format.mjs';
import { pause } from './wait.mjs';

function readOwner(lockPath) {
	try {
		return JSON.parse(fs.readFileSync(path.join(lockPath, 'owner.json'), 'utf8'));
	} catch {
		return undefined;
	}
}

function writeOwner(lockPath, owner) {
	const file = path.join(lockPath, 'owner.json');
	const tmp = `${file}.${process.pid}.tmp`;
	try {
		fs.writeFileSync(tmp, JSON.stringify(owner));
		fs.renameSync(tmp, file);
	} catch {
		fs.rmSync(tmp, { force: true }); // the lock was released meanwhile
	}
}

/** Whether `pid` runs (EPERM: it does, as another user). */
export function pidAlive(pid) {
	try {
		process.kill(pid, 0);
		return true;
	} catch (e) {
		return e.code === 'EPERM';
	}
}

/** Record a child process group in the locks this process holds, so a successor can stop it if we die. */
export function noteChild(pid) {
	for (const lockPath of heldLocks()) {
		const owner = readOwner(lockPath);
		if (!owner) continue; // lock released meanwhile
		owner.children = [...(owner.children ?? []), pid];
		writeOwner(lockPath, owner);
	}
}

/**
 * Takes the lock folder `lockPath` if it is free, or held by a process of this machine that is gone (whose
 * recorded children are stopped first): { taken: true }, or { taken: false, owner } when another holds it.
 */
async function tryTake(lockPath, log) {
	for (;;) {
		try {
			fs.mkdirSync(lockPath);
			writeOwner(lockPath, {
				pid: process.pid,
				host: os.hostname(),
				since: new Date().toISOString(),
			});
			holdLock(lockPath);
			return { taken: true };
		} catch (e) {
			if (e.code !== 'EEXIST') throw e;
			const owner = readOwner(lockPath);
			const stat = fs.statSync(lockPath, { throwIfNoEntry: false });
			const age = stat ? Date.now() - stat.mtimeMs : 0;
			// No owner.json in an old lock: a crash between mkdir and its write — or the owner releasing it right
			// now (owner.json goes first); only a second look a moment later tells the two apart.
			const ownerless = !owner && age > 60_000 && (await pause(2000), !readOwner(lockPath));
			const stale = owner ? owner.host === os.hostname() && !pidAlive(owner.pid) : ownerless;
			if (!stale && !owner && !fs.existsSync(lockPath)) continue; // released meanwhile
			if (!stale) return { taken: false, owner };
			log(
				`removing stale lock ${lockPath} (owner ${owner ? `pid ${owner.pid}` : 'unknown'} is gone)`,
			);
			for (const child of owner?.children ?? []) {
				try {
					process.kill(-child, 'SIGKILL'); // an npm left running by the dead installer
					log(`  stopped process group ${child} left by it`);
				} catch {
					/* already gone */
				}
			}
			fs.rmSync(lockPath, { recursive: true, force: true });
		}
	}
}

/**
 * Runs `fn` holding a lock folder: `lockPath`, or the first free of several (a list: a machine that allows that
 * many holders at once), waiting until one is free. Released when `fn` ends, or when this process exits.
 */
export async function withLock(lockPath, log, fn) {
	const paths = [lockPath].flat();
	let waitedSince = 0;
	let held;
	while (!held) {
		let owner;
		for (const p of paths) {
			const r = await tryTake(p, log);
			if (r.taken) {
				held = p;
				break;
			}
			owner ??= r.owner;
		}
		if (held) break;
		if (!waitedSince) {
			waitedSince = Date.now();
			log(
				`another process (pid ${owner?.pid ?? '?'}) is installing; waiting for ${paths.join(' or ')}`,
			);
		} else if ((Date.now() - waitedSince) % 30_000 < 1000) {
			log(`  still waiting for the other install (${fmtMs(Date.now() - waitedSince)})`);
		}
		await pause(1000);
	}
	try {
		return await fn();
	} finally {
		releaseLockOnExit(held);
		fs.rmSync(held, { recursive: true, force: true });
	}
}
