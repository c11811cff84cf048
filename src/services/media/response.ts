/** Shapes what the engine and catalogue return into the Data API's JSON, key order included. */
import { createHash } from 'node:crypto';
import type { CatalogResource, MediaKind, SearchHit } from './catalog/types.ts';
import { type Kinds, MAX_TOTAL_RESULTS } from './names.ts';
import type { SearchPart } from './rules.ts';

/** A stable entity tag: the hash of the content it tags (27 characters of base64url, as the real ones). */
export function etagOf(content: unknown): string {
  return createHash('sha1').update(JSON.stringify(content)).digest('base64url');
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);
}

export const DESCRIPTION_LIMIT = 160;

/** Cuts a description to about 160 characters (code points), at a word boundary when one is near, with `...`. */
export function truncateDescription(s: string): string {
  const chars = Array.from(s);
  if (chars.length <= DESCRIPTION_LIMIT) return s;
  let cut = chars.slice(0, DESCRIPTION_LIMIT - 3).join('');
  const space = cut.search(/\s\S*$/);
  if (space >= DESCRIPTION_LIMIT - 30) cut = cut.slice(0, space);
  return cut.trimEnd() + '...';
}

/** RFC 3339 in UTC, without fractions when they are zero (`2024-01-02T03:04:05Z`), as the Data API writes times. */
export function dataApiTime(ms: number): string {
  const iso = new Date(ms).toISOString();
  return iso.endsWith('.000Z') ? iso.slice(0, -5) + 'Z' : iso;
}

interface Thumbnail {
  url: string;
  width?: number;
  height?: number;
}

/** Videos: the i.ytimg.com stills with their sizes; channels: avatar URLs only, as the real results. */
export function thumbnailsOf(kind: MediaKind, id: string, stored?: unknown): Record<string, Thumbnail> {
  if (kind === 'video') {
    return {
      default: { url: `https://i.ytimg.com/vi/${id}/default.jpg`, width: 120, height: 90 },
      medium: { url: `https://i.ytimg.com/vi/${id}/mqdefault.jpg`, width: 320, height: 180 },
      high: { url: `https://i.ytimg.com/vi/${id}/hqdefault.jpg`, width: 480, height: 360 },
    };
  }
  if (kind === 'channel') {
    const base = `https://yt3.ggpht.com/ytc/${id}`;
    return { default: { url: `${base}=s88-c-k-c0xffffffff-no-rj-mo` }, medium: { url: `${base}=s240-c-k-c0xffffffff-no-rj-mo` }, high: { url: `${base}=s800-c-k-c0xffffffff-no-rj-mo` } };
  }
  // Playlists show their first video's stills: the stored ones when the catalogue has them.
  const t = stored as Record<string, Thumbnail> | undefined;
  if (t && typeof t === 'object' && t.default && typeof t.default.url === 'string') {
    const pick = (k: string): Thumbnail | undefined => (Object.hasOwn(t, k) && typeof t[k]?.url === 'string' ? { url: t[k].url, ...(typeof t[k].width === 'number' && { width: t[k].width, height: t[k].height }) } : undefined);
    const out: Record<string, Thumbnail> = {};
    for (const k of ['default', 'medium', 'high']) {
      const v = pick(k);
      if (v) out[k] = v;
    }
    return out;
  }
  return {
    default: { url: `https://i.ytimg.com/img/no_thumbnail.jpg`, width: 120, height: 90 },
    medium: { url: `https://i.ytimg.com/img/no_thumbnail.jpg`, width: 320, height: 180 },
    high: { url: `https://i.ytimg.com/img/no_thumbnail.jpg`, width: 480, height: 360 },
  };
}

const ID_FIELD: Record<MediaKind, 'videoId' | 'channelId' | 'playlistId'> = { video: 'videoId', channel: 'channelId', playlist: 'playlistId' };

/** One search result: kind, etag, id and (with part=snippet) the snippet. */
export function searchResultItem(hit: SearchHit, parts: ReadonlySet<SearchPart>, playlistThumbnails: unknown, kinds: Kinds): Record<string, unknown> {
  const id = { kind: kinds[hit.kind], [ID_FIELD[hit.kind]]: hit.id };
  const content: Record<string, unknown> = { id };
  if (parts.has('snippet')) {
    const publishedAt = dataApiTime(hit.publishedAt);
    content.snippet = {
      publishedAt,
      channelId: hit.channelId,
      title: escapeHtml(hit.title),
      description: escapeHtml(truncateDescription(hit.description)),
      thumbnails: thumbnailsOf(hit.kind, hit.id, playlistThumbnails),
      channelTitle: escapeHtml(hit.channelTitle),
      liveBroadcastContent: hit.liveBroadcastContent,
      publishTime: publishedAt,
    };
  }
  return { kind: kinds.searchResult, etag: etagOf(content), ...content };
}

/** The search list response in the real key order; tokens only when there is such a page. */
export function searchListResponse(o: { items: Record<string, unknown>[]; nextPageToken?: string; prevPageToken?: string; regionCode: string; totalResults: number }, kinds: Kinds): Record<string, unknown> {
  const pageInfo = { totalResults: Math.min(Math.max(0, Math.floor(o.totalResults)), MAX_TOTAL_RESULTS), resultsPerPage: o.items.length };
  const body = {
    ...(o.nextPageToken && { nextPageToken: o.nextPageToken }),
    ...(o.prevPageToken && { prevPageToken: o.prevPageToken }),
    regionCode: o.regionCode,
    pageInfo,
    items: o.items,
  };
  return { kind: kinds.searchListResponse, etag: etagOf(body), ...body };
}

/** A stored resource as videos/channels/playlists.list return it: kind, etag, id, then the asked parts it holds. */
export function listedResource(kind: MediaKind, r: CatalogResource, parts: ReadonlySet<string>, kinds: Kinds): Record<string, unknown> {
  const content: Record<string, unknown> = { id: r.id };
  for (const part of parts) {
    if (part === 'id' || !Object.hasOwn(r, part)) continue;
    const value = r[part];
    if (value !== undefined && value !== null) content[part] = value;
  }
  return { kind: kinds[kind], etag: etagOf(content), ...content };
}

export function listResponse(kind: 'videoListResponse' | 'channelListResponse' | 'playlistListResponse', o: { items: Record<string, unknown>[]; totalResults: number; nextPageToken?: string; prevPageToken?: string }, kinds: Kinds): Record<string, unknown> {
  const body = {
    ...(o.nextPageToken && { nextPageToken: o.nextPageToken }),
    ...(o.prevPageToken && { prevPageToken: o.prevPageToken }),
    pageInfo: { totalResults: o.totalResults, resultsPerPage: o.items.length },
    items: o.items,
  };
  return { kind: kinds[kind], etag: etagOf(body), ...body };
}
