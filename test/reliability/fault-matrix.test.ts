import { FAULTS, runFault } from './faults';
import { record } from './metrics';

describe('fault matrix (emulator faults over real HTTP, through the nodes)', () => {
	it.each(FAULTS.map((f) => [f.name, f] as const))('%s', async (_name, fault) => {
		const outcome = await runFault(fault);
		// counted by the runner from the emulator's books: a second job or an unnamed paid job fails here
		expect(outcome.duplicateJobs).toBe(0);
		expect(outcome.lostOutputs).toBe(0);
		record('fault', {
			fault: fault.name,
			duplicateJobs: outcome.duplicateJobs,
			lostOutputs: outcome.lostOutputs,
		});
	});
});
