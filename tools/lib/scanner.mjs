// n8n's own scanner of community packages (@n8n/scan-community-package, the one n8n runs on every package it
// verifies), run offline: its CLI needs the public registry, a provenance attestation and the GitHub source,
// none of which this machine reaches, but its two lint legs are exported (`analyzePackage`) and run here with
// the CLI's own file patterns:
//   source   the package's source (what the provenance attestation points at): SOURCE_FILE_PATTERNS
//   tarball  the unpacked tarball as published: ['**/*.js', 'package.json']
// Each leg runs in a child process with a temp folder of its own (the scanner makes one at import and leaves
// it), removed afterwards.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SCANNER_PACKAGE = '@n8n/scan-community-package';
export const TARBALL_PATTERNS = ['**/*.js', 'package.json'];

const LEG = `
import { analyzePackage, SOURCE_FILE_PATTERNS } from '${SCANNER_PACKAGE}/scanner/scanner.mjs';
const [dir, leg, tarballPatterns] = process.argv.slice(1);
const patterns = leg === 'source' ? SOURCE_FILE_PATTERNS : JSON.parse(tarballPatterns);
const result = await analyzePackage(dir, patterns);
process.stdout.write('\\n@@result ' + JSON.stringify({ passed: result.passed, message: result.message ?? null, details: result.details ?? null, patterns }) + '\\n');
`;

/** The scanner's version, as installed (a pinned devDependency). */
export function scannerVersion() {
	return JSON.parse(
		fs.readFileSync(path.join(REPO, 'node_modules', SCANNER_PACKAGE, 'package.json'), 'utf8'),
	).version;
}

/**
 * One leg of the scan over `dir`: { passed, message, details, patterns }. `leg` is 'source' (a source folder
 * holding package.json, nodes/, credentials/) or 'tarball' (an unpacked tarball).
 */
export async function scanLeg(dir, leg) {
	const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-scan-'));
	try {
		const child = spawn(
			process.execPath,
			['--input-type=module', '-e', LEG, path.resolve(dir), leg, JSON.stringify(TARBALL_PATTERNS)],
			{ cwd: REPO, env: { ...process.env, TMPDIR: tmp }, stdio: ['ignore', 'pipe', 'pipe'] },
		);
		let out = '';
		let err = '';
		child.stdout.on('data', (d) => (out += d));
		child.stderr.on('data', (d) => (err += d));
		const code = await new Promise((resolve) => child.on('close', resolve));
		const line = out.split('\n').find((l) => l.startsWith('@@result '));
		if (!line)
			throw new Error(`the scanner's ${leg} leg printed no result (exit ${code}):\n${out}${err}`);
		return JSON.parse(line.slice('@@result '.length));
	} finally {
		fs.rmSync(tmp, { recursive: true, force: true });
	}
}
