// What a poll of the Job Finished trigger emitted, read the same way by every trigger suite.
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { TriggerCursor } from '../../nodes/GenerationServiceTrigger/cursor';

export const items = (result: INodeExecutionData[][] | null) => result?.[0] ?? [];
export const ids = (result: INodeExecutionData[][] | null) =>
	items(result).map((item) => String(item.json.id));
export const cursorOf = (staticData: IDataObject) =>
	(staticData['node:Generation Service Trigger'] as { cursor: TriggerCursor }).cursor;

/** Counts emissions per job id over a sequence of polls. */
export function tally() {
	const counts = new Map<string, number>();
	return {
		counts,
		add(result: INodeExecutionData[][] | null) {
			for (const id of ids(result)) counts.set(id, (counts.get(id) ?? 0) + 1);
			return ids(result);
		},
		once: () => [...counts.values()].every((n) => n === 1),
	};
}
