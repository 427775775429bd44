import {
	processCapabilities,
	processDurations,
	processJobReads,
	processRecentJobs,
	processWatchers,
} from '../../nodes/shared/jobs';
import { processPacing } from '../../nodes/shared/transport';

/**
 * Forgets what the package's process-wide state learned (pacers, IP holds, refusals, job reads, the
 * watchers, recent-jobs views, job durations, capabilities): each test starts like a fresh n8n process. Tests clear the maps the shipped modules export; nothing test-only ships.
 */
export function forgetProcessState(): void {
	processPacing.pacers.clear();
	processPacing.ipBlocks.clear();
	processPacing.refusals.clear();
	processPacing.addedSinceSweep = 0;
	processPacing.sweptAt = -Infinity;
	processJobReads.answers.clear();
	processJobReads.pending.clear();
	processJobReads.unsure.clear();
	processWatchers.clear();
	processRecentJobs.views.clear();
	processDurations.byKey.clear();
	processCapabilities.answers.clear();
	processCapabilities.pending.clear();
	processJobReads.addedSinceSweep = 0;
	processJobReads.sweptAt = -Infinity;
}
