// The pacers of this n8n process: one per service key, found by pacerFor, with the holds and refusals
// they share — and the bounds of all of it, so a long-running process does not grow with every key.
import type { ServiceErrorInfo } from './errors';
import type { Block, SharedHolds } from './holds';
import { KeyPacer } from './pacer';
import { clock } from './serviceClock';
import { processStore } from '../processState';

/**
 * Bounds of the process-wide pacing state: a main that serves many credentials for weeks must not grow
 * without end. Nothing runs on a timer: the maps are swept when a pacer is looked up, at most once per
 * `sweepEveryAdds` new pacers or `sweepEveryMs` of the package clock.
 */
export const PACING_MEMORY = {
	/** Pacers kept at most; beyond, the least recently used quiet ones are forgotten first. */
	maxPacers: 1_000,
	/**
	 * Refused keys remembered at most (the oldest refusal goes first). A refusal is never forgotten for its
	 * age: a revoked or expired key never works again, so nothing more is sent with it.
	 */
	maxRefusals: 10_000,
	/** A sweep runs once this many pacers were added since the last one… */
	sweepEveryAdds: 64,
	/** …or once this long has passed on the package clock since the last one. */
	sweepEveryMs: 60_000,
};

/** What every pacer of the process shares. */
export interface PacingState extends SharedHolds {
	/** One pacer per service key (API key hash and base URL), least recently used first. */
	pacers: Map<string, KeyPacer>;
	/** Pacers added since the last sweep, and when it ran (package clock). */
	addedSinceSweep: number;
	sweptAt: number;
}

/**
 * Module state on purpose: every node run of this n8n process shares one pacer per service key (the
 * API key's hash and the base URL), so items, operations, nodes and executions see one rate window,
 * one set of Retry-After holds and one refusal. It lives as long as the process (one per worker in
 * queue mode: processes learn about each other only from the service's answers), bounded: idle pacers
 * and IP holds that ended are forgotten (see PACING_MEMORY), refusals are kept up to a count.
 */
export const processPacing: PacingState = processStore(
	'pacing',
	{
		/** ≤ PACING_MEMORY.maxPacers (makeRoom; passed only while more keys are busy at once); swept. */
		pacers: new Map<string, KeyPacer>(),
		/** One per base URL under an ip_rate_limited hold; ended holds swept (sweep). */
		ipBlocks: new Map<string, Block>(),
		/** ≤ PACING_MEMORY.maxRefusals (refuseKey drops the oldest refusal). */
		refusals: new Map<string, ServiceErrorInfo>(),
		addedSinceSweep: 0,
		sweptAt: -Infinity,
	},
	(state) => {
		state.pacers.clear();
		state.ipBlocks.clear();
		state.refusals.clear();
		state.addedSinceSweep = 0;
		state.sweptAt = -Infinity;
	},
);

/**
 * Forgets what no longer matters: pacers with nothing to remember (isForgettable) and IP holds that
 * ended. Runs when a pacer is looked up, at most once per `sweepEveryAdds` new pacers or `sweepEveryMs`.
 */
function sweep(now: number): void {
	const { pacers, ipBlocks } = processPacing;
	processPacing.addedSinceSweep = 0;
	processPacing.sweptAt = now;
	for (const [key, pacer] of pacers) if (pacer.isForgettable(now)) pacers.delete(key);
	for (const [baseUrl, block] of ipBlocks) if (block.until <= now) ipBlocks.delete(baseUrl);
}

/**
 * Room for one more pacer under the cap: the least recently used quiet pacers go first. One with a
 * request in flight, a waiter or a hold in force is never dropped (the cap is passed only while more
 * keys than that are busy at once).
 */
function makeRoom(now: number): void {
	const { pacers } = processPacing;
	if (pacers.size < PACING_MEMORY.maxPacers) return;
	for (const [key, pacer] of pacers) {
		if (pacers.size < PACING_MEMORY.maxPacers) return;
		if (pacer.isQuiet(now)) pacers.delete(key);
	}
}

/** The pacer of a key; callers ask again for each attempt, so a forgotten pacer is never used on. */
export function pacerFor(serviceKey: string, baseUrl: string): KeyPacer {
	const { pacers } = processPacing;
	const now = clock.now();
	if (
		processPacing.addedSinceSweep >= PACING_MEMORY.sweepEveryAdds ||
		now - processPacing.sweptAt >= PACING_MEMORY.sweepEveryMs
	) {
		sweep(now);
	}
	let pacer = pacers.get(serviceKey);
	if (pacer) {
		pacers.delete(serviceKey); // re-insert: the map stays in order of last use
	} else {
		makeRoom(now);
		pacer = new KeyPacer(processPacing, serviceKey, baseUrl);
		processPacing.addedSinceSweep++;
	}
	pacers.set(serviceKey, pacer);
	return pacer;
}

/** A 401: the key is refused; every waiting and later request of it fails at once with the same reason. */
export function refuseKey(pacer: KeyPacer, info: ServiceErrorInfo): void {
	const { refusals } = processPacing;
	refusals.delete(pacer.serviceKey); // re-insert: the map stays in order of refusal
	refusals.set(pacer.serviceKey, info);
	while (refusals.size > PACING_MEMORY.maxRefusals) {
		refusals.delete(refusals.keys().next().value as string);
	}
	pacer.wakeAll();
}
