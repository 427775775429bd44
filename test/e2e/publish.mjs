// The publish step's checks, shared by the suites that run examples/publish-to-s3.json (regular n8n in
// filesystem and database binary mode, a queue-mode worker): every job's MP4 in the bucket, byte for byte
// (sha256 equal to the job's), named, typed and sized by the binary our node emitted, as n8n's S3 node read it.
import assert from 'node:assert/strict';

import { BUCKET, FOLDER } from '../../tools/lib/s3.mjs';

export { PUBLISH_EXAMPLE, S3_CREDENTIAL, BUCKET, s3Credential } from '../../tools/lib/s3.mjs';

/** The binary items `nodeName` output in an execute() result (its last run). */
function binariesOf(result, nodeName) {
	const runs = result?.data?.resultData?.runData?.[nodeName] ?? [];
	return (runs.at(-1)?.data?.main?.[0] ?? []).map((item) => item.binary?.data);
}

/**
 * Asserts one run of the publish example (`result`: n8n's run data; `jobs`: Create and Wait's output items)
 * against the bucket of `s3`; `binaryMode` is the mode the binary ids must show (filesystem or database).
 * Returns a line for the suite's output: the objects and their sha256 checks.
 */
export async function assertPublished({ s3, result, jobs, uploads, binaryMode, prompts = 4 }) {
	assert.equal(jobs.length, prompts, 'one job per prompt');
	assert.equal(uploads.length, prompts, 'one upload per job');
	for (const u of uploads) assert.deepEqual(u, { success: true });
	const binaries = binariesOf(result, 'Create and Wait');
	const checked = [];
	for (const [i, job] of jobs.entries()) {
		assert.equal(job.state, 'succeeded');
		assert.ok(job.reservedCredits <= 10, `Max Credits 10: ${job.reservedCredits}`);
		const binary = binaries[i];
		// what n8n's own nodes read from a binary: name, extension, MIME type, size — and where n8n keeps it
		assert.equal(binary?.fileName, `${job.id}.mp4`, JSON.stringify(binary));
		assert.equal(binary.fileExtension, 'mp4');
		assert.equal(binary.mimeType, 'video/mp4');
		assert.match(
			String(binary.fileSize),
			/^\d+(\.\d+)? ?(B|kB|KB|MB)$/i,
			'fileSize as n8n shows it',
		);
		assert.ok(
			binary.id?.startsWith(`${binaryMode}`),
			`binary kept in ${binaryMode} mode: ${binary.id}`,
		);
		// the S3 node's side: the key from the binary's file name (File Name left empty), its Content-Type
		const key = `${FOLDER}/${binary.fileName}`;
		const obj = await s3.object(BUCKET, key);
		assert.ok(
			obj,
			`object ${BUCKET}/${key} stored; bucket holds ${(await s3.keys(BUCKET)).join(', ')}`,
		);
		assert.equal(obj.contentType, binary.mimeType);
		assert.equal(obj.sha256, job.output.sha256, `sha256 of ${key}`);
		// n8n shows the size with three significant digits (pretty-bytes): within 0.5 % of the object's
		const shown = parseSize(binary.fileSize);
		assert.ok(
			Math.abs(shown - obj.size) <= obj.size * 0.005 + 1,
			`object ${obj.size} B, binary fileSize ${binary.fileSize}`,
		);
		checked.push(`${key} ${obj.size} B sha256 ${obj.sha256.slice(0, 12)}… = job's`);
	}
	return `${checked.length} objects in s3://${BUCKET}/${FOLDER}/ (${binaryMode} binary mode), each sha256 equal to its job's: ${checked.join('; ')}`;
}

/** n8n's fileSize ("1.2 MB", "830 kB", "512 B") as bytes, approximately. */
function parseSize(text) {
	const m = /^(\d+(?:\.\d+)?) ?(B|kB|KB|MB)$/i.exec(String(text));
	const unit = { b: 1, kb: 1000, mb: 1000 ** 2 }[m[2].toLowerCase()];
	return Number(m[1]) * unit;
}
