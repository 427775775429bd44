import { processJobReads } from '../../nodes/shared/jobs';
import { processPacing } from '../../nodes/shared/transport';

/**
 * Forgets what the package's process-wide state learned (pacers, job reads): each test starts like a
 * fresh n8n process. Tests clear the maps the shipped modules export; nothing test-only ships.
 */
export function forgetProcessState(): void {
	processPacing.pacers.clear();
	processPacing.ipBlocks.clear();
	processJobReads.answers.clear();
	processJobReads.pending.clear();
}
