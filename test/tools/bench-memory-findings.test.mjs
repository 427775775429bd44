// The bench's upload finding (bench/parts/memory-goals.mjs) says what the run's figures show: the sha256 pass
// named as one more file's worth only when ours held a quarter of the file or more beyond HTTP Request when
// the POST started (the 2026-11-27 memory run: ours +0.4 MiB, HTTP Request +40.2 MiB, under the old fixed text).
//
//   node --import tsx --test test/tools/*.test.mjs        (npm run test:tools)
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { uploadFinding } from '../../bench/parts/memory-goals.mjs';

const MiB = 2 ** 20;
const ids = { up20o: 'o20', up20h: 'h20', upTo: 'ot', upTh: 'ht' };
/** Figures where arrayBuffers at the POST's start are `at[id]` MiB (and 1 MiB everywhere else). */
const figures = (at) => ({ upStart: (id) => (at[id] ?? 1) * MiB, dAB: () => 0.2 * MiB });

test('ours well above HTTP Request when the POST starts: the hash pass is named as one more file', () => {
	const text = uploadFinding(figures({ o20: 41, h20: 20.5 }), ids);
	assert.match(text, /the sha256 pass is one more file's worth of it/);
	assert.match(text, /\+41\.0 MiB of arrayBuffers have piled up in ours/);
	assert.match(text, /against \+20\.5 MiB for HTTP Request/);
});

test('ours no higher than HTTP Request: the finding says so and claims no second file', () => {
	const text = uploadFinding(figures({ o20: 0.4, h20: 40.2 }), ids);
	assert.doesNotMatch(text, /one more file's worth/);
	assert.doesNotMatch(text, /The difference is our second read/);
	assert.match(text, /left no more of it than HTTP Request/);
	assert.match(text, /\+0\.4 MiB of arrayBuffers have piled up in ours/);
});
