import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type TProperties, Type } from '@sinclair/typebox';
import type { ApiMethod } from '../../../platform/auth/authenticator.ts';
import { ApiError } from '../../../platform/http/errors.ts';
import { validationError } from '../../../platform/http/validationErrors.ts';
import type { MediaCredentials } from '../access.ts';
import { withErrors } from '../errors.ts';
import { type MediaMethod, RPC } from '../names.ts';
import type { RawQuery } from '../params.ts';
import { MEDIA_SCOPES, type MediaService } from '../service.ts';

/** Where the media routes live and what they are called. */
export interface MediaRouteContext {
  app: FastifyInstance;
  service: MediaService;
  /** Path prefix (default `/youtube`): routes are `{prefix}/v3/...`. */
  prefix: string;
  serviceName: string;
}

/** A media method's discovery id, named after the configured service: `youtube.search.list` for `youtube.googleapis.com`. */
export function discoveryId(serviceName: string, method: MediaMethod): string {
  return `${serviceName.split('.')[0]}.${method}.list`;
}

/** Route config of a media method: key-accepting, Data API scopes, the legacy error envelope. */
export function mediaMethod(serviceName: string, method: MediaMethod) {
  const api: ApiMethod = { service: serviceName, method: RPC[method], id: discoveryId(serviceName, method), scopes: Object.values(MEDIA_SCOPES), acceptsApiKey: true };
  return { api, envelope: 'legacy' as const };
}

/**
 * A media query schema declares only its booleans (the platform parses `true`/`True`/`1`...);
 * every other parameter is checked by the service's rules, which word errors as the Data API does.
 */
export function mediaQuery(booleans: string[]) {
  const props: TProperties = {};
  for (const b of booleans) props[b] = Type.Optional(Type.Boolean());
  return Type.Object(props, { additionalProperties: true });
}

const header = (request: FastifyRequest, name: string): string | undefined => {
  const v = request.headers[name];
  return typeof v === 'string' ? v : undefined;
};

/** The key, the authenticated token (if any) and the origin headers key restrictions look at. */
export function mediaCredentials(request: FastifyRequest): MediaCredentials {
  return {
    apiKey: request.call.credentials?.apiKey,
    principal: request.principal ?? undefined,
    origin: {
      referer: header(request, 'referer'),
      ip: request.ip,
      androidPackage: header(request, 'x-android-package'),
      androidCert: header(request, 'x-android-cert'),
      iosBundleId: header(request, 'x-ios-bundle-identifier'),
    },
  };
}

/** A schema error attached to the request (route option `attachValidation`), as an ApiError. */
export function attachedValidationError(request: FastifyRequest): ApiError | undefined {
  const err = request.validationError as (Error & { validation?: any; validationContext?: string }) | undefined;
  if (!err) return undefined;
  return validationError(err.validation ?? [], err.validationContext ?? 'querystring', 'resource');
}

export type MediaHandler = (creds: MediaCredentials, query: RawQuery, invalid?: ApiError) => Promise<Record<string, unknown>>;

/**
 * Errors the platform raises before the service runs (credentials, scopes) in the Data API's
 * `errors[]` words: 401 `authError` located at the Authorization header, 403
 * `insufficientPermissions`; their ErrorInfo stays.
 */
export function asMediaError(err: unknown): unknown {
  if (!(err instanceof ApiError) || err.errors) return err;
  if (err.status === 'UNAUTHENTICATED') return withErrors(err, [{ message: err.message, domain: 'global', reason: 'authError', location: 'Authorization', locationType: 'header' }]);
  if (err.reason === 'ACCESS_TOKEN_SCOPE_INSUFFICIENT') return withErrors(err, [{ message: err.message, domain: 'global', reason: 'insufficientPermissions' }]);
  return err;
}

/** Mounts one GET method of the media API. */
export function mediaRoute(ctx: MediaRouteContext, method: MediaMethod, path: string, booleans: string[], handler: MediaHandler): void {
  ctx.app.get(
    `${ctx.prefix}/v3/${path}`,
    {
      schema: { querystring: mediaQuery(booleans) },
      attachValidation: true,
      config: mediaMethod(ctx.serviceName, method),
      errorHandler: (err, req, reply) => ctx.app.errorHandler(asMediaError(err) as Error, req, reply),
    },
    async (req) => {
      const creds = mediaCredentials(req);
      try {
        return await handler(creds, req.query as RawQuery, attachedValidationError(req));
      } finally {
        // For the call record: which key (by id) and project the call was made with.
        if (creds.checkedKeyName) req.call.apiKeyId = creds.checkedKeyName.slice(creds.checkedKeyName.lastIndexOf('/') + 1);
        if (creds.callerProject) req.call.project = creds.callerProject;
      }
    },
  );
}
