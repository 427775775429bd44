// Jest's global teardown: removes the throw-away N8N_USER_FOLDER that jest.config.js made for this run.
const fs = require('node:fs');

module.exports = async () => {
	const dir = process.env.GS_JEST_OWN_USER_FOLDER;
	if (dir) fs.rmSync(dir, { recursive: true, force: true });
};
