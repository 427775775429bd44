// `npm run test:reliability`: runs the reliability suites (fault matrix, bad-input table, secrets, redirects;
// money safety and Retry On Fail in real n8n) and turns the figures they record into a summary, printed and
// written to docs/reliability.md (tools/lib/reliability.mjs).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { runCommand } from '../tools/lib/cli.mjs';
import { trackDir } from '../tools/lib/exit.mjs';
import {
	readFigures,
	reliabilityDoc,
	runReliabilitySuites,
	summarize,
	summaryLines,
	withSoakSection,
} from '../tools/lib/reliability.mjs';
import { REPO } from '../tools/lib/repo.mjs';

export const RELIABILITY_COMMAND = {
	command: 'npm run test:reliability',
	summary:
		'Runs the reliability suites (fault matrix, bad-input table, secrets, redirects in jest; money safety and\n' +
		'the examples with Retry On Fail in real n8n) and writes the figures they record into docs/reliability.md.',
	options: {},
	notes: ['environment: GS_E2E_HOSTS (default 2,1: n8n 2.41.1 and 1.123.81; 2 for one)'],
};

runCommand(RELIABILITY_COMMAND, () => {
	const figuresDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-reliability-'));
	trackDir(figuresDir); // removed when this command ends
	const out = path.join(figuresDir, 'figures.jsonl');
	const hosts = process.env.GS_E2E_HOSTS ?? '2,1';
	const run = { ...runReliabilitySuites(out, hosts), hosts };
	const figures = summarize(readFigures(out));
	process.stdout.write(`\n${summaryLines(figures, run).join('\n')}\n`);

	const docFile = path.join(REPO, 'docs', 'reliability.md');
	const previous = fs.existsSync(docFile) ? fs.readFileSync(docFile, 'utf8') : '';
	fs.mkdirSync(path.dirname(docFile), { recursive: true });
	fs.writeFileSync(docFile, withSoakSection(reliabilityDoc(figures, run), previous));
	process.stdout.write('wrote docs/reliability.md\n');
	return run.jest || run.e2e || 0;
});
