import { MAX_FILE_BYTES } from './assets';
import { BLOCK_SECONDS, PRICE_PER_BLOCK } from './jobs';
import { MIME_TYPES, SCOPES } from './state';
import type { World } from './state';

/** GET /v1/capabilities payload. `pricing` shape is the emulator's choice (see README). */
export function capabilities(world: World, baseUrl: string) {
	const s = world.state.settings;
	return {
		generation: {
			available: s.engineAvailable,
			reason: s.engineAvailable ? null : (s.engineReason ?? 'engine_disconnected'),
			modes: [...s.modes],
			pricing: {
				unit: 'credits',
				resolution: '720p',
				blockSeconds: BLOCK_SECONDS,
				creditsPerBlock: { ...PRICE_PER_BLOCK },
			},
		},
		uploads: {
			available: s.uploadsAvailable,
			maxFileBytes: MAX_FILE_BYTES,
			mimeTypes: [...MIME_TYPES],
		},
		api: {
			version: 'v1',
			baseUrl,
			docsUrl: null,
			scopes: [...SCOPES],
		},
		billing: { checkoutAvailable: false },
	};
}

/** GET /v1/billing/plans payload: offers "configured on the server". */
export function plans() {
	return {
		checkoutAvailable: false,
		offers: [
			{
				id: 'plan_starter_month',
				name: 'Starter',
				kind: 'subscription',
				currency: 'brl',
				amount: 4900,
				minorUnit: 2,
				interval: 'month',
				credits: 500,
			},
			{
				id: 'plan_pro_year',
				name: 'Pro anual',
				kind: 'subscription',
				currency: 'brl',
				amount: 99000,
				minorUnit: 2,
				interval: 'year',
				credits: 12000,
			},
			{
				id: 'pack_1000',
				name: 'Pacote 1000 créditos',
				kind: 'credits',
				currency: 'usd',
				amount: 1900,
				minorUnit: 2,
				interval: null,
				credits: 1000,
			},
		],
	};
}
