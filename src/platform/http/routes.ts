import type { FastifyContextConfig, FastifyInstance, RouteOptions } from 'fastify';

/**
 * Google HTTP rule path templates, the one way services name their URLs when a URL carries a
 * custom verb. `{var}` is a path variable; `:verb` after the last segment is a custom verb:
 *
 *   /v2/projects/{project}/locations/{location}/keys/{key}:undelete
 *   /v2/keys:lookupKey
 *
 * become the router's patterns (`:key([^:]+)::undelete`, `keys::lookupKey`): the verb is matched
 * by the router, so each verb is its own route with its own schema, auth and metrics label, and a
 * URL with an unknown verb is the same 404 as any unknown URL. A variable that ends a template
 * without a verb takes no colon either (`.../keys/{key}` does not serve `.../keys/k:undelete`).
 */
export function googlePath(template: string): string {
  if (!template.startsWith('/')) throw new Error(`path template must start with '/': ${template}`);
  const segments = template.slice(1).split('/');
  return (
    '/' +
    segments
      .map((seg, i) => {
        const last = i === segments.length - 1;
        const v = /^\{([A-Za-z_][A-Za-z0-9_]*)\}(?::([A-Za-z][A-Za-z0-9]*))?$/.exec(seg);
        if (v) {
          if (v[2] && !last) throw new Error(`a custom verb ends a path template: ${template}`);
          // The last segment's variable takes no colon, so `k:undelete` is key `k` with verb
          // `undelete`, never a key named `k:undelete` of a verb-less method.
          if (v[2]) return `:${v[1]}([^:]+)::${v[2]}`;
          return last ? `:${v[1]}([^:]+)` : `:${v[1]}`;
        }
        if (!/^[A-Za-z0-9._~-]+(?::[A-Za-z][A-Za-z0-9]*)?$/.test(seg) || (seg.includes(':') && !last)) {
          throw new Error(`not a path template segment: '${seg}' in ${template}`);
        }
        return seg.replace(':', '::');
      })
      .join('/')
  );
}

/**
 * The path of a request target as the router routes it (find-my-way): an absolute-form target
 * (`http://host/path`) loses its scheme and authority, the query (`?`) and fragment (`#`) are cut,
 * and percent-escapes are decoded as `decodeURI` does (`%5Ftwin` routes as `_twin`; reserved
 * characters such as `%2F` stay escaped). Decisions about which surface a request is for (Host,
 * Origin, CORS) are made on this path, never on the raw target. Costs nothing for the common
 * target (origin-form, no escape): one character test and one search.
 */
export function routedPath(url: string): string {
  let path = url;
  if (path.charCodeAt(0) !== 47) {
    const schemeEnd = path.indexOf('://');
    const scheme = schemeEnd < 0 ? '' : path.slice(0, schemeEnd).toLowerCase();
    if (scheme === 'http' || scheme === 'https') {
      const start = schemeEnd + 3;
      let end = path.length;
      for (const c of '/?#') {
        const at = path.indexOf(c, start);
        if (at >= 0 && at < end) end = at;
      }
      path = path.charCodeAt(end) === 47 ? path.slice(end) : '/' + path.slice(end);
    }
  }
  let cut = path.length;
  for (const c of '?#') {
    const at = path.indexOf(c);
    if (at >= 0 && at < cut) cut = at;
  }
  if (cut < path.length) path = path.slice(0, cut);
  if (!path.includes('%')) return path;
  try {
    // `%25` stays `%25`, as the router keeps it (decodeURI would make it a bare `%`).
    return decodeURI(path.replaceAll('%25', '%2525'));
  } catch {
    return path;
  }
}

/** The path a router pattern serves, as metrics and logs label it: `/keys/:key([^:]+)::undelete` -> `/keys/:key:undelete`. */
export function routeLabel(pattern: string): string {
  return pattern.replace(/\((?:[^()\\]|\\.)*\)/g, '').replaceAll('::', ':');
}

/** One route of the app: method, router pattern, its config (envelope, api, ...) and schemas. */
export interface RouteInfo {
  method: string;
  url: string;
  config: FastifyContextConfig;
  schema: { querystring?: unknown; params?: unknown; body?: unknown };
}

const TABLES = new WeakMap<FastifyInstance, RouteInfo[]>();

/** Records every route the app (and every plugin in it) registers from now on. */
export function recordRoutes(app: FastifyInstance): void {
  const table: RouteInfo[] = [];
  TABLES.set(app, table);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      if (method === 'HEAD' || method === 'OPTIONS') continue;
      table.push({ method, url: route.url, config: (route.config ?? {}) as FastifyContextConfig, schema: (route.schema ?? {}) as RouteInfo['schema'] });
    }
  });
}

/** Every route of an app made by `createHttpApp`: what the hostile-input suites walk. */
export function routesOf(app: FastifyInstance): readonly RouteInfo[] {
  return TABLES.get(app) ?? [];
}

type RouteHookName = 'onRequest' | 'preValidation';

/**
 * Puts `hook` first among a route's own `name` hooks, from an `onRoute` hook: where a global hook
 * would run, but only on the routes that need it (every other request skips it).
 */
export function prependRouteHook<N extends RouteHookName>(route: RouteOptions, name: N, hook: NonNullable<RouteOptions[N]> extends (infer H)[] | infer H ? H : never): void {
  const own = route[name];
  const existing = own === undefined ? [] : Array.isArray(own) ? own : [own];
  (route as Record<RouteHookName, unknown>)[name] = [hook, ...existing];
}
