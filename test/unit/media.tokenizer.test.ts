// A build of the index from the store splits the words of its pages on another core (the
// tokenizer's thread) once it has more than a page of rows: the index it makes must be the one a
// build on this thread alone makes, term numbers included.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { generateInto, storeTarget } from '../../src/services/media/catalog/bulk.ts';
import { generatedCount } from '../../src/services/media/catalog/generator.ts';
import { MediaSearch } from '../../src/services/media/search/engine.ts';
import { SearchIndex } from '../../src/services/media/search/index.ts';
import { mediaQueryMix } from '../support/mediaQueryMix.ts';
import { type FixtureStore, openFixture } from './media.fixture.ts';

/** Everything of the index that the words decide: terms in number order, each term's postings (documents, frequencies, positions), titles, lengths. */
function words(index: SearchIndex) {
  const st = index.state();
  return {
    terms: st.strings.terms,
    postings: st.postings.map((p) => [Array.from(p.docs.subarray(0, p.n)), Array.from(p.tf.subarray(0, p.n)), Array.from(p.at.subarray(0, p.n)), Array.from(p.pos.subarray(0, p.posN))]),
    titles: st.strings.titles,
    lengths: Array.from(st.columns.docLen as Uint16Array),
    pairs: [...index.pairs.lists].map(([k, l]) => [k, Array.from(l.docs.subarray(0, l.n))]),
  };
}

/** Equal, or an assertion on the first part that differs (assert's diff of two whole indexes takes minutes). */
function assertSameWords(actual: ReturnType<typeof words>, expected: ReturnType<typeof words>, what: string) {
  for (const key of Object.keys(expected) as (keyof typeof expected)[]) {
    const a = actual[key] as unknown[];
    const e = expected[key] as unknown[];
    assert.equal(a.length, e.length, `${what}: ${key}`);
    const at = e.findIndex((x, i) => JSON.stringify(x) !== JSON.stringify(a[i]));
    if (at >= 0) assert.deepEqual(a[at], e[at], `${what}: ${key}[${at}]`);
  }
}

describe('media index build: words split on another core', () => {
  let f: FixtureStore;
  // a little over two pages of videos (a page is 5,000 rows)
  const VIDEOS = 11_000;
  const threads = () => process.getActiveResourcesInfo().filter((r) => r === 'MessagePort').length;
  const build = async (tokenizeAfter: number) => {
    const engine = new MediaSearch(f.store.db, { tokenizeAfter });
    // pairs of words in 500 documents or more (a million videos' default is 20,000)
    engine.tune({ pairMinDf: 500 });
    await engine.refresh();
    return engine;
  };
  before(async () => {
    f = await openFixture([]);
    await generateInto(storeTarget(f.store), { videos: VIDEOS, seed: 21 }, generatedCount(VIDEOS));
  });
  after(() => f.close());

  test('the index is the one this thread alone builds: from the first page, or after the first (the default)', async () => {
    const alone = await build(Infinity);
    const expected = words(alone.index);
    assert.ok(expected.terms.length > 5000 && expected.pairs.length > 0, `${expected.terms.length} terms`);
    const mix = await mediaQueryMix(f.store.db);
    const answers = [];
    for (const m of mix.slice(0, 200)) answers.push(await alone.search(m.q));
    for (const tokenizeAfter of [0, 5000]) {
      const split = await build(tokenizeAfter);
      assertSameWords(words(split.index), expected, `tokenizeAfter ${tokenizeAfter}`);
      for (const [i, m] of mix.slice(0, 200).entries()) assert.deepEqual(await split.search(m.q), answers[i]);
      await split.close();
    }
    await alone.close();
    // the threads ended with their builds
    assert.equal(threads(), 0);
  });

  test("a word the tokenizer numbers as new that the index knows is refused (the numbers would not be the index's)", () => {
    const index = new SearchIndex();
    index.registerTerms(['rock', 'music']);
    assert.deepEqual([...index.terms], [['rock', 0], ['music', 1]]);
    assert.throws(() => index.registerTerms(['jazz', 'rock']), /the tokenizer's word 'rock' is a known term/);
  });
});
