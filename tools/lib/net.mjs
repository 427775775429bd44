// Loopback ports and HTTP checks for the servers the tooling starts.
import fs from 'node:fs';
import net from 'node:net';

const handedOut = new Set();

/**
 * Where freePort looks first: below the system's ephemeral range (Linux's ip_local_port_range, 32768–60999 by
 * default), from 10000. A port there is never the local port of an outgoing connection nor what another
 * process's listen on port 0 gets, two ways a port found free is taken before the server it was meant for
 * binds it (a queue stack's worker, started beside another stack, exited on "Port 35041 is already in use").
 * Undefined where the range cannot be read (then the system picks, as before).
 */
export const FREE_RANGE = (() => {
	try {
		const [low] = fs
			.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
			.trim()
			.split(/\s+/)
			.map(Number);
		return low > 11_000 ? [10_000, low - 1] : undefined;
	} catch {
		return undefined;
	}
})();

/** Whether `port` (0: any) can be listened on at 127.0.0.1 now: the port, or null. */
const tryListen = (port) =>
	new Promise((resolve) => {
		const srv = net.createServer();
		srv.unref();
		srv.once('error', () => resolve(null));
		srv.listen(port, '127.0.0.1', () => {
			const { port: p } = srv.address();
			srv.close(() => resolve(p));
		});
	});

/**
 * A free TCP port on 127.0.0.1, not handed out before by this process (until releasePort): a random one of
 * FREE_RANGE, else one the system picks.
 */
export async function freePort() {
	for (let i = 0; i < 50; i++) {
		const wanted = FREE_RANGE
			? FREE_RANGE[0] + Math.floor(Math.random() * (FREE_RANGE[1] - FREE_RANGE[0] + 1))
			: 0;
		if (handedOut.has(wanted)) continue;
		const port = await tryListen(wanted);
		if (port !== null && !handedOut.has(port)) {
			handedOut.add(port);
			return port;
		}
	}
	throw new Error('no free port found');
}

/** A port from freePort() that may be handed out again. */
export function releasePort(port) {
	handedOut.delete(port);
}

/** `wanted` when nothing listens there on loopback, else a free port (npm start says which it took). */
export async function portOr(wanted) {
	const free = await new Promise((resolve) => {
		const server = net.createServer();
		server.once('error', () => resolve(false));
		server.listen(wanted, '127.0.0.1', () => server.close(() => resolve(true)));
	});
	return free ? wanted : await freePort();
}

/** Whether something accepts connections on 127.0.0.1:`port`. */
export function listening(port) {
	return new Promise((resolve) => {
		const socket = net.connect(port, '127.0.0.1');
		socket.once('connect', () => {
			socket.destroy();
			resolve(true);
		});
		socket.once('error', () => resolve(false));
	});
}

/** GET `url` answers 2xx within 2 s (throws while nothing listens). */
export async function httpOk(url) {
	const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
	return res.ok;
}
