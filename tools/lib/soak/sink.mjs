// The sink MP4s are delivered to by the soak's and the bench's workflows: n8n's HTTP Request node posts each
// job's MP4 to it, and it keeps the sha256 of every delivery by job id.
import { createHash } from 'node:crypto';
import http from 'node:http';

import { httpRequest } from '../workflow.mjs';

const sha256 = (buf) => createHash('sha256').update(buf).digest('hex');

/** The sink the trigger path delivers MP4s to: job id → [{ sha256, bytes, at }]. */
export async function startSink() {
	const deliveries = new Map();
	const server = http.createServer((req, res) => {
		const chunks = [];
		req.on('data', (c) => chunks.push(c));
		req.on('end', () => {
			const job = new URL(req.url, 'http://x').searchParams.get('job');
			const body = Buffer.concat(chunks);
			if (!deliveries.has(job)) deliveries.set(job, []);
			deliveries.get(job).push({ sha256: sha256(body), bytes: body.length, at: Date.now() });
			res.writeHead(200, { 'Content-Type': 'application/json' });
			res.end('{"ok":true}');
		});
	});
	await new Promise((r) => server.listen(0, '127.0.0.1', r));
	return {
		url: `http://127.0.0.1:${server.address().port}/deliver`,
		deliveries,
		close: () => new Promise((r) => server.close(r)),
	};
}

/** n8n's HTTP Request node posting the item's MP4 (binary field `data`) to the sink for job `$json.id`. */
export const deliverToSink = (name, sinkUrl, extra) =>
	httpRequest(
		name,
		{ method: 'POST', url: `=${sinkUrl}?job={{ $json.id }}`, binaryField: 'data' },
		extra,
	);
