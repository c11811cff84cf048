import type { MediaRouteContext } from './common.ts';
import { mediaRoute } from './common.ts';

/** GET {prefix}/v3/search -> media#searchListResponse (100 quota units). */
export function search(ctx: MediaRouteContext): void {
  mediaRoute(ctx, 'search', 'search', ['forContentOwner', 'forDeveloper', 'forMine'], (creds, query, invalid) => ctx.service.search(creds, query, invalid));
}
