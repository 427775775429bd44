// A release rehearsal: the path publish.yml runs, offline, in temporary clones of the repo's HEAD.
//
//   maintainer  `npm run release -- <bump> --ci`: release-it with .release-it.json — lint and build, version
//               bump in package.json and package-lock.json, CHANGELOG.md's "Unreleased" moved under the new
//               version with today's date (@release-it/keep-a-changelog), commit, tag, push to an origin
//               (a bare repository in the temp folder, as GitHub would be).
//   laptop      a plain `npm publish` from a checkout of the tag: the prepublishOnly guard (`n8n-node
//               prerelease`) must refuse it, and the registry must not get the version.
//   GitHub      publish.yml's publish job on a checkout of the tag: `npm run release:ci` (`n8n-node release`)
//               with GITHUB_ACTIONS=true — lint, build, `npm publish` with RELEASE_MODE=true — to `registry`.
//
// Only provenance differs from GitHub: n8n-node asks npm for it (NPM_CONFIG_PROVENANCE=true), which needs
// GitHub's OIDC token; here an `npm` first on PATH adds `--provenance=false` to `npm publish` and passes every
// other command through unchanged.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { pinsOf } from './pinned-version.mjs';

/** Environment of a maintainer's shell: no CI markers, no release mode, no npm settings of our caller. */
function laptopEnv(extra = {}) {
	const env = {};
	for (const [k, v] of Object.entries(process.env)) {
		if (/^(npm_|NPM_CONFIG_|GITHUB_|RUNNER_|CI$|RELEASE_MODE$|INIT_CWD$)/i.test(k)) continue;
		env[k] = v;
	}
	return { ...env, ...extra };
}

/** Runs a command to its end: { code, out } (stdout and stderr together, in order). */
function exec(cmd, args, { cwd, env, timeoutMs = 600_000 }) {
	return new Promise((resolve, reject) => {
		const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
		let out = '';
		child.stdout.on('data', (d) => (out += d));
		child.stderr.on('data', (d) => (out += d));
		const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
		child.on('error', reject);
		child.on('close', (code) => {
			clearTimeout(timer);
			resolve({ code, out });
		});
	});
}

async function must(what, cmd, args, opts) {
	const r = await exec(cmd, args, opts);
	if (r.code !== 0) throw new Error(`${what} failed (exit ${r.code}):\n${r.out.slice(-6000)}`);
	return r.out;
}

const git = (cwd, ...args) => must(`git ${args.join(' ')}`, 'git', args, { cwd, env: laptopEnv() });

/** `npm`, first on PATH in `dir`: `npm publish …` becomes `npm publish --provenance=false …`. */
function writeNpmShim(dir, realNpm) {
	fs.mkdirSync(dir, { recursive: true });
	const shim = path.join(dir, 'npm');
	fs.writeFileSync(
		shim,
		`#!/bin/sh\n# release rehearsal: no OIDC here, so no provenance; everything else as is\nif [ "$1" = publish ]; then shift; exec "${realNpm}" publish --provenance=false "$@"; fi\nexec "${realNpm}" "$@"\n`,
		{ mode: 0o755 },
	);
	return dir;
}

/** The npm on PATH (the shim must not find itself). */
function realNpmPath() {
	for (const d of (process.env.PATH ?? '').split(path.delimiter)) {
		const p = path.join(d, 'npm');
		if (fs.existsSync(p)) return p;
	}
	throw new Error('npm not found on PATH');
}

/** Today's date as keep-a-changelog writes it (local time). */
export function changelogDate(d = new Date()) {
	const pad = (n) => String(n).padStart(2, '0');
	return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/**
 * Rehearses a release of `repo`'s HEAD: returns { version, tag, changelog, readme, refusal, steps } where `steps` has
 * the seconds of each part. `registry` is a local registry ({ url, npmEnv } of tools' startRegistry); `change`
 * is the CHANGELOG entry the maintainer commits before releasing (what a release needs: an Unreleased entry).
 */
export async function rehearseRelease({
	repo,
	registry,
	bump = 'patch',
	change = '- A change to release (release rehearsal).',
	log = () => {},
}) {
	const work = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-release-'));
	const steps = {};
	const timed = async (name, fn) => {
		const t0 = Date.now();
		try {
			return await fn();
		} finally {
			steps[name] = (Date.now() - t0) / 1000;
			log(`${name}: ${steps[name].toFixed(1)} s`);
		}
	};
	try {
		const origin = path.join(work, 'origin.git');
		const maintainer = path.join(work, 'maintainer');
		const tagCheckout = path.join(work, 'tag');
		const modules = path.join(repo, 'node_modules');

		// GitHub: a bare repository with main at the repo's HEAD; the maintainer's clone tracks it
		await timed('clone', async () => {
			await git(work, 'init', '--quiet', '--bare', '--initial-branch=main', origin);
			await git(repo, 'push', '--quiet', origin, 'HEAD:refs/heads/main');
			await git(work, 'clone', '--quiet', origin, maintainer);
			await git(maintainer, 'config', 'user.name', 'Release Rehearsal');
			await git(maintainer, 'config', 'user.email', 'rehearsal@example.invalid');
			fs.symlinkSync(modules, path.join(maintainer, 'node_modules'));
		});

		// the maintainer writes what changed under Unreleased, commits, and releases
		const changelogFile = path.join(maintainer, 'CHANGELOG.md');
		const before = fs.readFileSync(changelogFile, 'utf8');
		fs.writeFileSync(
			changelogFile,
			before.replace('## [Unreleased]\n', `## [Unreleased]\n\n### Fixed\n\n${change}\n`),
		);
		await git(maintainer, 'commit', '--quiet', '-am', 'A change to release');
		const previous = JSON.parse(fs.readFileSync(path.join(maintainer, 'package.json'), 'utf8'));
		await timed('npm run release (release-it)', () =>
			must('npm run release', 'npm', ['run', 'release', '--', bump, '--ci'], {
				cwd: maintainer,
				env: laptopEnv(),
			}),
		);
		const released = JSON.parse(fs.readFileSync(path.join(maintainer, 'package.json'), 'utf8'));
		const version = released.version;
		const tag = (await git(origin, 'tag', '--list', version)).trim();
		const changelog = fs.readFileSync(changelogFile, 'utf8');
		const lock = JSON.parse(fs.readFileSync(path.join(maintainer, 'package-lock.json'), 'utf8'));
		const subject = (await git(origin, 'log', '-1', '--format=%s', 'main')).trim();
		const readme = fs.readFileSync(path.join(maintainer, 'README.md'), 'utf8');

		// GitHub's checkout of the tag (publish.yml), with the dependencies installed
		await git(work, 'clone', '--quiet', '--branch', version, origin, tagCheckout);
		fs.symlinkSync(modules, path.join(tagCheckout, 'node_modules'));
		const npmrc = registry.npmEnv.npm_config_userconfig;

		// a laptop: plain `npm publish` of the tag to the registry, which the guard must refuse
		const refusal = await timed('plain npm publish', () =>
			exec('npm', ['publish', '--registry', `${registry.url}/`], {
				cwd: tagCheckout,
				env: laptopEnv({ npm_config_userconfig: npmrc }),
			}),
		);
		const afterRefusal = await registry.view(released.name);

		// publish.yml's publish job: `npm run release:ci` as GitHub runs it
		const shims = writeNpmShim(path.join(work, 'shims'), realNpmPath());
		const published = await timed('npm run release:ci (n8n-node release, GitHub mode)', () =>
			exec('npm', ['run', 'release:ci'], {
				cwd: tagCheckout,
				env: laptopEnv({
					GITHUB_ACTIONS: 'true',
					CI: 'true',
					PATH: `${shims}${path.delimiter}${process.env.PATH}`,
					npm_config_userconfig: npmrc,
					npm_config_registry: `${registry.url}/`,
				}),
			}),
		);
		return {
			previousVersion: previous.version,
			version,
			lockVersion: lock.version,
			lockRootVersion: lock.packages?.['']?.version,
			tag,
			commitSubject: subject,
			changelog,
			readme,
			refusal: {
				code: refusal.code,
				out: refusal.out,
				registryVersions: Object.keys(afterRefusal?.versions ?? {}),
			},
			published: { code: published.code, out: published.out },
			steps,
		};
	} finally {
		fs.rmSync(work, { recursive: true, force: true });
	}
}

/**
 * What a release needs from each step of a rehearsal, as [what, ok, detail] rows: the next `bump` version, its
 * tag, the dated CHANGELOG section, README's pinned version, the plain `npm publish` refused (and the registry
 * without it), and publish.yml's `npm run release:ci` published. `registryDoc` is the registry's document of
 * the package after the rehearsal (registry.view(name)).
 */
export function releaseChecks(released, registryDoc) {
	const { version, previousVersion } = released;
	const [maj, min, patch] = previousVersion.split('.').map(Number);
	const pins = [...new Set(pinsOf(released.readme ?? '').map((p) => p.version))];
	return [
		[
			'npm run release: the next patch version',
			version === `${maj}.${min}.${patch + 1}`,
			`${previousVersion} → ${version}`,
		],
		['npm run release: the tag', released.tag === version, released.tag || '(none)'],
		[
			'npm run release: CHANGELOG dated',
			released.changelog.includes(`## [${version}] - `),
			`## [${version}]`,
		],
		[
			'npm run release: README pins the new version',
			pins.length === 1 && pins[0] === version,
			pins.join(', ') || '(no pin)',
		],
		[
			'plain npm publish: refused, the registry without it',
			released.refusal.code !== 0 && !released.refusal.registryVersions.includes(version),
			`exit ${released.refusal.code}`,
		],
		[
			'npm run release:ci (GitHub mode): published',
			released.published.code === 0 && Boolean(registryDoc?.versions?.[version]),
			`exit ${released.published.code}`,
		],
	];
}
