/**
 * The key's watcher spaces list looks for the recent-jobs view one poll interval (5 s) after the key's
 * last list look, whoever made it (issue 37: `lastLookAt(…) + MIN_POLL_MS` made `+ 1000` passed every
 * other test). Checked where it is cheap: the room the watcher reserves in the key's rate window for
 * its next look, on the virtual clock, without HTTP.
 */
import type { IExecuteFunctions, INode } from 'n8n-workflow';

import { KeyWatcher } from '../../nodes/shared/jobs/watch';
import { MIN_POLL_MS } from '../../nodes/shared/jobs/job';
import { noteListLook } from '../../nodes/shared/jobs/known';
import { pacerFor } from '../../nodes/shared/service/pacing';
import { now } from '../../nodes/shared/service/service';
import { installFakeClock } from '../helpers/fake-clock';
import { forgetProcessState } from '../helpers/processState';

const service = { serviceKey: 'key-watcher-test', baseUrl: 'https://api.gen.test/v1' };

beforeEach(() => {
	forgetProcessState();
	installFakeClock('auto', 1_800_000_000_000);
});

it('reserves the next look for a wish one interval after the last list look, not sooner', async () => {
	const lookedAt = now();
	noteListLook(service.serviceKey, {
		sentAt: lookedAt - 200,
		answeredAt: lookedAt,
		jobs: [],
		reachedEnd: true,
	});
	const pacer = pacerFor(service.serviceKey, service.baseUrl);
	const reserve = jest.spyOn(pacer, 'reserve');
	const cancel = new AbortController();
	const ctx = {
		getNode: () => ({ name: 'Job' }) as INode,
		getExecutionCancelSignal: () => cancel.signal,
	} as unknown as IExecuteFunctions;
	let stopped!: () => void;
	const stop = new Promise<void>((resolve) => (stopped = resolve));
	const watcher = new KeyWatcher(service, () => stopped());

	const wanted = watcher.want({ ctx, itemIndex: 0, since: 0, freshAfter: lookedAt + 1 });
	expect(reserve).toHaveBeenCalledWith(watcher, lookedAt + MIN_POLL_MS, 'poll');
	expect(MIN_POLL_MS).toBe(5_000);

	cancel.abort(); // the wish leaves; the watcher, with nobody left, stops and gives its room back
	await expect(wanted).rejects.toThrow('cancelled');
	await stop;
});
