// A local S3-compatible server for the publish step's tests and the bench: s3rver (a devDependency) on
// 127.0.0.1, its objects in a temp folder, the signatures of every request checked (s3rver's default key
// pair). The credential it gives is n8n's `s3` credential (custom endpoint, path-style addressing); the
// publish example (examples/publish-to-s3.json) names its credential, bucket and folder below.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { trackDir, untrackDir } from './exit.mjs';

/** examples/publish-to-s3.json: its S3 credential (as the example names it), bucket and key folder. */
export const PUBLISH_EXAMPLE = 'publish-to-s3.json';
export const S3_CREDENTIAL = { id: 'gsLocalS3', name: 'S3 bucket (add your endpoint and keys)' };
export const BUCKET = 'videos';
export const FOLDER = 'generated';

/** The example's S3 credential pointing at the local server `s3` (startS3). */
export function s3Credential(s3) {
	return { ...S3_CREDENTIAL, type: 's3', data: s3.credential };
}

/** s3rver's built-in key pair: it checks every request's signature against it. */
const KEY = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

/**
 * Starts the server with `buckets` created. Returns { endpoint, credential (n8n `s3` credential data),
 * object(bucket, key) → { key, size, contentType, sha256 } | null, keys(bucket), created (`bucket/key` →
 * when each object was stored, epoch ms, from s3rver's ObjectCreated events), close() }.
 */
export async function startS3({ buckets = ['videos'] } = {}) {
	const { default: S3rver } = await import('s3rver');
	const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-s3-'));
	trackDir(directory);
	const server = new S3rver({
		address: '127.0.0.1',
		port: 0,
		silent: true,
		directory,
		configureBuckets: buckets.map((name) => ({ name })),
	});
	const created = new Map();
	server.on('event', (event) => {
		for (const r of event.Records ?? [])
			if (r.eventName?.startsWith('ObjectCreated'))
				created.set(`${r.s3.bucket.name}/${r.s3.object.key}`, Date.now());
	});
	const { port } = await server.run();
	const endpoint = `http://127.0.0.1:${port}`;
	return {
		endpoint,
		credential: { endpoint, region: 'us-east-1', forcePathStyle: true, ...KEY },
		created,
		async object(bucket, key) {
			const obj = await server.store.getObject(bucket, key);
			if (!obj) return null;
			const hash = createHash('sha256');
			for await (const chunk of obj.content) hash.update(chunk);
			return {
				key,
				size: obj.size,
				contentType: obj.metadata['content-type'],
				sha256: hash.digest('hex'),
			};
		},
		async keys(bucket) {
			const { objects } = await server.store.listObjects(bucket, {});
			return objects.map((o) => o.key);
		},
		async close() {
			await server.close();
			fs.rmSync(directory, { recursive: true, force: true });
			untrackDir(directory);
		},
	};
}
