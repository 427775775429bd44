import { judgeListLooks, LIST_LOOK_BURST, Referee } from '../../emulator/src/referee';
import type { Arrival, ListLook } from '../../emulator/src/referee';

// judgeListLooks: the referee's list_poll_too_soon rule over one sequence of first-page looks, which the
// soak (scripts/soak.mjs) uses to judge each n8n process's own looks of a shared key.

const MIN = 5000; // the emulator's default minPollIntervalMs
const T0 = 1_800_000_000_000;

/** Looks every `everyMs` from `start`, `n` of them, each showing `unfinished` unfinished jobs. */
function looks(n: number, everyMs: number, start = T0, unfinished: number | null = 2): ListLook[] {
	return Array.from({ length: n }, (_, i) => ({ at: start + i * everyMs, unfinished }));
}

const tooSoon = (list: ListLook[]) =>
	judgeListLooks(list, MIN)
		.map((j, i) => (j.tooSoon ? i : -1))
		.filter((i) => i >= 0);

/** The same looks on one key, through the Referee itself: the indexes it flags. */
function refereeFlags(list: ListLook[]): number[] {
	const referee = new Referee(() => MIN);
	const flagged: number[] = [];
	list.forEach((look, i) => {
		const a: Arrival = {
			requestId: `req_${i}`,
			at: look.at,
			method: 'GET',
			path: '/v1/jobs',
			query: '',
			ip: '127.0.0.1',
			keyId: 'key_shared',
			secretHash: 'h',
			accountId: 'acc',
			authenticated: true,
			idempotencyKey: null,
			bodyHash: 'b',
			creation: null,
			jobRead: null,
			jobListLook: true,
			fault: null,
		};
		if (referee.arrive(a).includes('list_poll_too_soon')) flagged.push(i);
		referee.answered(a, {
			at: look.at,
			status: look.unfinished === null ? 503 : 200,
			errorCode: null,
			retryAfter: null,
			delivery: 'full',
			jobId: null,
			unfinishedListed: look.unfinished ?? undefined,
		});
	});
	return flagged;
}

describe('judgeListLooks (the list_poll_too_soon rule over a sequence of looks)', () => {
	test('two processes each looking every 5 s are within budget alone, not together on one key', () => {
		// 10 minutes of each process following its jobs at the advised pace, 2.5 s apart from the other
		const first = looks(120, MIN);
		const second = looks(120, MIN, T0 + MIN / 2);
		expect(tooSoon(first)).toEqual([]);
		expect(tooSoon(second)).toEqual([]);
		// together they look every 2.5 s: the key's burst is drained within a few looks, and stays so
		const together = [...first, ...second].sort((x, y) => x.at - y.at);
		const flagged = tooSoon(together);
		expect(flagged.length).toBeGreaterThan(together.length / 3);
		expect(flagged[0]).toBeLessThan(3 * LIST_LOOK_BURST);
		// the referee judges that key the same way
		expect(refereeFlags(together)).toEqual(flagged);
	});

	test('one process looking every second is over budget by itself', () => {
		const flagged = tooSoon(looks(60, 1000));
		// the first look opens the budget (burst - 1 left), each costs 1 and earns 0.2: the 8th is too soon
		expect(flagged[0]).toBe(7);
		expect(flagged.length).toBeGreaterThan(40);
		expect(refereeFlags(looks(60, 1000))).toEqual(flagged);
	});

	test('a burst of LIST_LOOK_BURST looks at once is fine, one more is not', () => {
		expect(tooSoon(looks(LIST_LOOK_BURST, 0))).toEqual([]);
		expect(tooSoon(looks(LIST_LOOK_BURST + 1, 0))).toEqual([LIST_LOOK_BURST]);
		const credits = judgeListLooks(looks(2, 0), MIN).map((j) => j.credit);
		expect(credits).toEqual([null, LIST_LOOK_BURST - 1]);
	});

	test('looks showing no unfinished job refill the budget; failed looks cost but open none', () => {
		expect(tooSoon(looks(3 * LIST_LOOK_BURST, 0, T0, 0))).toEqual([]);
		// failed answers (null) before any page: nothing judged yet, and no budget opened
		const failedFirst = [...looks(10, 0, T0, null), ...looks(LIST_LOOK_BURST, 0, T0)];
		expect(tooSoon(failedFirst)).toEqual([]);
		// once opened, a failed look still costs one
		const failedLater = [...looks(1, 0, T0), ...looks(LIST_LOOK_BURST, 0, T0, null)];
		expect(tooSoon(failedLater)).toEqual([LIST_LOOK_BURST]);
		expect(refereeFlags(failedLater)).toEqual([LIST_LOOK_BURST]);
	});
});
