import type { MediaRouteContext } from './common.ts';
import { mediaRoute } from './common.ts';

/** GET {prefix}/v3/videos?id= -> media#videoListResponse (1 quota unit). */
export function listVideos(ctx: MediaRouteContext): void {
  mediaRoute(ctx, 'videos', 'videos', [], (creds, query, invalid) => ctx.service.listVideos(creds, query, invalid));
}
