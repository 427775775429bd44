// The emulator's output videos play in real players. A desktop player's view: ffprobe reads the duration and the
// size the job asked for, and ffmpeg decodes every picture without an error (skipped without ffmpeg). A
// browser's: headless Chromium (Debian's chromium, or the browser tools/lib/browser-path.mjs finds) loads a
// job's MP4 in a <video> element, knows its duration and size, shows the test card's colours where they are
// drawn, and plays it to the end. test/emulator/video.test.ts reads the same kind of files' boxes. No n8n needed:
// part of `npm run test:tools`.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

import { browserAdvice, findBrowser } from '../../tools/lib/browser-path.mjs';
import { startEmulator } from '../../tools/lib/emulator.mjs';
import { launchBrowser } from '../e2e/browser.mjs';

const browserPath = findBrowser();
const hasFfmpeg = ['ffprobe', 'ffmpeg'].every(
	(cmd) => spawnSync(cmd, ['-version'], { stdio: 'ignore' }).status === 0,
);

/** The jobs, one per aspect ratio, with the sizes they play at. */
const JOBS = [
	{ durationSeconds: 5, aspectRatio: '9:16', width: 360, height: 640 }, // the demo's
	{ durationSeconds: 1, aspectRatio: '16:9', width: 640, height: 360 },
	{ durationSeconds: 30, aspectRatio: '1:1', width: 480, height: 480 },
];

let emu;
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-video-players-'));

before(async () => {
	emu = await startEmulator({ jobTiming: { queuedMs: 0, runningMs: 0 } });
	for (const job of JOBS) {
		const created = await fetch(`${emu.baseUrl}/jobs`, {
			method: 'POST',
			headers: {
				Authorization: `Bearer ${emu.keys.full}`,
				'Content-Type': 'application/json',
				'Idempotency-Key': `video-players-${job.aspectRatio.replace(':', 'x')}-0000000000000000`,
			},
			body: JSON.stringify({
				mode: 'text_to_video',
				prompt: 'a red fox running through the snow — manutenção, “com acentos”',
				durationSeconds: job.durationSeconds,
				aspectRatio: job.aspectRatio,
			}),
		});
		assert.equal(created.status, 202);
		const { id } = (await created.json()).data;
		// instant jobs: the emulator's lazy clock ends it at the next request
		const output = await fetch(`${emu.baseUrl}/jobs/${id}/output`, {
			headers: { Authorization: `Bearer ${emu.keys.full}` },
		});
		assert.equal(output.status, 200);
		job.bytes = Buffer.from(await output.arrayBuffer());
		job.path = `/${id}.mp4`;
		job.file = path.join(work, `${id}.mp4`);
		fs.writeFileSync(job.file, job.bytes);
	}
});

after(async () => {
	await emu?.close();
	fs.rmSync(work, { recursive: true, force: true });
});

describe(
	"the emulator's output video in ffprobe and ffmpeg (a desktop player's decoder)",
	{ skip: hasFfmpeg ? false : 'ffprobe and ffmpeg not found (Debian: apt-get install ffmpeg)' },
	() => {
		for (const job of JOBS) {
			it(`${job.durationSeconds} s at ${job.aspectRatio}: ffprobe reads ${job.durationSeconds} s and ${job.width}×${job.height}; every picture decodes`, () => {
				const probe = spawnSync(
					'ffprobe',
					[
						'-v',
						'error',
						'-count_frames',
						'-show_streams',
						'-show_format',
						'-of',
						'json',
						job.file,
					],
					{ encoding: 'utf8' },
				);
				assert.equal(probe.stderr, '');
				const info = JSON.parse(probe.stdout);
				const [video] = info.streams;
				assert.deepEqual(
					{
						codec: video.codec_name,
						width: video.width,
						height: video.height,
						duration: Number(info.format.duration),
						frames: Number(video.nb_read_frames),
					},
					{
						codec: 'h264',
						width: job.width,
						height: job.height,
						duration: job.durationSeconds,
						frames: 25 * job.durationSeconds,
					},
				);
				// a whole decode: any error in the H.264 the emulator writes ends it with a message
				const decode = spawnSync(
					'ffmpeg',
					['-v', 'error', '-xerror', '-i', job.file, '-f', 'null', '-'],
					{ encoding: 'utf8' },
				);
				assert.deepEqual(
					{ status: decode.status, stderr: decode.stderr },
					{ status: 0, stderr: '' },
				);
			});
		}
	},
);

describe(
	"the emulator's output video in Chromium",
	{ skip: browserPath ? false : browserAdvice() },
	() => {
		let server;
		let origin;
		let browser;

		before(async () => {
			// a <video> cannot send the API key: the page and the files come from a server of this test, which
			// answers Range requests as the emulator does
			const files = new Map(JOBS.map((job) => [job.path, job.bytes]));
			server = http.createServer((req, res) => {
				const bytes = files.get(req.url);
				if (!bytes) {
					res.writeHead(200, { 'Content-Type': 'text/html' });
					res.end(
						'<!doctype html><title>video</title><body style="margin:0;background:#000"></body>',
					);
					return;
				}
				const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
				const start = range ? Number(range[1]) : 0;
				const end = range && range[2] ? Number(range[2]) : bytes.length - 1;
				res.writeHead(range ? 206 : 200, {
					'Content-Type': 'video/mp4',
					'Accept-Ranges': 'bytes',
					'Content-Length': end - start + 1,
					...(range ? { 'Content-Range': `bytes ${start}-${end}/${bytes.length}` } : {}),
				});
				res.end(bytes.subarray(start, end + 1));
			});
			await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
			origin = `http://127.0.0.1:${server.address().port}`;
			browser = await launchBrowser({ viewport: { width: 800, height: 800 } });
			await browser.page.goto(`${origin}/`);
		});

		after(async () => {
			await browser?.close();
			await new Promise((resolve) => (server ? server.close(resolve) : resolve()));
		});

		for (const job of JOBS) {
			it(`${job.durationSeconds} s at ${job.aspectRatio}: loads (${job.width}×${job.height}), shows the card, plays to the end`, async () => {
				const seen = await browser.page.evaluate(async (src) => {
					const video = document.createElement('video');
					video.muted = true;
					video.preload = 'auto';
					document.body.replaceChildren(video);
					const once = (event) =>
						new Promise((resolve, reject) => {
							video.addEventListener(event, resolve, { once: true });
							video.addEventListener(
								'error',
								() =>
									reject(new Error(`video error ${video.error?.code}: ${video.error?.message}`)),
								{ once: true },
							);
						});
					const loaded = once('loadeddata');
					video.src = src;
					await loaded;
					const facts = {
						readyState: video.readyState,
						duration: video.duration,
						videoWidth: video.videoWidth,
						videoHeight: video.videoHeight,
					};
					// a picture from the middle, decoded: the colour bars at the top, the card's background below
					const seeked = once('seeked');
					video.currentTime = video.duration / 2;
					await seeked;
					const canvas = document.createElement('canvas');
					canvas.width = video.videoWidth;
					canvas.height = video.videoHeight;
					const ctx = canvas.getContext('2d');
					ctx.drawImage(video, 0, 0);
					const pixel = (x, y) => Array.from(ctx.getImageData(x, y, 1, 1).data.slice(0, 3));
					facts.barPixel = pixel(8, 8);
					facts.backgroundPixel = pixel(8, 40);
					// then to the end, fast
					video.currentTime = 0;
					video.playbackRate = 16;
					const ended = once('ended');
					await video.play();
					await ended;
					facts.ended = video.ended;
					facts.error = video.error?.code ?? null;
					return facts;
				}, `${origin}${job.path}`);
				assert.equal(seen.readyState >= 2, true, `readyState ${seen.readyState}`);
				assert.deepEqual(
					{ duration: seen.duration, videoWidth: seen.videoWidth, videoHeight: seen.videoHeight },
					{ duration: job.durationSeconds, videoWidth: job.width, videoHeight: job.height },
				);
				const near = (got, want) => got.every((v, i) => Math.abs(v - want[i]) <= 16);
				assert.ok(
					near(seen.barPixel, [191, 191, 191]),
					`colour bar (75 % white): ${seen.barPixel}`,
				);
				assert.ok(
					near(seen.backgroundPixel, [0x1b, 0x26, 0x33]),
					`background: ${seen.backgroundPixel}`,
				);
				assert.deepEqual({ ended: seen.ended, error: seen.error }, { ended: true, error: null });
			});
		}
	},
);
