// Redis for n8n's queue mode: a private server on a free loopback port, keeping its data across a restart
// (its default save points), as a Debian redis-server service does.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

import { which } from './browser-path.mjs';
import { secs } from './format.mjs';
import { freePort } from './net.mjs';
import { spawnLogged } from './process.mjs';
import { waitUntil } from './wait.mjs';

/** redis-server: $GS_REDIS_SERVER or PATH. */
export function findRedisServer() {
	if (process.env.GS_REDIS_SERVER)
		return fs.existsSync(process.env.GS_REDIS_SERVER) ? process.env.GS_REDIS_SERVER : undefined;
	return which('redis-server');
}

function redisPing(port) {
	return new Promise((resolve) => {
		const sock = net.connect({ host: '127.0.0.1', port }, () => sock.write('PING\r\n'));
		let buf = '';
		sock.setTimeout(1000, () => {
			sock.destroy();
			resolve(false);
		});
		sock.on('data', (d) => {
			buf += d;
			if (buf.includes('\r\n')) {
				sock.destroy();
				resolve(buf.startsWith('+PONG'));
			}
		});
		sock.on('error', () => resolve(false));
	});
}

export async function startRedis({ redisServer, dir, logsDir, log, port: fixedPort }) {
	const redisDir = path.join(dir, 'redis');
	fs.mkdirSync(redisDir, { recursive: true });
	const port = fixedPort ?? (await freePort());
	const logFile = path.join(logsDir, 'redis.log');
	const t0 = Date.now();
	const proc = spawnLogged(
		redisServer,
		[
			'--port',
			String(port),
			'--bind',
			'127.0.0.1',
			'--dir',
			redisDir,
			// Redis's own default save points: a shutdown (SIGTERM) writes the data set and a start reads it
			// back, as a Debian redis-server restarted by its service does, so n8n's queue survives a restart
			'--save',
			'3600 1 300 100 60 10000',
			'--appendonly',
			'no',
			'--daemonize',
			'no',
		],
		{ env: process.env, cwd: redisDir, logFile, label: 'redis' },
	);
	await waitUntil('redis', () => redisPing(port), { timeoutMs: 20_000, proc, logFile });
	log(`Redis on 127.0.0.1:${port} (${secs(Date.now() - t0)})`);
	return { port, proc, stop: () => proc.stop('SIGTERM', 10_000) };
}
