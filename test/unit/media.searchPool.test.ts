// `--media-search-threads 2` (search/searchPool.ts): a second engine on a thread of its own, on
// the same store, answers searches too. Whichever engine answers, the answer must be the one this
// thread's engine gives, must show every write made before the search came, and no search may be
// lost when the thread ends.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Store } from '../../src/platform/store/store.ts';
import { generateInto, storeTarget } from '../../src/services/media/catalog/bulk.ts';
import { generatedCount } from '../../src/services/media/catalog/generator.ts';
import { parseQuery } from '../../src/services/media/catalog/index.ts';
import { SearchPool } from '../../src/services/media/search/searchPool.ts';
import { resultMessage, resultOf } from '../../src/services/media/search/resultMessage.ts';
import { mediaQueryMix } from '../support/mediaQueryMix.ts';
import { CH_BIG, channel, type FixtureStore, load, openFixture, query, video } from './media.fixture.ts';

const VIDEOS = 3000;
const workerThreads = () => process.getActiveResourcesInfo().filter((r) => r === 'MessagePort').length;

describe('media search on two threads', () => {
  let f: FixtureStore;
  let dir: string;
  let pool: SearchPool;
  const open = (threads: 1 | 2 = 2) => new SearchPool(f.store, { snapshotFile: join(dir, 'cloudtwin.media-index'), threads });
  before(async () => {
    f = await openFixture([]);
    dir = mkdtempSync(join(tmpdir(), 'media-pool-'));
    await generateInto(storeTarget(f.store), { videos: VIDEOS, seed: 5 }, generatedCount(VIDEOS));
    pool = open();
    await pool.refresh();
    assert.equal(await pool.whenThreaded(), true);
  });
  after(async () => {
    await pool.close();
    await f.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("the thread answers the whole query mix as this thread's engine does", async () => {
    const mix = await mediaQueryMix(f.store.db);
    const given = pool.threadStats.thread;
    for (const m of mix) assert.deepEqual(await pool.searchOnThread(m.q), await pool.engine.search(m.q), JSON.stringify(m.q));
    assert.equal(pool.threadStats.thread - given, mix.length);
    // none of them was made here instead (a failed search on the thread is)
    assert.equal(pool.threadStats.here, 0);
  });

  test('concurrent searches go to both engines, answered alike; a lone search is made here', async () => {
    const mix = (await mediaQueryMix(f.store.db)).slice(0, 64);
    const expected = await Promise.all(mix.map((m) => pool.engine.search(m.q)));
    const before = { ...pool.threadStats };
    assert.deepEqual(await Promise.all(mix.map((m) => pool.search(m.q))), expected);
    assert.ok(pool.threadStats.thread > before.thread && pool.threadStats.here > before.here, JSON.stringify(pool.threadStats));
    const lone = { ...pool.threadStats };
    await pool.search(mix[0].q);
    assert.deepEqual(pool.threadStats, { ...lone, here: lone.here + 1 });
  });

  test('a write is found by the next search, whichever engine makes it', async () => {
    await load(f.store, [channel(CH_BIG, 'Big Music Channel', { videoCount: 1 }), video('vidPoolA001', 'Zanzibarian ukulele marathon', { views: 10 })]);
    const q = query({ q: parseQuery('zanzibarian') });
    assert.deepEqual((await pool.searchOnThread(q)).hits.map((h) => h.id), ['vidPoolA001']);
    assert.deepEqual((await pool.engine.search(q)).hits.map((h) => h.id), ['vidPoolA001']);
    await load(f.store, [video('vidPoolA001', 'Ordinary ukulele marathon', { views: 10 })]);
    assert.deepEqual((await pool.searchOnThread(q)).hits, []);
    assert.deepEqual((await pool.searchOnThread(query({ q: parseQuery('ordinary ukulele') }))).hits.map((h) => h.id), ['vidPoolA001']);
  });

  test('a new catalogue (the old one wiped) replaces the thread with one that loads the new snapshot', async () => {
    const started = pool.threadStats.started;
    for (const table of ['media_resources', 'media_playlists', 'media_videos', 'media_channels', 'media_meta'] as const) await f.store.db.deleteFrom(table).execute();
    await load(f.store, [channel(CH_BIG, 'Big Music Channel', { videoCount: 1 }), video('vidPoolB001', 'Quetzalcoatl origami tutorial')]);
    const q = query({ q: parseQuery('quetzalcoatl') });
    // made here: the catalogue is built again, then the thread is replaced
    assert.deepEqual((await pool.search(q)).hits.map((h) => h.id), ['vidPoolB001']);
    await pool.search(q);
    assert.equal(await pool.whenThreaded(), true);
    assert.equal(pool.threadStats.started, started + 1);
    assert.equal(pool.threadStats.failed, 0);
    assert.deepEqual((await pool.searchOnThread(q)).hits.map((h) => h.id), ['vidPoolB001']);
    assert.deepEqual((await pool.searchOnThread(query({ q: parseQuery('ukulele') }))).hits, []);
  });

  test('searches under way on the thread when it ends are made here: none is lost', async () => {
    const other = open();
    await other.refresh();
    assert.equal(await other.whenThreaded(), true);
    const q = query({ q: parseQuery('origami') });
    const expected = await other.engine.search(q);
    const searches = Array.from({ length: 8 }, () => other.searchOnThread(q));
    const closed = other.close();
    for (const r of await Promise.all(searches)) assert.deepEqual(r, expected);
    await closed;
    assert.equal(other.threaded, false);
    // after close, searches are made here
    assert.deepEqual(await other.searchOnThread(q), expected);
  });

  test('one thread (the default) starts none; an in-memory store cannot have two', async () => {
    const before = workerThreads();
    const one = open(1);
    await one.refresh();
    assert.equal(await one.whenThreaded(), false);
    assert.equal(workerThreads(), before);
    assert.ok((await Promise.all(Array.from({ length: 8 }, () => one.search(query())))).every((r) => r.hits.length > 0));
    assert.equal(one.threadStats.thread, 0);
    await one.close();
    const memory = await Store.open({});
    try {
      assert.equal(memory.shareable, undefined);
      assert.throws(() => new SearchPool(memory, { threads: 2 }), /in-memory store has no second connection/);
    } finally {
      await memory.close();
    }
  });
});

test('a result crosses threads unchanged: every field, non-Latin-1 text, a lone surrogate, empty strings', () => {
  const hits = [
    { kind: 'video', id: 'vid00000001', publishedAt: 1_700_000_000_123, channelId: 'UCxxxxxxxxxxxxxxxxxxxxx1', channelTitle: 'Ch', title: 'Crème brûlée 🎸', description: '', liveBroadcastContent: 'live' },
    { kind: 'channel', id: 'UCyyyyyyyyyyyyyyyyyyyyy2', publishedAt: 0, channelId: 'UCyyyyyyyyyyyyyyyyyyyyy2', channelTitle: 'Новости', title: '', description: 'half \ud800 a pair', liveBroadcastContent: 'none' },
    { kind: 'playlist', id: 'PL3', publishedAt: -86_400_000, channelId: '', channelTitle: '', title: '日本語のタイトル', description: 'x'.repeat(5000), liveBroadcastContent: 'upcoming' },
  ] as const;
  const result = { hits: hits.map((h) => ({ ...h })), totalResults: 123456, hasMore: true };
  const message = resultMessage(result);
  assert.deepEqual(resultOf(structuredClone(message, { transfer: [message.text] })), result);
  assert.deepEqual(resultOf(resultMessage({ hits: [], totalResults: 0, hasMore: false })), { hits: [], totalResults: 0, hasMore: false });
});
