// The emulator's referee times an answer from the moment it is handed over to the socket. On a loaded
// machine the emulator's process (the test runner of the soaks) can lose the CPU just after writing an
// answer while the client, an n8n process, already has it: a time taken after the write made a client that
// waited 5 s from the answer look 32 ms early (poll_too_soon in the queue-mode soak, CI of 2026-11-27).
// Here that moment is modelled on a virtual clock: 40 ms pass right after every answer is written.
//
//   node --import tsx --test test/tools/*.test.mjs        (npm run test:tools)
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, test } from 'node:test';

import { startEmulator } from '../../tools/lib/emulator.mjs';

const LAG_MS = 40;
const clock = {
	t: 1_800_000_000_000,
	now: () => clock.t,
	sleep: async (ms) => void (clock.t += ms),
};
const end = http.ServerResponse.prototype.end;
/** Virtual time at which the last answer was handed over (what the client times from). */
let handedOverAt = 0;
let emu;

before(async () => {
	emu = await startEmulator({ port: 0, clock, rateWindowMs: 10_000 });
	emu.expectViolations({ poll_too_soon: 1 }); // the first test's, on purpose
	http.ServerResponse.prototype.end = function (...args) {
		handedOverAt = clock.t;
		const result = end.apply(this, args);
		clock.t += LAG_MS; // the emulator's process descheduled after the write
		return result;
	};
});

after(async () => {
	http.ServerResponse.prototype.end = end;
	await emu?.close();
});

const call = (path, init = {}) =>
	fetch(`${emu.baseUrl}${path}`, {
		...init,
		headers: { Authorization: `Bearer ${emu.keys.full}`, ...init.headers },
	});

let created = 0;
async function createJob() {
	created += 1;
	const res = await call('/jobs', {
		method: 'POST',
		headers: {
			'Content-Type': 'application/json',
			'Idempotency-Key': `answer-time-${created}-${'0'.repeat(16)}`,
		},
		body: JSON.stringify({ mode: 'text_to_video', prompt: `prompt ${created}` }),
	});
	assert.equal(res.status, 202);
	return (await res.json()).data.id;
}

const kinds = () => emu.control.violations().map((v) => v.kind);

test('a read 1 ms short of 5 s after the creation answer reached the client is still too soon', async () => {
	const jobId = await createJob();
	clock.t = handedOverAt + 4999;
	assert.equal((await call(`/jobs/${jobId}`)).status, 200);
	assert.deepEqual(kinds(), ['poll_too_soon']);
});

test('a read 5 s after the creation answer reached the client is not too soon', async () => {
	const jobId = await createJob();
	clock.t = handedOverAt + 5000;
	assert.equal((await call(`/jobs/${jobId}`)).status, 200);
	assert.deepEqual(kinds(), ['poll_too_soon']); // only the one of the test before
});

test('a Retry-After waited exactly from the answer is not early', async () => {
	emu.control.injectFault({ path: '/v1/balance', action: 'rate_limit', retryAfter: 3 });
	assert.equal((await call('/balance')).status, 429);
	clock.t = handedOverAt + 3000;
	assert.equal((await call('/balance')).status, 200);
	assert.deepEqual(kinds(), ['poll_too_soon']);
});
