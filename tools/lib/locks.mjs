// Install locks: one installer per cache entry (or one queue stack per machine) at a time. A lock is a folder
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

export async function withLock(lockPath, log, fn) {
	let waitedSince = 0;
	for (;;) {
		try {
			fs.mkdirSync(lockPath);
			writeOwner(lockPath, {
				pid: process.pid,
				host: os.hostname(),
				since: new Date().toISOString(),
			});
			holdLock(lockPath);
			break;
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
			if (stale) {
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
				continue;
			}
			if (!waitedSince) {
				waitedSince = Date.now();
				log(`another process (pid ${owner?.pid ?? '?'}) is installing; waiting for ${lockPath}`);
			} else if ((Date.now() - waitedSince) % 30_000 < 1000) {
				log(`  still waiting for the other install (${fmtMs(Date.now() - waitedSince)})`);
			}
			await pause(1000);
		}
	}
	try {
		return await fn();
	} finally {
		releaseLockOnExit(lockPath);
		fs.rmSync(lockPath, { recursive: true, force: true });
	}
}
