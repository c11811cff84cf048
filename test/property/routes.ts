/** Shared by the property suites: the app's own route table, turned into requests. */
import type { FastifyInstance } from 'fastify';
import { everyRouteOf } from '../../src/platform/http/lazyApp.ts';
import type { RouteInfo } from '../../src/platform/http/routes.ts';
import { DEMO } from '../support/world.ts';

/** A plausible value for each path variable the services use; others get a generic id. */
const PARAM_VALUES: ReadonlyMap<string, string> = new Map([
  ['project', DEMO.projectId],
  ['location', 'global'],
  ['region', 'us-central1'],
  ['zone', 'us-central1-a'],
]);

/** Every route of the app except HEAD/OPTIONS, with a stable order. */
export async function appRoutes(app: FastifyInstance): Promise<RouteInfo[]> {
  return (await everyRouteOf(app)).sort((a, b) => (a.url + a.method).localeCompare(b.url + b.method));
}

/** The route's URL with its variables filled: `pick(name)` or the defaults above (`extra` first). */
export function fillPath(route: RouteInfo, extra: ReadonlyMap<string, string> = new Map(), pick?: (name: string) => string | undefined): string {
  const LITERAL_COLON = '\u0001';
  return route.url
    .replaceAll('::', LITERAL_COLON)
    .replace(/:([A-Za-z_][A-Za-z0-9_]*)(\((?:[^()\\]|\\.)*\))?/g, (_, name: string) => encodeURIComponent(pick?.(name) ?? extra.get(name) ?? PARAM_VALUES.get(name) ?? 'abc123'))
    .replace(/\*$/, 'any/path')
    .replaceAll(LITERAL_COLON, ':');
}

/** The query parameter names a route's schema declares. */
export function queryNames(route: RouteInfo): string[] {
  const props = (route.schema.querystring as { properties?: Record<string, unknown> } | undefined)?.properties;
  return props ? Object.keys(props) : [];
}

/** An answer must never show these: stack frames, source paths, engine messages. */
export const INTERNALS = /\n\s+at |node_modules|\.ts:\d|\.js:\d|Maximum call stack|RangeError|TypeError|ReferenceError|SyntaxError|FST_ERR|Cannot read propert|undefined is not|is not a function|"statusCode"/;
