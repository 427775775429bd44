import { ApiError } from './errors';
import type { HandlerResult, RequestContext } from './http';
import { ok } from './http';
import { PERSONA_ID, seededHex } from './ids';
import { paginate, parsePageQuery } from './pagination';
import { nextSeq } from './state';
import type { PersonaRecord, World } from './state';

export type Persona = Omit<PersonaRecord, 'seq' | 'accountId'>;

export function toPersona(p: PersonaRecord): Persona {
	return {
		id: p.id,
		name: p.name,
		description: p.description,
		referencePreset: p.referencePreset,
		species: p.species,
		humorStyle: p.humorStyle,
		blueprint: p.blueprint,
		identityAssetId: p.identityAssetId,
		styleAssetId: p.styleAssetId,
		createdAt: p.createdAt,
		updatedAt: p.updatedAt,
	};
}

export function findPersona(
	world: World,
	accountId: string,
	id: string,
): PersonaRecord | undefined {
	return world.state.personas.find((p) => p.id === id && p.accountId === accountId);
}

/** The two studio characters of the seeded account (deterministic ids). */
export function seedPersonas(world: World, accountId: string, imageAssetId: string): void {
	const at = world.now();
	world.state.personas.push(
		{
			id: `prs_${seededHex('persona:luna')}`,
			seq: nextSeq(world),
			accountId,
			name: 'Luna',
			description: 'Apresentadora animada de cabelo azul, usada nos vídeos de produto.',
			referencePreset: 'presenter',
			species: 'human',
			humorStyle: 'bem-humorada',
			blueprint: { palette: ['#3366cc', '#ffcc99'], outfit: 'jaqueta vermelha' },
			identityAssetId: imageAssetId,
			styleAssetId: null,
			createdAt: at,
			updatedAt: at,
		},
		{
			id: `prs_${seededHex('persona:biscoito')}`,
			seq: nextSeq(world),
			accountId,
			name: 'Biscoito',
			description: 'Mascote cachorro caramelo da marca.',
			referencePreset: null,
			species: 'dog',
			humorStyle: 'pastelão',
			blueprint: null,
			identityAssetId: null,
			styleAssetId: null,
			createdAt: at,
			updatedAt: at,
		},
	);
}

/** GET /v1/personas */
export function listPersonas(ctx: RequestContext): HandlerResult {
	const page = parsePageQuery(ctx.query);
	const own = ctx.world.state.personas.filter((p) => p.accountId === ctx.key.accountId);
	const { items, nextCursor } = paginate(own, page);
	return ok({ items: items.map(toPersona), nextCursor });
}

/** GET /v1/personas/{personaId} */
export function getPersona(ctx: RequestContext): HandlerResult {
	const id = ctx.params.personaId;
	if (!PERSONA_ID.test(id)) throw new ApiError('invalid_field', 'personaId inválido.');
	const persona = findPersona(ctx.world, ctx.key.accountId, id);
	if (!persona) throw new ApiError('not_found', 'Personagem não encontrado.');
	return ok(toPersona(persona));
}
