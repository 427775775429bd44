// `node scripts/run-ts.mjs <script> [args…]`: runs a command whose code imports TypeScript (the emulator) as
// `node --import tsx <script>` would, in this same process, after checking that the devDependencies are
// installed. In a fresh clone before `npm ci`, `npm start -- --help` then prints one line saying to run
// `npm ci --ignore-scripts` and exits 1, instead of Node's ERR_MODULE_NOT_FOUND and a stack trace. The npm
// scripts that need tsx (start, demo, emulator, bench, soak, release:rehearse) start through it.
//
// Plain Node, no dependency: it must run before anything is installed. The script sees itself as
// process.argv[1] and its own arguments after it, as when Node runs it directly.
import path from 'node:path';
import { pathToFileURL } from 'node:url';

import { installFirstLine, missingDevDependencies } from '../tools/lib/dev-deps.mjs';

const [script, ...rest] = process.argv.slice(2);
if (!script) {
	process.stderr.write('usage: node scripts/run-ts.mjs <script> [arguments]\n');
	process.exit(2);
}
const missing = missingDevDependencies();
if (missing.length) {
	process.stderr.write(`${installFirstLine(missing)}\n`);
	process.exit(1);
}
const target = path.resolve(script);
process.argv = [process.argv[0], target, ...rest];
try {
	await import('tsx'); // what `node --import tsx` loads first: tsx's loader for .ts files
	await import(pathToFileURL(target).href);
} catch (error) {
	// a package that `npm ci` installs is missing (a partial node_modules): the same one line
	const pkg =
		error?.code === 'ERR_MODULE_NOT_FOUND' && /Cannot find package '([^']+)'/.exec(error.message);
	if (!pkg) throw error;
	process.stderr.write(`${installFirstLine([pkg[1]])}\n`);
	process.exit(1);
}
