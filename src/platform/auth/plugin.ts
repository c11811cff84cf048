import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify';
import { ApiError } from '../http/errors.ts';
import { prependRouteHook } from '../http/routes.ts';
import type { ApiMethod, Authenticator } from './authenticator.ts';
import type { Principal } from './principal.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
  }
  interface FastifyContextConfig {
    /** The API method a route serves; its presence makes the route require OAuth credentials. */
    api?: ApiMethod;
  }
}

/** `Authorization: Bearer <token>` (or `?access_token=`), and an API key if one was sent. */
export function credentialsOf(request: FastifyRequest): { bearer?: string; apiKey?: string } {
  const h = request.headers.authorization;
  let bearer: string | undefined;
  if (typeof h === 'string') {
    const m = /^\s*Bearer\s+(\S+)\s*$/i.exec(h);
    bearer = m ? m[1] : h.trim() ? '\u0000malformed' : undefined;
  }
  bearer ??= request.sys.accessToken;
  const headerKey = request.headers['x-goog-api-key'];
  return { bearer, apiKey: request.sys.key ?? (typeof headerKey === 'string' ? headerKey : undefined) };
}

/**
 * Authenticates every route that declares `config.api`, before its body is validated: a route
 * hook added as each such route is registered (routes without `config.api` pay nothing, and no
 * request reads its route options to find out), in Fastify's callback form: a credential already
 * verified and cached answers synchronously (no promise on the hot path); anything else goes
 * through `authenticate`. Install it before the routes it guards are registered.
 */
export function installAuthentication(app: FastifyInstance, authenticator: Authenticator): void {
  app.decorateRequest('principal', null as unknown as Principal);
  app.addHook('onRoute', (route) => {
    const api = route.config?.api;
    if (!api) return;
    prependRouteHook(route, 'onRequest', authenticationHook(authenticator, api));
  });
}

function authenticationHook(authenticator: Authenticator, api: ApiMethod): onRequestHookHandler {
  return (request, _reply, done) => {
    const creds = credentialsOf(request);
    if (api.acceptsApiKey && !creds.bearer) {
      if (!creds.apiKey) return done(new ApiError({ status: 'PERMISSION_DENIED', message: 'The request is missing a valid API key.' }));
      return done(); // the service checks the key (the platform knows no key store)
    }
    const cached = authenticator.cachedPrincipal(creds, api);
    if (cached) {
      request.principal = cached;
      return done();
    }
    authenticator.authenticate(creds, api).then(
      (principal) => {
        request.principal = principal;
        done();
      },
      (err: Error) => done(err),
    );
  };
}
