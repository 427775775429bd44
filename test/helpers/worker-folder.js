// Jest setup file (runs in each worker before its test files load n8n-core): every jest worker keeps
// n8n-core's instance settings and filesystem binary data in a folder of its own inside the run's
// throw-away N8N_USER_FOLDER, so parallel workers never share one.
const fs = require('node:fs');
const path = require('node:path');

const runFolder = process.env.GS_JEST_OWN_USER_FOLDER;
if (runFolder) {
	const own = path.join(runFolder, `worker-${process.env.JEST_WORKER_ID ?? '1'}`);
	fs.mkdirSync(own, { recursive: true });
	process.env.N8N_USER_FOLDER = own;
}
