// Reading the emulator's journal of one run: its requests by route (quotes apart), per fixed one-minute window, and the
// referee's violations counted by kind.

/** Requests of a journal slice by route. */
export function byRoute(j) {
	const c = { capabilities: 0, quote: 0, create: 0, list: 0, get: 0, download: 0, other: 0 };
	for (const e of j) {
		if (e.path === '/v1/capabilities') c.capabilities++;
		else if (e.method === 'POST' && e.path === '/v1/jobs/quote') c.quote++;
		else if (e.method === 'POST' && e.path === '/v1/jobs') c.create++;
		else if (e.method === 'GET' && e.path === '/v1/jobs') c.list++;
		else if (e.method === 'GET' && /^\/v1\/jobs\/[^/]+\/output$/.test(e.path)) c.download++;
		else if (e.method === 'GET' && /^\/v1\/jobs\/[^/]+$/.test(e.path)) c.get++;
		else c.other++;
	}
	return c;
}

export const routeText = (c) =>
	`${c.capabilities} cap + ${c.quote ? `${c.quote} quote + ` : ''}${c.create} create + ${c.list} list + ${c.get} get + ${c.download} download${c.other ? ` + ${c.other} other` : ''} = ${c.capabilities + (c.quote ?? 0) + c.create + c.list + c.get + c.download + c.other}`;

/** Requests per fixed one-minute window (aligned like the emulator's), from the first to the last. */
export function perWindow(j, windowMs = 60_000) {
	if (!j.length) return [];
	const first = Math.floor(j[0].at / windowMs);
	const last = Math.floor(j[j.length - 1].at / windowMs);
	const counts = Array.from({ length: last - first + 1 }, () => 0);
	for (const e of j) counts[Math.floor(e.at / windowMs) - first]++;
	return counts;
}

/** The referee's violations of one key counted by kind: { kind: count }. */
export function kindCounts(violations) {
	const counts = {};
	for (const x of violations) counts[x.kind] = (counts[x.kind] ?? 0) + 1;
	return counts;
}
