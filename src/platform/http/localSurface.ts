import type { FastifyInstance } from 'fastify';
import ipaddr from 'ipaddr.js';
import { ApiError } from './errors.ts';
import { routedPath } from './routes.ts';

export interface LocalSurfaceOptions {
  /** Path prefixes of the surfaces meant for the machine's own user: the admin API and the console. */
  prefixes: readonly string[];
  /** Host names the server is reached by besides IP literals and `localhost` (the listen host, `--allowed-host`). */
  allowedHosts: readonly string[];
}

const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The host name of a `Host` header (`[::1]:8080` -> `::1`, `Example.COM.:80` -> `example.com`). */
export function hostnameOf(hostHeader: string): string {
  let h = hostHeader.trim().toLowerCase();
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    return end === -1 ? h : h.slice(1, end);
  }
  const colon = h.indexOf(':');
  if (colon !== -1) h = h.slice(0, colon);
  return h.endsWith('.') ? h.slice(0, -1) : h;
}

/**
 * Whether a host name is one of the server's own: an IP literal (a DNS-rebinding attack needs a
 * name it controls), `localhost` and `*.localhost`, or a configured name.
 */
export function isOwnHost(hostname: string, allowed: ReadonlySet<string>): boolean {
  if (hostname === '') return false;
  if (hostname === 'localhost' || hostname.endsWith('.localhost')) return true;
  if (ipaddr.isValid(hostname) && (hostname.includes(':') || ipaddr.IPv4.isValidFourPartDecimal(hostname))) return true;
  return allowed.has(hostname);
}

function forbidden(message: string): ApiError {
  return new ApiError({ status: 'PERMISSION_DENIED', message });
}

/**
 * Guards the local surfaces (admin API, console) against other web origins, as Jupyter and Vite
 * guard theirs: a request whose `Host` is not one of the server's own names is refused (DNS
 * rebinding), and a state-changing request that a browser marks as coming from another site, or
 * whose `Origin` is not this server, is refused (CSRF), whatever credential it carries.
 */
export function installLocalSurfaceGuard(app: FastifyInstance, opts: LocalSurfaceOptions): void {
  const allowed = new Set(opts.allowedHosts.map(hostnameOf).filter((h) => h !== '' && h !== '0.0.0.0' && h !== '::'));
  const prefixes = opts.prefixes;
  app.addHook('onRequest', (request, _reply, done) => {
    // Every request passes here: a plain loop over the few prefixes (no closure per request), on
    // the path the router routes (`/%5Ftwin/...` and `http://host/_twin/...` are the admin API too).
    const url = routedPath(request.url);
    let local = false;
    for (let i = 0; i < prefixes.length && !local; i++) local = url.startsWith(prefixes[i]);
    if (!local) return done();
    // HTTP/2 names the host in `:authority` (browsers send no Host header there).
    const authority = request.headers[':authority'];
    const host = request.headers.host ?? (typeof authority === 'string' ? authority : '');
    if (!isOwnHost(hostnameOf(host), allowed)) {
      return done(forbidden(`Host '${hostnameOf(host).slice(0, 100)}' is not one of this server's names; start cloudtwin with --allowed-host to allow it.`));
    }
    if (UNSAFE_METHODS.has(request.method)) {
      const site = request.headers['sec-fetch-site'];
      if (typeof site === 'string' && site !== 'same-origin' && site !== 'none') {
        return done(forbidden('Cross-site requests may not change state on this surface.'));
      }
      const origin = request.headers.origin;
      if (typeof origin === 'string' && !sameOrigin(origin, host)) {
        return done(forbidden('Cross-origin requests may not change state on this surface.'));
      }
    }
    done();
  });
}

/** Whether an `Origin` header names the host (and port) the request was sent to. */
function sameOrigin(origin: string, host: string): boolean {
  let o: URL;
  try {
    o = new URL(origin);
  } catch {
    return false;
  }
  const defaultPort = o.protocol === 'https:' ? '443' : '80';
  const h = host.trim().toLowerCase();
  const portAt = h.lastIndexOf(':');
  const hostPort = portAt > h.lastIndexOf(']') ? h.slice(portAt + 1) : defaultPort;
  return hostnameOf(o.host) === hostnameOf(h) && (o.port || defaultPort) === hostPort;
}
