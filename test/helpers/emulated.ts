import type { IDataObject } from 'n8n-workflow';
import { createHash } from 'crypto';

import { startEmulator } from '../../emulator/src';
import type { EmulatorOptions, RunningEmulator } from '../../emulator/src';
import { installFakeClock } from './fake-clock';
import { testClock } from './serviceClock';
import { forgetProcessState } from './processState';

export interface Emulated {
	emu: RunningEmulator;
	clock: ReturnType<typeof installFakeClock>;
	credentials: { apiKey: string; baseUrl: string };
	imageId: string;
	videoId: string;
	personaId: string;
	/** An image a persona uses (deleting it gives asset_in_use). */
	inUseAssetId: string;
	/** Declares violations this test provokes on purpose: close() then requires exactly these. */
	expectViolations(counts: Record<string, number>): void;
	/**
	 * Stops the emulator, then fails unless the referee saw exactly the violations declared with
	 * expectViolations (none by default): no test that talks to the emulator can skip this check.
	 */
	close(): Promise<void>;
}

export interface EmulatedOptions extends EmulatorOptions {
	/**
	 * 'auto' (default): discrete-event time, which stands still while a request is on its way and jumps to
	 * the next sleep's end once everything waits (test/helpers/serviceClock.ts); a number: virtual time
	 * per real time; 'manual': time moves only with testClock.advance() or a sleep (sequential tests that
	 * step across boundaries).
	 */
	speed?: number | 'auto' | 'manual';
}

/**
 * The emulator over real HTTP on loopback, sharing the package's virtual clock (jobs, rate windows and
 * the referee run on it), with the package's process state forgotten: each test starts like a fresh
 * n8n process against a fresh service.
 */
export async function startEmulated(options: EmulatedOptions = {}): Promise<Emulated> {
	const { speed = 'auto', ...emulatorOptions } = options;
	const clock = installFakeClock(speed === 'manual' ? 1 : speed);
	if (speed === 'manual') testClock.useManual();
	forgetProcessState();
	const emu = await startEmulator({
		port: 0,
		// the service's holds (delay faults) are sleeps on the shared clock, while the request waits for them
		clock: { now: clock.clock.now, sleep: async (ms: number) => await testClock.serviceHold(ms) },
		jobTiming: { queuedMs: 2000, runningMs: 8000 },
		...emulatorOptions,
	});
	const assets = emu.control.assets();
	const imageId = assets.find((a) => a.kind === 'image')!.id;
	const videoId = assets.find((a) => a.kind === 'video')!.id;
	const personas = emu.control.snapshot().personas;
	const personaId = [...personas].sort((a, b) => b.seq - a.seq)[0].id;
	const inUseAssetId = String(personas.find((p) => p.identityAssetId)?.identityAssetId);
	emu.control.clearJournal();
	let expected: Record<string, number> = {};
	return {
		emu,
		clock,
		credentials: { apiKey: emu.keys.full, baseUrl: emu.baseUrl },
		imageId,
		videoId,
		personaId,
		inUseAssetId,
		expectViolations(counts) {
			expected = { ...counts };
		},
		close: async () => {
			const seen = emu.control.violationCounts();
			const violations = emu.control.violations();
			await emu.close();
			const same =
				JSON.stringify(
					Object.entries(seen)
						.filter(([, n]) => n > 0)
						.sort(),
				) ===
				JSON.stringify(
					Object.entries(expected)
						.filter(([, n]) => n > 0)
						.sort(),
				);
			if (!same) {
				throw new Error(
					`The emulator (referee) saw ${JSON.stringify(seen)}, expected ${JSON.stringify(expected)}:\n` +
						violations
							.slice(0, 20)
							.map((v) => `  ${v.kind} ${v.method} ${v.path} ${JSON.stringify(v.detail ?? '')}`)
							.join('\n'),
				);
			}
		},
	};
}

export function sha256(bytes: Buffer): string {
	return createHash('sha256').update(bytes).digest('hex');
}

/** Requests the emulator journaled for a method and path (regex over the /v1 path). */
export function journalCount(emu: RunningEmulator, method: string, path: RegExp): number {
	return emu.control.journal().filter((e) => e.method === method && path.test(e.path)).length;
}

/** The error a node run (or any promise) fails with; fails the test when it does not fail. */
export async function fails(
	promise: Promise<unknown>,
): Promise<Error & { context: IDataObject; description?: string; httpCode?: string }> {
	try {
		await promise;
	} catch (error) {
		return error as Error & { context: IDataObject; description?: string; httpCode?: string };
	}
	throw new Error('expected a failure');
}
