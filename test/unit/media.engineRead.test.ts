// A search is made while its version read is on its way, then kept only when the read shows the
// index was current: a write committed before the search was called must be in its results even
// when the search was first made on the index without it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Kysely } from 'kysely';
import type { Database } from '../../src/platform/store/schema.ts';
import { MediaSearch } from '../../src/services/media/search/engine.ts';
import { parseQuery } from '../../src/services/media/search/queryParser.ts';
import { type FixtureStore, load, openFixture, query, video } from './media.fixture.ts';

/** The store with every version read (the engine's only `executeQuery`) answered 20 ms late, as from a store across a slow network. */
function slowVersionReads(db: Kysely<Database>): Kysely<Database> {
  return new Proxy(db, {
    get(target, prop) {
      if (prop === 'executeQuery') return async (q: Parameters<typeof target.executeQuery>[0]) => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        return target.executeQuery(q);
      };
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

describe('media search: searches made before their version read', () => {
  let f: FixtureStore;
  let engine: MediaSearch;
  const rockByDate = query({ q: parseQuery('rock'), order: 'date', limit: 3 });
  const evaluations = () => Object.values(engine.index.stats).reduce((a, b) => a + b, 0);
  before(async () => {
    f = await openFixture();
    engine = new MediaSearch(slowVersionReads(f.store.db));
    await engine.search(rockByDate);
  });
  after(() => f.close());

  test('with no write since, the search made before the read is the answer (made once)', async () => {
    const made = evaluations();
    const r = await engine.search(rockByDate);
    assert.equal(r.hits[0].id, 'vidSydney01');
    assert.equal(evaluations() - made, 1);
  });

  test('a write committed before the call is found: the search made on the older index is made again', async () => {
    await load(f.store, [video('vidNewRock1', 'Rock news tonight', { day: 200 })]);
    const made = evaluations();
    const r = await engine.search(rockByDate);
    assert.deepEqual(r.hits.map((h) => h.id).slice(0, 2), ['vidNewRock1', 'vidSydney01']);
    assert.equal(evaluations() - made, 2, 'made before the read (without the new video), then again after the catch-up');
  });

  test('concurrent searches of one turn share one read and all see the write', async () => {
    await load(f.store, [video('vidNewRock2', 'Rock news at dawn', { day: 210 })]);
    const all = await Promise.all(Array.from({ length: 8 }, () => engine.search(rockByDate)));
    for (const r of all) assert.equal(r.hits[0].id, 'vidNewRock2');
  });
});
