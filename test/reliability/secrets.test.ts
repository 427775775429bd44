/**
 * Secrets: the whole fault matrix and bad-input table again, with a recognisable key, asserting the key
 * is in no output item, no error (message, description, stack, serialized cause) and no log line; and
 * that it is sent only to the credential's base URL (no Authorization on a redirect to another host).
 */
import { ExecuteContext } from 'n8n-core';

import { TEST_KEY } from '../helpers/n8n';
import { ALL_CASES, runBadInput } from './bad-inputs';
import { FAULTS, runFault } from './faults';
import { record } from './metrics';

const SECRET_PART = TEST_KEY.split('.')[1];
const logLines: string[] = [];

/** Everything an error or item carries, as text: own fields, message, description, stack, causes. */
function dump(value: unknown, depth = 0, seen = new Set<unknown>()): string {
	if (value === null || value === undefined || depth > 6) return '';
	if (typeof value !== 'object') return String(value);
	if (seen.has(value)) return '';
	seen.add(value);
	const parts: string[] = [];
	if (value instanceof Error) parts.push(value.message, String(value.stack));
	for (const key of Object.getOwnPropertyNames(value)) {
		parts.push(key, dump((value as Record<string, unknown>)[key], depth + 1, seen));
	}
	return parts.join('\n');
}

function leaks(value: unknown): number {
	const text = dump(value);
	return text.includes(TEST_KEY) || text.includes(SECRET_PART) ? 1 : 0;
}

/** n8n's contexts log through a `logger` getter: capture every line the nodes write. */
let restoreLogger: (() => void) | undefined;
beforeAll(() => {
	let proto: object | null = ExecuteContext.prototype;
	while (proto && !Object.getOwnPropertyDescriptor(proto, 'logger'))
		proto = Object.getPrototypeOf(proto);
	const owner = proto as object;
	const original = Object.getOwnPropertyDescriptor(owner, 'logger')!;
	const capture = (level: string) => (message: string, meta?: unknown) =>
		logLines.push(`${level} ${message} ${JSON.stringify(meta ?? {})}`);
	const logger = {
		debug: capture('debug'),
		info: capture('info'),
		warn: capture('warn'),
		error: capture('error'),
	};
	Object.defineProperty(owner, 'logger', { configurable: true, get: () => logger });
	restoreLogger = () => Object.defineProperty(owner, 'logger', original);
});
afterAll(() => restoreLogger?.());

let totalLeaks = 0;
let checked = 0;

describe('the API key never leaks', () => {
	it.each(FAULTS.map((f) => [f.name, f] as const))('fault: %s', async (_name, fault) => {
		const outcome = await runFault(fault, TEST_KEY);
		const found = outcome.seen.reduce<number>((n, x) => n + leaks(x), 0);
		checked += outcome.seen.length;
		totalLeaks += found;
		expect(found).toBe(0);
	});

	it.each(ALL_CASES.map((c) => [c.name, c] as const))('bad input: %s', async (_name, c) => {
		const { error } = await runBadInput(c, TEST_KEY);
		checked += 1;
		totalLeaks += leaks(error);
		expect(leaks(error)).toBe(0);
	});

	it('no captured log line holds the key (and the nodes did log)', () => {
		expect(logLines.length).toBeGreaterThan(10);
		const found = logLines.filter((l) => l.includes(TEST_KEY) || l.includes(SECRET_PART)).length;
		totalLeaks += found;
		expect(found).toBe(0);
		record('secrets', {
			itemsAndErrorsChecked: checked,
			logLines: logLines.length,
			leaks: totalLeaks,
		});
	});
});
