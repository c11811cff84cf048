import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { generateInto, storeTarget } from '../../src/services/media/catalog/bulk.ts';
import { generatedCount } from '../../src/services/media/catalog/generator.ts';
import type { SearchQuery } from '../../src/services/media/catalog/types.ts';
import type { SearchPool } from '../../src/services/media/search/searchPool.ts';
import { parseQuery } from '../../src/services/media/search/queryParser.ts';
import { pageTokens } from '../../src/services/media/pageToken.ts';
import { describeMixQuery, mediaQueryMix } from '../support/mediaQueryMix.ts';
import { type FixtureStore, openFixture, query } from './media.fixture.ts';

const VIDEOS = 1500;

function queries(): SearchQuery[] {
  const out: SearchQuery[] = [];
  const texts = [undefined, 'the', 'music', 'best|video', 'the -music', '"the best"', 'música', 'live new', '音楽'];
  for (const order of ['relevance', 'date', 'rating', 'title', 'videoCount', 'viewCount'] as const) {
    for (const text of texts) {
      for (const offset of [0, 45, 480]) out.push(query({ q: text === undefined ? undefined : parseQuery(text), order, offset, limit: offset === 480 ? 50 : 20, safeSearch: 'moderate' }));
    }
    out.push(query({ order, types: ['video'], videoDuration: 'medium', videoDefinition: 'high', regionCode: 'DE', safeSearch: 'strict', limit: 30 }));
    out.push(query({ order, types: ['video'], eventType: 'live' }));
    out.push(query({ order, types: ['video'], location: { lat: 40.7128, lng: -74.006, radiusMeters: 60_000 } }));
    out.push(query({ order, types: ['channel'], q: parseQuery('the') }));
    out.push(query({ order, relevanceLanguage: 'es', q: parseQuery('la|the'), limit: 40 }));
  }
  return out;
}

describe('media search: strategies and stores agree', () => {
  let f: FixtureStore;
  before(async () => {
    f = await openFixture([]);
    // small champion lists, so this small catalogue has some (kept by the index the first search builds)
    (f.media.engine as SearchPool).engine.tune({ championMinDf: 20, champions: 64 });
    await generateInto(storeTarget(f.store), { videos: VIDEOS, seed: 3 }, generatedCount(VIDEOS));
  });
  after(() => f.close());

  test('walking in ranking order with early stop gives the same pages as scoring every candidate', async () => {
    const engine = (f.media.engine as SearchPool).engine;
    let compared = 0;
    const fast = { champions: 0, deep: 0, walk: 0 };
    for (const q of queries()) {
      engine.tune({ orderedScanMin: Infinity });
      const full = await engine.search(q);
      // 0: always walk in ranking order; 16: walks that give up early, then scans that skip candidates by their place
      for (const threshold of [0, 16]) {
        engine.tune({ orderedScanMin: threshold });
        const stats = engine.index.stats;
        const before = { ...stats };
        const walked = await engine.search(q);
        fast.champions += stats.champions - before.champions;
        fast.deep += stats.deep - before.deep;
        fast.walk += stats.walk - before.walk;
        const what = `${JSON.stringify(q)} threshold ${threshold}`;
        assert.deepEqual(walked.hits, full.hits, what);
        assert.equal(walked.hasMore, full.hasMore, what);
        if (walked.totalResults !== full.totalResults) assert.ok(walked.totalResults > q.offset + q.limit, `an estimate only when results go on: ${what}`);
        compared += full.hits.length;
      }
    }
    assert.ok(compared > 4000, `compared ${compared} hits`);
    assert.ok(fast.champions > 10 && fast.deep > 10 && fast.walk > 10, `every early-stop strategy answered: ${JSON.stringify(fast)}`);
  });

  test("a frequent term's champion list walked best first gives the page and count of offering all its documents", async () => {
    const engine = (f.media.engine as SearchPool).engine;
    engine.tune({ orderedScanMin: 16, championMinDf: 20, champions: 256 });
    let walked = 0;
    for (const text of ['the', 'music', 'la', 'video'])
      for (const safeSearch of ['none', 'moderate', 'strict'] as const)
        for (const types of [['video', 'channel', 'playlist'], ['video'], ['channel', 'playlist']] as SearchQuery['types'][])
          for (const relevanceLanguage of [undefined, 'es'])
            for (const offset of [0, 45, 480]) {
              const q = query({ q: parseQuery(text), order: 'relevance', safeSearch, types, relevanceLanguage, offset, limit: offset === 480 ? 20 : 25 });
              const stats = engine.index.stats;
              const champions = stats.champions;
              const fast = await engine.search(q);
              walked += stats.champions - champions;
              // a date filter every document passes: match reads a column, so every document of the list is offered
              const offered = await engine.search({ ...q, publishedAfter: 0 });
              assert.deepEqual(fast, offered, JSON.stringify(q));
            }
    assert.ok(walked > 50, `answered from champion lists: ${walked}`);
  });

  test('the same catalogue gives the same results on SQLite and PostgreSQL', { skip: !process.env.CLOUDTWIN_TEST_DATABASE_URL && 'CLOUDTWIN_TEST_DATABASE_URL is not set' }, async () => {
    const tuning = { orderedScanMin: 20_000, championMinDf: 20, champions: 64 };
    (f.media.engine as SearchPool).engine.tune(tuning);
    const other = await openFixture([], f.url ? 'sqlite' : 'postgres');
    try {
      (other.media.engine as SearchPool).engine.tune(tuning);
      await generateInto(storeTarget(other.store), { videos: VIDEOS, seed: 3 }, generatedCount(VIDEOS));
      for (const q of queries()) assert.deepEqual(await other.media.engine.search(q), await f.media.engine.search(q), JSON.stringify(q));
    } finally {
      await other.close();
    }
  });
});

/**
 * The answers of the engine as it was before positional postings (recorded from that code on
 * this catalogue: `MEDIA_PARITY_RECORD=1 npm test -- test/unit/media.parity.test.ts`), for the
 * whole bench:media query mix and the queries above, under three settings of the engine's
 * thresholds: the defaults (at this size, every candidate scored, phrases from positions alone:
 * exact totals), small champion lists with walks that give up early and the pairs of words in
 * 100 documents indexed (champion, deep-list and walk strategies, estimated totals), and walks
 * that never give up with every pair of words indexed. Each answer: the results in order (kind and the id's
 * place among that kind's ids, sorted), the total, whether more follow, the page tokens the API
 * would send, and a hash of every field of the hits. One line per query, its answer per setting.
 */
const ANSWERS = new URL('./media.parity.answers.ndjson', import.meta.url);
const PARITY_VIDEOS = 3000;
const SETTINGS = {
  default: { orderedScanMin: 20_000, championMinDf: 2000, champions: 1024, pairMinDf: 20_000 },
  small: { orderedScanMin: 16, championMinDf: 20, champions: 64, pairMinDf: 100 },
  walk: { orderedScanMin: 0, championMinDf: 20, champions: 64, pairMinDf: 1 },
} as const;
type Setting = keyof typeof SETTINGS;

/** One query's answer under one setting. */
interface Answer {
  results: string;
  hits: string;
  total: number;
  hasMore: boolean;
  next: string;
  prev: string;
}
/** A query and its answers. */
interface Recorded {
  query: string;
  answers: Record<Setting, Answer>;
}

/**
 * A line of the file: the query, the default setting's results and hits hash, and per setting
 * `[total, hasMore, next, prev]`, followed by its results and hits hash when they differ from
 * the default setting's.
 */
function toLine(r: Recorded): string {
  const d = r.answers.default;
  const line: Record<string, unknown> = { query: r.query, results: d.results, hits: d.hits };
  for (const [k, a] of Object.entries(r.answers)) line[k] = [a.total, a.hasMore, a.next, a.prev, ...(a.results === d.results && a.hits === d.hits ? [] : [a.results, a.hits])];
  return JSON.stringify(line);
}
function fromLine(text: string): Recorded {
  const line = JSON.parse(text);
  const answers = {} as Record<Setting, Answer>;
  for (const k of Object.keys(SETTINGS) as Setting[]) {
    const [total, hasMore, next, prev, results = line.results, hits = line.hits] = line[k];
    answers[k] = { results, hits, total, hasMore, next, prev };
  }
  return { query: line.query, answers };
}

/** Phrases beyond the mix's two-word ones: repeated words, three and four words, excluded, among alternatives, unspaced scripts. */
function phraseQueries(): SearchQuery[] {
  const texts = ['"the the"', '"the best music"', '"best music video"', 'music -"the best"', '"the best"|guitar', '"la la"', '"el la" música', '"the best" "music video"', '"live new" -"the the"', '音楽 ライブ', '"the best of the"'];
  return texts.flatMap((t) => (['relevance', 'date', 'title'] as const).map((order) => query({ q: parseQuery(t), order, limit: 25, safeSearch: 'moderate' })));
}

describe('media search: the answers recorded before positional postings', () => {
  let f: FixtureStore;
  before(async () => {
    f = await openFixture([]);
    await generateInto(storeTarget(f.store), { videos: PARITY_VIDEOS, seed: 11 }, generatedCount(PARITY_VIDEOS));
  });
  after(() => f.close());

  test('the whole query mix gives the recorded answers, phrases cold and remembered', async () => {
    const engine = (f.media.engine as SearchPool).engine;
    await engine.refresh();
    const seen = new Set<string>();
    const all = [...(await mediaQueryMix(f.store.db)).map((m) => m.q), ...queries(), ...phraseQueries()].filter((q) => {
      const k = JSON.stringify(q);
      return !seen.has(k) && seen.add(k);
    });
    const place = new Map<string, number>();
    for (const table of ['media_videos', 'media_channels', 'media_playlists'] as const) {
      const ids = (await f.store.db.selectFrom(table).select('id').execute()).map((r) => r.id).sort();
      ids.forEach((id, i) => place.set(`${table[6]}${id}`, i));
    }
    const answers: Recorded[] = all.map((q) => ({ query: describeMixQuery(q), answers: {} as Record<Setting, Answer> }));
    for (const [setting, s] of Object.entries(SETTINGS) as [Setting, (typeof SETTINGS)[Setting]][]) {
      engine.tune(s);
      // the pairs of frequent words are indexed when a setting asks (a phrase of two of them is its pair's list)
      assert.equal(engine.index.pairs.lists.size > 100, s.pairMinDf < 1000, `pairs indexed under ${setting}: ${engine.index.pairs.lists.size}`);
      // the first pass with no phrase remembered (each query as if never asked), then twice as they come (remembered)
      for (const pass of [0, 1, 2]) {
        for (let i = 0; i < all.length; i++) {
          const q = all[i];
          if (pass === 0) engine.index.clearPhrases();
          const r = await engine.search(q);
          const end = q.offset + r.hits.length;
          const tokens = pageTokens(q.offset, end, r.hasMore && r.hits.length > 0 && end < q.maxReachable);
          const answer: Answer = {
            results: r.hits.map((h) => `${h.kind[0]}${place.get(`${h.kind[0]}${h.id}`)}`).join(' '),
            hits: createHash('sha256').update(JSON.stringify(r.hits)).digest('hex').slice(0, 16),
            total: r.totalResults,
            hasMore: r.hasMore,
            next: tokens.nextPageToken ?? '',
            prev: tokens.prevPageToken ?? '',
          };
          if (pass === 0) answers[i].answers[setting] = answer;
          else assert.deepEqual(answer, answers[i].answers[setting], `pass ${pass}, ${setting}: ${answers[i].query}`);
        }
      }
    }
    if (process.env.MEDIA_PARITY_RECORD) {
      writeFileSync(ANSWERS, answers.map(toLine).join('\n') + '\n');
      return;
    }
    const recorded = readFileSync(ANSWERS, 'utf8').trim().split('\n').map(fromLine);
    assert.equal(answers.length, recorded.length, 'as many queries as recorded');
    for (let i = 0; i < answers.length; i++) assert.deepEqual(answers[i], recorded[i], recorded[i].query);
    assert.ok(recorded.filter((a) => a.answers.default.results).length > 600, 'most recorded queries have results');
  });
});
