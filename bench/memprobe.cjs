// Memory probe for `npm run bench` (part "memory"): preloaded into n8n's main process by the bench only,
// with NODE_OPTIONS=--require <this file> (nothing in the package changes for it). Active only in the
// `n8n execute` process and only when GS_MEMPROBE_FILE is set; it writes NDJSON lines to that file:
//   {"t":<ms>,"s":[rss,heapTotal,heapUsed,external,arrayBuffers]}    a process.memoryUsage() sample
//   {"t":<ms>,"e":"<event>","m":"<METHOD>","p":"<path>","b":<Content-Length>} an HTTP client event
//   {"t":<ms>,"e":"gc","kind":"minor|major|incremental|weakcb","ms":<duration>}  a garbage collection
// HTTP events come from node:diagnostics_channel ('http.client.request.start'): request start, request
// body sent ('req-end'), response headers ('res'), response body fully read ('res-end').
// GS_MEMPROBE_MS: sample period (default 10). GS_MEMPROBE_GC_MS: when > 0, also run a garbage collection at
// that period, of the kind GS_MEMPROBE_GC names: 'minor' (a scavenge of the young generation, ~1 ms) or
// 'full' (needs --expose-gc in NODE_OPTIONS): shows how much of the memory is garbage waiting for one.
'use strict';

const fs = require('node:fs');

const file = process.env.GS_MEMPROBE_FILE;
const isExecute = process.argv.includes('execute');

if (file && isExecute) {
	const periodMs = Number(process.env.GS_MEMPROBE_MS || 10);
	const gcMs = Number(process.env.GS_MEMPROBE_GC_MS || 0);
	const lines = [];
	const push = (o) => lines.push(JSON.stringify(o));
	const sample = () => {
		const m = process.memoryUsage();
		push({ t: Date.now(), s: [m.rss, m.heapTotal, m.heapUsed, m.external, m.arrayBuffers] });
	};
	const flush = () => {
		if (!lines.length) return;
		try {
			fs.appendFileSync(file, lines.join('\n') + '\n');
		} catch {
			/* the bench reads what is there */
		}
		lines.length = 0;
	};
	sample();
	setInterval(sample, periodMs).unref();
	// written every 200 ms: n8n 2.41.1 sometimes crashes while exiting, after the run
	setInterval(flush, 200).unref();
	process.on('exit', () => {
		sample();
		flush();
	});
	if (gcMs > 0 && typeof global.gc === 'function') {
		const type = process.env.GS_MEMPROBE_GC === 'full' ? 'major' : 'minor';
		setInterval(() => global.gc({ type }), gcMs).unref();
	}

	// every garbage collection: when, which kind (perf_hooks constants), how long
	const { PerformanceObserver, performance, constants } = require('node:perf_hooks');
	const kinds = {
		[constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
		[constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
		[constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
		[constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
	};
	new PerformanceObserver((list) => {
		for (const entry of list.getEntries()) {
			const kind = entry.detail?.kind ?? entry.kind;
			push({
				t: Math.round(performance.timeOrigin + entry.startTime),
				e: 'gc',
				kind: kinds[kind] ?? String(kind),
				ms: Math.round(entry.duration * 100) / 100,
			});
		}
	}).observe({ entryTypes: ['gc'] });

	const dc = require('node:diagnostics_channel');
	let heapNoted = false;
	dc.subscribe('http.client.request.start', ({ request }) => {
		const m = request.method;
		const p = String(request.path || '').split('?')[0];
		if (!/\/v1\//.test(p)) return;
		if (!heapNoted) {
			// the young generation's size when the first request leaves (it decides how soon a scavenge comes)
			heapNoted = true;
			const spaces = require('node:v8').getHeapSpaceStatistics();
			const young = spaces.find((x) => x.space_name === 'new_space');
			push({ t: Date.now(), e: 'heap', newSpace: young?.space_size, newSpaceUsed: young?.space_used_size });
		}
		push({ t: Date.now(), e: 'req', m, p });
		request.on('finish', () => push({ t: Date.now(), e: 'req-end', m, p }));
		request.on('response', (res) => {
			const b = Number(res.headers['content-length']);
			push({ t: Date.now(), e: 'res', m, p, status: res.statusCode, b });
			// 'end' only: a 'data' listener would switch the stream to flowing mode and change the run
			res.on('end', () => push({ t: Date.now(), e: 'res-end', m, p, b }));
		});
	});
}
