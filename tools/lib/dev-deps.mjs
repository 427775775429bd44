// Whether the project's devDependencies are installed (`npm ci --ignore-scripts`), for the commands that need
// them to start at all: plain Node built-ins only, so it answers in a fresh clone before anything is installed.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The packages a command cannot start without (tsx runs the emulator's and the tooling's TypeScript). */
export const NEEDED = ['tsx'];

/** The needed packages missing from `repo`/node_modules. */
export function missingDevDependencies(repo = REPO) {
	return NEEDED.filter(
		(name) => !fs.existsSync(path.join(repo, 'node_modules', name, 'package.json')),
	);
}

/** How npm names the running script (`npm start`, `npm run demo`), from npm's environment. */
export function commandName(env = process.env) {
	const event = env.npm_lifecycle_event;
	if (!event) return 'this command';
	return ['start', 'test', 'stop', 'restart'].includes(event) ? `npm ${event}` : `npm run ${event}`;
}

/** The one line a command prints when the devDependencies are missing. */
export function installFirstLine(missing, command = commandName()) {
	return `${command}: the project's devDependencies are not installed (${missing.join(', ')} missing from node_modules): run npm ci --ignore-scripts first`;
}
