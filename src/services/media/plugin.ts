import type { MediaRouteContext } from './routes/common.ts';
import { listChannels } from './routes/listChannels.ts';
import { listPlaylists } from './routes/listPlaylists.ts';
import { listVideos } from './routes/listVideos.ts';
import { search } from './routes/search.ts';

/** Mounts the media API (search.list, videos.list, channels.list, playlists.list) under its prefix. */
export function registerMediaRoutes(ctx: MediaRouteContext): void {
  for (const route of [search, listVideos, listChannels, listPlaylists]) route(ctx);
}
