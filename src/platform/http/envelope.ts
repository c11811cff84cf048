import { ApiError } from './errors.ts';

/**
 * `modern`: `{error:{code,message,status,details:[ErrorInfo,...]}}` (API Keys and other
 * one-platform APIs). `legacy`: adds `errors[]` (media). `compute`: `errors[]` with domain
 * `global` and no `status` field, as Compute's classic front end answers.
 */
export type EnvelopeStyle = 'modern' | 'legacy' | 'compute';

export function errorEnvelope(err: ApiError, style: EnvelopeStyle): { error: Record<string, unknown> } {
  const error: Record<string, unknown> = { code: err.httpCode, message: err.message };
  if (style !== 'modern') {
    error.errors = err.errors ?? [{ message: err.message, domain: err.domain ?? 'global', reason: err.reason ?? legacyReason(err) }];
  }
  if (style !== 'compute') error.status = err.status;
  const details: Record<string, unknown>[] = [];
  if (err.reason && style !== 'compute') {
    details.push({
      '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
      reason: err.reason,
      domain: err.domain ?? 'googleapis.com',
      ...(err.metadata ? { metadata: err.metadata } : {}),
    });
  }
  details.push(...err.details);
  if (details.length) error.details = details;
  return { error };
}

function legacyReason(err: ApiError): string {
  switch (err.status) {
    case 'NOT_FOUND':
      return 'notFound';
    case 'PERMISSION_DENIED':
      return 'forbidden';
    case 'UNAUTHENTICATED':
      return 'authError';
    case 'ALREADY_EXISTS':
      return 'alreadyExists';
    case 'RESOURCE_EXHAUSTED':
      return 'rateLimitExceeded';
    case 'INTERNAL':
      return 'backendError';
    default:
      return 'badRequest';
  }
}
