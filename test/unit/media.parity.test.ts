import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { generateInto, storeTarget } from '../../src/services/media/catalog/bulk.ts';
import { generatedCount } from '../../src/services/media/catalog/generator.ts';
import type { SearchQuery } from '../../src/services/media/catalog/types.ts';
import { setChampionParameters, setOrderedScanThreshold, strategyStats } from '../../src/services/media/search/evaluate.ts';
import { parseQuery } from '../../src/services/media/search/queryParser.ts';
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
    // small champion lists, so this small catalogue has some (the engine builds them at its first search)
    setChampionParameters(20, 64);
    f = await openFixture([]);
    await generateInto(storeTarget(f.store), { videos: VIDEOS, seed: 3 }, generatedCount(VIDEOS));
  });
  after(async () => {
    await f.close();
    setOrderedScanThreshold(20_000);
    setChampionParameters(2000, 1024);
  });

  test('walking in ranking order with early stop gives the same pages as scoring every candidate', async () => {
    let compared = 0;
    const fast = { champions: 0, deep: 0, walk: 0 };
    for (const q of queries()) {
      setOrderedScanThreshold(Infinity);
      const full = await f.media.engine.search(q);
      // 0: always walk in ranking order; 16: walks that give up early, then scans that skip candidates by their place
      for (const threshold of [0, 16]) {
        setOrderedScanThreshold(threshold);
        const before = { ...strategyStats };
        const walked = await f.media.engine.search(q);
        fast.champions += strategyStats.champions - before.champions;
        fast.deep += strategyStats.deep - before.deep;
        fast.walk += strategyStats.walk - before.walk;
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

  test('the same catalogue gives the same results on SQLite and PostgreSQL', { skip: !process.env.CLOUDTWIN_TEST_DATABASE_URL && 'CLOUDTWIN_TEST_DATABASE_URL is not set' }, async () => {
    setOrderedScanThreshold(20_000);
    const other = await openFixture([], f.url ? 'sqlite' : 'postgres');
    try {
      await generateInto(storeTarget(other.store), { videos: VIDEOS, seed: 3 }, generatedCount(VIDEOS));
      for (const q of queries()) assert.deepEqual(await other.media.engine.search(q), await f.media.engine.search(q), JSON.stringify(q));
    } finally {
      await other.close();
    }
  });
});
