import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, urlNotFound } from './errors.ts';
import { sendError } from './envelope.ts';
import { routedPath } from './routes.ts';

/** Request headers a page may send to the Google API surfaces (a preflight allows these at least). */
export const CORS_ALLOWED_HEADERS = [
  'authorization',
  'content-type',
  'x-goog-api-key',
  'x-goog-api-client',
  'x-goog-user-project',
  'x-goog-request-params',
  'x-goog-fieldmask',
  'x-goog-request-reason',
  'x-http-method-override',
  'x-android-package',
  'x-android-cert',
  'x-ios-bundle-identifier',
  'x-server-timeout',
] as const;

/** Response headers a page may read. */
const EXPOSED_HEADERS = 'Content-Encoding, Content-Length, Content-Type, Date, ETag, Server, Vary, X-Goog-Api-Key-Project';
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
const MAX_AGE_S = '3600';
/** A requested header list is echoed only when it is made of header names (no CR/LF, no garbage). */
const HEADER_LIST = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+(\s*,\s*[A-Za-z0-9!#$%&'*+.^_`|~-]+)*$/;

export interface CorsOptions {
  /** Path prefixes of surfaces that are never offered to other origins (admin API, console, metrics). */
  closedPrefixes: readonly string[];
}

/** Whether a routed path (`routedPath`) is on a closed surface. */
function isClosed(path: string, prefixes: readonly string[]): boolean {
  for (const p of prefixes) if (path.startsWith(p)) return true;
  return false;
}

/**
 * CORS as googleapis.com answers browsers: the API surfaces serve any origin without credentials
 * (the caller's key or token is the credential, and the browser-key restriction reads `Referer`);
 * the closed surfaces (admin API, console) answer no preflight and carry no CORS header.
 */
export function installCors(app: FastifyInstance, opts: CorsOptions): void {
  const closed = opts.closedPrefixes;

  // Actual requests: every answer of an API surface, errors included, names the origin.
  app.addHook('onRequest', (request, reply, done) => {
    const origin = request.headers.origin;
    if (origin !== undefined && request.method !== 'OPTIONS' && !isClosed(routedPath(request.url), closed)) {
      reply.header('access-control-allow-origin', origin);
      reply.header('access-control-expose-headers', EXPOSED_HEADERS);
      reply.header('vary', 'Origin, X-Origin, Referer');
    }
    done();
  });

  app.route({
    method: 'OPTIONS',
    url: '*',
    // A preflight carries no credentials and no body: no auth, no validation.
    handler: (request: FastifyRequest, reply: FastifyReply) => {
      const origin = request.headers.origin;
      const requested = request.headers['access-control-request-method'];
      const path = routedPath(request.url);
      if (isClosed(path, closed)) {
        sendError(reply, new ApiError({ status: 'PERMISSION_DENIED', message: 'Cross-origin requests are not allowed on this surface.' }), 'modern');
        return;
      }
      const methods = METHODS.filter((m) => app.findRoute({ method: m, url: path }) !== null);
      if (origin === undefined || typeof requested !== 'string' || methods.length === 0) {
        sendError(reply, urlNotFound(path), 'modern');
        return;
      }
      const asked = request.headers['access-control-request-headers'];
      const headers = typeof asked === 'string' && HEADER_LIST.test(asked.trim()) ? asked.trim().toLowerCase() : CORS_ALLOWED_HEADERS.join(', ');
      reply
        .code(200)
        .header('access-control-allow-origin', origin)
        .header('access-control-allow-methods', methods.join(','))
        .header('access-control-allow-headers', headers)
        .header('access-control-max-age', MAX_AGE_S)
        .header('vary', 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers')
        .header('content-length', '0')
        .type('text/plain')
        .send('');
    },
  });
}
