// The parts of `npm run bench`, in the order they run (and are numbered in the report). A part is a module
// of bench/parts/ exporting:
//   name                 what --only calls it
//   options              its command-line options: [{ flags, key, parse, default, fullIf }] (options.mjs)
//   check(opt)           optional: throws on options that cannot work together
//   needsPrevious(opt)   optional: true when it runs the previous version of the package (the run then
//                        builds it and gives the part a second n8n instance, ctx.prev)
//   prepare(ctx)         its keys, credentials (ctx.key, ctx.ourCred, ctx.baseCred) and inputs; returns
//                        { workflows, prevWorkflows } to import, and whatever else its run needs
//   run(ctx, prepared)   measures, then emits its section and adds its goals and findings (ctx.report)
//   optIn                optional: true for a part that runs only when --only names it (hours long); a full
//                        run leaves it out and keeps its section of docs/benchmarks.md as it was
//   docSection, goalPrefix, findingPrefix  optional: its section is emitted between markers, its goals' rows
//                        start with goalPrefix and its findings with findingPrefix (each a string or a list),
//                        so `--only=<name> --doc` replaces just those in docs/benchmarks.md
//                        (bench/doc-section.mjs)
// ctx is context.mjs's. A part that needs n8n in another shape (a queue-mode stack, a regular stack
// serving webhooks: tools/lib/queue-stack.mjs, tools/lib/regular-stack.mjs, both of stack-api.mjs's shape)
// makes its keys in prepare, builds its credentials with context.mjs's ourCredential/baseCredential, and
// starts each stack with ctx.tarball in its run, stopping it before the run returns.
// Adding a part is adding its module and its line below.
import * as batch from './batch.mjs';
import * as cpu from './cpu.mjs';
import * as creates from './creates.mjs';
import * as memory from './memory.mjs';
import * as queue from './queue.mjs';
import * as requests from './requests.mjs';
import * as thousand from './thousand.mjs';

export const PARTS = [requests, memory, batch, creates, cpu, queue, thousand];
