// The soak's three workflows, for n8n 2.x and 1.x alike (ids WF.*, settings.mjs):
//   batch    Webhook {items:[{prompt}]} → Split Out → Create text to video, Wait for Completion (Retry On Fail),
//            key A
//   replace  Webhook (an MP4) → Upload (key B) → Create character replacement (persona, wait, no download;
//            key A) → Download Output (key B)
//   deliver  Job Finished trigger (on the main, key C, download off) → Download Output (key A, Retry On Fail)
//            → HTTP Request posting the MP4 to the soak's sink (setup.mjs)
import * as B from '../workflow.mjs';
import { CRED, HOOK, WF } from './settings.mjs';
import { deliverToSink } from './sink.mjs';

const key = (k) => ({ credential: CRED[k] });
const retries = (maxTries, waitBetweenTries) => ({ retryOnFail: true, maxTries, waitBetweenTries });
const webhook = (hookPath, responseData) =>
	B.webhook('Webhook', { path: hookPath, responseMode: 'lastNode', responseData });

/** Webhook {items:[{prompt}]} → Split Out → Create and Wait (text to video, key A, Retry On Fail). */
const batchWorkflow = () =>
	B.workflow({
		id: WF.batch,
		name: 'Soak: batch text to video',
		ids: 'c1000000',
		nodes: [
			webhook(HOOK.batch, 'allEntries'),
			B.splitOut('Split Out', 'body.items'),
			B.createJob(
				'Create and Wait',
				{
					mode: 'text_to_video',
					prompt: '={{ $json.prompt }}',
					durationSeconds: 5,
					aspectRatio: '16:9',
					options: { waitForCompletion: true, maxCreditsPerRun: 1000 },
				},
				{ ...key('a'), ...retries(2, 3000) },
			),
		],
	});

/** Webhook (an MP4) → Upload (key B) → Replace (persona, wait, key A) → Download Output (key B). */
const replaceWorkflow = (personaId) =>
	B.workflow({
		id: WF.replace,
		name: 'Soak: upload, character replacement, download',
		ids: 'c2000000',
		nodes: [
			webhook(HOOK.replace, 'firstEntryBinary'),
			B.uploadAsset('Upload', key('b')),
			B.createJob(
				'Replace',
				{
					mode: 'character_replacement',
					sourceVideo: B.byId('={{ $json.id }}'),
					characterSource: 'persona',
					persona: B.byId(personaId),
					// each call its own input (a replacement has no prompt; the upload replays by content)
					durationSeconds: "={{ Number($('Webhook').first().json.query.d) }}",
					aspectRatio: "={{ $('Webhook').first().json.query.r }}",
					options: { waitForCompletion: true, downloadOutput: false },
				},
				key('a'),
			),
			B.downloadOutput('Download Output', '={{ $json.id }}', key('b')),
		],
	});

/** Job Finished (key C, at `pollSecond` of each minute) → Download Output (key A) → Deliver (the sink). */
const deliverWorkflow = ({ sinkUrl, pollSecond }) =>
	B.workflow({
		id: WF.deliver,
		name: 'Soak: Job Finished → Download Output → sink',
		ids: 'c3000000',
		nodes: [
			B.jobFinished(
				'Job Finished',
				{ second: pollSecond, jobState: 'succeeded', modes: [] },
				key('c'),
			),
			B.downloadOutput('Download Output', '={{ $json.id }}', { ...key('a'), ...retries(3, 3000) }),
			deliverToSink('Deliver', sinkUrl, retries(3, 2000)),
		],
	});

/** The soak's three workflows (ids WF.*), for n8n 2.x and 1.x alike. */
export function soakWorkflows({ sinkUrl, personaId, pollSecond }) {
	return {
		batch: batchWorkflow(),
		replace: replaceWorkflow(personaId),
		deliver: deliverWorkflow({ sinkUrl, pollSecond }),
	};
}
