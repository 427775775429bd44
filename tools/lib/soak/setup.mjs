// Before and after the stack starts: the sink (sink.mjs), the keys A, B, C on the emulator and their
// credentials, the workflows to import (n8n wants them before the main starts), then publishing them.
import { CRED, KEY_A_LIMIT, WF } from './settings.mjs';
import { startSink } from './sink.mjs';
import { soakWorkflows } from './workflows.mjs';

/** Credentials of the soak (keys A, B, C created on the emulator now). */
export function soakCredentials(emu) {
	const keys = {
		a: emu.control.createKey({
			requestsPerMinute: KEY_A_LIMIT,
			creditCeiling: null,
			label: 'soak-a-low',
		}),
		b: emu.control.createKey({ requestsPerMinute: 120, creditCeiling: null, label: 'soak-b' }),
		c: emu.control.createKey({ requestsPerMinute: 120, creditCeiling: null, label: 'soak-c' }),
	};
	const credentials = Object.entries(CRED).map(([k, c]) => ({
		...c,
		type: 'generationServiceApi',
		data: { apiKey: keys[k].secret, baseUrl: emu.baseUrl },
	}));
	return { keys, credentials };
}

async function personaIdOf(emu) {
	const res = await fetch(`${emu.baseUrl}/personas`, {
		headers: { Authorization: `Bearer ${emu.keys.full}` },
	});
	const body = await res.json();
	return body.data.items[0].id;
}

/**
 * Before the stack starts: the sink, the keys A, B, C on the emulator, and the credentials and workflows to
 * import (startQueueStack's `credentials` / `workflows`: n8n wants them before the main starts).
 * Returns { sink, keys, credentials, workflows (list), pollSecond (the trigger's second of each minute) }.
 */
export async function setupSoak(emu) {
	const sink = await startSink();
	const { keys, credentials } = soakCredentials(emu);
	const pollSecond = (new Date().getUTCSeconds() + 30) % 60;
	const workflows = soakWorkflows({
		sinkUrl: sink.url,
		personaId: await personaIdOf(emu),
		pollSecond,
	});
	return { sink, keys, credentials, workflows: Object.values(workflows), pollSecond };
}

/** Publish the soak's workflows on the running stack (webhooks answering, trigger polling). */
export async function publishSoak(stack, log) {
	for (const id of [WF.batch, WF.replace, WF.deliver]) await stack.activate(id);
	log('soak workflows published (the trigger polls once a minute)');
}
