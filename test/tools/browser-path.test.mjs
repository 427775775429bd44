// Which browser the browser suites drive, found the way tools/lib/browser-path.mjs looks: fake browsers on a
// PATH of this test's own (scripts that answer --version as Chromium, Google Chrome or Ubuntu's snap stub do).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';

import { findBrowser } from '../../tools/lib/browser-path.mjs';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-browser-path-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A fake executable `name` in its own folder, printing `out` and exiting with `code`. */
function fake(folder, name, out, code = 0) {
	const d = path.join(dir, folder);
	fs.mkdirSync(d, { recursive: true });
	const file = path.join(d, name);
	fs.writeFileSync(file, `#!/bin/sh\necho "${out}"\nexit ${code}\n`, { mode: 0o755 });
	return d;
}

const snapStub = fake(
	'ubuntu',
	'chromium-browser',
	"Command '/usr/bin/chromium-browser' requires the chromium snap to be installed.",
	1,
);
const chrome = fake('runner', 'google-chrome', 'Google Chrome 143.0.7499.40');
const debian = fake(
	'debian',
	'chromium',
	'Chromium 150.0.7871.100 built on Debian GNU/Linux 12 (bookworm)',
);
const empty = fs.mkdtempSync(path.join(dir, 'empty-'));

describe('findBrowser', () => {
	it("on GitHub's ubuntu-24.04 runner: passes over the snap stub, finds Google Chrome", () => {
		const found = findBrowser({
			extraDirs: [],
			env: { PATH: [snapStub, chrome].join(path.delimiter) },
		});
		assert.equal(found?.path, path.join(chrome, 'google-chrome'));
		assert.equal(found.version, 'Google Chrome 143.0.7499.40');
		assert.equal(found.from, 'PATH');
	});

	it('on Debian: chromium first', () => {
		const found = findBrowser({
			extraDirs: [],
			env: { PATH: [chrome, debian].join(path.delimiter) },
		});
		assert.equal(found?.path, path.join(debian, 'chromium'));
	});

	it('CHROMIUM wins, and a wrong CHROMIUM is reported, not guessed around', () => {
		const own = path.join(chrome, 'google-chrome');
		const env = { PATH: debian, CHROMIUM: own };
		assert.equal(findBrowser({ extraDirs: [], env })?.path, own);
		assert.equal(
			findBrowser({ extraDirs: [], env: { PATH: debian, CHROMIUM: path.join(empty, 'nope') } }),
			undefined,
		);
	});

	it(
		'only a stub: none found',
		{ skip: process.platform === 'darwin' && 'looks in /Applications too' },
		() => {
			assert.equal(findBrowser({ extraDirs: [], env: { PATH: snapStub } }), undefined);
		},
	);
});
