// Loopback ports and HTTP checks for the servers the tooling starts.
import net from 'node:net';

const handedOut = new Set();

/** A free TCP port on 127.0.0.1, not handed out before by this process (until releasePort). */
export async function freePort() {
	for (let i = 0; i < 50; i++) {
		const port = await new Promise((resolve, reject) => {
			const srv = net.createServer();
			srv.unref();
			srv.on('error', reject);
			srv.listen(0, '127.0.0.1', () => {
				const { port: p } = srv.address();
				srv.close(() => resolve(p));
			});
		});
		if (!handedOut.has(port)) {
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
