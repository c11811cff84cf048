/** Names of the media service: its defaults, RPC method names (API-key `apiTargets`), kinds and quota costs. */
export const DEFAULT_SERVICE_NAME = 'youtube.googleapis.com';
export const DEFAULT_PATH_PREFIX = '/youtube';

/** Full RPC names, as the real Data API reports them to API-key method restrictions. */
export const RPC = {
  search: 'youtube.api.v3.V3DataSearchService.List',
  videos: 'youtube.api.v3.V3DataVideoService.List',
  channels: 'youtube.api.v3.V3DataChannelService.List',
  playlists: 'youtube.api.v3.V3DataPlaylistService.List',
} as const;
export type MediaMethod = keyof typeof RPC;

/** Quota units per call (the spec's 100 for search; 1 for each list method); a rejected request costs 1. */
export const QUOTA_COST: Record<MediaMethod, number> = { search: 100, videos: 1, channels: 1, playlists: 1 };
export const INVALID_REQUEST_COST = 1;

export const KIND = {
  searchListResponse: 'media#searchListResponse',
  searchResult: 'media#searchResult',
  video: 'media#video',
  channel: 'media#channel',
  playlist: 'media#playlist',
  videoListResponse: 'media#videoListResponse',
  channelListResponse: 'media#channelListResponse',
  playlistListResponse: 'media#playlistListResponse',
} as const;

/** Results end here, as the real service's do (about 500 per query). */
export const MAX_REACHABLE = 500;
/** channelId with type=video and no owner filter: at most 500 videos (the spec's cap). */
export const CHANNEL_VIDEO_CAP = 500;
export const MAX_TOTAL_RESULTS = 1_000_000;
