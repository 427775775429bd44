/**
 * The referee: judges the clients of the emulator as a strict service would, and records each
 * mistake as a violation. It only judges — it never changes an answer. The server describes each
 * /v1 request at its arrival (`arrive`, which judges it), may report that the key's window was
 * already exhausted (`flag`), and describes the answer once it is sent (`answered`, which updates
 * what the referee remembers: Retry-After ends, job reads, refused secrets, 4xx answers, creation
 * attempts and the bodies bound to Idempotency-Keys). Times are on the emulator clock.
 */

export const VIOLATION_KINDS = [
	'retry_after_key',
	'retry_after_ip',
	'retry_after_upload',
	'exhausted_window',
	'poll_too_soon',
	'list_poll_too_soon',
	'revoked_key_reuse',
	'idempotency_key_changed',
	'idempotency_body_changed',
	'repeated_client_error',
] as const;
export type ViolationKind = (typeof VIOLATION_KINDS)[number];

export interface Violation {
	/** Arrival time of the offending request (emulator clock, ms). */
	at: number;
	requestId: string;
	kind: ViolationKind;
	method: string;
	/** Path without the query. */
	path: string;
	/** Key id named by the bearer secret, null when none. */
	keyId: string | null;
	/** Human-readable explanation (English). */
	detail: string;
}

/** Statuses a client must not repeat unchanged ("4xx are never blindly repeated"). */
export const CLIENT_ERROR_STATUSES: readonly number[] = [400, 402, 403, 413, 415, 422];
/**
 * First pages of the job list a key may read at once while they show unfinished jobs (list_poll_too_soon):
 * separate node runs each look once (an adoption check, a trigger poll, a Get Many, a picker), while
 * following jobs through the list is polling them: one look per minPollIntervalMs on average.
 */
export const LIST_LOOK_BURST = 6;
/** How long an identical request after one of those answers counts as a blind repeat. */
export const REPEAT_WINDOW_MS = 60_000;

/**
 * What first pages of the job list have left for the next ones (list_poll_too_soon): looks that may
 * still be made at once (`credit`, one more earned per minPollIntervalMs up to LIST_LOOK_BURST), since
 * when (`creditAt`), and how many unfinished jobs the last answered one showed. The referee keeps one per
 * key; the soak (scripts/soak.mjs) judges each process alone with the same rule (judgeListLooks).
 */
export interface ListLookBudget {
	credit: number;
	creditAt: number;
	unfinished: number;
}

/**
 * A first page of the job list arriving at `at`: while the last answered look showed unfinished jobs,
 * it costs one credit, earned back at one per `minPollIntervalMs` up to LIST_LOOK_BURST (all of them
 * back once a look showed none). Updates `budget`; returns the credit the look found (before its own
 * cost): below 1, it came too soon. null without a budget (no look answered yet): not judged.
 */
export function spendListLook(
	budget: ListLookBudget | undefined,
	at: number,
	minPollIntervalMs: number,
): number | null {
	if (!budget) return null;
	if (budget.unfinished === 0) {
		budget.credit = LIST_LOOK_BURST;
	} else {
		const earned = minPollIntervalMs > 0 ? (at - budget.creditAt) / minPollIntervalMs : Infinity;
		budget.credit = Math.min(LIST_LOOK_BURST, budget.credit + earned);
	}
	budget.creditAt = at;
	const found = budget.credit;
	budget.credit = Math.max(0, budget.credit - 1);
	return found;
}

/**
 * A first page of the job list answered (2xx, in full) at `at`, showing `unfinished` unfinished jobs:
 * the budget after it (updated, or a new one when this was the first look: its own credit spent).
 */
export function answerListLook(
	budget: ListLookBudget | undefined,
	at: number,
	unfinished: number,
): ListLookBudget {
	if (budget) {
		budget.unfinished = unfinished;
		return budget;
	}
	return { credit: LIST_LOOK_BURST - 1, creditAt: at, unfinished };
}

/** One first page of the job list a client read: when, and what its answer showed. */
export interface ListLook {
	/** Emulator clock, ms (the look is judged and its answer heard at this moment). */
	at: number;
	/** Unfinished jobs on a 2xx page delivered in full; null for any other answer (it still costs). */
	unfinished: number | null;
}

/**
 * Judges a sequence of first-page looks (in arrival order) alone, with the referee's rule
 * (spendListLook, answerListLook): for each look, whether it came too soon and the credit it found
 * (null: not judged). E.g. the looks of one process among several sharing a key: the referee judges the
 * key's looks together, this judges what one of them did by itself.
 */
export function judgeListLooks(
	looks: readonly ListLook[],
	minPollIntervalMs: number,
): Array<{ tooSoon: boolean; credit: number | null }> {
	let budget: ListLookBudget | undefined;
	return looks.map((look) => {
		const credit = spendListLook(budget, look.at, minPollIntervalMs);
		if (look.unfinished !== null) budget = answerListLook(budget, look.at, look.unfinished);
		return { tooSoon: credit !== null && credit < 1, credit };
	});
}

/** What the server knows of one /v1 request when it arrives. */
export interface Arrival {
	requestId: string;
	/** Arrival time (emulator clock, ms). */
	at: number;
	method: string;
	path: string;
	query: string;
	/** Remote IP address. */
	ip: string;
	/** Key id named by the bearer secret (not validated); null without one. */
	keyId: string | null;
	/** sha256 of the credential sent (bearer token, or the whole Authorization value); null without. */
	secretHash: string | null;
	/** Account owning `keyId`, when such a key exists. */
	accountId: string | null;
	/** The route needs a key (public and unknown routes do not). */
	authenticated: boolean;
	idempotencyKey: string | null;
	/** sha256 of the raw body bytes. */
	bodyHash: string;
	/** POST /v1/jobs (canonical JSON hash) or POST /v1/assets (bytes hash); null otherwise. */
	creation: { kind: 'jobs' | 'assets'; bodyHash: string } | null;
	/** GET /v1/jobs/{jobId}: the job id; null otherwise. */
	jobRead: string | null;
	/** GET /v1/jobs without `cursor`: the first page of the job list (how a client follows a batch). */
	jobListLook?: boolean;
	/** Fault action applied to the request, if any. */
	fault: string | null;
}

/**
 * How much of the answer reached the client: `full`; `damaged` (status line and headers, then a
 * truncated or corrupted body); `none` (connection reset, or the client was gone).
 */
export type Delivery = 'full' | 'damaged' | 'none';

export interface Answer {
	/** When the answer was sent (emulator clock, ms). */
	at: number;
	status: number;
	errorCode: string | null;
	/** Retry-After header in seconds, null when absent. */
	retryAfter: number | null;
	delivery: Delivery;
	/** Job id carried by a 2xx answer of a job creation or a job read; null otherwise. */
	jobId: string | null;
	/** That job was in an end state (succeeded or failed) in the answer: reading it again is not polling. */
	jobFinished?: boolean;
	/** A 2xx page of GET /v1/jobs: how many of its jobs were unfinished (queued or running). */
	unfinishedListed?: number;
	/**
	 * A 2xx page of GET /v1/jobs: the jobs it showed in an end state. The client knows they ended:
	 * reading one of them again is not polling, as after a read that showed it finished.
	 */
	finishedListed?: string[];
}

interface CreationMemory {
	/** Idempotency-Keys of attempts with this body whose outcome the client could not know. */
	unknownKeys: Set<string>;
	/** Arrival order of the last attempt answered definitively; earlier attempts no longer count. */
	settledSeq: number;
}

const UNKNOWN_OUTCOME_FAULTS = ['delay', 'delay_response'];

function seconds(ms: number): string {
	return `${(ms / 1000).toFixed(3).replace(/\.?0+$/, '')} s`;
}

/** A Retry-After the service gave: when it was told, and until when it holds. */
interface Hold {
	toldAt: number;
	end: number;
}

export class Referee {
	private list: Violation[] = [];
	/** Retry-After holds (when told, until when): by key id, by remote IP, by account (uploads). */
	private keyWaits = new Map<string, Hold>();
	private ipWaits = new Map<string, Hold>();
	private uploadWaits = new Map<string, Hold>();
	/**
	 * Last successful read of each job while it was unfinished. A job answered in an end state is dropped:
	 * the spec's polling advice is for waiting until the end ("until `state` is `succeeded` or `failed`"),
	 * so reading a finished job again (another workflow's Download Output, a caller's repeat) is not a poll.
	 */
	/** The last successful answer naming each unfinished job (a read or a creation): when, and which request. */
	private reads = new Map<
		string,
		{ at: number; accountId: string | null; requestId: string; route: string }
	>();
	/**
	 * First pages of the job list of each key: looks it may still make at once (`credit`, one more
	 * earned per minPollIntervalMs up to LIST_LOOK_BURST) and how many unfinished jobs the last one showed.
	 */
	private listLooks = new Map<string, ListLookBudget>();
	/** sha256 of credentials that were answered 401 invalid_api_key → when. */
	private refused = new Map<string, number>();
	/** Fingerprint of a request → when it was answered 400/402/403/413/415/422. */
	private clientErrors = new Map<string, number>();
	/** `kind|keyId|bodyHash` → creation attempts with that body. */
	private creations = new Map<string, CreationMemory>();
	/** `kind|accountId|Idempotency-Key` → body bound to it and the request that bound it. */
	private bindings = new Map<string, { bodyHash: string; requestId: string }>();
	/** Arrival order of each request being judged (ties of a virtual clock need an order). */
	private seqOf = new WeakMap<Arrival, number>();
	private seq = 0;

	constructor(
		private readonly minPollIntervalMs: () => number,
		/**
		 * A request that arrives this soon after the answer that told the client to stop (a 429, a 401)
		 * was already on its way: the client could not know yet. Not judged as ignoring the answer.
		 */
		private readonly inFlightGraceMs: () => number = () => 500,
	) {}

	violations(): Violation[] {
		return this.list.map((v) => ({ ...v }));
	}

	/** Forgets the recorded violations (not what the referee remembers of past answers). */
	clearViolations(): void {
		this.list = [];
	}

	counts(): Record<ViolationKind, number> {
		const counts = Object.fromEntries(VIOLATION_KINDS.map((k) => [k, 0])) as Record<
			ViolationKind,
			number
		>;
		for (const v of this.list) counts[v.kind] += 1;
		return counts;
	}

	/** Records a violation of this request and adds its kind to `kinds`. */
	flag(a: Arrival, kind: ViolationKind, detail: string, kinds: ViolationKind[]): void {
		this.list.push({
			at: a.at,
			requestId: a.requestId,
			kind,
			method: a.method,
			path: a.path,
			keyId: a.keyId,
			detail,
		});
		kinds.push(kind);
	}

	/** Judges a request at its arrival; returns the kinds recorded for it. */
	arrive(a: Arrival): ViolationKind[] {
		this.seq += 1;
		this.seqOf.set(a, this.seq);
		const kinds: ViolationKind[] = [];
		const grace = this.inFlightGraceMs();
		const early = (hold: Hold | undefined) =>
			hold !== undefined && a.at < hold.end && a.at >= hold.toldAt + grace;

		const keyHold = a.keyId ? this.keyWaits.get(a.keyId) : undefined;
		const keyEnd = keyHold?.end;
		if (a.authenticated && early(keyHold)) {
			this.flag(
				a,
				'retry_after_key',
				`key ${a.keyId} was told to wait (429 rate_limited) until ${keyEnd}; arrived ${seconds(keyEnd! - a.at)} early`,
				kinds,
			);
		}
		const ipHold = this.ipWaits.get(a.ip);
		const ipEnd = ipHold?.end;
		if (early(ipHold)) {
			this.flag(
				a,
				'retry_after_ip',
				`IP ${a.ip} was told to wait (429 ip_rate_limited) until ${ipEnd}; arrived ${seconds(ipEnd! - a.at)} early`,
				kinds,
			);
		}
		const uploadHold = a.accountId ? this.uploadWaits.get(a.accountId) : undefined;
		const uploadEnd = uploadHold?.end;
		if (a.method === 'POST' && a.path === '/v1/assets' && early(uploadHold)) {
			this.flag(
				a,
				'retry_after_upload',
				`account ${a.accountId} was told to wait (429 upload_rate_limit) until ${uploadEnd}; arrived ${seconds(uploadEnd! - a.at)} early`,
				kinds,
			);
		}
		if (a.jobRead) {
			const read = this.reads.get(a.jobRead);
			const min = this.minPollIntervalMs();
			if (read && read.accountId === a.accountId && a.at - read.at < min) {
				this.flag(
					a,
					'poll_too_soon',
					`job ${a.jobRead} read again ${seconds(a.at - read.at)} after the previous successful read (minimum ${seconds(min)}; that answer: ${read.requestId}, ${read.route})`,
					kinds,
				);
			}
		}
		if (a.jobListLook && a.keyId) this.judgeListLook(a, a.keyId, kinds);
		const refusedAt = a.secretHash ? this.refused.get(a.secretHash) : undefined;
		if (a.authenticated && refusedAt !== undefined && a.at >= refusedAt + grace) {
			this.flag(
				a,
				'revoked_key_reuse',
				`this secret${a.keyId ? ` (key ${a.keyId})` : ''} was already answered 401 invalid_api_key`,
				kinds,
			);
		}
		if (a.creation) this.judgeCreation(a, a.creation, kinds);
		const answeredAt = this.clientErrors.get(this.fingerprint(a));
		if (answeredAt !== undefined && a.at - answeredAt < REPEAT_WINDOW_MS) {
			this.flag(
				a,
				'repeated_client_error',
				`the same request was answered with a client error ${seconds(a.at - answeredAt)} before; fix it instead of repeating it`,
				kinds,
			);
		}
		return kinds;
	}

	/** Remembers what the client was told. */
	answered(a: Arrival, r: Answer): void {
		const heard = r.delivery !== 'none';
		if (r.status === 429 && heard && r.retryAfter !== null) {
			const end = r.at + r.retryAfter * 1000;
			const extend = (map: Map<string, Hold>, id: string | null) => {
				const current = id === null ? undefined : map.get(id);
				if (id !== null && (!current || current.end < end)) map.set(id, { toldAt: r.at, end });
			};
			if (r.errorCode === 'rate_limited') extend(this.keyWaits, a.keyId);
			if (r.errorCode === 'ip_rate_limited') extend(this.ipWaits, a.ip);
			if (r.errorCode === 'upload_rate_limit') extend(this.uploadWaits, a.accountId);
		}
		if (
			r.errorCode === 'invalid_api_key' &&
			heard &&
			a.secretHash &&
			!this.refused.has(a.secretHash)
		) {
			this.refused.set(a.secretHash, r.at);
		}
		if (CLIENT_ERROR_STATUSES.includes(r.status) && heard) {
			this.prune(r.at);
			this.clientErrors.set(this.fingerprint(a), r.at);
		}
		const ok = r.status >= 200 && r.status < 300 && r.delivery === 'full';
		if (ok) for (const id of r.finishedListed ?? []) this.reads.delete(id);
		if (ok && r.jobId && r.jobFinished) this.reads.delete(r.jobId);
		else if (ok && r.jobId) {
			const route = `${a.method} ${a.path}`;
			this.reads.set(r.jobId, { at: r.at, accountId: a.accountId, requestId: a.requestId, route });
		}
		if (ok && a.jobListLook && a.keyId) {
			const budget = this.listLooks.get(a.keyId);
			this.listLooks.set(a.keyId, answerListLook(budget, r.at, r.unfinishedListed ?? 0));
		}
		if (a.creation) this.rememberCreation(a, a.creation, r);
	}

	/** A first page of the job list, judged on the key's budget (spendListLook). */
	private judgeListLook(a: Arrival, keyId: string, kinds: ViolationKind[]): void {
		const min = this.minPollIntervalMs();
		const budget = this.listLooks.get(keyId);
		const credit = spendListLook(budget, a.at, min);
		if (budget && credit !== null && credit < 1) {
			this.flag(
				a,
				'list_poll_too_soon',
				`key ${keyId} read the first page of the job list more often than once per ${seconds(min)} (beyond ${LIST_LOOK_BURST} at once) while it showed ${budget.unfinished} unfinished job(s): following jobs through the list polls each of them`,
				kinds,
			);
		}
	}

	private judgeCreation(
		a: Arrival,
		creation: NonNullable<Arrival['creation']>,
		kinds: ViolationKind[],
	): void {
		const idem = a.idempotencyKey ?? '';
		const memory = this.creations.get(this.creationKey(a, creation));
		if (memory && memory.unknownKeys.size > 0 && !memory.unknownKeys.has(idem)) {
			const earlier = [...memory.unknownKeys].map((k) => k || '(none)').join(', ');
			this.flag(
				a,
				'idempotency_key_changed',
				`same ${creation.kind} body as an attempt whose outcome was unknown (Idempotency-Key ${earlier}), retried with ${a.idempotencyKey ?? 'no'} Idempotency-Key`,
				kinds,
			);
		}
		if (a.idempotencyKey !== null && a.accountId !== null) {
			const bindingKey = `${creation.kind}|${a.accountId}|${a.idempotencyKey}`;
			const bound = this.bindings.get(bindingKey);
			if (bound && bound.bodyHash !== creation.bodyHash) {
				this.flag(
					a,
					'idempotency_body_changed',
					`Idempotency-Key ${a.idempotencyKey} was already used by this account with another ${creation.kind} body`,
					kinds,
				);
			} else if (!bound) {
				this.bindings.set(bindingKey, { bodyHash: creation.bodyHash, requestId: a.requestId });
			}
		}
		if (a.fault !== null && UNKNOWN_OUTCOME_FAULTS.includes(a.fault)) {
			this.markUnknown(a, creation);
		}
	}

	private rememberCreation(
		a: Arrival,
		creation: NonNullable<Arrival['creation']>,
		r: Answer,
	): void {
		const refusedBeforeBody =
			r.status === 401 ||
			r.status === 403 ||
			r.status === 429 ||
			r.errorCode === 'invalid_idempotency_key';
		const clientError = r.status >= 400 && r.status < 500;
		const definitive =
			r.delivery === 'full' &&
			((r.status >= 200 && r.status < 300) || (clientError && !refusedBeforeBody));
		if (r.status >= 500 || r.delivery !== 'full') {
			this.markUnknown(a, creation);
		} else if (definitive) {
			const memory = this.memory(a, creation);
			memory.unknownKeys.clear();
			memory.settledSeq = Math.max(memory.settledSeq, this.seqOf.get(a) ?? 0);
		}
		// A key refused with a delivered 4xx committed nothing: it may be reused with a fixed body.
		if (a.idempotencyKey !== null && a.accountId !== null && clientError && r.delivery === 'full') {
			const bindingKey = `${creation.kind}|${a.accountId}|${a.idempotencyKey}`;
			if (this.bindings.get(bindingKey)?.requestId === a.requestId)
				this.bindings.delete(bindingKey);
		}
	}

	private markUnknown(a: Arrival, creation: NonNullable<Arrival['creation']>): void {
		const memory = this.memory(a, creation);
		if ((this.seqOf.get(a) ?? 0) > memory.settledSeq) {
			memory.unknownKeys.add(a.idempotencyKey ?? '');
		}
	}

	private memory(a: Arrival, creation: NonNullable<Arrival['creation']>): CreationMemory {
		const key = this.creationKey(a, creation);
		let memory = this.creations.get(key);
		if (!memory) {
			memory = { unknownKeys: new Set(), settledSeq: 0 };
			this.creations.set(key, memory);
		}
		return memory;
	}

	private creationKey(a: Arrival, creation: NonNullable<Arrival['creation']>): string {
		return `${creation.kind}|${a.keyId ?? ''}|${creation.bodyHash}`;
	}

	private fingerprint(a: Arrival): string {
		return [a.method, a.path, a.query, a.bodyHash, a.idempotencyKey ?? '', a.secretHash ?? ''].join(
			'\n',
		);
	}

	/** Drops 4xx answers older than the repeat window once the map grows. */
	private prune(now: number): void {
		if (this.clientErrors.size < 1000) return;
		for (const [fp, at] of this.clientErrors) {
			if (now - at >= REPEAT_WINDOW_MS) this.clientErrors.delete(fp);
		}
	}
}
