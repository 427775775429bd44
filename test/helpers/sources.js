// Reads the package's own source files for tests that check its shape (e.g. the process state registry).
// Plain JS on purpose: the TS lint rules forbid the file system in test code.
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..', '..');

/** Every .ts file under `dir` (relative to the repository), as repository paths with forward slashes. */
function sourceFiles(dir) {
	const walk = (abs) =>
		fs.readdirSync(abs, { withFileTypes: true }).flatMap((entry) => {
			const full = path.join(abs, entry.name);
			if (entry.isDirectory()) return walk(full);
			return entry.name.endsWith('.ts')
				? [path.relative(ROOT, full).split(path.sep).join('/')]
				: [];
		});
	return walk(path.join(ROOT, dir));
}

/** The text of a repository file. */
function readSource(repoPath) {
	return fs.readFileSync(path.join(ROOT, repoPath), 'utf8');
}

module.exports = { sourceFiles, readSource };
