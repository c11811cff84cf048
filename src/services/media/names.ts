/** Names of the media service: its defaults, RPC method names (API-key `apiTargets`), kinds and quota costs. */
export const DEFAULT_SERVICE_NAME = 'youtube.googleapis.com';
export const DEFAULT_PATH_PREFIX = '/youtube';

/** Whether a path prefix is empty, or `/segment(/segment)*` of URL-safe characters (no `.` or `..` segment) without a trailing slash. */
export function isPathPrefix(prefix: string): boolean {
  return prefix === '' || (/^(\/[A-Za-z0-9._~-]+)+$/.test(prefix) && !/\/\.+(\/|$)/.test(prefix));
}

/** Whether a service name is a DNS-like name such as `youtube.googleapis.com`. */
export function isServiceName(name: string): boolean {
  return name.length <= 253 && /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$/.test(name);
}

/** Checks a path prefix (`isPathPrefix`). */
export function checkPathPrefix(prefix: string): string {
  if (!isPathPrefix(prefix)) throw new Error(`invalid media path prefix '${prefix}': use '' or '/name(/name)*'`);
  return prefix;
}

/** Checks a service name (`isServiceName`). */
export function checkServiceName(name: string): string {
  if (!isServiceName(name)) throw new Error(`invalid media service name '${name}': use a DNS name such as youtube.googleapis.com`);
  return name;
}

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

/** The prefix of every `kind` in media answers: the service document's `media#...` (default) or the YouTube Data API's `youtube#...`. */
export const KIND_PREFIXES = ['media', 'youtube'] as const;
export type KindPrefix = (typeof KIND_PREFIXES)[number];
export const DEFAULT_KIND_PREFIX: KindPrefix = 'media';

const KIND_NAMES = ['searchListResponse', 'searchResult', 'video', 'channel', 'playlist', 'videoListResponse', 'channelListResponse', 'playlistListResponse'] as const;
export type Kinds = Record<(typeof KIND_NAMES)[number], string>;

/** The `kind` values of media answers under a prefix (`media#video` or `youtube#video`, ...). */
export function kindsFor(prefix: KindPrefix): Kinds {
  return Object.fromEntries(KIND_NAMES.map((name) => [name, `${prefix}#${name}`])) as Kinds;
}

/** Checks a `--media-kind-prefix` value. */
export function checkKindPrefix(prefix: string): KindPrefix {
  const found = KIND_PREFIXES.find((p) => p === prefix);
  if (!found) throw new Error(`invalid media kind prefix '${prefix}': use ${KIND_PREFIXES.join(' or ')}`);
  return found;
}

/** The service document's kinds (the default). */
export const KIND: Kinds = kindsFor(DEFAULT_KIND_PREFIX);

/** Results end here, as the real service's do (about 500 per query). */
export const MAX_REACHABLE = 500;
/** channelId with type=video and no owner filter: at most 500 videos (the spec's cap). */
export const CHANNEL_VIDEO_CAP = 500;
export const MAX_TOTAL_RESULTS = 1_000_000;
