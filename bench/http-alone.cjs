// Node's HTTP client alone, for part "memory" of `npm run bench`: a loopback server in a child process sends
// <MiB> MiB; this process reads the response to its end and drops every chunk (no file, no n8n). Prints
// {"peakArrayBuffers": <bytes above the start>, "bytes": <body bytes read>, "newSpace": <V8 new space size
// at the start>} — how much Buffer memory the client itself leaves for the garbage collector. Run it with the Node and V8 flags to compare, e.g.
//   node bench/http-alone.cjs 20
//   node --min-semi-space-size=64 --max-semi-space-size=64 bench/http-alone.cjs 20
'use strict';

const { fork } = require('node:child_process');
const http = require('node:http');

if (process.argv[2] === 'serve') {
	const size = Number(process.argv[3]) * 1024 * 1024;
	const body = Buffer.alloc(size, 7);
	const server = http.createServer((req, res) => {
		res.writeHead(200, { 'Content-Type': 'video/mp4', 'Content-Length': size });
		res.end(body);
	});
	server.listen(0, '127.0.0.1', () => process.send(server.address().port));
	process.on('disconnect', () => process.exit(0));
} else {
	const mib = Number(process.argv[2] || 20);
	const child = fork(__filename, ['serve', String(mib)], { execArgv: [] });
	child.once('message', (port) => {
		const young = require('node:v8')
			.getHeapSpaceStatistics()
			.find((x) => x.space_name === 'new_space');
		const start = process.memoryUsage().arrayBuffers;
		let peak = start;
		const timer = setInterval(() => {
			peak = Math.max(peak, process.memoryUsage().arrayBuffers);
		}, 2);
		http.get({ host: '127.0.0.1', port, path: '/' }, async (res) => {
			let bytes = 0;
			for await (const chunk of res) bytes += chunk.length;
			peak = Math.max(peak, process.memoryUsage().arrayBuffers);
			clearInterval(timer);
			process.stdout.write(
				`${JSON.stringify({ peakArrayBuffers: peak - start, bytes, newSpace: young?.space_size })}\n`,
			);
			child.disconnect();
		});
	});
}
