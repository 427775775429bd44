export const CREDENTIAL_NAME = 'generationServiceApi';

export const ASSET_ID_PATTERN = '^asset_[0-9a-f]{32}$';
export const JOB_ID_PATTERN = '^job_[0-9a-f]{32}$';
export const PERSONA_ID_PATTERN = '^prs_[0-9a-f]{32}$';
export const IDEMPOTENCY_KEY_PATTERN = '^[A-Za-z0-9_.:-]{16,128}$';

export const MAX_UPLOAD_BYTES = 20 * 1024 * 1024;
export const MAX_FILENAME_CHARS = 180;
export const MAX_PROMPT_CHARS = 2000;

export const MIME_TYPES = [
	'image/jpeg',
	'image/png',
	'image/webp',
	'video/mp4',
	'video/webm',
] as const;
export type MimeType = (typeof MIME_TYPES)[number];

export const MODES = ['character_replacement', 'image_to_video', 'text_to_video'] as const;
export type Mode = (typeof MODES)[number];

export const ASPECT_RATIOS = ['9:16', '16:9', '1:1'] as const;

/** "Max Wait as a Tool (Seconds)" by default: below the 60 s an MCP client waits for an answer by default. */
export const DEFAULT_MAX_TOOL_WAIT_SECONDS = 45;
