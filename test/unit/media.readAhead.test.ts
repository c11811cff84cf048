// Reading ahead (search/readAhead.ts) only reads: on a catalogue large enough for dense lists
// (terms in at least 4,096 documents) and bucket tables, the strategies that read ahead (champion
// lists, deep lists, walks in ranking order, scans) give the pages that scoring every candidate
// gives, for the whole bench:media query mix.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { generateInto, storeTarget } from '../../src/services/media/catalog/bulk.ts';
import { generatedCount } from '../../src/services/media/catalog/generator.ts';
import type { SearchPool } from '../../src/services/media/search/searchPool.ts';
import { planSearch } from '../../src/services/media/search/plan.ts';
import { parseQuery } from '../../src/services/media/search/queryParser.ts';
import { readerAhead } from '../../src/services/media/search/readAhead.ts';
import { describeMixQuery, mediaQueryMix } from '../support/mediaQueryMix.ts';
import { type FixtureStore, openFixture, query } from './media.fixture.ts';

const VIDEOS = 9000;
const FAST = { orderedScanMin: 16, championMinDf: 20, champions: 64 };

describe('media search: reading ahead', () => {
  let f: FixtureStore;
  before(async () => {
    f = await openFixture([]);
    await generateInto(storeTarget(f.store), { videos: VIDEOS, seed: 11 }, generatedCount(VIDEOS));
  });
  after(() => f.close());
  const engine = () => (f.media.engine as SearchPool).engine;

  test('a frequent term beside another has a dense list to read ahead in; reading moves no cursor', async () => {
    await engine().search(query({ q: parseQuery('the') }));
    const p = planSearch(engine().index, query({ q: parseQuery('music the'), order: 'relevance' }))!;
    const the = p.required[1].lists[0];
    assert.ok(the.dense, "'the' is in enough documents for a dense list");
    const candidates = p.required[0].lists[0].docs;
    const read = readerAhead(p, { records: true, beside: 0, seeks: true });
    assert.ok(read);
    for (let i = 0; i < candidates.length; i += 16) read(candidates, i, candidates.length);
    assert.deepEqual(
      p.required.flatMap((r) => r.lists.map((l) => l.pos)),
      p.required.flatMap((r) => r.lists.map(() => 0)),
    );
    assert.equal(readerAhead({ ...p, required: [p.required[0]] }, { records: false, beside: 0, seeks: true }), undefined, 'nothing to read: none');
  });

  test('every strategy gives the page that scoring every candidate gives', async () => {
    const e = engine();
    const mix = await mediaQueryMix(f.store.db, 12);
    const used = { champions: 0, deep: 0, walk: 0, scan: 0 };
    for (const { q } of mix) {
      e.tune({ orderedScanMin: Infinity });
      const full = await e.search(q);
      e.tune(FAST);
      const before = { ...e.index.stats };
      const fast = await e.search(q);
      for (const k of Object.keys(used) as (keyof typeof used)[]) used[k] += e.index.stats[k] - before[k];
      const what = describeMixQuery(q);
      assert.deepEqual(fast.hits, full.hits, what);
      assert.equal(fast.hasMore, full.hasMore, what);
    }
    assert.ok(Object.values(used).every((n) => n > 5), `every strategy answered: ${JSON.stringify(used)}`);
    assert.ok(e.index.dense.size > 0, 'dense lists were searched');
  });
});
