import { ApiError, type CanonicalStatus, type LegacyErrorEntry } from '../../platform/http/errors.ts';

/**
 * Errors of the media service in the Data API's legacy shape: `errors[{message, domain, reason,
 * location, locationType}]` and no ErrorInfo, as the real service answers.
 */
export function mediaError(o: { status?: CanonicalStatus; httpCode?: number; message: string; domain: string; reason: string; location?: string; locationType?: string }): ApiError {
  return new ApiError({
    status: o.status ?? 'INVALID_ARGUMENT',
    httpCode: o.httpCode,
    message: o.message,
    errors: [{ message: o.message, domain: o.domain, reason: o.reason, ...(o.location ? { location: o.location, locationType: o.locationType ?? 'parameter' } : {}) }],
  });
}

/** A bad parameter value: 400 `invalidParameter` in domain `global`, located at the parameter. */
export function invalidParameter(location: string, message: string): ApiError {
  return mediaError({ message, domain: 'global', reason: 'invalidParameter', location });
}

export function requiredParameter(location: string): ApiError {
  return mediaError({ message: `Required parameter: ${location}`, domain: 'global', reason: 'required', location });
}

export function searchError(reason: 'invalidSearchFilter' | 'invalidLocation' | 'invalidRelevanceLanguage' | 'invalidChannelId', message: string, location: string): ApiError {
  return mediaError({ message, domain: 'youtube.search', reason, location });
}

export function parameterError(reason: string, message: string, location: string): ApiError {
  return mediaError({ message, domain: 'youtube.parameter', reason, location });
}

export const INVALID_PAGE_TOKEN_MESSAGE = 'The request specifies an invalid page token.';

export function invalidPageToken(): ApiError {
  return parameterError('invalidPageToken', INVALID_PAGE_TOKEN_MESSAGE, 'pageToken');
}

export function quotaExceeded(): ApiError {
  return mediaError({
    status: 'PERMISSION_DENIED',
    message: 'The request cannot be completed because you have exceeded your quota.',
    domain: 'youtube.quota',
    reason: 'quotaExceeded',
  });
}

/** 401 for the authorized-only parameters (forMine, mine, ...) in a call made with an API key alone. */
export function loginRequired(): ApiError {
  return mediaError({ status: 'UNAUTHENTICATED', message: 'Login Required.', domain: 'global', reason: 'required', location: 'Authorization', locationType: 'header' });
}

export function forbidden(message: string, reason = 'forbidden'): ApiError {
  return mediaError({ status: 'PERMISSION_DENIED', message, domain: 'youtube.common', reason });
}

/** The same error (status, message, ErrorInfo) with the Data API's `errors[]` entries. */
export function withErrors(err: ApiError, errors: LegacyErrorEntry[]): ApiError {
  return new ApiError({ status: err.status, httpCode: err.httpCode, message: err.message, reason: err.reason, domain: err.domain, metadata: err.metadata, details: err.details, errors });
}
