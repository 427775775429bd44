// freePort: free loopback ports away from the ones the system hands out by itself.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import { describe, it } from 'node:test';

import { FREE_RANGE, freePort } from '../../tools/lib/net.mjs';

const readRange = () =>
	fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);

describe('freePort', () => {
	it(
		'hands out ports below the ephemeral range, each once, each free to listen on',
		{ skip: !fs.existsSync('/proc/sys/net/ipv4/ip_local_port_range') && 'Linux only' },
		async () => {
			// a port in the ephemeral range can be an outgoing connection's local port by the time a server
			// binds it: a queue stack's worker exited on "Port 35041 is already in use"
			const [low] = readRange();
			assert.deepEqual(FREE_RANGE, [10_000, low - 1]);
			const ports = [];
			for (let i = 0; i < 40; i++) ports.push(await freePort());
			assert.equal(new Set(ports).size, ports.length, 'each once');
			for (const p of ports) assert.ok(p >= 10_000 && p < low, `${p} below ${low}`);
			const srv = net.createServer();
			await new Promise((resolve) => srv.listen(ports[0], '127.0.0.1', resolve));
			await new Promise((resolve) => srv.close(resolve));
		},
	);
});
