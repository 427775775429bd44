export function record(
	kind: 'fault' | 'badInput' | 'secrets' | 'contract' | 'sharedKey',
	data: Record<string, unknown>,
): void;
