// The soak's three workflows, for n8n 2.x and 1.x alike (ids WF.*, settings.mjs):
//   batch    Webhook {items:[{prompt}]} → Split Out → Create text to video, Wait for Completion (Retry On Fail),
//            key A
//   replace  Webhook (an MP4) → Upload (key B) → Create character replacement (persona, wait, no download;
//            key A) → Download Output (key B)
//   deliver  Job Finished trigger (on the main, key C, download off) → Download Output (key A, Retry On Fail)
//            → HTTP Request posting the MP4 to the soak's sink (setup.mjs)
import { packageNodeType as nodeType } from '../repo.mjs';
import { CRED, HOOK, WF } from './settings.mjs';
import { postToSink } from './sink.mjs';

const creds = (k) => ({ generationServiceApi: CRED[k] });

function webhookNode(id, hookPath, responseData) {
	return {
		id: `${id}-0000-4000-8000-000000000001`,
		name: 'Webhook',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2.1,
		webhookId: `${id}-0000-4000-8000-0000000000aa`,
		position: [0, 0],
		parameters: {
			httpMethod: 'POST',
			path: hookPath,
			responseMode: 'lastNode',
			responseData,
			...(responseData === 'firstEntryBinary' && { responseBinaryPropertyName: 'data' }),
			options: {},
		},
	};
}

/** Webhook {items:[{prompt}]} → Split Out → Create and Wait (text to video, key A, Retry On Fail). */
function batchWorkflow() {
	return {
		id: WF.batch,
		name: 'Soak: batch text to video',
		active: false,
		nodes: [
			webhookNode('c1000000', HOOK.batch, 'allEntries'),
			{
				id: 'c1000000-0000-4000-8000-000000000002',
				name: 'Split Out',
				type: 'n8n-nodes-base.splitOut',
				typeVersion: 1,
				position: [220, 0],
				parameters: { fieldToSplitOut: 'body.items', options: {} },
			},
			{
				id: 'c1000000-0000-4000-8000-000000000003',
				name: 'Create and Wait',
				type: nodeType('generationServiceJob'),
				typeVersion: 1,
				position: [440, 0],
				retryOnFail: true,
				maxTries: 2,
				waitBetweenTries: 3000,
				parameters: {
					resource: 'job',
					operation: 'create',
					mode: 'text_to_video',
					prompt: '={{ $json.prompt }}',
					durationSeconds: 5,
					aspectRatio: '16:9',
					options: { waitForCompletion: true, maxCreditsPerRun: 1000 },
				},
				credentials: creds('a'),
			},
		],
		connections: {
			Webhook: { main: [[{ node: 'Split Out', type: 'main', index: 0 }]] },
			'Split Out': { main: [[{ node: 'Create and Wait', type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
		pinData: {},
	};
}

/** Webhook (an MP4) → Upload (key B) → Replace (persona, wait, key A) → Download Output (key B). */
function replaceWorkflow(personaId) {
	return {
		id: WF.replace,
		name: 'Soak: upload, character replacement, download',
		active: false,
		nodes: [
			webhookNode('c2000000', HOOK.replace, 'firstEntryBinary'),
			{
				id: 'c2000000-0000-4000-8000-000000000002',
				name: 'Upload',
				type: nodeType('generationServiceAsset'),
				typeVersion: 1,
				position: [220, 0],
				parameters: {
					resource: 'asset',
					operation: 'upload',
					binaryPropertyName: 'data',
					options: {},
				},
				credentials: creds('b'),
			},
			{
				id: 'c2000000-0000-4000-8000-000000000003',
				name: 'Replace',
				type: nodeType('generationServiceJob'),
				typeVersion: 1,
				position: [440, 0],
				parameters: {
					resource: 'job',
					operation: 'create',
					mode: 'character_replacement',
					sourceVideo: { __rl: true, mode: 'id', value: '={{ $json.id }}' },
					characterSource: 'persona',
					persona: { __rl: true, mode: 'id', value: personaId },
					// each call its own input (a replacement has no prompt; the upload replays by content)
					durationSeconds: "={{ Number($('Webhook').first().json.query.d) }}",
					aspectRatio: "={{ $('Webhook').first().json.query.r }}",
					options: { waitForCompletion: true, downloadOutput: false },
				},
				credentials: creds('a'),
			},
			{
				id: 'c2000000-0000-4000-8000-000000000004',
				name: 'Download Output',
				type: nodeType('generationServiceJob'),
				typeVersion: 1,
				position: [660, 0],
				parameters: {
					resource: 'job',
					operation: 'downloadOutput',
					jobId: { __rl: true, mode: 'id', value: '={{ $json.id }}' },
					options: {},
				},
				credentials: creds('b'),
			},
		],
		connections: {
			Webhook: { main: [[{ node: 'Upload', type: 'main', index: 0 }]] },
			Upload: { main: [[{ node: 'Replace', type: 'main', index: 0 }]] },
			Replace: { main: [[{ node: 'Download Output', type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
		pinData: {},
	};
}

/** Job Finished (key C, at `pollSecond` of each minute) → Download Output (key A) → Deliver (the sink). */
function deliverWorkflow({ sinkUrl, pollSecond }) {
	return {
		id: WF.deliver,
		name: 'Soak: Job Finished → Download Output → sink',
		active: false,
		nodes: [
			{
				id: 'c3000000-0000-4000-8000-000000000001',
				name: 'Job Finished',
				type: nodeType('generationServiceTrigger'),
				typeVersion: 1,
				position: [0, 0],
				parameters: {
					pollTimes: { item: [{ mode: 'custom', cronExpression: `${pollSecond} * * * * *` }] },
					event: 'jobFinished',
					jobState: 'succeeded',
					modes: [],
					options: {},
				},
				credentials: creds('c'),
			},
			{
				id: 'c3000000-0000-4000-8000-000000000002',
				name: 'Download Output',
				type: nodeType('generationServiceJob'),
				typeVersion: 1,
				position: [220, 0],
				retryOnFail: true,
				maxTries: 3,
				waitBetweenTries: 3000,
				parameters: {
					resource: 'job',
					operation: 'downloadOutput',
					jobId: { __rl: true, mode: 'id', value: '={{ $json.id }}' },
					options: {},
				},
				credentials: creds('a'),
			},
			{
				id: 'c3000000-0000-4000-8000-000000000003',
				name: 'Deliver',
				type: 'n8n-nodes-base.httpRequest',
				typeVersion: 4.2,
				position: [440, 0],
				retryOnFail: true,
				maxTries: 3,
				waitBetweenTries: 2000,
				parameters: postToSink(sinkUrl),
			},
		],
		connections: {
			'Job Finished': { main: [[{ node: 'Download Output', type: 'main', index: 0 }]] },
			'Download Output': { main: [[{ node: 'Deliver', type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
		pinData: {},
	};
}

/** The soak's three workflows (ids WF.*), for n8n 2.x and 1.x alike. */
export function soakWorkflows({ sinkUrl, personaId, pollSecond }) {
	return {
		batch: batchWorkflow(),
		replace: replaceWorkflow(personaId),
		deliver: deliverWorkflow({ sinkUrl, pollSecond }),
	};
}
