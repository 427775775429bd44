const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

// n8n-core keeps its instance settings and filesystem binary data under N8N_USER_FOLDER:
// give every test run its own throw-away folder instead of ~/.n8n (removed by test/helpers/teardown.js),
// and every worker of the run a folder of its own inside it (test/helpers/worker-folder.js).
if (!process.env.N8N_USER_FOLDER) {
	process.env.N8N_USER_FOLDER = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-n8n-jest-'));
	process.env.GS_JEST_OWN_USER_FOLDER = process.env.N8N_USER_FOLDER;
}

// The nodes log each job's progress at n8n's info level (n8n's logger, a winston console transport): useful in
// n8n, ~800 lines with stack frames in a jest run, where they bury a failure. Warnings and errors still show;
// `N8N_LOG_LEVEL=info npm run test:unit` shows everything.
process.env.N8N_LOG_LEVEL ??= 'warn';

/** @type {import('jest').Config} */
module.exports = {
	preset: 'ts-jest',
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	testPathIgnorePatterns: ['/node_modules/', '/dist/'],
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }],
	},
	// The package's clock is swapped for a virtual one (nothing in the shipped code can change it).
	moduleNameMapper: {
		'^\\./clock$': '<rootDir>/test/helpers/serviceClock.ts',
	},
	setupFiles: ['<rootDir>/test/helpers/worker-folder.js'],
	testTimeout: 60000,
	globalTeardown: '<rootDir>/test/helpers/teardown.js',
	// in the clone (git ignores .cache), not the system temp folder
	cacheDirectory: '<rootDir>/.cache/jest',
};
