/**
 * Errors are values of one type. Each carries what every envelope needs; the service's route
 * config picks the envelope shape its real counterpart uses (see `envelope.ts`).
 */
export type CanonicalStatus =
  | 'INVALID_ARGUMENT'
  | 'FAILED_PRECONDITION'
  | 'OUT_OF_RANGE'
  | 'UNAUTHENTICATED'
  | 'PERMISSION_DENIED'
  | 'NOT_FOUND'
  | 'ALREADY_EXISTS'
  | 'ABORTED'
  | 'RESOURCE_EXHAUSTED'
  | 'CANCELLED'
  | 'INTERNAL'
  | 'UNAVAILABLE'
  | 'UNIMPLEMENTED'
  | 'DEADLINE_EXCEEDED'
  | 'UNKNOWN'
  | 'DATA_LOSS';

/** gRPC code of each canonical status (operation errors carry these). */
export const GRPC_CODE: Record<CanonicalStatus, number> = {
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
};

const HTTP_CODE: Record<CanonicalStatus, number> = {
  INVALID_ARGUMENT: 400,
  FAILED_PRECONDITION: 400,
  OUT_OF_RANGE: 400,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  ALREADY_EXISTS: 409,
  ABORTED: 409,
  RESOURCE_EXHAUSTED: 429,
  CANCELLED: 499,
  INTERNAL: 500,
  UNKNOWN: 500,
  DATA_LOSS: 500,
  UNIMPLEMENTED: 501,
  UNAVAILABLE: 503,
  DEADLINE_EXCEEDED: 504,
};

/** One entry of the legacy `errors[]` list (compute, media). */
export interface LegacyErrorEntry {
  message: string;
  domain: string;
  reason: string;
  location?: string;
  locationType?: string;
}

export interface ApiErrorInit {
  status: CanonicalStatus;
  message: string;
  /** HTTP code when it differs from the status's usual one (e.g. 403 for a blocked API key). */
  httpCode?: number;
  /** ErrorInfo reason and domain; with metadata. */
  reason?: string;
  domain?: string;
  metadata?: Record<string, string>;
  /** Further `google.rpc.*` details (e.g. BadRequest field violations). */
  details?: Record<string, unknown>[];
  /** Legacy `errors[]` entries; when absent, the envelope derives one from reason/domain. */
  errors?: LegacyErrorEntry[];
}

export class ApiError extends Error {
  readonly status: CanonicalStatus;
  readonly httpCode: number;
  readonly reason?: string;
  readonly domain?: string;
  readonly metadata?: Record<string, string>;
  readonly details: Record<string, unknown>[];
  readonly errors?: LegacyErrorEntry[];

  constructor(init: ApiErrorInit) {
    super(init.message);
    this.name = 'ApiError';
    this.status = init.status;
    this.httpCode = init.httpCode ?? HTTP_CODE[init.status];
    this.reason = init.reason;
    this.domain = init.domain;
    this.metadata = init.metadata;
    this.details = init.details ?? [];
    this.errors = init.errors;
  }

  get grpcCode(): number {
    return GRPC_CODE[this.status];
  }
}

export interface FieldViolation {
  field: string;
  description: string;
}

export function invalidArgument(message: string, violations?: FieldViolation[]): ApiError {
  return new ApiError({
    status: 'INVALID_ARGUMENT',
    message,
    details: violations?.length ? [{ '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: violations }] : undefined,
  });
}

export function failedPrecondition(message: string): ApiError {
  return new ApiError({ status: 'FAILED_PRECONDITION', message });
}

export function notFound(message: string): ApiError {
  return new ApiError({ status: 'NOT_FOUND', message });
}

export function internalError(message = 'Internal error encountered.'): ApiError {
  return new ApiError({ status: 'INTERNAL', message });
}

/** 404 for a URL no method serves; only the path is quoted (the query may carry credentials). */
export function urlNotFound(url: string): ApiError {
  return notFound(`The requested URL ${url.split('?')[0]} was not found on this server.`);
}
