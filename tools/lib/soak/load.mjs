// The soak's load: callers of the two webhooks, each calling again when its call failed (as real callers do):
//   batch    {items:[{prompt}]}, 5–20 items a call (two callers, a pause of 1–5 s between calls)
//   replace  an MP4, each call its own duration and aspect ratio (one caller, a pause of 5–20 s between calls)
// Each item is an intent (checks.mjs intentOf) recorded in the run's state, with the calls and attempts. The
// batch callers make no new call while `state.batchHeld` (the mid-download fault waiting for a replace call).
import { callWebhook, jsonBody } from '../rest.mjs';
import { pause } from '../wait.mjs';
import { intentOf } from './checks.mjs';
import { count } from './run-state.mjs';
import { HOOK } from './settings.mjs';

/** A batch call's route and request: `size` prompts, each an intent recorded in `state.intents`. */
function batchRequest({ id, size, seed, state }) {
	const items = Array.from({ length: size }, (_, k) => ({
		prompt: `soak ${seed} ${id} item ${k + 1}: a lighthouse at dusk, take ${k + 1}`,
	}));
	for (const it of items)
		state.intents.set(intentOf({ prompt: it.prompt }), { workflow: 'batch', call: id });
	state.stats.items += size;
	return { route: HOOK.batch, req: jsonBody({ items }) };
}

/** The `k`th replace call's route and request: the video, with its own duration and ratio (an intent). */
function replaceRequest({ id, k, video, state }) {
	// a replacement's input differs from the others' by duration and aspect ratio (90 combinations)
	const d = 1 + (k % 30);
	const r = ['9:16', '16:9', '1:1'][Math.floor(k / 30) % 3];
	state.intents.set(
		intentOf({ mode: 'character_replacement', durationSeconds: d, aspectRatio: r }),
		{
			workflow: 'replace',
			call: id,
		},
	);
	state.stats.items += 1;
	return {
		route: `${HOOK.replace}?d=${d}&r=${encodeURIComponent(r)}`,
		req: {
			body: video,
			headers: {
				'Content-Type': 'video/mp4',
				'Content-Disposition': 'attachment; filename="sample-video.mp4"',
			},
		},
	};
}

/** One call: sent, and sent again with the same body when it failed (up to 8 times). */
async function callUntilAnswered({ stack, kind, id, route, req, rand, state }) {
	const { stats } = state;
	stats.calls[kind] += 1;
	for (let attempt = 1; attempt <= 8; attempt++) {
		stats.attempts[kind] += 1;
		let outcome;
		try {
			// a caller gives up after 3 minutes (n8n may never answer a call whose execution was lost
			// with a main or Redis restart) and calls again
			const r = await callWebhook(stack.base, route, { ...req, timeoutMs: 3 * 60_000 });
			if (r.status === 200) return { id, ok: true, attempts: attempt };
			outcome = `HTTP ${r.status}`;
		} catch (error) {
			outcome = error.cause?.code ?? error.name ?? 'error';
		}
		count(stats.failedAttempts, `${kind}: ${outcome}`);
		// a caller waits a little and calls again (longer while the main restarts)
		await pause(rand.int(2000, 6000) * attempt);
	}
	stats.abandoned.push(id);
	return { id, ok: false };
}

/**
 * The callers, until the load ends (`state.stopping`): two batch callers and one replace caller, each call
 * after the other, each drawing from its own stream (`rands`: three prngs). Returns their promises.
 */
export function startCallers({ stack, state, seed, video, rands }) {
	let n = 0; // calls of all callers (a call's id: b1, r2, …)
	let replaceCalls = 0;
	const call = (kind, rand) => {
		const id = `${kind[0]}${++n}`;
		const { route, req } =
			kind === 'batch'
				? batchRequest({ id, size: rand.int(5, 20), seed, state })
				: replaceRequest({ id, k: replaceCalls++, video, state });
		return callUntilAnswered({ stack, kind, id, route, req, rand, state });
	};
	const caller = async (kind, gapMs, rand) => {
		while (!state.stopping) {
			if (kind === 'batch' && state.batchHeld) {
				await pause(250);
				continue;
			}
			await call(kind, rand);
			await pause(rand.int(gapMs[0], gapMs[1]));
		}
	};
	return [
		caller('batch', [1000, 5000], rands[0]),
		caller('batch', [1000, 5000], rands[1]),
		caller('replace', [5000, 20_000], rands[2]),
	];
}
