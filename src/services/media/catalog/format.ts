import { DiscoverySchemas } from '../../../platform/discovery/schemas.ts';
import { CURATED_TOPICS } from './topics.ts';
import type { MediaRow } from '../../../platform/store/schema.ts';

/**
 * The catalogue entry format, shared by the world document's `media` section, NDJSON import
 * and export, and the generator: each entry is the Data API v3 resource JSON as `videos.list`,
 * `channels.list` and `playlists.list` return it (`kind` `youtube#video` or `media#video`, ...),
 * plus one extension object, `cloudtwin`, for what the public resource does not carry. Content
 * owners use the Content ID API's `youtubePartner#contentOwner` shape. See README "Media catalogue".
 *
 * `normalizeEntry` checks one entry and derives the row the store keeps; it never throws.
 */

export type EntryType = 'channel' | 'video' | 'playlist' | 'contentOwner';

/** The row the store keeps for an entry: the catalogue columns (its change sequence is the store's) and the resource JSON. */
export type CatalogRow = Omit<MediaRow, 'seq'> & { resource: string };

export type NormalizedEntry =
  | { type: 'channel'; row: CatalogRow & { owner_principal: string | null; content_owner: string | null } }
  | { type: 'video'; row: CatalogRow }
  | { type: 'playlist'; row: CatalogRow }
  | { type: 'contentOwner'; row: { id: string; display_name: string; linked_principals: string; resource: string } };

/** Where an entry's references point, so they can be checked (against the store and the batch). */
export interface EntryRefs {
  channelId?: string;
  contentOwnerId?: string;
}

const KINDS = new Map<string, EntryType>([
  ['youtube#video', 'video'],
  ['media#video', 'video'],
  ['youtube#channel', 'channel'],
  ['media#channel', 'channel'],
  ['youtube#playlist', 'playlist'],
  ['media#playlist', 'playlist'],
  ['youtubePartner#contentOwner', 'contentOwner'],
  ['media#contentOwner', 'contentOwner'],
]);

/** The Data API v3's schemas (youtube.table.json, made by scripts/generate-discovery-tables.ts). */
const YOUTUBE_SCHEMAS = new DiscoverySchemas(new URL('./youtube.table.json', import.meta.url));
const SCHEMA_OF = { video: 'Video', channel: 'Channel', playlist: 'Playlist' } as const;
/** The one field of an entry beyond the resource's own. */
const EXTENSION: ReadonlySet<string> = new Set(['cloudtwin']);

/** Ids: the real ones are 11 (videos), `UC` + 22 (channels), `PL` + 16 or 32 (playlists) characters; any URL-safe id up to 64 is accepted. */
const ID = /^[A-Za-z0-9_-]{1,64}$/;
const MEMBER = /^(user|serviceAccount|group|domain):[^\s:]{1,320}$/;
const LANGUAGE = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8}){0,3}$/;
const REGION = /^[A-Z]{2}$/;
const PROJECT_NUMBER = /^[1-9][0-9]{0,18}$/;
const MAX_TITLE = 1000;
const MAX_DESCRIPTION = 10_000;
const MAX_TAGS = 500;
const MAX_LIST = 5000;

/** Attribute flags of `attrs[0]`. */
export const FLAG = {
  searchable: 1,
  hd: 2,
  threeD: 4,
  caption: 8,
  creativeCommon: 16,
  embeddable: 32,
  syndicated: 64,
  paidPlacement: 128,
  show: 256,
} as const;

/**
 * The compact attributes the search index loads (one JSON array per row, positions fixed):
 * videos  [flags, durationSeconds, categoryId, videoType 0 any|1 episode|2 movie, live 0 none|1 live|2 upcoming|3 completed,
 *          concurrentViewers, lat, lng, allowed regions, blocked regions, rating 0 safe|1 moderate|2 restricted,
 *          views, likes, language, topic ids, developer project number, live time]
 * channels [flags, 0, '', 0, 0, 0, null, null, null, null, rating, views, subscribers, language, topic ids, null, 0, videoCount]
 * playlists [flags, 0, '', 0, 0, 0, null, null, null, null, 0, 0, 0, language, '', null, 0, itemCount]
 */
export type Attrs = [number, number, string, number, number, number, number | null, number | null, string | null, string | null, number, number, number, string, string, string | null, number, number?];

/**
 * `trusted`: the input is the generator's (generator.ts), already a Data API resource in proto
 * JSON's canonical form, so the schema walk (a tenth of generating and storing a catalogue) is
 * skipped; the row is derived and the catalogue's own checks made as for any entry. A test runs
 * the full checks over generated catalogues and compares the rows. Imports and the world
 * document never pass it.
 */
export function normalizeEntry(input: unknown, refs: EntryRefs = {}, opts: { trusted?: boolean } = {}): NormalizedEntry | { error: string } {
  try {
    return normalize(input, refs, opts.trusted === true);
  } catch (err) {
    if (err instanceof EntryError) return { error: err.message };
    return { error: `invalid entry: ${err instanceof Error ? err.message : String(err)}` };
  }
}

class EntryError extends Error {}
function fail(message: string): never {
  throw new EntryError(message);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
function obj(parent: Record<string, unknown>, key: string, where: string): Record<string, unknown> {
  if (!Object.hasOwn(parent, key) || parent[key] === undefined) return {};
  const v = parent[key];
  if (!isObject(v)) fail(`${where}${key}: must be an object`);
  return v;
}
type StringRules = { max?: number; pattern?: RegExp; required?: boolean; what?: string };
function str(o: Record<string, unknown>, key: string, where: string, opts: StringRules = {}): string | undefined {
  if (!Object.hasOwn(o, key) || o[key] === undefined || o[key] === null) {
    if (opts.required) fail(`${where}${key}: is required`);
    return undefined;
  }
  return checkedString(o[key], where, key, -1, opts);
}
/** The field's name in messages: `snippet.title`, or `snippet.tags[3]` for item 3 of a list (`item` >= 0). Made only for a message. */
function fieldName(where: string, key: string, item: number): string {
  return item < 0 ? `${where}${key}` : `${where}${key}[${item}]`;
}
function checkedString(v: unknown, where: string, key: string, item: number, opts: StringRules): string {
  if (typeof v !== 'string') fail(`${fieldName(where, key, item)}: must be a string`);
  if (v.includes('\u0000')) fail(`${fieldName(where, key, item)}: must not contain NUL`);
  if (!v.isWellFormed()) fail(`${fieldName(where, key, item)}: must be valid Unicode`);
  if (opts.max !== undefined && v.length > opts.max) fail(`${fieldName(where, key, item)}: must be at most ${opts.max} characters`);
  if (opts.pattern && !opts.pattern.test(v)) fail(`${fieldName(where, key, item)}: must be ${opts.what ?? `of the form ${opts.pattern.source}`} (got ${JSON.stringify(v.slice(0, 80))})`);
  return v;
}
function bool(o: Record<string, unknown>, key: string, where: string): boolean | undefined {
  if (!Object.hasOwn(o, key) || o[key] === undefined) return undefined;
  if (typeof o[key] !== 'boolean') fail(`${where}${key}: must be true or false`);
  return o[key] as boolean;
}
/** Counts are strings in the Data API (`"viewCount": "123"`); numbers are accepted too. */
function count(o: Record<string, unknown>, key: string, where: string): number {
  if (!Object.hasOwn(o, key) || o[key] === undefined) return 0;
  const v = o[key];
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^[0-9]{1,16}$/.test(v) ? Number(v) : NaN;
  if (!Number.isSafeInteger(n) || n < 0) fail(`${where}${key}: must be a non-negative integer (as a string or number)`);
  return n;
}
function time(o: Record<string, unknown>, key: string, where: string, required = false): number | undefined {
  const v = str(o, key, where, { required, max: 40 });
  if (v === undefined) return undefined;
  const ms = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i.test(v) ? Date.parse(v) : NaN;
  if (!Number.isFinite(ms)) fail(`${where}${key}: must be an RFC 3339 time (got ${JSON.stringify(v.slice(0, 40))})`);
  return ms;
}
function strings(o: Record<string, unknown>, key: string, where: string, opts: { max: number; itemMax: number; pattern?: RegExp; what?: string }): string[] {
  if (!Object.hasOwn(o, key) || o[key] === undefined) return [];
  const v = o[key];
  if (!Array.isArray(v)) fail(`${where}${key}: must be a list`);
  if (v.length > opts.max) fail(`${where}${key}: at most ${opts.max} items`);
  const rules = { max: opts.itemMax, pattern: opts.pattern, what: opts.what };
  const out: string[] = new Array(v.length);
  for (let i = 0; i < v.length; i++) {
    const item: unknown = v[i];
    if (item === undefined || item === null) fail(`${fieldName(where, key, i)}: is required`);
    out[i] = checkedString(item, where, key, i, rules);
  }
  return out;
}
function closedExtension(ext: Record<string, unknown>, known: string[], where: string): void {
  for (const k of Object.keys(ext)) if (!known.includes(k)) fail(`${where}${k}: is not a known field (known: ${known.join(', ')})`);
}
function topicsOf(o: Record<string, unknown>): string {
  const td = obj(o, 'topicDetails', '');
  const ids = [...strings(td, 'topicIds', 'topicDetails.', { max: 50, itemMax: 40 }), ...strings(td, 'relevantTopicIds', 'topicDetails.', { max: 50, itemMax: 40 })];
  return [...new Set(ids.filter((t) => CURATED_TOPICS.has(t)))].join(' ');
}

/** ISO 8601 duration (`PT1H2M3S`, `P1DT2H`) in seconds. */
export function parseDuration(v: string): number | undefined {
  const m = /^P(?:(\d{1,5})W)?(?:(\d{1,5})D)?(?:T(?:(\d{1,6})H)?(?:(\d{1,7})M)?(?:(\d{1,9})S)?)?$/.exec(v);
  if (!m || v === 'P' || v.endsWith('T')) return undefined;
  const [, w, d, h, mi, s] = m.map((x) => Number(x ?? 0));
  return (((w * 7 + d) * 24 + h) * 60 + mi) * 60 + s;
}

function normalize(raw: unknown, refs: EntryRefs, trusted: boolean): NormalizedEntry {
  if (!isObject(raw)) fail('entry: must be a JSON object');
  let input: Record<string, unknown> = raw;
  const kind = str(input, 'kind', '', { required: true, max: 40 })!;
  const type = KINDS.get(kind);
  if (!type) fail(`kind: must be one of ${[...KINDS.keys()].join(', ')} (got ${JSON.stringify(kind.slice(0, 40))})`);
  if (type !== 'contentOwner' && !trusted) {
    // The Data API resource as proto JSON reads it: counts coerced to their canonical JSON type
    // (uint64 as strings, uint32 as numbers); unknown fields, wrong types, enum values outside
    // the schema and bad timestamps refused, naming the field.
    const n = YOUTUBE_SCHEMAS.normalize(SCHEMA_OF[type], input, '', EXTENSION);
    if (n.problems.length) fail(n.problems.slice(0, 5).join('; '));
    input = n.value;
  }
  const id = str(input, 'id', '', { required: true, pattern: ID, what: 'an id of 1-64 letters, digits, - and _' })!;
  const ext = obj(input, 'cloudtwin', '');
  const resource = JSON.stringify(input);
  if (resource.length > 1_000_000) fail('entry: larger than 1 MB');
  if (type === 'contentOwner') {
    closedExtension(ext, ['linkedPrincipals'], 'cloudtwin.');
    const displayName = str(input, 'displayName', '', { max: 200 }) ?? id;
    const linked = strings(ext, 'linkedPrincipals', 'cloudtwin.', { max: 1000, itemMax: 330, pattern: MEMBER, what: 'user:EMAIL, serviceAccount:EMAIL, group:EMAIL or domain:DOMAIN' });
    return { type, row: { id, display_name: displayName, linked_principals: JSON.stringify(linked), resource } };
  }
  const snippet = obj(input, 'snippet', '');
  if (!Object.hasOwn(input, 'snippet')) fail('snippet: is required');
  const title = str(snippet, 'title', 'snippet.', { required: true, max: MAX_TITLE })!;
  const description = str(snippet, 'description', 'snippet.', { max: MAX_DESCRIPTION }) ?? '';
  const publishedAt = time(snippet, 'publishedAt', 'snippet.', true)!;
  const language = str(snippet, 'defaultLanguage', 'snippet.', { max: 35, pattern: LANGUAGE, what: 'a BCP-47 language code' });
  const status = obj(input, 'status', '');
  const privacy = str(status, 'privacyStatus', 'status.', { max: 20 }) ?? 'public';
  if (!['public', 'unlisted', 'private'].includes(privacy)) fail('status.privacyStatus: must be public, unlisted or private');
  const statistics = obj(input, 'statistics', '');
  const contentDetails = obj(input, 'contentDetails', '');
  const searchable = privacy === 'public' ? FLAG.searchable : 0;

  if (type === 'channel') {
    closedExtension(ext, ['ownerPrincipal', 'channelType'], 'cloudtwin.');
    const owner = str(ext, 'ownerPrincipal', 'cloudtwin.', { max: 330, pattern: MEMBER, what: 'user:EMAIL or serviceAccount:EMAIL' }) ?? null;
    const channelType = str(ext, 'channelType', 'cloudtwin.', { max: 10 }) ?? 'any';
    if (channelType !== 'any' && channelType !== 'show') fail('cloudtwin.channelType: must be any or show');
    const contentOwner = str(obj(input, 'contentOwnerDetails', ''), 'contentOwner', 'contentOwnerDetails.', { max: 64, pattern: ID, what: 'a content owner id' }) ?? null;
    if (contentOwner) refs.contentOwnerId = contentOwner;
    str(snippet, 'customUrl', 'snippet.', { max: 100 });
    const country = str(snippet, 'country', 'snippet.', { max: 2, pattern: REGION, what: 'an ISO 3166-1 alpha-2 code' }) ?? '';
    const attrs: Attrs = [
      searchable | (channelType === 'show' ? FLAG.show : 0),
      0, '', 0, 0, 0, null, null, null, null, 0,
      count(statistics, 'viewCount', 'statistics.'),
      count(statistics, 'subscriberCount', 'statistics.'),
      (language ?? '').toLowerCase(),
      topicsOf(input),
      null, 0,
      count(statistics, 'videoCount', 'statistics.'),
    ];
    const searchText = [str(snippet, 'customUrl', 'snippet.') ?? '', country].join(' ');
    return { type, row: { id, channel_id: id, published_at: publishedAt, title, description, search_text: searchText, attrs: JSON.stringify(attrs), resource, owner_principal: owner, content_owner: contentOwner } };
  }

  const channelId = str(snippet, 'channelId', 'snippet.', { required: true, pattern: ID, what: 'a channel id' })!;
  refs.channelId = channelId;
  const tags = strings(snippet, 'tags', 'snippet.', { max: MAX_TAGS, itemMax: 500 });

  if (type === 'playlist') {
    closedExtension(ext, ['videoIds'], 'cloudtwin.');
    const videoIds = strings(ext, 'videoIds', 'cloudtwin.', { max: MAX_LIST, itemMax: 64, pattern: ID, what: 'a video id' });
    const itemCount = Object.hasOwn(contentDetails, 'itemCount') ? count(contentDetails, 'itemCount', 'contentDetails.') : videoIds.length;
    const attrs: Attrs = [searchable, 0, '', 0, 0, 0, null, null, null, null, 0, 0, 0, (language ?? '').toLowerCase(), '', null, 0, itemCount];
    return { type, row: { id, channel_id: channelId, published_at: publishedAt, title, description, search_text: tags.join(' '), attrs: JSON.stringify(attrs), resource } };
  }

  // video
  closedExtension(ext, ['developerProjectNumber', 'safeSearch', 'syndicated', 'videoType'], 'cloudtwin.');
  const developer = str(ext, 'developerProjectNumber', 'cloudtwin.', { max: 19, pattern: PROJECT_NUMBER, what: 'a decimal project number' }) ?? null;
  const safe = str(ext, 'safeSearch', 'cloudtwin.', { max: 12 });
  if (safe !== undefined && !['safe', 'moderate', 'restricted'].includes(safe)) fail('cloudtwin.safeSearch: must be safe, moderate or restricted');
  const syndicated = bool(ext, 'syndicated', 'cloudtwin.') ?? true;
  const videoType = str(ext, 'videoType', 'cloudtwin.', { max: 10 }) ?? 'any';
  if (!['any', 'episode', 'movie'].includes(videoType)) fail('cloudtwin.videoType: must be any, episode or movie');
  const durationText = str(contentDetails, 'duration', 'contentDetails.', { max: 40 }) ?? 'PT0S';
  const duration = parseDuration(durationText);
  if (duration === undefined) fail(`contentDetails.duration: must be an ISO 8601 duration like PT4M13S (got ${JSON.stringify(durationText)})`);
  const definition = str(contentDetails, 'definition', 'contentDetails.', { max: 4 }) ?? 'sd';
  if (definition !== 'hd' && definition !== 'sd') fail('contentDetails.definition: must be hd or sd');
  const dimension = str(contentDetails, 'dimension', 'contentDetails.', { max: 4 }) ?? '2d';
  if (dimension !== '2d' && dimension !== '3d') fail('contentDetails.dimension: must be 2d or 3d');
  const caption = str(contentDetails, 'caption', 'contentDetails.', { max: 5 }) ?? 'false';
  if (caption !== 'true' && caption !== 'false') fail("contentDetails.caption: must be 'true' or 'false'");
  const restriction = obj(contentDetails, 'regionRestriction', 'contentDetails.');
  const regionOpts = { max: 300, itemMax: 2, pattern: REGION, what: 'an ISO 3166-1 alpha-2 code' };
  const allowed = Object.hasOwn(restriction, 'allowed') ? strings(restriction, 'allowed', 'contentDetails.regionRestriction.', regionOpts).join(' ') : null;
  const blocked = Object.hasOwn(restriction, 'blocked') ? strings(restriction, 'blocked', 'contentDetails.regionRestriction.', regionOpts).join(' ') : null;
  const ytRating = str(obj(contentDetails, 'contentRating', 'contentDetails.'), 'ytRating', 'contentDetails.contentRating.', { max: 30 });
  const rating = ytRating === 'ytAgeRestricted' || safe === 'restricted' ? 2 : safe === 'moderate' ? 1 : 0;
  const license = str(status, 'license', 'status.', { max: 20 }) ?? 'youtube';
  if (license !== 'youtube' && license !== 'creativeCommon') fail('status.license: must be youtube or creativeCommon');
  const embeddable = bool(status, 'embeddable', 'status.') ?? true;
  const paid = bool(obj(input, 'paidProductPlacementDetails', ''), 'hasPaidProductPlacement', 'paidProductPlacementDetails.') ?? false;
  const location = obj(obj(input, 'recordingDetails', ''), 'location', 'recordingDetails.');
  let lat: number | null = null;
  let lng: number | null = null;
  if (Object.hasOwn(location, 'latitude') || Object.hasOwn(location, 'longitude')) {
    lat = location.latitude as number;
    lng = location.longitude as number;
    if (typeof lat !== 'number' || !(lat >= -90 && lat <= 90)) fail('recordingDetails.location.latitude: must be a number from -90 to 90');
    if (typeof lng !== 'number' || !(lng >= -180 && lng <= 180)) fail('recordingDetails.location.longitude: must be a number from -180 to 180');
  }
  const broadcast = str(snippet, 'liveBroadcastContent', 'snippet.', { max: 10 }) ?? 'none';
  if (!['none', 'live', 'upcoming'].includes(broadcast)) fail('snippet.liveBroadcastContent: must be none, live or upcoming');
  const lsd = obj(input, 'liveStreamingDetails', '');
  const scheduled = time(lsd, 'scheduledStartTime', 'liveStreamingDetails.');
  const started = time(lsd, 'actualStartTime', 'liveStreamingDetails.');
  const ended = time(lsd, 'actualEndTime', 'liveStreamingDetails.');
  const concurrent = count(lsd, 'concurrentViewers', 'liveStreamingDetails.');
  const live = broadcast === 'live' ? 1 : broadcast === 'upcoming' ? 2 : ended !== undefined ? 3 : 0;
  if (live === 2 && scheduled === undefined) fail('liveStreamingDetails.scheduledStartTime: is required for an upcoming broadcast');
  const audio = str(snippet, 'defaultAudioLanguage', 'snippet.', { max: 35, pattern: LANGUAGE, what: 'a BCP-47 language code' });
  const category = str(snippet, 'categoryId', 'snippet.', { max: 10, pattern: /^[0-9]{1,10}$/, what: 'a numeric category id' }) ?? '';
  const flags =
    searchable |
    (definition === 'hd' ? FLAG.hd : 0) |
    (dimension === '3d' ? FLAG.threeD : 0) |
    (caption === 'true' ? FLAG.caption : 0) |
    (license === 'creativeCommon' ? FLAG.creativeCommon : 0) |
    (embeddable ? FLAG.embeddable : 0) |
    (syndicated ? FLAG.syndicated : 0) |
    (paid ? FLAG.paidPlacement : 0);
  const attrs: Attrs = [
    flags,
    duration,
    category,
    videoType === 'episode' ? 1 : videoType === 'movie' ? 2 : 0,
    live,
    concurrent,
    lat,
    lng,
    allowed,
    blocked,
    rating,
    count(statistics, 'viewCount', 'statistics.'),
    count(statistics, 'likeCount', 'statistics.'),
    (language ?? audio ?? '').toLowerCase(),
    topicsOf(input),
    developer,
    ended ?? started ?? scheduled ?? 0,
  ];
  count(statistics, 'commentCount', 'statistics.');
  return { type, row: { id, channel_id: channelId, published_at: publishedAt, title, description, search_text: tags.join(' '), attrs: JSON.stringify(attrs), resource } };
}
