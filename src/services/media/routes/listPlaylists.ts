import type { MediaRouteContext } from './common.ts';
import { mediaRoute } from './common.ts';

/** GET {prefix}/v3/playlists?id= | channelId= -> media#playlistListResponse (1 quota unit). */
export function listPlaylists(ctx: MediaRouteContext): void {
  mediaRoute(ctx, 'playlists', 'playlists', [], (creds, query, invalid) => ctx.service.listPlaylists(creds, query, invalid));
}
