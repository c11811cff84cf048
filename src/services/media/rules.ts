/**
 * search.list: every parameter parsed (params.ts) and the rules that tie parameters together:
 * the one-of of forContentOwner / forDeveloper / forMine, the filters that need `type=video`,
 * the video filters forMine and forContentOwner refuse, and onBehalfOfContentOwner.
 */
import type { MediaKind, SearchQuery } from './catalog/types.ts';
import { invalidParameter, mediaError, parameterError, searchError } from './errors.ts';
import type { PageToken } from './pageToken.ts';
import {
  type RawQuery,
  flag,
  parseChannelId,
  parseDateTime,
  parseEnum,
  parseLocation,
  parseMaxResults,
  parsePageToken,
  parseParts,
  parseRegionCode,
  parseRelevanceLanguage,
  parseTypes,
  single,
} from './params.ts';

export const SEARCH_PARTS = ['id', 'snippet'] as const;
export type SearchPart = (typeof SEARCH_PARTS)[number];

/** The video filters that need type=video. */
export const VIDEO_ONLY_FILTERS = [
  'eventType',
  'videoCaption',
  'videoCategoryId',
  'videoDefinition',
  'videoDimension',
  'videoDuration',
  'videoEmbeddable',
  'videoLicense',
  'videoPaidProductPlacement',
  'videoSyndicated',
  'videoType',
] as const;

/** The eight video filters forMine and forContentOwner cannot be combined with. */
export const OWNER_FILTER_EXCLUDED = ['videoDefinition', 'videoDimension', 'videoDuration', 'videoEmbeddable', 'videoLicense', 'videoPaidProductPlacement', 'videoSyndicated', 'videoType'] as const;

export const INVALID_SEARCH_FILTER_MESSAGE =
  'The request contains an invalid combination of search filters and/or restrictions. Note that you must set the <code>type</code> parameter to <code>video</code> if you set either the <code>forContentOwner</code> or <code>forMine</code> parameters to <code>true</code>. You must also set the <code>type</code> parameter to <code>video</code> if you set a value for the <code>eventType</code>, <code>videoCaption</code>, <code>videoCategoryId</code>, <code>videoDefinition</code>, <code>videoDimension</code>, <code>videoDuration</code>, <code>videoEmbeddable</code>, <code>videoLicense</code>, <code>videoSyndicated</code>, or <code>videoType</code> parameters.';

/** A search as the service layer sees it: filters (the engine's query less paging and owner resolution), paging, and the authorized filters. */
export interface SearchRequest {
  parts: Set<SearchPart>;
  q?: string;
  filters: Omit<SearchQuery, 'q' | 'offset' | 'limit' | 'maxReachable' | 'ownerChannelIds' | 'developerProjectNumber'>;
  maxResults: number;
  pageToken?: PageToken;
  forContentOwner: boolean;
  forDeveloper: boolean;
  forMine: boolean;
  onBehalfOfContentOwner?: string;
  /** What the response's `regionCode` shows. */
  regionCode: string;
}

const ORDERS = ['date', 'rating', 'relevance', 'title', 'videoCount', 'viewCount'] as const;

/** Parses and checks every parameter of search.list; throws the first error, as the real service reports one. */
export function parseSearchRequest(query: RawQuery, topics: { has(id: string): boolean }): SearchRequest {
  const parts = parseParts(query, SEARCH_PARTS);
  const types = parseTypes(query);
  const onlyVideos = types.length === 1 && types[0] === 'video';
  const q = single(query, 'q');
  const channelId = parseChannelId(query);
  const channelType = parseEnum(query, 'channelType', ['any', 'show'] as const);
  const eventType = parseEnum(query, 'eventType', ['completed', 'live', 'upcoming'] as const);
  const location = parseLocation(query);
  const maxResults = parseMaxResults(query, 0, 50, 5);
  const order = parseEnum(query, 'order', ORDERS) ?? 'relevance';
  const pageToken = parsePageToken(query);
  const publishedAfter = parseDateTime(query, 'publishedAfter');
  const publishedBefore = parseDateTime(query, 'publishedBefore');
  const regionCode = parseRegionCode(query);
  const relevanceLanguage = parseRelevanceLanguage(query);
  const safeSearch = parseEnum(query, 'safeSearch', ['moderate', 'none', 'strict'] as const) ?? 'moderate';
  const topicId = single(query, 'topicId');
  if (topicId !== undefined && !topics.has(topicId)) {
    throw invalidParameter('topicId', `Invalid value '${topicId}' for topicId: only the curated topic ids are supported.`);
  }
  const videoCaption = parseEnum(query, 'videoCaption', ['any', 'closedCaption', 'none'] as const);
  const videoCategoryId = single(query, 'videoCategoryId');
  if (videoCategoryId !== undefined && !/^\d{1,10}$/.test(videoCategoryId)) {
    throw invalidParameter('videoCategoryId', `Invalid value '${videoCategoryId}' for videoCategoryId: a video category id is a number.`);
  }
  const videoDefinition = parseEnum(query, 'videoDefinition', ['any', 'high', 'standard'] as const);
  const videoDimension = parseEnum(query, 'videoDimension', ['2d', '3d', 'any'] as const);
  const videoDuration = parseEnum(query, 'videoDuration', ['any', 'long', 'medium', 'short'] as const);
  const videoEmbeddable = parseEnum(query, 'videoEmbeddable', ['any', 'true'] as const);
  const videoLicense = parseEnum(query, 'videoLicense', ['any', 'creativeCommon', 'youtube'] as const);
  const videoPaidProductPlacement = parseEnum(query, 'videoPaidProductPlacement', ['any', 'true'] as const);
  const videoSyndicated = parseEnum(query, 'videoSyndicated', ['any', 'true'] as const);
  const videoType = parseEnum(query, 'videoType', ['any', 'episode', 'movie'] as const);
  const forContentOwner = flag(query, 'forContentOwner');
  const forDeveloper = flag(query, 'forDeveloper');
  const forMine = flag(query, 'forMine');
  const onBehalfOfContentOwner = single(query, 'onBehalfOfContentOwner');

  checkOwnerFilters(query, { forContentOwner, forDeveloper, forMine, onlyVideos, onBehalfOfContentOwner });
  const setVideoFilter = VIDEO_ONLY_FILTERS.find((name) => single(query, name) !== undefined);
  if (!onlyVideos && setVideoFilter !== undefined) throw searchError('invalidSearchFilter', INVALID_SEARCH_FILTER_MESSAGE, setVideoFilter);
  if (!onlyVideos && location !== undefined) {
    throw searchError('invalidLocation', 'A location search (location and locationRadius) needs the type parameter set to video.', 'location');
  }

  const filters: SearchRequest['filters'] = {
    types,
    safeSearch,
    order,
    ...(channelId !== undefined && { channelId }),
    ...(channelType === 'show' && { channelType }),
    ...(eventType !== undefined && { eventType }),
    ...(location !== undefined && { location }),
    ...(publishedAfter !== undefined && { publishedAfter }),
    ...(publishedBefore !== undefined && { publishedBefore }),
    ...(regionCode !== undefined && { regionCode }),
    ...(relevanceLanguage !== undefined && { relevanceLanguage }),
    ...(topicId !== undefined && { topicId }),
    ...(videoCaption !== undefined && videoCaption !== 'any' && { videoCaption }),
    ...(videoCategoryId !== undefined && { videoCategoryId }),
    ...(videoDefinition !== undefined && videoDefinition !== 'any' && { videoDefinition }),
    ...(videoDimension !== undefined && videoDimension !== 'any' && { videoDimension }),
    ...(videoDuration !== undefined && videoDuration !== 'any' && { videoDuration }),
    ...(videoEmbeddable === 'true' && { videoEmbeddable: true as const }),
    ...(videoLicense !== undefined && videoLicense !== 'any' && { videoLicense }),
    ...(videoPaidProductPlacement === 'true' && { videoPaidProductPlacement: true as const }),
    ...(videoSyndicated === 'true' && { videoSyndicated: true as const }),
    ...(videoType !== undefined && videoType !== 'any' && { videoType }),
  };
  return {
    parts,
    ...(q !== undefined && q.trim() !== '' && { q }),
    filters,
    maxResults,
    ...(pageToken !== undefined && { pageToken }),
    forContentOwner,
    forDeveloper,
    forMine,
    ...(onBehalfOfContentOwner !== undefined && { onBehalfOfContentOwner }),
    regionCode: regionCode ?? 'US',
  };
}

/** The spec's conditions on forContentOwner, forDeveloper and forMine. */
function checkOwnerFilters(
  query: RawQuery,
  o: { forContentOwner: boolean; forDeveloper: boolean; forMine: boolean; onlyVideos: boolean; onBehalfOfContentOwner: string | undefined },
): void {
  const set = (['forContentOwner', 'forDeveloper', 'forMine'] as const).filter((name) => o[name]);
  if (set.length > 1) {
    throw parameterError('incompatibleParameters', `The request specifies incompatible parameters: at most one of forContentOwner, forDeveloper and forMine may be set (got ${set.join(', ')}).`, set[1]);
  }
  if (o.forContentOwner && o.onBehalfOfContentOwner === undefined) {
    throw mediaError({ message: 'The forContentOwner parameter requires the onBehalfOfContentOwner parameter.', domain: 'youtube.parameter', reason: 'missingRequiredParameter', location: 'onBehalfOfContentOwner' });
  }
  if (o.forContentOwner || o.forMine) {
    const which = o.forMine ? 'forMine' : 'forContentOwner';
    if (!o.onlyVideos) throw searchError('invalidSearchFilter', INVALID_SEARCH_FILTER_MESSAGE, which);
    const excluded = OWNER_FILTER_EXCLUDED.find((name) => single(query, name) !== undefined);
    if (excluded) throw searchError('invalidSearchFilter', `${INVALID_SEARCH_FILTER_MESSAGE} The ${which} parameter cannot be combined with ${excluded}.`, excluded);
  }
}

/** Whether a search's results are capped at 500 for its channelId (type=video without an owner filter). */
export function channelCapApplies(r: SearchRequest): boolean {
  const t: MediaKind[] = r.filters.types;
  return r.filters.channelId !== undefined && t.length === 1 && t[0] === 'video' && !r.forContentOwner && !r.forDeveloper && !r.forMine;
}
