import { createHash } from 'crypto';

import { startEmulator } from '../../emulator/src';
import type { EmulatorOptions, RunningEmulator } from '../../emulator/src';
import { resetRateWindows } from '../../nodes/shared/transport';
import { installFakeClock } from './fake-clock';

export interface Emulated {
	emu: RunningEmulator;
	clock: ReturnType<typeof installFakeClock>;
	credentials: { apiKey: string; baseUrl: string };
	imageId: string;
	videoId: string;
	personaId: string;
	/** An image a persona uses (deleting it gives asset_in_use). */
	inUseAssetId: string;
	close(): Promise<void>;
}

/**
 * The emulator over real HTTP on loopback, sharing one virtual clock with the transport: a 5 s poll
 * interval passes at once for the test while the emulator sees 5 s go by (jobs advance for real).
 */
export async function startEmulated(options: EmulatorOptions = {}): Promise<Emulated> {
	const clock = installFakeClock();
	resetRateWindows();
	const emu = await startEmulator({
		port: 0,
		now: () => clock.state.now,
		jobTiming: { queuedMs: 2000, runningMs: 8000 },
		...options,
	});
	const assets = emu.control.assets();
	const imageId = assets.find((a) => a.kind === 'image')!.id;
	const videoId = assets.find((a) => a.kind === 'video')!.id;
	const response = await fetch(`${emu.baseUrl}/personas`, {
		headers: { Authorization: `Bearer ${emu.keys.full}` },
	});
	const personas = (
		(await response.json()) as {
			data: { items: Array<{ id: string; identityAssetId: string | null }> };
		}
	).data.items;
	const personaId = personas[0].id;
	const inUseAssetId = String(personas.find((p) => p.identityAssetId)?.identityAssetId);
	emu.control.clearJournal();
	return {
		emu,
		clock,
		credentials: { apiKey: emu.keys.full, baseUrl: emu.baseUrl },
		imageId,
		videoId,
		personaId,
		inUseAssetId,
		close: async () => {
			clock.restore();
			await emu.close();
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
