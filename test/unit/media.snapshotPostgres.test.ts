/**
 * The media index snapshot on PostgreSQL: kept in the server's data directory (`snapshotDir`),
 * one file per server/database/schema, so a restart loads it instead of building the index from
 * every catalogue row, and catches up what other processes wrote meanwhile.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Store } from '../../src/platform/store/store.ts';
import { generateInto, storeTarget } from '../../src/services/media/catalog/bulk.ts';
import { generatedCount } from '../../src/services/media/catalog/generator.ts';
import { createMediaCatalog } from '../../src/services/media/catalog/index.ts';
import type { SearchPool } from '../../src/services/media/search/searchPool.ts';
import { parseQuery } from '../../src/services/media/search/queryParser.ts';
import { TEST_STORE, type TestDatabase, freshDatabase } from '../support/store.ts';
import { fixtureEntries, load, query, video } from './media.fixture.ts';

const VIDEOS = 600;
const QUERIES = [undefined, 'the', 'music best', '"the best"'].map((q) => query({ q: q === undefined ? undefined : parseQuery(q), order: 'relevance', limit: 20 }));

describe('media index snapshot on PostgreSQL, in the data directory', { skip: TEST_STORE !== 'postgres' && 'PostgreSQL only (CLOUDTWIN_TEST_STORE=postgres)' }, () => {
  let db: TestDatabase;
  let other: TestDatabase;
  let dir: string;
  const open = async (url = db.url) => {
    const store = await Store.open({ databaseUrl: url });
    const media = createMediaCatalog(store, { snapshotDir: dir });
    const engine = (media.engine as SearchPool).engine;
    return {
      store,
      engine,
      answers: async () => Promise.all(QUERIES.map((q) => media.engine.search(q))),
      close: async () => {
        await media.close();
        await store.close();
      },
    };
  };

  before(async () => {
    db = await freshDatabase();
    other = await freshDatabase();
    dir = mkdtempSync(join(tmpdir(), 'media-pg-snapshot-'));
    for (const [url, videos] of [[db.url, VIDEOS], [other.url, 50]] as const) {
      const store = await Store.open({ databaseUrl: url });
      await generateInto(storeTarget(store), { videos, seed: 9 }, generatedCount(videos));
      await load(store, fixtureEntries());
      await store.close();
    }
  });
  after(async () => {
    await db?.drop();
    await other?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('the first start builds and saves; a restart loads the snapshot, reads no row and answers alike', async () => {
    const first = await open();
    const expected = await first.answers();
    await first.engine.saved();
    assert.deepEqual({ builds: first.engine.stats.fullBuilds, saves: first.engine.stats.snapshotSaves }, { builds: 1, saves: 1 });
    await first.close();
    const files = readdirSync(dir);
    assert.equal(files.length, 1, files.join(', '));
    assert.match(files[0], /^cloudtwin\.media-index\.pg-[0-9a-f]{16}$/);

    const again = await open();
    assert.deepEqual(await again.answers(), expected);
    const s = again.engine.stats;
    assert.deepEqual({ loads: s.snapshotLoads, builds: s.fullBuilds, rows: s.rowsLoaded }, { loads: 1, builds: 0, rows: 0 });
    await again.close();
  });

  test('what another process wrote since is caught up on top of the snapshot', async () => {
    const writer = await Store.open({ databaseUrl: db.url });
    await load(writer, [video('vidpgsnapshot0001', 'Quokka written while it was down', { day: 300, views: 3 })]);
    await writer.close();
    const later = await open();
    assert.deepEqual((await later.engine.search(query({ q: parseQuery('quokka') }))).hits.map((h) => h.id), ['vidpgsnapshot0001']);
    const s = later.engine.stats;
    assert.ok(s.snapshotLoads === 1 && s.fullBuilds === 0 && s.rowsLoaded >= 1 && s.rowsLoaded < 50, JSON.stringify(s));
    await later.close();
  });

  test('another schema sharing the data directory keeps a snapshot of its own', async () => {
    const elsewhere = await open(other.url);
    await elsewhere.answers();
    await elsewhere.engine.saved();
    await elsewhere.close();
    assert.equal(readdirSync(dir).filter((f) => f.startsWith('cloudtwin.media-index.pg-')).length, 2);
    // and the first schema still loads its own
    const back = await open();
    await back.answers();
    assert.equal(back.engine.stats.snapshotLoads, 1);
    await back.close();
  });
});
