// `npm run bench`: our nodes against n8n's own nodes (HTTP Request + Wait + IF) and against the previous
// version of this package, in real n8n 2.41.1 (filesystem binary mode, the 2.x default) against the local
// emulator. Prints a table per part and, on a full run, writes docs/benchmarks.md with exactly those figures.
//
//   npm run bench                               all parts but 7 (it runs when named), writes docs/benchmarks.md
//   npm run bench -- --only=requests,batch      some parts (requests, memory, batch, creates, cpu, queue,
//                                               thousand); prints only
//   npm run bench -- --only=queue --doc         part 6 alone (also memory, batch, thousand); replaces only its
//                                               section, goal rows, findings and charts in docs/benchmarks.md
//   options: --durations=10,30,60  --mem-reps=5  --probe-reps=1  --cpu-reps=3  --batch-sizes=10,50,100
//            --batch-job-s=30  --batch-sides=ours,prev  --previous=6d65147  --creates=100
//            --batch-phases=5,30,55 (ours runs each batch size starting about S s into the clock minute, for each S;
//            the previous version at the middle one; a Wait node in the workflow waits for that second)
//            --queue-calls=12  --queue-job-s=120  --queue-patterns=wait,park,trigger  --queue-sample-ms=1000
//            --queue-trigger-phase=30 (part 6: seconds from the Job Finished trigger's poll second to the calls)
//            --thousand-jobs=200 (part 7; 1000 for the documented run, which also writes docs/scale.md's table)
//            --thousand-runs=items,executions,items-base,executions-base  --thousand-job-s=30
//            --thousand-park-job-s=90  --thousand-window-ms=60000 (shorter only to try part 7 quickly)
//            --dump=<dir> (journal, jobs and probe data of part 3 as JSON)  --out=<file>  --no-write  --doc
//            --cpu-prof=<dir> (where part 5 keeps its V8 CPU profiles, summarised by bench/profile.mjs into
//            the report: where the time of our node and of the HTTP Request node goes; default a temp folder)
//
// Run with `node --import tsx scripts/bench.mjs` (the emulator is TypeScript). One n8n process at a time
// (parts 6 and 7: one queue-mode stack at a time). This command only reads its arguments and writes the
// report: the run is bench/run.mjs, each part a module of bench/parts/ (listed in bench/parts/index.mjs).
// --help prints the first 21 lines above.
import fs from 'node:fs';
import path from 'node:path';

import { keepSections, writeBlocks, writeSections } from '../bench/doc-section.mjs';
import { fmtS } from '../bench/measure.mjs';
import { parseArgs } from '../bench/options.mjs';
import { PARTS } from '../bench/parts/index.mjs';
import { log, writeReport } from '../bench/report.mjs';
import { runBench } from '../bench/run.mjs';
import { REPO } from '../tools/lib/repo.mjs';

async function main() {
	const opt = parseArgs(process.argv.slice(2), PARTS, path.join(REPO, 'docs', 'benchmarks.md'));
	if (opt.help) {
		const header = fs
			.readFileSync(new URL(import.meta.url), 'utf8')
			.split('\n')
			.slice(0, 21);
		console.log(header.join('\n'));
		return;
	}
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
}

main().catch((error) => {
	process.stderr.write(`${error.stack ?? error}\n`);
	process.exitCode = 1;
});
