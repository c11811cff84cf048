import { ApiError, type CanonicalStatus } from '../../platform/http/errors.ts';
import type { OperationErrorEntry, TemplateFieldError } from './instanceTemplate/types.ts';

/** A synchronous error in Compute's classic envelope (`errors[]` with domain `global`). */
export function computeError(status: CanonicalStatus, reason: string, message: string, extra: { location?: string; locationType?: string; httpCode?: number } = {}): ApiError {
  const entry = { message, domain: 'global', reason, ...(extra.location ? { location: extra.location, locationType: extra.locationType ?? 'parameter' } : {}) };
  return new ApiError({ status, message, httpCode: extra.httpCode, errors: [entry] });
}

export const resourceNotFound = (path: string) => computeError('NOT_FOUND', 'notFound', `The resource '${path}' was not found`);
export const alreadyExists = (path: string) => computeError('ALREADY_EXISTS', 'alreadyExists', `The resource '${path}' already exists`);
export const forbidden = (permission: string, path: string) => computeError('PERMISSION_DENIED', 'forbidden', `Required '${permission}' permission for '${path}'`);

/** A path or query parameter that does not match its pattern. */
export function invalidParameter(name: string, value: string, pattern: RegExp | string): ApiError {
  const text = typeof pattern === 'string' ? pattern : pattern.source.replace(/^\^/, '').replace(/\$$/, '');
  return computeError('INVALID_ARGUMENT', 'invalidParameter', `Invalid value '${value}'. Values must match the following regular expression: '${text}'`, { location: name });
}

/**
 * Errors of the JSON transcoding step (unknown name, wrong JSON type, bad enum value), which
 * Google's front end answers itself: `status: INVALID_ARGUMENT` and a `google.rpc.BadRequest`
 * field violation naming the proto field, beside `errors[]`. Routes answer these in the `legacy`
 * envelope (errors[], status, details) rather than Compute's own (see `transcodingErrorStyle`).
 */
const TRANSCODING_ERRORS = new WeakSet<ApiError>();

/** The envelope style a transcoding error is answered in; undefined for every other error. */
export function transcodingErrorStyle(err: unknown): 'legacy' | undefined {
  return err instanceof ApiError && TRANSCODING_ERRORS.has(err) ? 'legacy' : undefined;
}

/** The 400 answer of several bad fields: one `errors[]` entry each; the message is the first's. */
export function fieldErrors(entries: TemplateFieldError[]): ApiError {
  const field = entries[0].badRequestField;
  if (field !== undefined) {
    const message = entries[0].message;
    const err = new ApiError({
      status: 'INVALID_ARGUMENT',
      message,
      errors: [{ message, domain: 'global', reason: 'invalid' }],
      details: [{ '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ field, description: message }] }],
    });
    TRANSCODING_ERRORS.add(err);
    return err;
  }
  return new ApiError({
    status: 'INVALID_ARGUMENT',
    message: entries[0].message,
    errors: entries.map((e) => ({ message: e.message, domain: 'global', reason: e.reason, ...(e.location ? { location: e.location, locationType: 'other' } : {}) })),
  });
}

/** How a failed operation reports itself, beside `error.errors[]`. */
const HTTP_OF_CODE: Record<string, [number, string]> = {
  RESOURCE_NOT_FOUND: [404, 'NOT FOUND'],
  RESOURCE_ALREADY_EXISTS: [409, 'CONFLICT'],
  ALREADY_EXISTS: [409, 'CONFLICT'],
  PERMISSION_DENIED: [403, 'FORBIDDEN'],
  QUOTA_EXCEEDED: [403, 'FORBIDDEN'],
  INTERNAL_ERROR: [500, 'INTERNAL SERVER ERROR'],
};

export interface OperationFailure {
  errors: OperationErrorEntry[];
  httpErrorStatusCode: number;
  httpErrorMessage: string;
}

export function operationFailure(errors: OperationErrorEntry[]): OperationFailure {
  const [httpErrorStatusCode, httpErrorMessage] = HTTP_OF_CODE[errors[0].code] ?? [400, 'BAD REQUEST'];
  return { errors, httpErrorStatusCode, httpErrorMessage };
}

export const notFoundEntry = (path: string, location?: string): OperationErrorEntry => ({
  code: 'RESOURCE_NOT_FOUND',
  ...(location ? { location } : {}),
  message: `The resource '${path}' was not found`,
});

export const invalidFieldEntry = (location: string, value: string, why: string): OperationErrorEntry => ({
  code: 'INVALID_FIELD_VALUE',
  location,
  message: `Invalid value for field '${location}': '${value}'. ${why}`,
});

/** A bad field of a request body, answered at once: `Invalid value for field 'resource.mtu': '100'. <why>` (reason `invalid`). */
export const invalidField = (field: string, value: unknown, why: string) =>
  computeError('INVALID_ARGUMENT', 'invalid', `Invalid value for field '${field}': '${typeof value === 'string' ? value : JSON.stringify(value)}'. ${why}`);

/** A required field left out: `Required field 'resource.name' not specified` (reason `required`). */
export const requiredField = (field: string) => computeError('INVALID_ARGUMENT', 'required', `Required field '${field}' not specified`);

/**
 * A resource another still uses cannot be deleted: `The network resource 'projects/P/global/networks/n'
 * is already being used by 'projects/P/global/firewalls/f'` (400 resourceInUseByAnotherResource).
 */
export const resourceInUse = (what: string, path: string, user: string) =>
  computeError('FAILED_PRECONDITION', 'resourceInUseByAnotherResource', `The ${what} resource '${path}' is already being used by '${user}'`, { httpCode: 400 });

/** A stale or missing fingerprint: 412 conditionNotMet. */
export const staleFingerprint = (field = 'resource.fingerprint') =>
  computeError('FAILED_PRECONDITION', 'conditionNotMet', `Invalid fingerprint. Supplied fingerprint does not match current fingerprint.`, { location: field, locationType: 'other', httpCode: 412 });
