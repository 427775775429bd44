#!/usr/bin/env node
// The jest suite N times in a row on a busy machine, failures by test name at the end (tools/lib/stress.mjs):
//
//   npm run test:stress -- --runs 10 [--load spin|jest|none] [--spinners N] [-- <jest args>]
//
// Exit code 1 when any run failed.
import { parseStressArgs, runStress } from '../tools/lib/stress.mjs';

runStress(parseStressArgs(process.argv.slice(2))).then(
	(code) => process.exit(code),
	(error) => {
		console.error(error);
		process.exit(1);
	},
);
