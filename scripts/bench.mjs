// `npm run bench`: our nodes against n8n's own nodes (HTTP Request + Wait + IF) and against the previous
// version of this package, in real n8n 2.41.1 (filesystem binary mode, the 2.x default) against the local
// emulator. Prints a table per part and, on a full run, writes docs/benchmarks.md with exactly those figures.
//
//   npm run bench                               all parts but 7 (it runs when named), writes docs/benchmarks.md
//   npm run bench -- --only=requests,batch      some parts (requests, memory, batch, creates, cpu, queue,
//                                               thousand); prints only
//   npm run bench -- --only=queue --doc         part 6 alone (also memory, batch, thousand); replaces only its
//                                               section, goal rows, findings and charts in docs/benchmarks.md
//   npm run bench -- --help                     every option (bench/options.mjs, each part's in its module)
//
// Run with `node --import tsx scripts/bench.mjs` (the emulator is TypeScript). One n8n process at a time
// (parts 6 and 7: one queue-mode stack at a time). This command only reads its arguments and writes the report: the run is
// bench/run.mjs, each part a module of bench/parts/ (listed in bench/parts/index.mjs).
import fs from 'node:fs';
import path from 'node:path';

import { keepSections, writeBlocks, writeSections } from '../bench/doc-section.mjs';
import { fmtS } from '../bench/measure.mjs';
import { benchCommand, parseArgs } from '../bench/options.mjs';
import { PARTS } from '../bench/parts/index.mjs';
import { log, writeReport } from '../bench/report.mjs';
import { runBench } from '../bench/run.mjs';
import { runCommand } from '../tools/lib/cli.mjs';
import { REPO } from '../tools/lib/repo.mjs';

async function main() {
	const opt = parseArgs(process.argv.slice(2), PARTS, path.join(REPO, 'docs', 'benchmarks.md'));
	const report = await runBench(opt, PARTS);
	const docFile = path.join(REPO, 'docs', 'benchmarks.md');
	if (opt.outFile) {
		const previous = opt.outFile === docFile ? fs.readFileSync(docFile, 'utf8') : undefined;
		writeReport(opt.outFile, report);
		if (previous) {
			// the sections of parts this run left out (opt-in ones) stay as they were
			const left = PARTS.filter((p) => p.docSection && !opt.only.includes(p.name));
			fs.writeFileSync(docFile, keepSections(fs.readFileSync(docFile, 'utf8'), previous, left));
			writeBlocks(path.dirname(docFile), report); // e.g. docs/scale.md's table
		}
		log(`wrote ${path.relative(process.cwd(), opt.outFile)}`);
	} else if (opt.doc) {
		writeSections(
			docFile,
			report,
			PARTS.filter((p) => opt.only.includes(p.name)),
		);
		log(`wrote the ${opt.only.join(', ')} section(s) of ${path.relative(process.cwd(), docFile)}`);
	} else {
		log('not a full default run: nothing written (use --out=<file> to write this report)');
	}
	log(`total ${fmtS(report.totalMs)}`);
	return 0;
}

runCommand(benchCommand(PARTS), main);
