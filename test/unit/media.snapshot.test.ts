import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { generateInto, storeTarget } from '../../src/services/media/catalog/bulk.ts';
import { generatedCount } from '../../src/services/media/catalog/generator.ts';
import type { SearchQuery } from '../../src/services/media/catalog/types.ts';
import { MediaSearch } from '../../src/services/media/search/engine.ts';
import type { SearchTuning } from '../../src/services/media/search/index.ts';
import { parseQuery } from '../../src/services/media/search/queryParser.ts';
import type { SearchPool } from '../../src/services/media/search/searchPool.ts';
import { type FixtureStore, fixtureEntries, load, openFixture, query, video } from './media.fixture.ts';

const VIDEOS = 1200;
const engineOf = (f: FixtureStore) => (f.media.engine as SearchPool).engine;

function queries(): SearchQuery[] {
  const out: SearchQuery[] = [];
  for (const text of [undefined, 'the', 'music best', 'best|video', 'the -music', '"the best"', '音楽'])
    for (const order of ['relevance', 'date', 'title', 'viewCount'] as const) out.push(query({ q: text === undefined ? undefined : parseQuery(text), order, limit: 20, offset: order === 'date' ? 40 : 0 }));
  out.push(query({ types: ['video'], videoDuration: 'medium', regionCode: 'DE', order: 'relevance' }));
  out.push(query({ types: ['video'], location: { lat: 40.7128, lng: -74.006, radiusMeters: 60_000 } }));
  out.push(query({ types: ['channel'], order: 'videoCount' }));
  return out;
}

async function answers(f: FixtureStore) {
  const out = [];
  for (const q of queries()) out.push(await f.media.engine.search(q));
  return out;
}

describe('media search index snapshot: a restart loads the saved index instead of building it', () => {
  let f: FixtureStore;
  let first: Awaited<ReturnType<typeof answers>>;
  before(async () => {
    f = await openFixture([]);
    await generateInto(storeTarget(f.store), { videos: VIDEOS, seed: 5 }, generatedCount(VIDEOS));
    await load(f.store, fixtureEntries());
    first = await answers(f);
    await engineOf(f).saved();
  });
  after(() => f.close());

  test('the first start builds the index from the store; SQLite saves it next to the database, PostgreSQL does not', () => {
    const s = engineOf(f).stats;
    assert.equal(s.fullBuilds, 1);
    assert.equal(s.snapshotLoads, 0);
    assert.ok(s.rowsLoaded > VIDEOS);
    if (f.dataDir) {
      assert.equal(s.snapshotSaves, 1);
      assert.ok(existsSync(join(f.dataDir, 'cloudtwin.media-index')));
      assert.equal(statSync(join(f.dataDir, 'cloudtwin.media-index')).mode & 0o777, 0o600, 'private, like the database');
      assert.deepEqual(readdirSync(f.dataDir).filter((n) => n.endsWith('.tmp')), [], 'no temporary file left');
    } else assert.equal(s.snapshotSaves, 0);
  });

  test('a restart answers every query exactly as before; on SQLite without reading a single row', async () => {
    f = await f.reopen();
    const again = await answers(f);
    assert.deepEqual(again, first);
    const s = engineOf(f).stats;
    if (f.dataDir) assert.deepEqual({ loads: s.snapshotLoads, builds: s.fullBuilds, rows: s.rowsLoaded }, { loads: 1, builds: 0, rows: 0 });
    else assert.equal(s.fullBuilds, 1);
  });

  test('changes written while it was down (or by another process) are caught up on top of the snapshot', async () => {
    f = await f.reopen();
    await load(f.store, [video('vidsnapsnapsnap01', 'Zyzzyva snapshot catchup', { day: 400, views: 5 })]);
    const r = await f.media.engine.search(query({ q: parseQuery('zyzzyva') }));
    assert.deepEqual(r.hits.map((h) => h.id), ['vidsnapsnapsnap01']);
    const s = engineOf(f).stats;
    // only the rows that write touched (the video, and what it updates), not the catalogue
    if (f.dataDir) assert.ok(s.snapshotLoads === 1 && s.fullBuilds === 0 && s.rowsLoaded >= 1 && s.rowsLoaded < 50, JSON.stringify(s));
    // after that change, the rest still answers as the store says
    const again = await answers(f);
    assert.equal(again.length, first.length);
    // and a later process that loads the (older) snapshot catches up the same change
    f = await f.reopen();
    assert.deepEqual((await f.media.engine.search(query({ q: parseQuery('zyzzyva') }))).hits.map((h) => h.id), ['vidsnapsnapsnap01']);
    if (f.dataDir) assert.ok(engineOf(f).stats.snapshotLoads === 1 && engineOf(f).stats.rowsLoaded === s.rowsLoaded, JSON.stringify(engineOf(f).stats));
  });

  test('the champion lists are saved with it: a restart with the same tuning uses them, another tuning makes them again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'media-snapshot-'));
    try {
      const snapshotFile = join(dir, 'cloudtwin.media-index');
      // small lists at this size (the default needs a term in 2,000 documents), pairs too
      const tuning = { championMinDf: 30, champions: 16, pairMinDf: 40 };
      const start = async (t: Partial<SearchTuning>, file?: string) => {
        const e = new MediaSearch(f.store.db, { snapshotFile: file });
        e.tune(t);
        await e.refresh();
        await e.saved();
        return e;
      };
      const lists = (e: MediaSearch) => ({ terms: [...e.index.champions].sort(), pairs: [...e.index.pairChampions].sort() });
      const built = await start(tuning, snapshotFile);
      assert.ok(built.index.champions.size >= 10 && built.index.pairChampions.size >= 3, `${built.index.champions.size} terms, ${built.index.pairChampions.size} pairs`);
      const loaded = await start(tuning, snapshotFile);
      assert.equal(loaded.stats.snapshotLoads, 1);
      assert.deepEqual(lists(loaded), lists(built));
      // used as the file has them, not made again: every list is a view on the bytes the file was read into
      const buffers = new Set([...loaded.index.champions.values(), ...[...loaded.index.pairChampions.values()].map((p) => p?.champ)].map((c) => c?.docs.buffer));
      assert.equal(buffers.size, 1);
      for (const q of queries()) assert.deepEqual(await loaded.search(q), await built.search(q));
      // lists of another size, as a build with that tuning makes them
      const other = { ...tuning, champions: 8 };
      const reloaded = await start(other, snapshotFile);
      assert.equal(reloaded.stats.snapshotLoads, 1);
      assert.deepEqual(lists(reloaded), lists(await start(other)));
      assert.ok([...reloaded.index.champions.values()].every((c) => c === null || c.docs.length <= 8));
      for (const e of [built, loaded, reloaded]) await e.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a damaged or truncated snapshot is ignored: the index is built from the store, results unchanged', async (t) => {
    if (!f.dataDir) return t.skip('SQLite only (PostgreSQL keeps no snapshot)');
    const file = join(f.dataDir, 'cloudtwin.media-index');
    const good = readFileSync(file);
    let expected: Awaited<ReturnType<typeof answers>> | undefined;
    for (const damaged of [Buffer.from('not a snapshot'), good.subarray(0, good.length >> 1), Buffer.concat([good.subarray(0, 100), Buffer.alloc(64, 0xff), good.subarray(164)])]) {
      await engineOf(f).saved();
      await f.media.close();
      writeFileSync(file, damaged);
      f = await f.reopen();
      // every damaged file gives what a build from the store gives
      const got = await answers(f);
      if (expected) assert.deepEqual(got, expected);
      expected = got;
      assert.deepEqual({ loads: engineOf(f).stats.snapshotLoads, builds: engineOf(f).stats.fullBuilds }, { loads: 0, builds: 1 });
      await engineOf(f).saved();
    }
    // the rebuild saved a good snapshot again
    f = await f.reopen();
    assert.deepEqual(await answers(f), expected);
    assert.equal(engineOf(f).stats.snapshotLoads, 1);
  });

  test('a snapshot of another format (an older release layout) is not used: the index is built from the store, results unchanged', async (t) => {
    if (!f.dataDir) return t.skip('SQLite only (PostgreSQL keeps no snapshot)');
    const file = join(f.dataDir, 'cloudtwin.media-index');
    await engineOf(f).saved();
    const expected = await answers(f);
    await f.media.close();
    // the same file with an older format number in its header, its checksum made again (so only the format differs)
    const good = readFileSync(file);
    const trailer = 32 + 16 + 8;
    const body = good.length - trailer;
    const [headerAt, headerLength] = new Float64Array(good.buffer.slice(good.byteOffset + body + 32, good.byteOffset + body + 48));
    const header = good.toString('utf8', headerAt, headerAt + headerLength);
    const format = /"format":(\d+)/.exec(header)!;
    assert.ok(Number(format[1]) >= 3, `the format: ${format[1]}`);
    const older = Buffer.from(good);
    older.write(header.replace(format[0], '"format":2'), headerAt, 'utf8');
    createHash('sha256').update(older.subarray(0, body)).digest().copy(older, body);
    writeFileSync(file, older);
    f = await f.reopen();
    assert.deepEqual(await answers(f), expected);
    assert.deepEqual({ loads: engineOf(f).stats.snapshotLoads, builds: engineOf(f).stats.fullBuilds }, { loads: 0, builds: 1 });
    // and saved in the current format again
    await engineOf(f).saved();
    assert.equal(engineOf(f).stats.snapshotSaves, 1);
  });
});
