export function record(kind: 'fault' | 'badInput' | 'secrets', data: Record<string, unknown>): void;
