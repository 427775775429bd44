/**
 * zod schemas of every request body and response shape of the Generation Service API v1.
 * Exported so the package's tests validate what they receive (from the emulator or elsewhere).
 */
import { z } from 'zod';

const epochMs = z.number().int().nonnegative();
export const AssetIdSchema = z.string().regex(/^asset_[0-9a-f]{32}$/);
export const JobIdSchema = z.string().regex(/^job_[0-9a-f]{32}$/);
export const PersonaIdSchema = z.string().regex(/^prs_[0-9a-f]{32}$/);
export const KeyIdSchema = z.string().regex(/^key_[0-9a-f]{32}$/);
export const IdempotencyKeySchema = z.string().regex(/^[A-Za-z0-9_.:-]{16,128}$/);

export const ScopeSchema = z.enum([
	'balance:read',
	'usage:read',
	'jobs:read',
	'jobs:write',
	'assets:read',
	'assets:write',
	'personas:read',
]);
export const ModeSchema = z.enum(['character_replacement', 'image_to_video', 'text_to_video']);
export const MimeTypeSchema = z.enum([
	'image/jpeg',
	'image/png',
	'image/webp',
	'video/mp4',
	'video/webm',
]);

/** Success envelope `{ data }`. */
export const envelope = <T extends z.ZodTypeAny>(data: T) => z.object({ data }).strict();

/** Page `{ items, nextCursor }`. */
export const page = <T extends z.ZodTypeAny>(item: T) =>
	z.object({ items: z.array(item), nextCursor: z.string().min(1).nullable() }).strict();

export const ErrorEnvelopeSchema = z
	.object({
		error: z.object({ code: z.string().min(1), message: z.string() }).strict(),
		requestId: z.string().min(1),
	})
	.strict();

export const MeSchema = z
	.object({
		userId: z.string().min(1),
		authKind: z.enum(['api_key', 'session']),
		keyId: KeyIdSchema,
		scopes: z.array(ScopeSchema),
	})
	.strict();

export const BalanceSchema = z
	.object({
		available: z.number().int(),
		reserved: z.number().int(),
		spent: z.number().int(),
		granted: z.number().int(),
		revoked: z.number().int(),
		debt: z.number().int(),
		frozen: z.boolean(),
		unit: z.literal('credits'),
	})
	.strict()
	.refine((b) => b.available + b.reserved + b.spent + b.revoked === b.granted + b.debt, {
		message: 'available + reserved + spent + revoked = granted + debt',
	});

export const LedgerEntrySchema = z
	.object({
		id: z.string().min(1),
		kind: z.enum(['grant', 'reserve', 'settle', 'release']),
		amount: z.number().int(),
		jobId: JobIdSchema.nullable(),
		apiKeyId: KeyIdSchema.nullable(),
		createdAt: epochMs,
	})
	.strict();

export const AssetSchema = z
	.object({
		id: AssetIdSchema,
		filename: z.string().min(1),
		mimeType: MimeTypeSchema,
		byteSize: z.number().int().nonnegative(),
		kind: z.enum(['image', 'video']),
		state: z.literal('ready'),
		referenceCount: z.number().int().nonnegative(),
		createdAt: epochMs,
		contentUrl: z.string().min(1),
	})
	.strict();

export const QuotaSchema = z
	.object({
		usedBytes: z.number().int().nonnegative(),
		maxBytes: z.number().int().nonnegative(),
		usedAssets: z.number().int().nonnegative(),
		maxAssets: z.number().int().nonnegative(),
		cleanupPendingAssets: z.number().int().nonnegative(),
	})
	.strict();

export const PersonaSchema = z
	.object({
		id: PersonaIdSchema,
		name: z.string(),
		description: z.string(),
		referencePreset: z.string().nullable(),
		species: z.string(),
		humorStyle: z.string(),
		blueprint: z.record(z.unknown()).nullable(),
		identityAssetId: z.string().nullable(),
		styleAssetId: z.string().nullable(),
		createdAt: epochMs,
		updatedAt: epochMs,
	})
	.strict();

/** Request body of quote and create (strict: unknown fields are rejected). */
export const JobInputRequestSchema = z
	.object({
		mode: ModeSchema,
		prompt: z.string().max(2000).optional(),
		sourceAssetId: AssetIdSchema.nullable().optional(),
		referenceAssetId: AssetIdSchema.nullable().optional(),
		personaId: PersonaIdSchema.nullable().optional(),
		durationSeconds: z.number().int().min(1).max(30).optional(),
		aspectRatio: z.enum(['9:16', '16:9', '1:1']).optional(),
	})
	.strict();

/** `input` of a Job as returned (defaults filled in). */
export const JobInputSchema = z
	.object({
		mode: ModeSchema,
		prompt: z.string().max(2000),
		sourceAssetId: AssetIdSchema.nullable(),
		referenceAssetId: AssetIdSchema.nullable(),
		personaId: PersonaIdSchema.nullable(),
		durationSeconds: z.number().int().min(1).max(30),
		aspectRatio: z.enum(['9:16', '16:9', '1:1']),
	})
	.strict();

export const QuoteSchema = z
	.object({
		mode: ModeSchema,
		durationSeconds: z.number().int().min(1).max(30),
		reservedCredits: z.number().int().nonnegative(),
		unit: z.literal('credits'),
		available: z.number().int(),
		keyRemaining: z.number().int().nonnegative().nullable(),
		sufficient: z.boolean(),
	})
	.strict();

export const JobSchema = z
	.object({
		id: JobIdSchema,
		state: z.enum(['queued', 'running', 'succeeded', 'failed']),
		input: JobInputSchema,
		reservedCredits: z.number().int().nonnegative(),
		chargedCredits: z.number().int().nonnegative(),
		output: z
			.object({
				assetId: AssetIdSchema,
				mimeType: z.literal('video/mp4'),
				sha256: z.string().regex(/^[0-9a-f]{64}$/),
			})
			.strict()
			.nullable(),
		outputUrl: z.string().nullable(),
		errorCode: z.string().nullable(),
		createdAt: epochMs,
		updatedAt: epochMs,
		replayed: z.boolean(),
	})
	.strict()
	.refine((j) => j.chargedCredits <= j.reservedCredits, { message: 'charged above reserved' })
	.refine((j) => (j.state === 'succeeded') === (j.output !== null && j.outputUrl !== null), {
		message: 'output and outputUrl are set exactly when succeeded',
	})
	.refine((j) => (j.state === 'failed') === (j.errorCode !== null), {
		message: 'errorCode is set exactly when failed',
	});

export const OfferSchema = z
	.object({
		id: z.string().min(1),
		name: z.string().min(1),
		kind: z.enum(['subscription', 'credits']),
		currency: z.enum(['brl', 'usd', 'eur']),
		amount: z.number().int().nonnegative(),
		minorUnit: z.literal(2),
		interval: z.enum(['month', 'year']).nullable(),
		credits: z.number().int().nonnegative(),
	})
	.strict();

/** `generation.pricing`: its shape is "not shown" in the spec; this is the emulator's. */
export const PricingSchema = z
	.object({
		unit: z.literal('credits'),
		resolution: z.string(),
		blockSeconds: z.number().int().positive(),
		creditsPerBlock: z.record(ModeSchema, z.number().int().nonnegative()),
	})
	.passthrough();

export const CapabilitiesSchema = z.object({
	generation: z.object({
		available: z.boolean(),
		reason: z.string().nullable(),
		modes: z.array(ModeSchema),
		pricing: z.unknown(),
	}),
	uploads: z.object({
		available: z.boolean(),
		maxFileBytes: z.number().int().positive(),
		mimeTypes: z.array(z.string()),
	}),
	api: z.object({
		version: z.literal('v1'),
		baseUrl: z.string().nullable(),
		docsUrl: z.string().nullable(),
		scopes: z.array(ScopeSchema),
	}),
	billing: z.object({ checkoutAvailable: z.boolean() }),
});

export const PlansSchema = z
	.object({ checkoutAvailable: z.boolean(), offers: z.array(OfferSchema) })
	.strict();

export const UploadResultSchema = z.object({ asset: AssetSchema, replayed: z.boolean() }).strict();
export const AssetPageSchema = z
	.object({
		items: z.array(AssetSchema),
		nextCursor: z.string().min(1).nullable(),
		quota: QuotaSchema,
	})
	.strict();
export const DeletedSchema = z.object({ id: AssetIdSchema, deleted: z.literal(true) }).strict();

/** Full response bodies, ready to `.parse(response.data)`. */
export const responses = {
	capabilities: envelope(CapabilitiesSchema),
	plans: envelope(PlansSchema),
	me: envelope(MeSchema),
	balance: envelope(BalanceSchema),
	usage: envelope(page(LedgerEntrySchema)),
	upload: envelope(UploadResultSchema),
	assetList: envelope(AssetPageSchema),
	asset: envelope(AssetSchema),
	assetDeleted: envelope(DeletedSchema),
	personaList: envelope(page(PersonaSchema)),
	persona: envelope(PersonaSchema),
	quote: envelope(QuoteSchema),
	job: envelope(JobSchema),
	jobList: envelope(page(JobSchema)),
	error: ErrorEnvelopeSchema,
};
