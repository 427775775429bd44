import type {
	IDataObject,
	IDisplayOptions,
	IExecuteFunctions,
	INodeProperties,
} from 'n8n-workflow';

type Show = NonNullable<IDisplayOptions['show']>;
import { NodeOperationError } from 'n8n-workflow';

import { ASPECT_RATIOS, MAX_PROMPT_CHARS, MODES, type Mode } from '../constants';
import { readId } from '../inputs';
import { MODE_OPTIONS } from './modes';
import { assetLocator, personaLocator } from './pickers';

/**
 * The JobInput form, defined once for Quote and Create: Mode first, then only the fields that mode
 * takes (the operation's updateDisplayOptions adds resource and operation).
 */
export function jobInputFields(): INodeProperties[] {
	const forModes = (modes: Mode[], extra: Show = {}): IDisplayOptions => ({
		show: { mode: modes, ...extra },
	});
	return [
		{
			displayName: 'Mode',
			name: 'mode',
			type: 'options',
			noDataExpression: true,
			options: MODE_OPTIONS,
			default: 'text_to_video',
		},
		{
			...assetLocator(
				'sourceVideo',
				'Source Video',
				'video',
				'The uploaded video whose person is replaced',
			),
			displayOptions: forModes(['character_replacement']),
		},
		{
			displayName: 'Character From',
			name: 'characterSource',
			type: 'options',
			displayOptions: forModes(['character_replacement']),
			options: [
				{
					name: 'Reference Image',
					value: 'reference',
					description: 'An uploaded image of the character entering the scene',
				},
				{
					name: 'Saved Persona',
					value: 'persona',
					description: 'A character saved in the studio',
				},
			],
			default: 'reference',
		},
		{
			...assetLocator(
				'referenceImage',
				'Reference Image',
				'image',
				'The uploaded image of the new character',
			),
			displayOptions: forModes(['character_replacement'], { characterSource: ['reference'] }),
		},
		{
			...personaLocator('persona', 'Persona', 'The saved character to put in the video'),
			displayOptions: forModes(['character_replacement'], { characterSource: ['persona'] }),
		},
		{
			...assetLocator('sourceImage', 'Source Image', 'image', 'The uploaded image to animate'),
			displayOptions: forModes(['image_to_video']),
		},
		{
			displayName: 'Prompt',
			name: 'prompt',
			type: 'string',
			typeOptions: { rows: 4 },
			required: true,
			default: '',
			description: `What should happen in the video (at most ${MAX_PROMPT_CHARS} characters)`,
			displayOptions: forModes(['image_to_video', 'text_to_video']),
		},
		{
			displayName: 'Duration (Seconds)',
			name: 'durationSeconds',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: 30, numberPrecision: 0 },
			default: 5,
			description:
				'Length of the video, 1 to 30 seconds. The service prices generations per started block of seconds: Quote shows the price.',
		},
		{
			displayName: 'Aspect Ratio',
			name: 'aspectRatio',
			type: 'options',
			options: [
				{ name: '9:16 (Vertical)', value: '9:16' },
				{ name: '16:9 (Horizontal)', value: '16:9' },
				{ name: '1:1 (Square)', value: '1:1' },
			],
			default: '9:16',
		},
	];
}

export interface JobInput extends IDataObject {
	mode: Mode;
	prompt?: string;
	sourceAssetId?: string;
	referenceAssetId?: string;
	personaId?: string;
	durationSeconds: number;
	aspectRatio: string;
}

/**
 * Reads the form into a JobInput holding only the chosen mode's fields, and checks it locally
 * (so a mistake costs no request): names the field that is wrong.
 */
export function buildJobInput(ctx: IExecuteFunctions, i: number): JobInput {
	const node = ctx.getNode();
	const fail = (message: string) => new NodeOperationError(node, message, { itemIndex: i });
	const mode = ctx.getNodeParameter('mode', i) as Mode;
	if (!(MODES as readonly string[]).includes(mode)) {
		throw fail(`Mode "${mode}" is not one of ${MODES.join(', ')}.`);
	}
	const durationSeconds = ctx.getNodeParameter('durationSeconds', i, 5) as number;
	if (!Number.isInteger(durationSeconds) || durationSeconds < 1 || durationSeconds > 30) {
		throw fail(`Duration (Seconds) must be a whole number from 1 to 30 (got ${durationSeconds}).`);
	}
	const aspectRatio = ctx.getNodeParameter('aspectRatio', i, '9:16') as string;
	if (!(ASPECT_RATIOS as readonly string[]).includes(aspectRatio)) {
		throw fail(`Aspect Ratio must be one of ${ASPECT_RATIOS.join(', ')} (got "${aspectRatio}").`);
	}
	const input: JobInput = { mode, durationSeconds, aspectRatio };
	const asset = (param: string, label: string) => readId(ctx, param, 'asset', i, label);
	const prompt = () => {
		const text = ctx.getNodeParameter('prompt', i, '') as string;
		if (!text.trim()) throw fail(`Prompt is required for ${mode}.`);
		if (text.length > MAX_PROMPT_CHARS) {
			throw fail(`Prompt is ${text.length} characters long: the limit is ${MAX_PROMPT_CHARS}.`);
		}
		return text;
	};
	if (mode === 'character_replacement') {
		input.sourceAssetId = asset('sourceVideo', 'Source Video');
		const from = ctx.getNodeParameter('characterSource', i, 'reference') as string;
		if (from === 'persona') {
			const id = readId(ctx, 'persona', 'persona', i, 'Persona');
			input.personaId = id;
		} else {
			input.referenceAssetId = asset('referenceImage', 'Reference Image');
		}
	} else if (mode === 'image_to_video') {
		input.sourceAssetId = asset('sourceImage', 'Source Image');
		input.prompt = prompt();
	} else {
		input.prompt = prompt();
	}
	return input;
}

/** What Quote and Create both start with: the form read and checked locally (no request yet). */
export function readGeneration<O extends IDataObject>(
	ctx: IExecuteFunctions,
	i: number,
): { input: JobInput; options: O } {
	return { input: buildJobInput(ctx, i), options: ctx.getNodeParameter('options', i, {}) as O };
}
