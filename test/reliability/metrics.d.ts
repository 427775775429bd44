export function record(
	kind: 'fault' | 'badInput' | 'secrets' | 'contract',
	data: Record<string, unknown>,
): void;
