/**
 * The contract between the media catalogue + search engine (`catalog/`, `search/`) and the
 * media HTTP service (`routes/`, `service.ts`). The catalogue side implements `MediaCatalog`
 * and `MediaSearchEngine`; the HTTP side parses and checks parameters, enforces keys, scopes
 * and quota, and shapes responses from what these return.
 *
 * Factory: `createMediaCatalog(store)` in `catalog/index.ts` returns `{catalog, engine, close}`
 * (`Media`): the catalogue reads the store; the engine keeps an in-memory index built from the
 * store and refreshed from its change sequence on each search (changes by other processes show).
 * `parseQuery(q)` (`search/queryParser.ts`, re-exported by `catalog/index.ts`) turns `q` into a
 * `ParsedQuery`; it never throws. `CURATED_TOPICS` (`catalog/topics.ts`) is the topicId set.
 */

export type MediaKind = 'video' | 'channel' | 'playlist';

/** A parsed `q`: terms, quoted phrases, NOT (-term) and OR (a|b). Never SQL or FTS syntax. */
export interface ParsedQuery {
  /** Every clause must match (AND); a clause matches when any of its alternatives does (OR). */
  clauses: { alternatives: QueryAtom[] }[];
  /** None of these may match. */
  excluded: QueryAtom[];
}
/** A single folded term (`words.length === 1`) or a phrase (words in order, adjacent). */
export interface QueryAtom {
  words: string[];
}

export interface SearchQuery {
  q?: ParsedQuery;
  /** Default all three. */
  types: MediaKind[];
  channelId?: string;
  channelType?: 'show';
  eventType?: 'completed' | 'live' | 'upcoming';
  location?: { lat: number; lng: number; radiusMeters: number };
  /** Epoch ms, inclusive. */
  publishedAfter?: number;
  publishedBefore?: number;
  /** ISO 3166-1 alpha-2, upper case: only videos viewable there (region allow/block lists). */
  regionCode?: string;
  /** Biases ranking toward this language; never filters. */
  relevanceLanguage?: string;
  safeSearch: 'moderate' | 'none' | 'strict';
  topicId?: string;
  videoCaption?: 'closedCaption' | 'none';
  videoCategoryId?: string;
  videoDefinition?: 'high' | 'standard';
  videoDimension?: '2d' | '3d';
  videoDuration?: 'short' | 'medium' | 'long';
  videoEmbeddable?: true;
  videoLicense?: 'creativeCommon' | 'youtube';
  videoPaidProductPlacement?: true;
  videoSyndicated?: true;
  videoType?: 'episode' | 'movie';
  /** forMine / forContentOwner: only videos of these channels (resolved by the HTTP side). */
  ownerChannelIds?: string[];
  /** forDeveloper: only videos uploaded through this project (number). */
  developerProjectNumber?: string;
  order: 'date' | 'rating' | 'relevance' | 'title' | 'videoCount' | 'viewCount';
  /** Offset into the ranked results (0-based) and page size (0..50). */
  offset: number;
  limit: number;
  /** Results end here (about 500 per query, as the real service); channelId+type=video without owner filter: 500. */
  maxReachable: number;
}

/** What a search result item's snippet is built from: read only (the engine shares a document's hit between results, search/hitCache.ts). */
export interface SearchHit {
  readonly kind: MediaKind;
  readonly id: string;
  readonly publishedAt: number;
  readonly channelId: string;
  readonly channelTitle: string;
  readonly title: string;
  readonly description: string;
  /** Videos: none | live | upcoming (completed broadcasts are `none`). */
  readonly liveBroadcastContent: 'none' | 'live' | 'upcoming';
}

export interface SearchResult {
  hits: SearchHit[];
  /** Approximate number of matches (the HTTP side caps it at 1,000,000). */
  totalResults: number;
  /** Whether results continue after this page (within maxReachable). */
  hasMore: boolean;
}

export interface MediaSearchEngine {
  search(q: SearchQuery): Promise<SearchResult>;
}

/** Catalogue entries as stored: the Data API v3 resource JSON (`youtube#video` ...) plus the extension object. */
export interface CatalogResource {
  kind: string;
  id: string;
  [field: string]: unknown;
}

export interface ContentOwner {
  id: string;
  displayName: string;
  /** IAM members (`user:...`, `serviceAccount:...`) linked to this content owner. */
  linkedPrincipals: string[];
}

export interface MediaCatalog {
  /** Resources by id in the order asked; unknown ids are left out. */
  videos(ids: string[]): Promise<CatalogResource[]>;
  channels(ids: string[]): Promise<CatalogResource[]>;
  playlists(ids: string[]): Promise<CatalogResource[]>;
  /** Channels whose owner principal is this IAM member (forMine, channels.list mine=true). */
  channelsOwnedBy(member: string): Promise<string[]>;
  /** Playlists of a channel (playlists.list channelId=), newest first, bounded. */
  playlistsOfChannel(channelId: string, limit: number): Promise<CatalogResource[]>;
  contentOwner(id: string): Promise<ContentOwner | undefined>;
  /** Channels managed by a content owner (forContentOwner). */
  channelsOfContentOwner(contentOwnerId: string): Promise<string[]>;
}
