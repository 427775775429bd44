// tools/lib/mp4.mjs reads what the demo reports of the MP4 n8n wrote: how long it plays and its size, from the
// file's own boxes; here on the emulator's outputs (emulator/src/media.ts), padded as the emulator pads them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { mp4Summary } from '../../tools/lib/mp4.mjs';

const { buildOutputMp4 } = await import('../../emulator/src/media.ts');
const input = (durationSeconds, aspectRatio) => ({
	mode: 'character_replacement',
	prompt: '',
	sourceAssetId: 'asset_0',
	referenceAssetId: 'asset_1',
	personaId: null,
	durationSeconds,
	aspectRatio,
});

describe('mp4Summary', () => {
	for (const [seconds, aspect, width, height] of [
		[5, '9:16', 360, 640],
		[30, '16:9', 640, 360],
		[1, '1:1', 480, 480],
	]) {
		it(`a ${seconds} s ${aspect} output of the emulator: ${seconds} s, ${width}×${height}, avc1`, () => {
			const file = buildOutputMp4(`job_${'0'.repeat(32)}`, input(seconds, aspect), 200_000);
			assert.deepEqual(mp4Summary(file), { seconds, width, height, codec: 'avc1' });
		});
	}

	it('null for bytes that are not an MP4 it can read', () => {
		assert.equal(mp4Summary(Buffer.from('<!doctype html><p>not a video</p>')), null);
		assert.equal(mp4Summary(Buffer.alloc(0)), null);
	});
});
