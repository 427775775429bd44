import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

import { ensureAccount, MAIN_ACCOUNT } from './accounts';
import { toAsset } from './assets';
import type { Asset } from './assets';
import type { FaultSpec, FaultStore } from './faults';
import type { IpLimiter } from './iplimit';
import { createKey, revokeKey } from './keys';
import type { CreateKeyOptions } from './keys';
import { advanceJobs, toJob } from './jobs';
import type { Job } from './jobs';
import type { ArrivalWatcher, JournalEntry, JournalWatcher, Watchers } from './journal';
import { balanceOf, entriesOf, grant, invariantHolds, toLedgerEntry } from './ledger';
import type { Balance, LedgerEntry } from './ledger';
import type { Referee, Violation, ViolationKind } from './referee';
import { findAccount, MODES } from './state';
import type { EmulatorSnapshot, IpLimit, JobScript, Mode, RuntimeSettings, World } from './state';

/** Settings that can change while running (options `rateWindowMs`, `ipLimit`, `minPollIntervalMs`, `inFlightGraceMs`). */
export interface SettingsPatch {
	/** Length of a key's fixed rate window in ms (> 0). */
	rateWindowMs?: number;
	/** Per-remote-IP limit; null removes it. */
	ipLimit?: IpLimit | null;
	/** Referee: minimum ms between two reads of the same job, and between two looks at the job list (>= 0). */
	minPollIntervalMs?: number;
	/** Referee: ms after a 429 / 401 during which arriving requests count as in flight (>= 0). */
	inFlightGraceMs?: number;
}

function positiveInteger(value: unknown, name: string): number {
	if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
		throw new Error(`${name} must be a positive integer`);
	}
	return value;
}

/** Validates and applies a settings patch (throws on a bad value, changing nothing). */
export function applySettings(runtime: RuntimeSettings, patch: SettingsPatch): void {
	const next: RuntimeSettings = { ...runtime };
	if (patch.rateWindowMs !== undefined) {
		next.rateWindowMs = positiveInteger(patch.rateWindowMs, 'rateWindowMs');
	}
	if (patch.ipLimit !== undefined) {
		next.ipLimit =
			patch.ipLimit === null
				? null
				: {
						requests: positiveInteger(patch.ipLimit?.requests, 'ipLimit.requests'),
						windowMs: positiveInteger(patch.ipLimit?.windowMs, 'ipLimit.windowMs'),
					};
	}
	if (patch.minPollIntervalMs !== undefined) {
		const v = patch.minPollIntervalMs;
		if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) {
			throw new Error('minPollIntervalMs must be an integer >= 0');
		}
		next.minPollIntervalMs = v;
	}
	if (patch.inFlightGraceMs !== undefined) {
		const v = patch.inFlightGraceMs;
		if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) {
			throw new Error('inFlightGraceMs must be an integer >= 0');
		}
		next.inFlightGraceMs = v;
	}
	Object.assign(runtime, next);
}

export interface EmulatorControl {
	setEngine(available: boolean, reason?: string): void;
	setUploads(available: boolean): void;
	/** Offered generation modes (capabilities); a mode left out answers 422 mode_unavailable. */
	setModes(modes: Mode[]): void;
	freeze(frozen: boolean): void;
	revokeKey(secretOrKeyId: string): void;
	createKey(opts?: CreateKeyOptions): { keyId: string; secret: string };
	grantCredits(amount: number, accountId?: string): void;
	/** Timing/outcome of the next created jobs, in order. */
	scriptJobs(scripts: JobScript[]): void;
	setJobTiming(timing: { queuedMs: number; runningMs: number }): void;
	setOutputBytes(n: number): void;
	injectFault(fault: FaultSpec): void;
	clearFaults(): void;
	faults(): Array<FaultSpec & { remaining: number }>;
	journal(): JournalEntry[];
	/** Clears the journal only (violations stay). */
	clearJournal(): void;
	/**
	 * Calls `watcher` with each journal entry as it is recorded, before the answer leaves (the client's
	 * socket, `remotePort`, still open); returns the function that stops watching.
	 */
	watchJournal(watcher: JournalWatcher): () => void;
	/**
	 * Calls `watcher` with each request as it arrives, once the referee judged its arrival and before any
	 * fault delays it (the client's socket still open even if the client gives up waiting); returns the
	 * function that stops watching.
	 */
	watchArrivals(watcher: ArrivalWatcher): () => void;
	/** Every violation the referee recorded, oldest first. */
	violations(): Violation[];
	/** Forgets the recorded violations (the referee still remembers past answers). */
	clearViolations(): void;
	/** Number of recorded violations of each kind (every kind present, 0 when none). */
	violationCounts(): Record<ViolationKind, number>;
	settings(): RuntimeSettings;
	setSettings(patch: SettingsPatch): void;
	ledger(accountId?: string): { balance: Balance; entries: LedgerEntry[]; invariantHolds: boolean };
	jobs(): Job[];
	assets(): Asset[];
	snapshot(): EmulatorSnapshot;
}

export function createControl(
	world: World,
	faults: FaultStore,
	journal: JournalEntry[],
	referee: Referee,
	ipLimiter: IpLimiter,
	watchers: Watchers,
): EmulatorControl {
	const changed = () => world.onChange();
	const tick = () => {
		if (advanceJobs(world)) changed();
	};
	return {
		setEngine(available, reason) {
			world.state.settings.engineAvailable = available;
			world.state.settings.engineReason = available ? null : (reason ?? 'engine_disconnected');
			changed();
		},
		setUploads(available) {
			world.state.settings.uploadsAvailable = available;
			changed();
		},
		setModes(modes) {
			if (modes.some((m) => !(MODES as readonly string[]).includes(m)))
				throw new Error('unknown mode');
			world.state.settings.modes = [...modes];
			changed();
		},
		freeze(frozen) {
			tick();
			findAccount(world, MAIN_ACCOUNT).frozen = frozen;
			changed();
		},
		revokeKey(secretOrKeyId) {
			if (!revokeKey(world, secretOrKeyId)) throw new Error('unknown key');
			changed();
		},
		createKey(opts = {}) {
			const accountId = opts.accountId ?? MAIN_ACCOUNT;
			ensureAccount(world, accountId);
			const created = createKey(world, accountId, opts);
			changed();
			return created;
		},
		grantCredits(amount, accountId = MAIN_ACCOUNT) {
			if (!Number.isInteger(amount) || amount <= 0)
				throw new Error('amount must be a positive integer');
			tick();
			ensureAccount(world, accountId);
			grant(world, accountId, amount);
			changed();
		},
		scriptJobs(scripts) {
			world.state.pendingScripts.push(...scripts.map((s) => ({ ...s })));
			changed();
		},
		setJobTiming(timing) {
			world.state.settings.jobTiming = { queuedMs: timing.queuedMs, runningMs: timing.runningMs };
			changed();
		},
		setOutputBytes(n) {
			world.state.settings.outputBytes = n;
			changed();
		},
		injectFault(fault) {
			faults.add(fault);
		},
		clearFaults() {
			faults.clear();
		},
		faults() {
			return faults.pending();
		},
		journal() {
			return journal.map((e) => ({ ...e }));
		},
		clearJournal() {
			journal.length = 0;
		},
		watchJournal(watcher) {
			return watch(watchers.journal, watcher);
		},
		watchArrivals(watcher) {
			return watch(watchers.arrivals, watcher);
		},
		violations() {
			return referee.violations();
		},
		clearViolations() {
			referee.clearViolations();
		},
		violationCounts() {
			return referee.counts();
		},
		settings() {
			return {
				...world.runtime,
				ipLimit: world.runtime.ipLimit ? { ...world.runtime.ipLimit } : null,
			};
		},
		setSettings(patch) {
			const ipBefore = JSON.stringify(world.runtime.ipLimit);
			applySettings(world.runtime, patch);
			if (JSON.stringify(world.runtime.ipLimit) !== ipBefore) ipLimiter.clear();
		},
		ledger(accountId = MAIN_ACCOUNT) {
			tick();
			return {
				balance: balanceOf(findAccount(world, accountId)),
				entries: entriesOf(world, accountId).map(toLedgerEntry),
				invariantHolds: invariantHolds(world, accountId),
			};
		},
		jobs() {
			tick();
			return [...world.state.jobs].sort((a, b) => b.seq - a.seq).map((j) => toJob(j));
		},
		assets() {
			tick();
			return [...world.state.assets].sort((a, b) => b.seq - a.seq).map((a) => toAsset(world, a));
		},
		snapshot() {
			tick();
			return JSON.parse(JSON.stringify(world.state)) as EmulatorSnapshot;
		},
	};
}

function isLoopback(address: string | undefined): boolean {
	return address === '127.0.0.1' || address === '::1' || address === '::ffff:127.0.0.1';
}

type ControlHandler = (body: Record<string, unknown>) => unknown;

/**
 * The same control over HTTP under /_control (loopback clients only), for another process
 * (e.g. a demo script). Bodies and answers are JSON; answers are `{data}` or `{error}`.
 */
export function registerControlRoutes(app: FastifyInstance, control: EmulatorControl): void {
	const routes: Array<[string, string, ControlHandler]> = [
		['GET', '/_control/state', () => control.snapshot()],
		['GET', '/_control/ledger', () => control.ledger()],
		['GET', '/_control/jobs', () => control.jobs()],
		['GET', '/_control/assets', () => control.assets()],
		['GET', '/_control/journal', () => control.journal()],
		['DELETE', '/_control/journal', () => control.clearJournal()],
		['GET', '/_control/violations', () => control.violations()],
		['DELETE', '/_control/violations', () => control.clearViolations()],
		['GET', '/_control/violations/counts', () => control.violationCounts()],
		['GET', '/_control/settings', () => control.settings()],
		[
			'POST',
			'/_control/settings',
			(b) => {
				control.setSettings(b as SettingsPatch);
				return control.settings();
			},
		],
		['GET', '/_control/faults', () => control.faults()],
		['DELETE', '/_control/faults', () => control.clearFaults()],
		[
			'POST',
			'/_control/faults',
			(b) => {
				const { pathRegex, ...rest } = b as unknown as FaultSpec & { pathRegex?: string };
				control.injectFault({
					...rest,
					path: typeof pathRegex === 'string' ? new RegExp(pathRegex) : rest.path,
				});
			},
		],
		[
			'POST',
			'/_control/engine',
			(b) => control.setEngine(b.available === true, b.reason as string | undefined),
		],
		['POST', '/_control/uploads', (b) => control.setUploads(b.available === true)],
		['POST', '/_control/modes', (b) => control.setModes(b.modes as Mode[])],
		['POST', '/_control/freeze', (b) => control.freeze(b.frozen === true)],
		['POST', '/_control/keys', (b) => control.createKey(b as CreateKeyOptions)],
		['POST', '/_control/keys/revoke', (b) => control.revokeKey(String(b.key))],
		['POST', '/_control/credits', (b) => control.grantCredits(Number(b.amount))],
		['POST', '/_control/jobs/script', (b) => control.scriptJobs(b.scripts as JobScript[])],
		[
			'POST',
			'/_control/job-timing',
			(b) => control.setJobTiming({ queuedMs: Number(b.queuedMs), runningMs: Number(b.runningMs) }),
		],
		['POST', '/_control/output-bytes', (b) => control.setOutputBytes(Number(b.bytes))],
	];
	for (const [method, url, handler] of routes) {
		app.route({
			method: method as 'GET' | 'POST' | 'DELETE',
			url,
			handler: (request: FastifyRequest, reply: FastifyReply) => {
				reply.header('Content-Type', 'application/json; charset=utf-8');
				if (!isLoopback(request.socket.remoteAddress)) {
					return reply
						.code(403)
						.send(JSON.stringify({ error: { code: 'forbidden', message: 'loopback only' } }));
				}
				let outcome: { status: number; payload: unknown };
				try {
					const text = Buffer.isBuffer(request.body) ? request.body.toString('utf8') : '';
					const body = (text.trim() === '' ? {} : JSON.parse(text)) as Record<string, unknown>;
					const data = handler(body);
					outcome = { status: 200, payload: { data: data === undefined ? { ok: true } : data } };
				} catch (error) {
					outcome = {
						status: 400,
						payload: { error: { code: 'control_error', message: (error as Error).message } },
					};
				}
				return reply.code(outcome.status).send(JSON.stringify(outcome.payload));
			},
		});
	}
}

/** Adds a watcher (its own entry, so one function may watch twice); returns the function that removes it. */
function watch<T>(set: Set<(value: T) => void>, watcher: (value: T) => void): () => void {
	const own = (value: T) => watcher(value);
	set.add(own);
	return () => {
		set.delete(own);
	};
}
