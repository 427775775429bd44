#!/usr/bin/env node
// The jest suite N times in a row on a busy machine, failures by test name at the end (tools/lib/stress.mjs):
//
//   npm run test:stress -- --runs 10 [--load spin|jest|none] [--spinners N] [jest paths] [-- <jest args>]
//
// Exit code 1 when any run failed.
import { runCommand } from '../tools/lib/cli.mjs';
import { STRESS_COMMAND, parseStressArgs, runStress } from '../tools/lib/stress.mjs';

runCommand(STRESS_COMMAND, () => runStress(parseStressArgs(process.argv.slice(2))));
