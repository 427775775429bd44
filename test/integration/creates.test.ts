/**
 * Creates without extra reads: capabilities read once per process and key for a while (dropped when an
 * answer says they changed). Through n8n-core's real contexts against the emulator over real HTTP; the
 * referee must see no violation.
 */
import type { IDataObject, INodeExecutionData, IRunExecutionData } from 'n8n-workflow';

import { GenerationServiceJob } from '../../nodes/GenerationServiceJob/GenerationServiceJob.node';
import type { Emulated } from '../helpers/emulated';
import { journalCount, startEmulated } from '../helpers/emulated';
import { runNode } from '../helpers/n8n';

const node = new GenerationServiceJob();

let env: Emulated;
beforeEach(async () => {
	env = await startEmulated();
});
afterEach(async () => {
	await env.close();
});

const textJob = {
	mode: 'text_to_video',
	prompt: 'a fox in the snow',
	durationSeconds: 5,
	aspectRatio: '9:16',
};

interface Call {
	executionId: string;
	mode?: 'webhook' | 'manual' | 'retry' | 'trigger';
	apiKey?: string;
	parameters?: IDataObject;
	runExecutionData?: IRunExecutionData;
}

async function create(call: Call): Promise<INodeExecutionData> {
	const [[item]] = await runNode({
		node,
		parameters: { resource: 'job', operation: 'create', ...textJob, ...call.parameters } as never,
		credentials: { apiKey: call.apiKey ?? env.credentials.apiKey, baseUrl: env.emu.baseUrl },
		executionId: call.executionId,
		mode: call.mode ?? 'webhook',
		runExecutionData: call.runExecutionData,
	});
	return item;
}

async function fails(promise: Promise<unknown>) {
	try {
		await promise;
	} catch (error) {
		return error as Error & { context: IDataObject };
	}
	throw new Error('expected a failure');
}

const capabilityReads = () => journalCount(env.emu, 'GET', /^\/v1\/capabilities$/);
const posts = () => journalCount(env.emu, 'POST', /^\/v1\/jobs$/);

describe('capabilities: read once per process and key for a while', () => {
	it('capabilities are read again after a minute, and after a create answered 503 engine_unavailable', async () => {
		await create({ executionId: 'e1' });
		await env.clock.clock.sleep(30_000);
		await create({ executionId: 'e2', parameters: { prompt: 'two' } });
		expect(capabilityReads()).toBe(1); // one answer serves the process's runs for a minute
		await env.clock.clock.sleep(31_000);
		await create({ executionId: 'e3', parameters: { prompt: 'three' } });
		expect(capabilityReads()).toBe(2);
		env.emu.control.setEngine(false, 'manutenção');
		const refused = await fails(create({ executionId: 'e4', parameters: { prompt: 'four' } }));
		expect(refused.context.errorCode).toBe('engine_unavailable');
		const postsAfterRefusal = posts();
		// the service's answer said they changed: the next run reads them and stops before any create
		const next = await fails(create({ executionId: 'e5', parameters: { prompt: 'five' } }));
		expect(next.message).toMatch(/^The generation engine is unavailable right now/);
		expect(capabilityReads()).toBe(3);
		expect(posts()).toBe(postsAfterRefusal);
		// an unavailable answer is kept one poll interval: an engine that is back is noticed within 5 s
		await env.clock.clock.sleep(1_000);
		await fails(create({ executionId: 'e6', parameters: { prompt: 'six' } }));
		expect(capabilityReads()).toBe(3);
		env.emu.control.setEngine(true);
		await env.clock.clock.sleep(5_000);
		await create({ executionId: 'e7', parameters: { prompt: 'seven' } });
		expect(capabilityReads()).toBe(4);
	});

	it('a quote answered 422 mode_unavailable drops them too', async () => {
		const quote = (executionId: string) =>
			runNode({
				node,
				parameters: { resource: 'job', operation: 'quote', ...textJob } as never,
				credentials: env.credentials,
				executionId,
			});
		await quote('q1');
		env.emu.control.setModes(['character_replacement', 'image_to_video']);
		const refused = await fails(quote('q2'));
		expect(refused.context.errorCode).toBe('mode_unavailable');
		const next = await fails(quote('q3'));
		expect(next.message).toMatch(/^The mode "text_to_video" is not available now/);
		expect(capabilityReads()).toBe(2);
		expect(journalCount(env.emu, 'POST', /^\/v1\/jobs\/quote$/)).toBe(2);
	});
});
