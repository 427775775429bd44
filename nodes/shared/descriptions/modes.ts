import type { INodePropertyOptions } from 'n8n-workflow';

import type { Mode } from '../constants';

/**
 * The generation modes as the forms show them, defined once. No prices here: the service sets them
 * (GET /capabilities); the nodes show them at run time (Quote, Max Credits errors).
 */
export const MODE_OPTIONS: Array<INodePropertyOptions & { value: Mode }> = [
	{
		name: 'Character Replacement',
		value: 'character_replacement',
		description:
			'Replace the person in a video with a character (an image or a saved persona); movement, camera and light stay those of the video',
	},
	{
		name: 'Image to Video',
		value: 'image_to_video',
		description: 'Animate an image following a prompt',
	},
	{
		name: 'Text to Video',
		value: 'text_to_video',
		description: 'Generate a scene from a prompt only',
	},
];
