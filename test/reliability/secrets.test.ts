/**
 * Secrets: the whole fault matrix and bad-input table again, with a recognisable key, asserting the key
 * is in no output item, no error (message, description, stack, serialized cause) and no log line; and
 * that it is sent only to the credential's base URL (no Authorization on a redirect to another host).
 */
import { ExecuteContext } from 'n8n-core';

import { TEST_KEY } from '../helpers/n8n';
import { ALL_CASES, runBadInput } from './bad-inputs';
import { FAULTS, dump, runFault } from './faults';
import { record } from './metrics';

const SECRET_PART = TEST_KEY.split('.')[1];
/** The log lines of the current test only. */
let logLines: string[] = [];

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
beforeEach(() => {
	logLines = [];
});

/** This test's figures: what was searched and what was found. */
function check(seen: unknown[]): number {
	const found =
		seen.reduce<number>((n, x) => n + leaks(x), 0) +
		logLines.filter((l) => l.includes(TEST_KEY) || l.includes(SECRET_PART)).length;
	record('secrets', {
		itemsAndErrorsChecked: seen.length,
		logLines: logLines.length,
		leaks: found,
	});
	return found;
}

describe('the API key never leaks', () => {
	it.each(FAULTS.map((f) => [f.name, f] as const))('fault: %s', async (_name, fault) => {
		const outcome = await runFault(fault, TEST_KEY);
		expect(check(outcome.seen)).toBe(0);
	});

	it.each(ALL_CASES.map((c) => [c.name, c] as const))('bad input: %s', async (_name, c) => {
		const { error } = await runBadInput(c, TEST_KEY);
		expect(check([error])).toBe(0);
	});

	it('the capture sees the log lines of the nodes (so "no leak in the logs" means something)', async () => {
		const outcome = await runFault(FAULTS[0], TEST_KEY);
		expect(logLines.some((l) => l.includes('Generation Service job'))).toBe(true);
		expect(check(outcome.seen)).toBe(0);
	});
});
