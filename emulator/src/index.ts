import { sleep } from 'n8n-workflow';

import { seed, seededSecret } from './accounts';
import { applySettings, createControl, registerControlRoutes } from './control';
import type { EmulatorControl } from './control';
import { FaultStore } from './faults';
import { IpLimiter } from './iplimit';
import type { JournalEntry, Watchers } from './journal';
import { Referee } from './referee';
import { buildServer } from './server';
import { MODES } from './state';
import type { EmulatorSnapshot, IpLimit, RuntimeSettings, World } from './state';

export type { EmulatorControl, SettingsPatch } from './control';
export type { ListLook, ListLookBudget, Violation, ViolationKind } from './referee';
export { judgeListLooks, LIST_LOOK_BURST, VIOLATION_KINDS } from './referee';
export type { FaultAction, FaultSpec } from './faults';
export type { ArrivalNotice, ArrivalWatcher, JournalEntry, JournalWatcher } from './journal';
export type { CreateKeyOptions } from './keys';
export type { Balance, LedgerEntry } from './ledger';
export type { Asset, Quota } from './assets';
export type { Job, Quote } from './jobs';
export type { Persona } from './personas';
export type {
	EmulatorSnapshot,
	IpLimit,
	JobInput,
	JobScript,
	Mode,
	MimeType,
	RuntimeSettings,
	Scope,
} from './state';
export { SCOPES, MODES, MIME_TYPES } from './state';
export { FAULT_ACTIONS } from './faults';
export { ERROR_TABLE } from './errors';
export type { ErrorCode } from './errors';
export { PRICE_PER_BLOCK, priceOf } from './jobs';
export * as schemas from './schemas';

export interface EmulatorOptions {
	/** Default 4010; 0 = a free port. */
	port?: number;
	/** Default 127.0.0.1. */
	host?: string;
	/**
	 * Virtual time for everything: job progress, rate windows, the referee and the waits of the
	 * `delay` / `delay_response` faults. Wins over `now`.
	 */
	clock?: EmulatorClock;
	/** Clock in ms (default Date.now); job states are computed from it lazily. Waits stay real. */
	now?: () => number;
	/** Length of a key's fixed rate window (requestsPerMinute = requests per window). Default 60000. */
	rateWindowMs?: number;
	/** Per-remote-IP fixed window over every /v1 request → 429 ip_rate_limited. Default: none. */
	ipLimit?: IpLimit | null;
	/**
	 * Referee: minimum ms between two successful reads of a job (poll_too_soon), and between two first
	 * pages of the job list of a key while it shows unfinished jobs (list_poll_too_soon). Default 5000.
	 */
	minPollIntervalMs?: number;
	/**
	 * Referee: a request arriving this soon after the 429 / 401 that told its client to stop was
	 * already in flight (the client could not know yet): not judged. Default 500.
	 */
	inFlightGraceMs?: number;
	/** Default { queuedMs: 1000, runningMs: 2000 }; 0/0 = jobs end at creation. */
	jobTiming?: { queuedMs: number; runningMs: number };
	/** Share of the reservation charged on success (rounded up, never above it). Default 0.8. */
	chargeRatio?: number;
	/**
	 * Size of each job's output MP4: its test-card video (tens of KB) followed by a `free` box padding it to this
	 * many bytes; a video larger than this gets only a 48-byte box. Default 4096 (no padding beyond the box).
	 */
	outputBytes?: number;
	/** Credits granted to the seeded account. Default 1000. */
	initialCredits?: number;
	/** Requests per minute of the seeded keys. Default 120. */
	requestsPerMinute?: number;
	/** Restore a snapshot instead of seeding. */
	state?: EmulatorSnapshot;
	/** Called after every request and control change (cli.mjs persists --state with it). */
	onChange?: (control: EmulatorControl) => void;
}

export interface EmulatorClock {
	now(): number;
	sleep(ms: number): Promise<void>;
}

export const DEFAULT_RUNTIME: Readonly<RuntimeSettings> = {
	rateWindowMs: 60_000,
	ipLimit: null,
	minPollIntervalMs: 5000,
	inFlightGraceMs: 500,
};

export interface EmulatorKeys {
	/** Every scope, ceiling 100000. */
	full: string;
	/** balance/usage/jobs/assets/personas :read only. */
	readOnly: string;
	/** Every scope, lifetime credit ceiling 10. */
	tinyCeiling: string;
}

export interface RunningEmulator {
	/** e.g. http://127.0.0.1:4010/v1 (no trailing slash). */
	baseUrl: string;
	/** e.g. http://127.0.0.1:4010 */
	origin: string;
	keys: EmulatorKeys;
	control: EmulatorControl;
	close(): Promise<void>;
}

export const DEFAULT_OUTPUT_BYTES = 4096;

function freshState(options: EmulatorOptions): EmulatorSnapshot {
	return {
		version: 1,
		seq: 0,
		settings: {
			engineAvailable: true,
			engineReason: null,
			uploadsAvailable: true,
			modes: [...MODES],
			outputBytes: options.outputBytes ?? DEFAULT_OUTPUT_BYTES,
			jobTiming: options.jobTiming ?? { queuedMs: 1000, runningMs: 2000 },
			chargeRatio: options.chargeRatio ?? 0.8,
		},
		accounts: [],
		keys: [],
		assets: [],
		personas: [],
		jobs: [],
		ledger: [],
		uploadIdempotency: [],
		pendingScripts: [],
	};
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
	const restored = options.state !== undefined;
	const state = restored
		? (JSON.parse(JSON.stringify(options.state)) as EmulatorSnapshot)
		: freshState(options);
	if (restored) {
		if (options.jobTiming) state.settings.jobTiming = options.jobTiming;
		if (options.chargeRatio !== undefined) state.settings.chargeRatio = options.chargeRatio;
		if (options.outputBytes !== undefined) state.settings.outputBytes = options.outputBytes;
	}
	let control: EmulatorControl | null = null;
	const runtime: RuntimeSettings = { ...DEFAULT_RUNTIME };
	applySettings(runtime, {
		rateWindowMs: options.rateWindowMs,
		ipLimit: options.ipLimit,
		minPollIntervalMs: options.minPollIntervalMs,
		inFlightGraceMs: options.inFlightGraceMs,
	});
	const clock = options.clock;
	const world: World = {
		state,
		now: clock ? () => clock.now() : (options.now ?? (() => Date.now())),
		sleep: clock ? (ms) => clock.sleep(ms) : (ms) => sleep(ms),
		runtime,
		onChange: () => {
			if (control && options.onChange) options.onChange(control);
		},
	};
	if (!restored) {
		seed(world, {
			initialCredits: options.initialCredits ?? 1000,
			requestsPerMinute: options.requestsPerMinute ?? 120,
		});
	}
	const faults = new FaultStore();
	const journal: JournalEntry[] = [];
	const watchers: Watchers = { arrivals: new Set(), journal: new Set() };
	const referee = new Referee(
		() => world.runtime.minPollIntervalMs,
		() => world.runtime.inFlightGraceMs,
	);
	const ipLimiter = new IpLimiter();
	let baseUrl = '';
	const app = buildServer({
		world,
		faults,
		journal,
		watchers,
		referee,
		ipLimiter,
		baseUrl: () => baseUrl,
	});
	control = createControl(world, faults, journal, referee, ipLimiter, watchers);
	registerControlRoutes(app, control);
	const host = options.host ?? '127.0.0.1';
	await app.listen({ port: options.port ?? 4010, host });
	const address = app.server.address();
	const port = typeof address === 'object' && address ? address.port : (options.port ?? 4010);
	const hostPart = host.includes(':') ? `[${host}]` : host;
	const origin = `http://${hostPart}:${port}`;
	baseUrl = `${origin}/v1`;
	return {
		baseUrl,
		origin,
		keys: {
			full: seededSecret('full'),
			readOnly: seededSecret('read-only'),
			tinyCeiling: seededSecret('tiny-ceiling'),
		},
		control,
		close: async () => {
			await app.close();
		},
	};
}
