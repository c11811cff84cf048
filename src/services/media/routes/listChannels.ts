import type { MediaRouteContext } from './common.ts';
import { mediaRoute } from './common.ts';

/** GET {prefix}/v3/channels?id= | mine=true -> media#channelListResponse (1 quota unit). */
export function listChannels(ctx: MediaRouteContext): void {
  mediaRoute(ctx, 'channels', 'channels', ['mine'], (creds, query, invalid) => ctx.service.listChannels(creds, query, invalid));
}
