/**
 * A build from the store adds postings through a block (search/postingBlock.ts): the terms' lists
 * (documents, frequencies, position starts and positions) come out exactly as when each
 * document's postings are added to them one by one, whatever the block size, and documents
 * added one by one after a bulk load continue the same lists.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { generateInto, storeTarget } from '../../src/services/media/catalog/bulk.ts';
import { generatedCount } from '../../src/services/media/catalog/generator.ts';
import type { MediaKind } from '../../src/services/media/catalog/types.ts';
import { type IndexRow, SearchIndex } from '../../src/services/media/search/index.ts';
import { words } from '../../src/services/media/search/text.ts';
import { type FixtureStore, fixtureEntries, openFixture } from './media.fixture.ts';

const VIDEOS = 800;

/** The catalogue's rows in the order a build reads them. */
async function rowsOf(f: FixtureStore): Promise<[MediaKind, IndexRow][]> {
  const out: [MediaKind, IndexRow][] = [];
  for (const [kind, table] of [['channel', 'media_channels'], ['video', 'media_videos'], ['playlist', 'media_playlists']] as const) {
    const rows = await f.store.db.selectFrom(table).select(['id', 'channel_id', 'published_at', 'title', 'description', 'search_text', 'attrs']).orderBy('seq').orderBy('id').execute();
    for (const r of rows) out.push([kind, { ...r, published_at: Number(r.published_at) } as IndexRow]);
  }
  return out;
}

/** Every term's list, as plain arrays cut to their length. */
function lists(index: SearchIndex) {
  return index.postings.map((p) => ({ docs: [...p.docs.subarray(0, p.n)], tf: [...p.tf.subarray(0, p.n)], at: [...p.at.subarray(0, p.n)], pos: [...p.pos.subarray(0, p.posN)] }));
}

describe('media search: postings added in blocks are the postings added document by document', () => {
  let f: FixtureStore;
  let rows: [MediaKind, IndexRow][];
  let oneByOne: ReturnType<typeof lists>;

  before(async () => {
    f = await openFixture(fixtureEntries());
    await generateInto(storeTarget(f.store), { videos: VIDEOS, seed: 11 }, generatedCount(VIDEOS));
    rows = await rowsOf(f);
    const index = new SearchIndex();
    for (const [kind, row] of rows) index.upsert(kind, row);
    index.trim();
    oneByOne = lists(index);
    assert.ok(oneByOne.length > 500 && rows.length > VIDEOS, `${oneByOne.length} terms, ${rows.length} rows`);
  });
  after(() => f.close());

  for (const block of [64, 1000, 1 << 20]) {
    test(`blocks of ${block} entries`, () => {
      const index = new SearchIndex();
      index.beginBulk(block);
      for (const [kind, row] of rows) index.upsert(kind, row);
      index.endBulk();
      index.trim();
      assert.deepEqual(lists(index), oneByOne);
    });
  }

  test('documents added one by one after a bulk load of the first half', () => {
    const index = new SearchIndex();
    const half = rows.length >> 1;
    index.beginBulk(256);
    for (const [kind, row] of rows.slice(0, half)) index.upsert(kind, row);
    index.endBulk();
    for (const [kind, row] of rows.slice(half)) index.upsert(kind, row);
    index.trim();
    assert.deepEqual(lists(index), oneByOne);
  });

  test('a document with more positions than a small block holds: the block grows for it', () => {
    // documents of few terms, and one of a single word at every position (251: 4 per entry of a block of 40 is 160)
    const few = rows.filter(([, r]) => new Set([...words(r.title), ...words(r.search_text), ...words(r.description)]).size < 30);
    const [kind, row] = few.find(([k]) => k === 'video')!;
    const one = 'la '.repeat(100);
    const repeated: [MediaKind, IndexRow][] = [...few.slice(0, 40), [kind, { ...row, id: 'repeated01', title: one, search_text: one, description: one }], ...few.slice(40, 80)];
    assert.ok(repeated.length > 60);
    const build = (block?: number) => {
      const index = new SearchIndex();
      if (block) index.beginBulk(block);
      for (const [k, r] of repeated) index.upsert(k, r);
      index.endBulk();
      index.trim();
      return lists(index);
    };
    assert.deepEqual(build(40), build());
  });

  test('a document with more terms than a block holds is refused, not cut', () => {
    const index = new SearchIndex();
    index.beginBulk(2);
    const [kind, row] = rows.find(([, r]) => r.title.split(' ').length > 3)!;
    assert.throws(() => index.upsert(kind, row), /does not fit a posting block of 2/);
  });
});
