import type { Kysely } from 'kysely';
import type { Database } from '../../src/platform/store/schema.ts';
import type { SearchQuery } from '../../src/services/media/catalog/types.ts';
import { describeQuery, parseQuery } from '../../src/services/media/search/queryParser.ts';
import { words } from '../../src/services/media/search/text.ts';

/**
 * The query mix of `bench:media` and of the media search parity test: single term, two terms,
 * OR, NOT, phrase, a term with four filters, geo, every order, deep pages, browse without `q`,
 * live by viewers and a term in about half the catalogue, with words as users would type them:
 * from the titles of the catalogue's first 2,000 videos by id (Zipf: common words come often).
 * Deterministic: the same catalogue gives the same mix.
 */

export interface MixQuery {
  cls: string;
  q: SearchQuery;
}

const BASE: SearchQuery = { types: ['video', 'channel', 'playlist'], safeSearch: 'moderate', order: 'relevance', offset: 0, limit: 25, maxReachable: 500 };

export async function mediaQueryMix(db: Kysely<Database>, rounds = 60): Promise<MixQuery[]> {
  let state = 12345;
  const rand = () => (state = (state * 1103515245 + 12345) >>> 0) / 2 ** 32;
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
  const titles = (await db.selectFrom('media_videos').select('title').orderBy('id').limit(2000).execute()).map((r) => words(r.title)).filter((w) => w.length >= 2);
  const title = () => pick(titles);
  const term = () => pick(title());
  const base = BASE;
  const mix: MixQuery[] = [];
  for (let i = 0; i < rounds; i++) {
    const t = title();
    const j = Math.floor(rand() * (t.length - 1));
    mix.push({ cls: 'single term', q: { ...base, q: parseQuery(term()) } });
    mix.push({ cls: 'two terms', q: { ...base, q: parseQuery(`${t[j]} ${t[j + 1]}`) } });
    mix.push({ cls: 'OR', q: { ...base, q: parseQuery(`${term()}|${term()}`) } });
    mix.push({ cls: 'NOT', q: { ...base, q: parseQuery(`${term()} -${term()}`) } });
    mix.push({ cls: 'phrase', q: { ...base, q: parseQuery(`"${t[j]} ${t[j + 1]}"`) } });
    mix.push({
      cls: 'filters',
      q: { ...base, types: ['video'], q: parseQuery(term()), videoDuration: pick(['short', 'medium', 'long'] as const), videoDefinition: 'high', regionCode: pick(['DE', 'US', 'JP']), safeSearch: 'strict' },
    });
    mix.push({ cls: 'geo', q: { ...base, types: ['video'], location: { lat: 40.7128, lng: -74.006, radiusMeters: 50_000 }, order: pick(['date', 'relevance'] as const) } });
    mix.push({ cls: 'order', q: { ...base, q: parseQuery(term()), order: pick(['date', 'rating', 'title', 'viewCount'] as const) } });
    mix.push({ cls: 'order', q: { ...base, types: ['channel'], order: 'videoCount', q: rand() < 0.5 ? parseQuery(term()) : undefined } });
    mix.push({ cls: 'deep page', q: { ...base, q: parseQuery(term()), offset: 450, limit: 50, order: pick(['relevance', 'date'] as const) } });
    mix.push({ cls: 'browse (no q)', q: { ...base, types: ['video'], order: pick(['date', 'viewCount', 'relevance'] as const), offset: pick([0, 25, 200]) } });
    mix.push({ cls: 'live', q: { ...base, types: ['video'], eventType: 'live', order: 'viewCount' } });
    mix.push({ cls: 'half-catalogue term', q: { ...base, q: parseQuery(pick(['the', 'best', 'music'])) } });
  }
  return mix;
}

/** A query in a line: its `q` (see `describeQuery`), order, types, paging and filters. */
export function describeMixQuery(q: SearchQuery): string {
  const text = q.q ? describeQuery(q.q) || '(empty q)' : '(no q)';
  const extra = Object.entries(q)
    .filter(([k]) => !['q', 'order', 'types', 'offset', 'limit', 'maxReachable'].includes(k))
    .map(([k, v]) => `${k}=${typeof v === 'object' ? JSON.stringify(v) : v}`);
  return [text, `order=${q.order}`, `types=${q.types.join(',')}`, `offset=${q.offset}`, `limit=${q.limit}`, ...extra].join(' ');
}
