import type { FastifyInstance, FastifyRequest } from 'fastify';
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

/** Authenticates every route that declares `config.api`, before its body is validated. */
export function installAuthentication(app: FastifyInstance, authenticator: Authenticator): void {
  app.decorateRequest('principal', null as unknown as Principal);
  app.addHook('onRequest', async (request) => {
    const api = request.routeOptions.config?.api;
    if (api) request.principal = await authenticator.authenticate(credentialsOf(request), api);
  });
}
