/** Error codes of the spec's Errors table, plus the emulator's documented 416 code. */
export type ErrorCode =
	| 'invalid_field'
	| 'unknown_field'
	| 'invalid_json'
	| 'invalid_idempotency_key'
	| 'api_key_required'
	| 'invalid_api_key'
	| 'insufficient_credits'
	| 'key_credit_limit'
	| 'insufficient_scope'
	| 'origin_forbidden'
	| 'not_found'
	| 'asset_not_found'
	| 'idempotency_conflict'
	| 'output_not_ready'
	| 'asset_in_use'
	| 'billing_financial_review'
	| 'asset_too_large'
	| 'unsupported_media_type'
	| 'media_signature_mismatch'
	| 'asset_kind_mismatch'
	| 'mode_unavailable'
	| 'rate_limited'
	| 'ip_rate_limited'
	| 'upload_rate_limit'
	| 'engine_unavailable'
	| 'storage_unavailable'
	| 'internal_error'
	| 'range_not_satisfiable';

/** HTTP status and default Portuguese message of every code. */
export const ERROR_TABLE: Record<ErrorCode, { status: number; message: string }> = {
	invalid_field: { status: 400, message: 'Campo inválido.' },
	unknown_field: { status: 400, message: 'Campo desconhecido.' },
	invalid_json: { status: 400, message: 'O corpo da requisição não é um JSON válido.' },
	invalid_idempotency_key: {
		status: 400,
		message:
			'Cabeçalho Idempotency-Key ausente ou inválido (16 a 128 caracteres A-Z a-z 0-9 _ . : -).',
	},
	api_key_required: { status: 401, message: 'Chave de API ausente.' },
	invalid_api_key: { status: 401, message: 'Chave de API inválida, expirada ou revogada.' },
	insufficient_credits: { status: 402, message: 'Saldo de créditos insuficiente.' },
	key_credit_limit: { status: 402, message: 'O limite de créditos desta chave foi atingido.' },
	insufficient_scope: { status: 403, message: 'A chave não tem a permissão necessária.' },
	origin_forbidden: {
		status: 403,
		message: 'Requisições de navegador não são permitidas; use a chave apenas no servidor.',
	},
	not_found: { status: 404, message: 'Recurso não encontrado.' },
	asset_not_found: { status: 404, message: 'Arquivo não encontrado.' },
	idempotency_conflict: {
		status: 409,
		message: 'A mesma Idempotency-Key foi usada com outro conteúdo.',
	},
	output_not_ready: { status: 409, message: 'O vídeo ainda não está pronto.' },
	asset_in_use: { status: 409, message: 'O arquivo ainda está em uso e não pode ser apagado.' },
	billing_financial_review: {
		status: 409,
		message: 'A conta tem uma pendência financeira; novas gerações estão bloqueadas.',
	},
	asset_too_large: { status: 413, message: 'Arquivo acima de 20 MiB.' },
	unsupported_media_type: { status: 415, message: 'Tipo de arquivo não aceito.' },
	media_signature_mismatch: {
		status: 415,
		message: 'O conteúdo do arquivo não corresponde ao tipo declarado.',
	},
	asset_kind_mismatch: { status: 422, message: 'O tipo do arquivo não serve para este modo.' },
	mode_unavailable: { status: 422, message: 'Modo de geração indisponível.' },
	rate_limited: { status: 429, message: 'Muitas requisições para esta chave; aguarde.' },
	ip_rate_limited: { status: 429, message: 'Muitas requisições deste endereço IP; aguarde.' },
	upload_rate_limit: { status: 429, message: 'Limite de envios por hora atingido; aguarde.' },
	engine_unavailable: { status: 503, message: 'Motor de geração indisponível no momento.' },
	storage_unavailable: { status: 503, message: 'Armazenamento indisponível no momento.' },
	internal_error: {
		status: 500,
		message: 'Erro interno; repita com a mesma Idempotency-Key.',
	},
	range_not_satisfiable: { status: 416, message: 'Intervalo (Range) inválido.' },
};

/** An error answered with the spec's error envelope. Thrown by handlers, caught by the server. */
export class ApiError extends Error {
	readonly status: number;
	readonly code: string;
	readonly headers: Record<string, string>;

	constructor(code: ErrorCode, message?: string, headers: Record<string, string> = {}) {
		super(message ?? ERROR_TABLE[code].message);
		this.status = ERROR_TABLE[code].status;
		this.code = code;
		this.headers = headers;
	}
}

export function isErrorCode(code: string): code is ErrorCode {
	return Object.prototype.hasOwnProperty.call(ERROR_TABLE, code);
}
