// Which Chromium-family browser the browser suites drive (playwright-core never downloads one here).
//
// Looked for in this order: $CHROMIUM; then on PATH chromium (Debian), chromium-browser, google-chrome,
// google-chrome-stable (GitHub's ubuntu-24.04 runner has Google Chrome; its chromium-browser is Ubuntu's snap
// stub); then the macOS application bundles. A candidate counts only if `<it> --version` answers like a
// browser within 20 s: a stub that prints how to install a snap, or a broken link, is passed over.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export const BROWSER_COMMANDS = [
	'chromium',
	'chromium-browser',
	'google-chrome',
	'google-chrome-stable',
];
const MAC_APPS = [
	'/Applications/Chromium.app/Contents/MacOS/Chromium',
	'/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
];

/** Folders searched after PATH: where apt installs (a PATH without them still finds Debian's chromium). */
export const SYSTEM_DIRS = ['/usr/sbin', '/usr/bin', '/sbin'];

/** `cmd` resolved on PATH and then `extraDirs`, or undefined. */
export function which(cmd, envPath = process.env.PATH ?? '', extraDirs = SYSTEM_DIRS) {
	const dirs = envPath.split(path.delimiter).filter(Boolean).concat(extraDirs);
	for (const d of dirs) {
		const p = path.join(d, cmd);
		try {
			fs.accessSync(p, fs.constants.X_OK);
			if (fs.statSync(p).isFile()) return p;
		} catch {
			/* not here */
		}
	}
	return undefined;
}

/** "Chromium 156.0.8078.73" when `bin --version` answers as a browser, else undefined. */
export function browserVersion(bin) {
	const r = spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 20_000 });
	const text = `${r.stdout ?? ''}`.trim();
	if (r.status !== 0 || !/^(Chromium|Google Chrome)\b.*\d+\.\d+/m.test(text)) return undefined;
	return text.split('\n')[0];
}

/**
 * The browser to drive: { path, version, from } or undefined. `from` says how it was found ("CHROMIUM" or
 * "PATH" or "macOS app"). $CHROMIUM, when set, is the only candidate: a wrong value is reported, not guessed
 * around.
 */
export function findBrowser({
	env = process.env,
	candidates = BROWSER_COMMANDS,
	extraDirs = SYSTEM_DIRS,
} = {}) {
	if (env.CHROMIUM) {
		const version = fs.existsSync(env.CHROMIUM) ? browserVersion(env.CHROMIUM) : undefined;
		return version ? { path: env.CHROMIUM, version, from: 'CHROMIUM' } : undefined;
	}
	for (const cmd of candidates) {
		const p = which(cmd, env.PATH ?? '', extraDirs);
		const version = p && browserVersion(p);
		if (version) return { path: p, version, from: 'PATH' };
	}
	if (process.platform === 'darwin') {
		for (const p of MAC_APPS) {
			const version = fs.existsSync(p) && browserVersion(p);
			if (version) return { path: p, version, from: 'macOS app' };
		}
	}
	return undefined;
}

/** What to do when no browser is found, for this machine. */
export function browserAdvice() {
	const tried = `$CHROMIUM, then ${BROWSER_COMMANDS.join(', ')} on PATH`;
	if (process.platform === 'darwin')
		return `No Chromium or Google Chrome found (tried ${tried} and /Applications). Install Google Chrome, or set CHROMIUM to a Chromium-family browser.`;
	return `No Chromium or Google Chrome found (tried ${tried}). On Debian/Ubuntu: sudo apt-get install -y chromium (Ubuntu's chromium-browser is a snap stub: use Google Chrome there, or set CHROMIUM).`;
}
