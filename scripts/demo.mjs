// `npm run demo`: build and pack the package, start the local emulator, prepare a real n8n (the first run
// installs it into ~/.cache, with progress), import a credential pointing at the emulator and run the
// character-replacement example. Prints a short report and the next steps; the MP4 lands in ./demo-output/.
//
// Run with `node --import tsx scripts/demo.mjs` (the emulator is TypeScript).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

import { runCommand } from '../tools/lib/cli.mjs';
import { startEmulator } from '../tools/lib/emulator.mjs';
import { ensureHost } from '../tools/lib/hosts.mjs';
import { createInstance } from '../tools/lib/instance.mjs';
import { mp4Summary } from '../tools/lib/mp4.mjs';
import { describeDefaults } from '../tools/lib/n8n-defaults.mjs';
import { packOnce } from '../tools/lib/pack.mjs';
import { REPO, preparedExample } from '../tools/lib/repo.mjs';
import { nodeOutput } from '../tools/lib/run-data.mjs';

const say = (msg) => process.stdout.write(`${msg}\n`);
const version = process.env.GS_DEMO_HOST || '2';

export const DEMO_COMMAND = {
	command: 'npm run demo',
	summary:
		'Builds and packs the package, starts the local emulator of the service, prepares a real n8n (the first\n' +
		'run installs it into ~/.cache/n8n-nodes-generation-service) and runs the character-replacement example\n' +
		'in it: a short report, the next steps, and the MP4 in ./demo-output/. About a minute once n8n is there.',
	options: {},
	notes: ['environment: GS_DEMO_HOST=1 runs it on n8n 1.123.81 (default 2: n8n 2.41.1)'],
};

async function main() {
	say('1/5 build and pack the package (as users get it from npm)…');
	const tarball = await packOnce();
	say(`    ${path.relative(REPO, tarball) || tarball}`);

	say('2/5 start the local Generation Service emulator…');
	const emu = await startEmulator({ jobTiming: { queuedMs: 1000, runningMs: 4000 } });
	say(`    ${emu.baseUrl}`);

	say(
		`3/5 prepare real n8n (host ${version}; the first run installs it into ~/.cache: n8n 2.41.1 took 7 min 36 s on a 2-core machine)…`,
	);
	const host = await ensureHost({ version });
	say(`    n8n ${host.n8nVersion} in ${host.dir}`);
	say(`    ${describeDefaults(version)}`);

	const outDir = path.join(REPO, 'demo-output');
	fs.mkdirSync(outDir, { recursive: true });
	const inst = await createInstance({ version, fileAccessDir: REPO });
	try {
		await inst.installPackage(tarball);
		say('4/5 import the credential (emulator) and the character-replacement workflow…');
		await inst.importCredentials([
			{
				id: 'gsEmulatorCred',
				name: 'Generation Service (local emulator)',
				type: 'generationServiceApi',
				data: { apiKey: emu.keys.full, baseUrl: emu.baseUrl },
			},
		]);
		const wf = preparedExample('character-replacement.json', {
			samplesDir: path.join(REPO, 'examples', 'samples'),
			outputDir: outDir,
		});
		await inst.importWorkflow(wf);
		const before = emu.control.ledger().balance;

		say('5/5 execute it in n8n…');
		const res = await inst.execute(wf.id, { timeoutMs: 300_000 });
		if (!res.ok) {
			say(`The workflow failed: ${JSON.stringify(res.error ?? res.stderr.slice(-2000), null, 2)}`);
			return 1;
		}
		const quote = nodeOutput(res.result, 'Quote')[0];
		const job = nodeOutput(res.result, 'Wait for Job')[0];
		const after = emu.control.ledger();
		const file = path.join(outDir, `${job.id}.mp4`);
		const bytes = fs.readFileSync(file);
		const sha = createHash('sha256').update(bytes).digest('hex');
		const verified = sha === job.output.sha256 && bytes.toString('latin1', 4, 8) === 'ftyp';
		say('');
		say('Demo report');
		say(`  job               ${job.id}`);
		say(`  state             ${job.state}`);
		say(`  credits quoted    ${quote.reservedCredits}`);
		say(`  credits reserved  ${job.reservedCredits}`);
		say(`  credits charged   ${job.chargedCredits}`);
		say(`  balance before    ${before.available} available`);
		say(
			`  balance after     ${after.balance.available} available (ledger invariant ${after.invariantHolds ? 'holds' : 'BROKEN'})`,
		);
		say(`  sha256 verified   ${verified ? 'yes' : 'NO'} (${sha})`);
		say(`  MP4 written       ${path.relative(process.cwd(), file)} (${bytes.length} bytes)`);
		say(`  video             ${describeVideo(mp4Summary(bytes))}`);
		say(
			`  n8n execute       ${(res.ms / 1000).toFixed(1)} s, peak RSS ${Math.round((res.peakRssBytes ?? 0) / 2 ** 20)} MB`,
		);
		if (!verified || !after.invariantHolds || job.state !== 'succeeded') return 1;
		nextSteps({ file });
		return 0;
	} finally {
		await inst.close();
		await emu.close();
	}
}

/** What the MP4 is, as its boxes say: the emulator's test card, not a generated video. */
function describeVideo(video) {
	if (!video) return 'not an MP4 the report can read';
	const codec = video.codec === 'avc1' ? 'H.264' : video.codec;
	return [
		`${video.seconds} s, ${video.width}×${video.height}, ${codec}; plays in a browser or any video player`,
		"the emulator's test card, not a generated video: colour bars, the mode, the job id,",
		'its files and prompt, a clock and a progress bar',
	].join(`\n${' '.repeat(20)}`);
}

/** What to do next: the demo's n8n was a throw-away instance; `npm start` is the ready editor. */
function nextSteps({ file }) {
	const lines = [
		'',
		'Next steps',
		'  The run above used a throw-away n8n (already deleted).',
		'  - `npm start` opens a ready n8n editor on this machine: the package installed, a credential',
		'    pointing at a local emulator and every example imported. It prints the URL and the login;',
		'    the URL opens this character-replacement workflow (Ctrl-C stops everything).',
		'  - With your own service: install the package in your n8n (README.md, Installation: no version is',
		'    on npm yet, so from a release tarball); a credential "Generation Service API" with your Base URL (ending',
		'    in /v1) and an API key with assets:write, assets:read, jobs:write, jobs:read (a run spends at most',
		'    20 credits: Max Credits); then Workflows → Import from File → examples/character-replacement.json',
		'    and set its Paths node (samplesDir, outputDir: folders n8n may read and write).',
		`  The MP4 of this run: ${file}`,
	];
	say(lines.join('\n'));
}

runCommand(DEMO_COMMAND, main);
