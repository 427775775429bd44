// The soak's watchers, which only collect facts for the judge (judge.mjs): the process behind each request the
// judge needs, looked up while its socket is open (socketOwner) — as it arrives (an early arrival, a request into
// a used-up window, a first-page look and every request of key A: a request the emulator answers after the
// client gave up, a slow answer beyond the timeout, has no socket any more when its journal entry is written),
// else as it is answered (a 429 telling its process to wait).
import fs from 'node:fs';

import { groupPids } from '../process.mjs';
import {
	arrivalFact,
	journalFact,
	ownerNeededAtArrival,
	ownerNeededInJournal,
	processName,
	UNKNOWN,
} from './judge.mjs';

/**
 * The stack's n8n process holding the client end of a loopback TCP connection to the emulator, as its name
 * and pid (`worker2 (pid 571)`: a restarted worker is another process, which remembers nothing of the one
 * before), from /proc: the socket of `clientPort` → `emuPort` in /proc/net/tcp{,6}, then the process with
 * that socket among its file descriptors. Called while the connection is open (the emulator's arrival and
 * journal watchers). undefined when not found.
 */
export function socketOwner(stack, emuPort, clientPort) {
	const hex = (n) => `:${n.toString(16).toUpperCase().padStart(4, '0')}`;
	let inode;
	for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
		let text;
		try {
			text = fs.readFileSync(file, 'utf8');
		} catch {
			continue;
		}
		for (const line of text.split('\n').slice(1)) {
			const cols = line.trim().split(/\s+/);
			if (cols.length > 9 && cols[1].endsWith(hex(clientPort)) && cols[2].endsWith(hex(emuPort))) {
				inode = cols[9];
				break;
			}
		}
		if (inode) break;
	}
	if (!inode || inode === '0') return undefined;
	const target = `socket:[${inode}]`;
	const holds = (pid) => {
		try {
			return fs.readdirSync(`/proc/${pid}/fd`).some((fd) => {
				try {
					return fs.readlinkSync(`/proc/${pid}/fd/${fd}`) === target;
				} catch {
					return false;
				}
			});
		} catch {
			return false;
		}
	};
	const running = stack.processes().filter((p) => p.running && p.pid);
	// the node's requests leave from n8n's own process; its task runner (same group) is looked at last
	for (const p of running) if (holds(p.pid)) return processName(p);
	for (const p of running)
		for (const pid of groupPids(p.pid)) if (pid !== p.pid && holds(pid)) return processName(p);
	return undefined;
}

/**
 * Watch the emulator's arrivals and journal: `facts` ({ arrivals, entries }: judge.mjs's records) fills as
 * requests come and go, until `stop()`. `sharedKeyId`: key A's id (every request of it is looked up).
 */
export function watchFacts({ stack, emu, sharedKeyId }) {
	const emuPort = Number(new URL(emu.baseUrl).port);
	const facts = { arrivals: [], entries: [] };
	const ownerAtArrival = new Map(); // requestId -> process, until its journal entry
	const unwatchArrivals = emu.control.watchArrivals((a) => {
		if (!ownerNeededAtArrival(a, sharedKeyId)) return;
		const owner = a.remotePort && socketOwner(stack, emuPort, a.remotePort);
		if (owner) ownerAtArrival.set(a.requestId, owner);
		facts.arrivals.push(arrivalFact(a, owner || UNKNOWN));
	});
	const unwatch = emu.control.watchJournal((e) => {
		const atArrival = ownerAtArrival.get(e.requestId);
		ownerAtArrival.delete(e.requestId);
		if (!ownerNeededInJournal(e)) return;
		const owner =
			atArrival || (e.remotePort && socketOwner(stack, emuPort, e.remotePort)) || UNKNOWN;
		facts.entries.push(journalFact(e, owner));
	});
	return {
		facts,
		stop: () => {
			unwatch();
			unwatchArrivals();
		},
	};
}
