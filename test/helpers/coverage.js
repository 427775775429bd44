// Which files of the package run code while a piece of work runs, from V8's precise coverage (function call
// counts). Plain JS on purpose: the TS lint rules forbid node:inspector and the file system in test code.
const path = require('node:path');
const { Session } = require('node:inspector/promises');

const ROOT = path.join(__dirname, '..', '..');

/**
 * The repository paths under `dir` (e.g. 'nodes/') of the files in which a function was called while `work`
 * ran: the counts are reset when it starts, so what only ran before (loading the modules) is not counted.
 */
async function filesRunBy(dir, work) {
	const session = new Session();
	session.connect();
	try {
		await session.post('Profiler.enable');
		await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
		await session.post('Profiler.takePreciseCoverage'); // counts from here on
		await work();
		const { result } = await session.post('Profiler.takePreciseCoverage');
		await session.post('Profiler.stopPreciseCoverage');
		const files = new Set();
		for (const script of result) {
			const file = script.url.startsWith('file://') ? new URL(script.url).pathname : script.url;
			const rel = path.relative(ROOT, file).split(path.sep).join('/');
			if (!rel.startsWith(dir)) continue;
			if (script.functions.some((f) => f.ranges[0] && f.ranges[0].count > 0)) files.add(rel);
		}
		return [...files].sort();
	} finally {
		session.disconnect();
	}
}

module.exports = { filesRunBy };
