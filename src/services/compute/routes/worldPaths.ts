import { Type } from '@sinclair/typebox';
import { BASE_PATH } from '../names.ts';
import type { ResourceKind } from '../worldResources.ts';

/** Path parameters are checked by their patterns in the reader (400 invalidParameter naming them). */
const Param = Type.String({ maxLength: 500 });

/** The route path of a kind's collection: `/compute/v1/projects/:project[/global|/regions/:region|/zones/:zone]/<collection>`. */
export function collectionRoute(k: ResourceKind): string {
  const base = `${BASE_PATH}/projects/:project`;
  if (k.scope === 'global') return `${base}/global/${k.collection}`;
  if (k.scope === 'regional') return `${base}/regions/:region/${k.collection}`;
  if (k.scope === 'zonal') return `${base}/zones/:zone/${k.collection}`;
  return `${base}/${k.collection}`;
}

/** The route path of one resource of a kind (its name parameter as the discovery document names it). */
export const itemRoute = (k: ResourceKind) => `${collectionRoute(k)}/:${k.param}`;

/** The location parameter of a kind's routes, if any. */
export const locationOf = (k: ResourceKind, params: Record<string, string>) => (k.scope === 'regional' ? params.region : k.scope === 'zonal' ? params.zone : undefined);

/** The params schema of a route path (every `:name`, a bounded string). */
export function paramsOf(route: string) {
  return Type.Object(Object.fromEntries([...route.matchAll(/:([A-Za-z]+)/g)].map((m) => [m[1], Param])));
}
