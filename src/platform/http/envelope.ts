import type { FastifyReply } from 'fastify';
import { ApiError, internalError } from './errors.ts';
import { scrubSecrets } from './secrets.ts';

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

/** Longest message an error answer carries, whatever the input. */
const MAX_ERROR_TEXT = 4096;

function boundedText(text: string): string {
  return text.length > MAX_ERROR_TEXT ? text.slice(0, MAX_ERROR_TEXT) + '...' : text;
}

/**
 * The error envelope as JSON text, made before anything is sent: bounded (an answer carrying more
 * than a few pages of detail keeps only its status and message), credentials masked.
 */
export function errorEnvelopeText(err: ApiError, style: EnvelopeStyle, pretty: boolean): string {
  const stringify = (v: unknown) => (pretty ? JSON.stringify(v, null, 2) + '\n' : JSON.stringify(v));
  const envelope = errorEnvelope(err, style);
  const e = envelope.error;
  e.message = boundedText(err.message);
  if (Array.isArray(e.errors)) e.errors = (e.errors as Record<string, unknown>[]).map((x) => (typeof x.message === 'string' ? { ...x, message: boundedText(x.message) } : x));
  let text = stringify(envelope);
  if (text.length > 4 * MAX_ERROR_TEXT) text = stringify(errorEnvelope(new ApiError({ status: err.status, httpCode: err.httpCode, message: boundedText(err.message) }), style));
  return scrubSecrets(text);
}

const AS_IS = (payload: unknown) => payload as string;

/** Answers with the error in the given envelope style (pretty unless the request asked `prettyPrint=false`). */
export function sendError(reply: FastifyReply, err: ApiError, style: EnvelopeStyle): void {
  const pretty = reply.request?.sys?.prettyPrint ?? true;
  reply.apiError = err;
  reply.code(err.httpCode).type('application/json; charset=UTF-8').serializer(AS_IS).send(errorEnvelopeText(err, style, pretty));
}

/** The last resort when making an error answer failed: an internal error in the route's envelope. */
export function sendInternalError(reply: FastifyReply, style: EnvelopeStyle): void {
  reply.apiError = internalError();
  reply.code(500).type('application/json; charset=UTF-8').serializer(AS_IS).send(JSON.stringify(errorEnvelope(internalError(), style)));
}
