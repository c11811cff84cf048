// The cache of recent hits (search/hitCache.ts): a document's hit is made once and shared by the
// results that show it, for one state of the index; any catch-up (a write, by any process) makes
// every hit again, so a result never shows a title or channel title from before a write.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { SearchHit } from '../../src/services/media/catalog/types.ts';
import { MediaSearch } from '../../src/services/media/search/engine.ts';
import { HitCache } from '../../src/services/media/search/hitCache.ts';
import { parseQuery } from '../../src/services/media/search/queryParser.ts';
import { CH_BIG, channel, type FixtureStore, load, openFixture, query, video } from './media.fixture.ts';

const hit = (id: string): SearchHit => ({ kind: 'video', id, publishedAt: 0, channelId: 'UC', channelTitle: 'c', title: id, description: '', liveBroadcastContent: 'none' });

describe('HitCache', () => {
  test('a document is made once per state, in its slot until another document of the slot is made', () => {
    const cache = new HitCache(4);
    const made: number[] = [];
    const make = (d: number) => (made.push(d), hit(`v${d}`));
    cache.validFor(2);
    assert.equal(cache.has(1), false);
    const first = cache.hitOf(1, make);
    assert.equal(cache.has(1), true);
    assert.equal(cache.hitOf(1, make), first, 'the same object, not made again');
    assert.deepEqual(made, [1]);
    // 5 & 3 === 1: the same slot, which it takes
    assert.equal(cache.hitOf(5, make).id, 'v5');
    assert.equal(cache.has(1), false);
    assert.notEqual(cache.hitOf(1, make), first, 'made again after its slot was taken');
    assert.deepEqual(made, [1, 5, 1]);
    assert.deepEqual(cache.stats, { found: 1, made: 3 });
    cache.validFor(2);
    cache.hitOf(1, make);
    assert.deepEqual(made, [1, 5, 1], 'the same state keeps its entries');
    cache.validFor(4);
    cache.hitOf(1, make);
    assert.deepEqual(made, [1, 5, 1, 1], 'another state empties the cache');
  });

  test('size 0 keeps nothing, nor a cache not yet given a state; a size that is not a power of two is refused', () => {
    const cache = new HitCache(0);
    cache.validFor(0);
    let made = 0;
    const make = (d: number) => (made++, hit(`v${d}`));
    cache.hitOf(3, make);
    cache.hitOf(3, make);
    assert.equal(made, 2);
    assert.equal(cache.has(3), false);
    assert.deepEqual(cache.stats, { found: 0, made: 0 });
    assert.throws(() => new HitCache(6), /power of two/);
    const unstamped = new HitCache(4);
    unstamped.hitOf(3, make);
    unstamped.hitOf(3, make);
    assert.equal(made, 4, 'before its first state, nothing is kept');
    assert.equal(unstamped.has(3), false);
  });
});

describe('media search: hits shared between results, made again after a write', () => {
  let f: FixtureStore;
  let engine: MediaSearch;
  const rock = query({ q: parseQuery('rock'), order: 'date', limit: 3 });
  before(async () => {
    f = await openFixture();
    engine = new MediaSearch(f.store.db);
  });
  after(() => f.close());

  test('the same document in two results is one hit', async () => {
    const a = await engine.search(rock);
    const found = engine.hitCacheStats.found;
    const b = await engine.search(rock);
    assert.equal(b.hits[0].id, 'vidSydney01');
    assert.equal(b.hits[0], a.hits[0]);
    assert.equal(engine.hitCacheStats.found - found, b.hits.length);
  });

  test("a channel's new title shows in the next result of a video it holds", async () => {
    const before = (await engine.search(rock)).hits[0];
    assert.equal(before.channelTitle, 'Big Music Channel');
    await load(f.store, [channel(CH_BIG, 'Bigger Music Channel', { videoCount: 9, contentOwner: 'partner01', day: 2 })]);
    const after = (await engine.search(rock)).hits[0];
    assert.equal(after.id, 'vidSydney01');
    assert.equal(after.channelTitle, 'Bigger Music Channel');
    assert.notEqual(after, before);
  });

  test("a video's new title shows in the next result", async () => {
    await load(f.store, [video('vidSydney01', 'Rock in Sydney tonight', { location: [-33.8688, 151.2093], day: 140 })]);
    const r = await engine.search(rock);
    assert.equal(r.hits[0].id, 'vidSydney01');
    assert.equal(r.hits[0].title, 'Rock in Sydney tonight');
  });

  test('an engine made with hitCache: 0 makes every hit', async () => {
    const uncached = new MediaSearch(f.store.db, { hitCache: 0 });
    const a = await uncached.search(rock);
    const b = await uncached.search(rock);
    assert.deepEqual(b.hits, a.hits);
    assert.notEqual(b.hits[0], a.hits[0]);
    assert.deepEqual(uncached.hitCacheStats, { found: 0, made: 0 });
  });
});
