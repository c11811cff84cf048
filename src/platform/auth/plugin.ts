import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import { ApiError } from '../http/errors.ts';
import { prependRouteHook } from '../http/routes.ts';
import type { ApiMethod, Authenticator } from './authenticator.ts';
import { credentialsOf, hasOAuthCredential } from './credentials.ts';
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
    // The call record takes the credentials and the principal (src/platform/calls/record.ts).
    const call = request.call;
    const creds = credentialsOf(request.headers, request.sys);
    call.credentials = creds;
    if (api.acceptsApiKey && !hasOAuthCredential(creds)) {
      if (!creds.apiKey) return done(new ApiError({ status: 'PERMISSION_DENIED', message: 'The request is missing a valid API key.' }));
      return done(); // the service checks the key (the platform knows no key store)
    }
    const cached = authenticator.cachedPrincipal(creds, api);
    if (cached) {
      request.principal = call.principal = cached;
      return done();
    }
    authenticator.authenticate(creds, api).then(
      (principal) => {
        request.principal = call.principal = principal;
        done();
      },
      (err: Error) => done(err),
    );
  };
}
