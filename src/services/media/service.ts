/**
 * The media methods without HTTP: who calls (access.ts), what it costs (platform quota), the
 * parameters (rules.ts), the authorized filters, the engine and catalogue calls, and the
 * shaping of their answers (response.ts).
 */
import type { ApiError } from '../../platform/http/errors.ts';
import { hasAnyScope } from '../../platform/auth/principal.ts';
import { SCOPE_PREFIX } from '../../platform/auth/scopes.ts';
import type { Quota } from '../../platform/quota/quota.ts';
import type { MediaAccess, MediaCaller, MediaCredentials } from './access.ts';
import type { CatalogResource, MediaCatalog, MediaSearchEngine, ParsedQuery, SearchHit, SearchQuery } from './catalog/types.ts';
import { forbidden, loginRequired, mediaError, parameterError, quotaExceeded } from './errors.ts';
import { CHANNEL_VIDEO_CAP, INVALID_REQUEST_COST, type Kinds, MAX_REACHABLE, type MediaMethod, QUOTA_COST } from './names.ts';
import { pageTokens, pageWindow } from './pageToken.ts';
import { type RawQuery, flag, parseIds, parseMaxResults, parsePageToken, parseParts, single } from './params.ts';
import { listResponse, listedResource, searchListResponse, searchResultItem } from './response.ts';
import { type SearchRequest, channelCapApplies, parseSearchRequest } from './rules.ts';

export const MEDIA_SCOPES = {
  youtube: SCOPE_PREFIX + 'youtube',
  readonly: SCOPE_PREFIX + 'youtube.readonly',
  forceSsl: SCOPE_PREFIX + 'youtube.force-ssl',
  partner: SCOPE_PREFIX + 'youtubepartner',
} as const;
const DATA_SCOPES = [MEDIA_SCOPES.youtube, MEDIA_SCOPES.readonly, MEDIA_SCOPES.forceSsl];

export const VIDEO_PARTS = ['id', 'snippet', 'contentDetails', 'status', 'statistics', 'player', 'topicDetails', 'recordingDetails', 'liveStreamingDetails', 'localizations', 'paidProductPlacementDetails'] as const;
export const CHANNEL_PARTS = ['id', 'snippet', 'contentDetails', 'status', 'statistics', 'topicDetails', 'brandingSettings', 'localizations', 'contentOwnerDetails'] as const;
export const PLAYLIST_PARTS = ['id', 'snippet', 'contentDetails', 'status', 'player', 'localizations'] as const;
const MAX_IDS = 50;

export interface MediaServiceDeps {
  access: MediaAccess;
  quota: Quota;
  catalog: MediaCatalog;
  engine: MediaSearchEngine;
  topics: { has(id: string): boolean };
  parseQuery: (q: string) => ParsedQuery;
  /** The `kind` values of answers (`media#...` or `youtube#...`). */
  kinds: Kinds;
}

export class MediaService {
  readonly #d: MediaServiceDeps;

  constructor(d: MediaServiceDeps) {
    this.#d = d;
  }

  get serviceName(): string {
    return this.#d.access.serviceName;
  }

  /**
   * Runs one call: identifies the caller, then parses and authorizes (a rejected request still
   * costs 1 unit), then spends the method's quota before any work is done.
   */
  async #call<R, T>(method: MediaMethod, creds: MediaCredentials, prepare: (caller: MediaCaller) => Promise<R>, run: (prepared: R, caller: MediaCaller) => Promise<T>, invalid?: ApiError): Promise<T> {
    const caller = await this.#d.access.caller(method, creds);
    let prepared: R;
    try {
      if (invalid) throw invalid;
      prepared = await prepare(caller);
    } catch (err) {
      if (!(await this.#d.quota.charge(caller.consumer, this.serviceName, INVALID_REQUEST_COST))) throw quotaExceeded();
      throw err;
    }
    if (!(await this.#d.quota.charge(caller.consumer, this.serviceName, QUOTA_COST[method]))) throw quotaExceeded();
    return run(prepared, caller);
  }

  /** search.list. `invalid`: a schema error already found in the query (it is charged like any rejected request). */
  search(creds: MediaCredentials, query: RawQuery, invalid?: ApiError): Promise<Record<string, unknown>> {
    return this.#call('search', creds, (caller) => this.#prepareSearch(caller, query), (s) => this.#runSearch(s.req, s.owners), invalid);
  }

  async #prepareSearch(caller: MediaCaller, query: RawQuery): Promise<{ req: SearchRequest; owners: Pick<SearchQuery, 'ownerChannelIds' | 'developerProjectNumber'> }> {
    const req = parseSearchRequest(query, this.#d.topics);
    const authorized = req.forContentOwner || req.forDeveloper || req.forMine || req.onBehalfOfContentOwner !== undefined;
    const p = caller.principal;
    if (p && req.onBehalfOfContentOwner !== undefined) await this.#requireLinked(caller, req.onBehalfOfContentOwner);
    else this.#requireDataScope(caller);
    if (!authorized) return { req, owners: {} };
    if (!p) throw loginRequired();
    if (req.forMine) return { req, owners: { ownerChannelIds: await this.#d.catalog.channelsOwnedBy(p.member) } };
    if (req.forContentOwner) return { req, owners: { ownerChannelIds: await this.#d.catalog.channelsOfContentOwner(req.onBehalfOfContentOwner!) } };
    if (req.forDeveloper) {
      if (!caller.projectNumber) {
        throw forbidden('The forDeveloper parameter needs the developer project of the request: this credential (a user access token) names none. Send the API key of your application\'s project with the token.');
      }
      return { req, owners: { developerProjectNumber: caller.projectNumber } };
    }
    return { req, owners: {} };
  }

  /** The token must carry a Data API scope (youtubepartner alone is for content-owner calls). */
  #requireDataScope(caller: MediaCaller): void {
    if (caller.principal && !hasAnyScope(caller.principal, DATA_SCOPES)) {
      throw mediaError({ status: 'PERMISSION_DENIED', message: 'Request had insufficient authentication scopes.', domain: 'global', reason: 'insufficientPermissions' });
    }
  }

  /** onBehalfOfContentOwner: the content owner must exist and the caller be one of its linked accounts. */
  async #requireLinked(caller: MediaCaller, contentOwnerId: string): Promise<void> {
    const p = caller.principal!;
    if (p.superuser) return;
    const owner = await this.#d.catalog.contentOwner(contentOwnerId);
    const member = p.member.toLowerCase();
    if (!owner || !owner.linkedPrincipals.some((m) => m.toLowerCase() === member)) {
      throw forbidden('The authenticated user is not linked to the content owner named by onBehalfOfContentOwner.', 'insufficientPermissions');
    }
  }

  async #runSearch(req: SearchRequest, owners: Pick<SearchQuery, 'ownerChannelIds' | 'developerProjectNumber'>): Promise<Record<string, unknown>> {
    const reachable = channelCapApplies(req) ? CHANNEL_VIDEO_CAP : MAX_REACHABLE;
    const window = pageWindow(req.pageToken, req.maxResults);
    const start = Math.min(window.start, reachable);
    const limit = Math.max(0, Math.min(window.limit, reachable - start));
    let hits: SearchHit[] = [];
    let totalResults = 0;
    let hasMore = false;
    if (!(owners.ownerChannelIds && owners.ownerChannelIds.length === 0)) {
      const result = await this.#d.engine.search({
        ...req.filters,
        ...(req.q !== undefined && { q: this.#d.parseQuery(req.q) }),
        ...owners,
        offset: start,
        limit,
        maxReachable: reachable,
      });
      hits = result.hits.slice(0, limit);
      totalResults = result.totalResults;
      hasMore = result.hasMore;
    }
    const thumbnails = await this.#playlistThumbnails(req, hits);
    const end = start + hits.length;
    const kinds = this.#d.kinds;
    return searchListResponse(
      {
        items: hits.map((h) => searchResultItem(h, req.parts, thumbnails.get(h.id), kinds)),
        ...pageTokens(start, end, hasMore && hits.length > 0 && end < reachable),
        regionCode: req.regionCode,
        totalResults: Math.max(totalResults, end),
      },
      kinds,
    );
  }

  async #playlistThumbnails(req: SearchRequest, hits: SearchHit[]): Promise<Map<string, unknown>> {
    const out = new Map<string, unknown>();
    const ids = req.parts.has('snippet') ? hits.filter((h) => h.kind === 'playlist').map((h) => h.id) : [];
    if (ids.length === 0) return out;
    for (const p of await this.#d.catalog.playlists(ids)) out.set(p.id, (p.snippet as { thumbnails?: unknown } | undefined)?.thumbnails);
    return out;
  }

  /** videos.list by id. */
  listVideos(creds: MediaCredentials, query: RawQuery, invalid?: ApiError): Promise<Record<string, unknown>> {
    return this.#call(
      'videos',
      creds,
      async (caller) => {
        this.#requireDataScope(caller);
        const parts = parseParts(query, VIDEO_PARTS);
        const ids = parseIds(query, 'id', MAX_IDS);
        if (ids === undefined) throw noFilter('chart, id, myRating');
        parseMaxResults(query, 1, 50, 5);
        return { parts, ids };
      },
      async ({ parts, ids }) => byIds('video', 'videoListResponse', await this.#d.catalog.videos(ids), parts, this.#d.kinds),
      invalid,
    );
  }

  /** channels.list by id, or mine=true (the caller's own channels). */
  listChannels(creds: MediaCredentials, query: RawQuery, invalid?: ApiError): Promise<Record<string, unknown>> {
    return this.#call(
      'channels',
      creds,
      async (caller) => {
        this.#requireDataScope(caller);
        const parts = parseParts(query, CHANNEL_PARTS);
        const ids = parseIds(query, 'id', MAX_IDS);
        const mine = flag(query, 'mine');
        parseMaxResults(query, 0, 50, 5);
        if (ids !== undefined && mine) throw parameterError('incompatibleParameters', 'The request specifies incompatible parameters: id and mine.', 'mine');
        if (ids !== undefined) return { parts, ids };
        if (!mine) throw noFilter('categoryId, forHandle, forUsername, id, managedByMe, mine');
        if (!caller.principal) throw loginRequired();
        return { parts, ids: await this.#d.catalog.channelsOwnedBy(caller.principal.member) };
      },
      async ({ parts, ids }) => byIds('channel', 'channelListResponse', await this.#d.catalog.channels(ids.slice(0, MAX_IDS)), parts, this.#d.kinds),
      invalid,
    );
  }

  /** playlists.list by id, or by channelId (newest first, paged with the search's page tokens). */
  listPlaylists(creds: MediaCredentials, query: RawQuery, invalid?: ApiError): Promise<Record<string, unknown>> {
    return this.#call(
      'playlists',
      creds,
      async (caller) => {
        this.#requireDataScope(caller);
        const parts = parseParts(query, PLAYLIST_PARTS);
        const ids = parseIds(query, 'id', MAX_IDS);
        const channelId = single(query, 'channelId');
        const maxResults = parseMaxResults(query, 0, 50, 5);
        const pageToken = parsePageToken(query);
        if (ids !== undefined && channelId !== undefined) throw parameterError('incompatibleParameters', 'The request specifies incompatible parameters: id and channelId.', 'channelId');
        if (ids === undefined && channelId === undefined) throw noFilter('channelId, id, mine');
        return { parts, ids, channelId, maxResults, pageToken };
      },
      async ({ parts, ids, channelId, maxResults, pageToken }) => {
        if (ids !== undefined) return byIds('playlist', 'playlistListResponse', await this.#d.catalog.playlists(ids), parts, this.#d.kinds);
        const all = await this.#d.catalog.playlistsOfChannel(channelId!, MAX_REACHABLE);
        const { start, limit } = pageWindow(pageToken, maxResults);
        const page = all.slice(start, start + limit);
        const end = start + page.length;
        return listResponse(
          'playlistListResponse',
          {
            items: page.map((r) => listedResource('playlist', r, parts, this.#d.kinds)),
            totalResults: all.length,
            ...pageTokens(start, end, end < all.length && limit > 0),
          },
          this.#d.kinds,
        );
      },
      invalid,
    );
  }
}

function byIds(kind: 'video' | 'channel' | 'playlist', listKind: 'videoListResponse' | 'channelListResponse' | 'playlistListResponse', resources: CatalogResource[], parts: ReadonlySet<string>, kinds: Kinds) {
  return listResponse(listKind, { items: resources.map((r) => listedResource(kind, r, parts, kinds)), totalResults: resources.length }, kinds);
}

function noFilter(expected: string): ApiError {
  return mediaError({ message: `No filter selected. Expected one of: ${expected}`, domain: 'youtube.parameter', reason: 'missingRequiredParameter', location: 'parameters' });
}
