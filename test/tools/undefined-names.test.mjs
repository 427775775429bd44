// The scaffold's eslint.config.mjs checks the package's TypeScript; the tooling's .mjs (suites, bench, scripts,
// tools/lib) are plain JavaScript that only runs in CI or on a user's machine, where a name left undefined by a
// refactor (an import removed, a helper renamed) shows only when that line runs: minutes into a suite, or in a
// branch that runs once a month (a lock waited on for 30 s). ESLint's no-undef over every .mjs, with Node's
// globals and the few browser names the browser suites use inside page.evaluate.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { ESLint } from 'eslint';

import { REPO } from '../../tools/lib/repo.mjs';

const BROWSER = ['document', 'window', 'getComputedStyle', 'HTMLElement', 'navigator', 'location'];
const globals = Object.fromEntries(
	[...Object.getOwnPropertyNames(globalThis), ...BROWSER].map((name) => [name, 'readonly']),
);

async function undefinedNames(patterns, extraConfig = {}) {
	const eslint = new ESLint({
		cwd: REPO,
		overrideConfigFile: true, // this check only, not the scaffold's config
		overrideConfig: {
			languageOptions: { ecmaVersion: 'latest', sourceType: 'module', globals },
			rules: { 'no-undef': 'error' },
			...extraConfig,
		},
	});
	const results = await eslint.lintFiles(patterns);
	return results.flatMap((r) =>
		r.messages.map((m) => `${r.filePath.slice(REPO.length + 1)}:${m.line} ${m.message}`),
	);
}

describe('names in the tooling (.mjs)', () => {
	it('every name used in bench/, scripts/, tools/ and test/ is defined', async () => {
		const found = await undefinedNames([
			'bench/**/*.mjs',
			'scripts/**/*.mjs',
			'tools/**/*.mjs',
			'test/**/*.mjs',
		]);
		assert.deepEqual(found, [], `undefined names:\n${found.join('\n')}`);
	});

	it('finds a planted undefined name (the check can fail)', async () => {
		const eslint = new ESLint({
			cwd: REPO,
			overrideConfigFile: true,
			overrideConfig: {
				languageOptions: { ecmaVersion: 'latest', sourceType: 'module', globals },
				rules: { 'no-undef': 'error' },
			},
		});
		const [result] = await eslint.lintText(
			'const pause = (ms) => ms;\nexport const f = () => pause(fmtMs(1));\n',
			{ filePath: 'tools/lib/planted.mjs' },
		);
		assert.deepEqual(
			result.messages.map((m) => m.message),
			["'fmtMs' is not defined."],
		);
	});
});
