// The soak's seeded schedule and its service faults. The seed draws, each from its own stream (prng), the
// service faults (moments, kinds, parameters), the process faults' moments (process-faults.mjs) and each
// caller's batches and pauses (load.mjs), so the faults' schedule does not depend on how the calls interleave.
//
// Service faults (the emulator's), one every 5–20 s, in rounds of every kind once (a seeded order per round):
// reset after commit (jobs, uploads), 500 before commit, 503, 429 storms with Retry-After (key B), the IP limit
// (429 ip_rate_limited with Retry-After: the emulator's per-IP limiter on for one or two windows; every n8n
// process sends from 127.0.0.1, so all share that IP's window), truncated and corrupted downloads, answers
// slower than the node's timeout.
import { secs } from '../format.mjs';
import { pause } from '../wait.mjs';
import { count } from './run-state.mjs';
import { RATE_WINDOW_MS } from './settings.mjs';

/** mulberry32: a small seeded PRNG; returns rand() in [0, 1) with int(a, b) and pick(list) helpers. */
export function prng(seed) {
	let a = seed >>> 0;
	const rand = () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
	rand.int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));
	rand.pick = (list) => list[Math.floor(rand() * list.length)];
	return rand;
}

/** A seeded shuffle (Fisher–Yates) of a copy of `list`. */
function shuffled(list, rand) {
	const out = [...list];
	for (let i = out.length - 1; i > 0; i--) {
		const j = Math.floor(rand() * (i + 1));
		[out[i], out[j]] = [out[j], out[i]];
	}
	return out;
}

/**
 * The IP limit (429 ip_rate_limited with Retry-After until the end of the IP's window): the emulator's own
 * per-IP limiter (its `ipLimit` setting) switched on for one or two windows. Every n8n process of the soak
 * sends from 127.0.0.1, so all of them share that IP's window, as the workers of one host behind one address do.
 */
const IP_LIMIT = 'IP limit (429 ip_rate_limited, Retry-After)';

const SERVICE_FAULTS = [
	'reset_after_commit (job)',
	'reset_after_commit (upload)',
	'error_500_before_commit',
	'error_503',
	'429 storm (Retry-After)',
	'truncate (download)',
	'corrupt (download)',
	'slow answer (beyond the timeout)',
	IP_LIMIT,
];

/** The emulator fault for a kind; keys: the soak's keys (429 storms only on key B: see the header). */
function faultOf(kind, rand, keys) {
	switch (kind) {
		case 'reset_after_commit (job)':
			return { method: 'POST', path: '/v1/jobs', action: 'reset_after_commit' };
		case 'reset_after_commit (upload)':
			return { method: 'POST', path: '/v1/assets', action: 'reset_after_commit' };
		case 'error_500_before_commit':
			return { method: 'POST', path: /^\/v1\/jobs(\/quote)?$/, action: 'error_500_before_commit' };
		case 'error_503':
			return { method: 'POST', path: '/v1/jobs', action: 'error_503', retryAfter: rand.int(1, 3) };
		case '429 storm (Retry-After)':
			return {
				path: /^\/v1\//,
				keyId: keys.b.keyId,
				action: 'rate_limit',
				times: rand.int(2, 5),
				retryAfter: rand.int(1, 4),
			};
		case 'truncate (download)':
			return { method: 'GET', path: /^\/v1\/jobs\/[^/]+\/output$/, action: 'truncate' };
		case 'corrupt (download)':
			return { method: 'GET', path: /^\/v1\/jobs\/[^/]+\/output$/, action: 'corrupt' };
		case 'slow answer (beyond the timeout)':
			// the node gives a request 60 s; this read of a job is answered after 65 s
			return { method: 'GET', path: /^\/v1\/jobs\/job_[^/]+$/, action: 'delay', delayMs: 65_000 };
		default:
			throw new Error(kind);
	}
}

/** The IP limit, switched on for a number of rate windows (then off by itself), or off now (`lift`). */
export function ipLimitSwitch(emu) {
	let timer;
	const lift = () => {
		clearTimeout(timer);
		emu.control.setSettings({ ipLimit: null });
	};
	const on = (requests, windows) => {
		clearTimeout(timer);
		emu.control.setSettings({ ipLimit: { requests, windowMs: RATE_WINDOW_MS } });
		timer = setTimeout(lift, windows * RATE_WINDOW_MS);
	};
	return { on, lift };
}

/**
 * Service faults until the load ends (`state.stopping`): one every 5–20 s; rounds of every kind once, each
 * round in a seeded order (`rand`: the service faults' own stream); counted in `state.stats.faults`.
 */
export async function serviceFaultLoop({ emu, keys, rand, ipLimit, state, log }) {
	let round = [];
	while (!state.stopping) {
		await pause(rand.int(5000, 20_000));
		// held while the mid-download fault clears the way for its replace call: the next fault waits
		while (state.faultsHeld && !state.stopping) await pause(250);
		if (state.stopping) break;
		if (!round.length) round = shuffled(SERVICE_FAULTS, rand);
		const kind = round.shift();
		if (kind === IP_LIMIT) {
			// a few requests per IP window for one or two windows, then no IP limit again
			const requests = rand.int(3, 8);
			const windows = rand.int(1, 2);
			ipLimit.on(requests, windows);
			log(
				`${state.stamp()}  ${kind}: ${requests} requests per ${secs(RATE_WINDOW_MS)} for ${secs(windows * RATE_WINDOW_MS)}`,
			);
		} else emu.control.injectFault(faultOf(kind, rand, keys));
		count(state.stats.faults, kind);
	}
}
