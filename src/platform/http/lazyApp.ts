import type { FastifyInstance } from 'fastify';
import { lazy } from '../lazy.ts';
import { type RouteInfo, routesOf } from './routes.ts';

/** The methods a lazily mounted surface answers (GET's HEAD comes with GET; OPTIONS for its CORS preflights). */
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

export interface LazyMount {
  /** The surface's app, built now if no request has built it yet (tests that walk its routes). */
  app(): Promise<FastifyInstance>;
  /** Whether a request (or `app()`) has built it. */
  readonly built: boolean;
}

/**
 * Serves every request below `prefix` with an app built at the first such request: a surface
 * with hundreds of routes (Compute's) costs a start nothing until it is used. `build` makes a
 * complete app (createHttpApp with the platform's hooks, its routes registered, ready), so each
 * of its routes is the same Fastify route it would be on the main app: authentication,
 * validation, fault rules, the journal, envelopes, CORS preflights and 404s are its own.
 *
 * On the main app the prefix is one route per method, whose body is not read (a parser that
 * takes nothing): the request, untouched, is handed to the built app's router (`routing`),
 * which reads it as the main app would have. Through `inject` (tests, batch parts) the same way.
 * Building happens once (concurrent first requests share it); a build that fails answers that
 * request 500 and is tried again by the next. Closing the main app closes the built one.
 */
export function mountLazily(app: FastifyInstance, opts: { prefix: string; build: () => Promise<FastifyInstance> }): LazyMount {
  if (!opts.prefix.startsWith('/') || !opts.prefix.endsWith('/')) throw new Error(`a lazily mounted prefix starts and ends with '/': ${opts.prefix}`);
  let built: FastifyInstance | undefined;
  let building: Promise<FastifyInstance> | undefined;
  const surface = lazy(async () => (built = await (building = opts.build())));
  const mounts = MOUNTS.get(app) ?? [];
  MOUNTS.set(app, [...mounts, { url: `${opts.prefix}*`, app: surface }]);
  app.register(async (scope) => {
    // The body stays in the request for the built app to read (with its own parsers and limits).
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
    scope.route({
      method: [...METHODS],
      url: `${opts.prefix}*`,
      handler: async (request, reply) => {
        const target = built ?? (await surface());
        reply.hijack();
        target.routing(request.raw, reply.raw);
      },
    });
  });
  app.addHook('onClose', async () => {
    // One being built as the main app closes is closed once it is.
    await (built ?? (await building?.catch(() => undefined)))?.close();
  });
  return {
    app: surface,
    get built() {
      return built !== undefined;
    },
  };
}

const MOUNTS = new WeakMap<FastifyInstance, { url: string; app: () => Promise<FastifyInstance> }[]>();

/**
 * Every route of `app` and of the surfaces mounted lazily on it (built now), without the routes
 * that hand requests to them: what the suites that walk every route walk.
 */
export async function everyRouteOf(app: FastifyInstance): Promise<RouteInfo[]> {
  const mounts = MOUNTS.get(app) ?? [];
  const forwarding = new Set(mounts.map((m) => m.url));
  const routes = routesOf(app).filter((r) => !forwarding.has(r.url));
  for (const m of mounts) routes.push(...(await everyRouteOf(await m.app())));
  return routes;
}
