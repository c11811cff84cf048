import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { prng } from '../../src/services/media/catalog/generator.ts';
import type { SearchQuery } from '../../src/services/media/catalog/types.ts';
import { MediaSearch } from '../../src/services/media/search/engine.ts';
import type { Champion } from '../../src/services/media/search/index.ts';
import { PairIndex } from '../../src/services/media/search/pairs.ts';
import { buildChampions } from '../../src/services/media/search/topDocuments.ts';
import { parseQuery } from '../../src/services/media/search/queryParser.ts';
import { CH_BIG, fixtureEntries, type FixtureStore, load, openFixture, query, video } from './media.fixture.ts';

/**
 * Phrases are answered from positional postings and, for two frequent words, from the pair
 * index: on a catalogue of few words (so most phrases are frequent), every phrase must give
 * what a check of each video's words gives, whether its pairs are indexed or not, and after
 * videos are added to an index whose pairs were built (they are indexed as they come).
 */

const WORDS = ['la', 'el', 'the', 'best', 'music', 'la', 'the', 'rock'];

interface Fields {
  title: string[];
  tags: string[];
  description: string[];
}

function videos(from: number, count: number, seed: number): { entries: Record<string, unknown>[]; fields: Map<string, Fields> } {
  const rand = prng(seed);
  const pickWords = (max: number) => Array.from({ length: 1 + Math.floor(rand() * max) }, () => WORDS[Math.floor(rand() * WORDS.length)]);
  const entries: Record<string, unknown>[] = [];
  const fields = new Map<string, Fields>();
  for (let i = from; i < from + count; i++) {
    const id = `vidphrase${String(i).padStart(3, '0')}`;
    const f = { title: pickWords(6), tags: rand() < 0.5 ? pickWords(3) : [], description: rand() < 0.7 ? pickWords(60) : [] };
    fields.set(id, f);
    entries.push(video(id, f.title.join(' '), { channelId: CH_BIG, tags: f.tags, description: f.description.join(' '), day: i }));
  }
  return { entries, fields };
}

/** Whether a field's words hold the phrase (descriptions are searched in their first 48 words). */
function holds(words: string[], phrase: string[]): boolean {
  outer: for (let i = 0; i + phrase.length <= words.length; i++) {
    for (let j = 0; j < phrase.length; j++) if (words[i + j] !== phrase[j]) continue outer;
    return true;
  }
  return false;
}

function expected(fields: Map<string, Fields>, phrase: string[]): string[] {
  return [...fields]
    .filter(([, f]) => holds(f.title, phrase) || holds(f.tags, phrase) || holds(f.description.slice(0, 48), phrase))
    .map(([id]) => id)
    .sort();
}

function phrases(): string[][] {
  const distinct = [...new Set(WORDS)];
  const out = distinct.flatMap((a) => distinct.map((b) => [a, b]));
  out.push(['la', 'la', 'la'], ['the', 'best', 'music'], ['best', 'the', 'rock', 'la'], ['el', 'la', 'el']);
  return out;
}

const search = async (engine: MediaSearch, phrase: string[]) => {
  const q: SearchQuery = query({ q: parseQuery(`"${phrase.join(' ')}"`), types: ['video'], limit: 1000, maxReachable: 1000 });
  return (await engine.search(q)).hits.map((h) => h.id).sort();
};

describe('media search: phrases from positions and from the pair index', () => {
  let f: FixtureStore;
  const fields = new Map<string, Fields>();
  let positions: MediaSearch;
  let pairs: MediaSearch;
  before(async () => {
    f = await openFixture(fixtureEntries());
    const first = videos(0, 300, 7);
    await load(f.store, first.entries);
    for (const [k, v] of first.fields) fields.set(k, v);
    // one engine answers from positions alone, the other with every pair of words indexed
    positions = new MediaSearch(f.store.db);
    positions.tune({ pairMinDf: Number.MAX_SAFE_INTEGER });
    pairs = new MediaSearch(f.store.db);
    pairs.tune({ pairMinDf: 1 });
  });
  after(() => f.close());

  const check = async () => {
    for (const phrase of phrases()) {
      const want = expected(fields, phrase);
      assert.deepEqual(await search(positions, phrase), want, `positions: "${phrase.join(' ')}"`);
      assert.deepEqual(await search(pairs, phrase), want, `pairs: "${phrase.join(' ')}"`);
    }
  };

  test('every phrase of two to four words gives the videos whose title, tags or description hold it (never across two of them)', async () => {
    await check();
    assert.equal(positions.index.pairs.lists.size, 0);
    assert.ok(pairs.index.pairs.lists.size >= 30, `pairs indexed: ${pairs.index.pairs.lists.size}`);
    // the fixture's own: a phrase across title and description is not one
    assert.deepEqual(await search(pairs, ['frühling', 'rock']), []);
    assert.deepEqual(await search(pairs, ['rock', 'garden']), ['vidGarden01']);
  });

  test('videos added after the pairs were built are found by their pairs; a changed video by its new words only', async () => {
    const builtAt = pairs.index.pairs.builtAt;
    const more = videos(300, 40, 8);
    await load(f.store, more.entries);
    for (const [k, v] of more.fields) fields.set(k, v);
    // a changed video: its old words no longer hold, its new ones do
    const changed = { title: ['rock', 'el', 'rock'], tags: [], description: [] };
    fields.set('vidphrase000', changed);
    await load(f.store, [video('vidphrase000', changed.title.join(' '), { channelId: CH_BIG, day: 0 })]);
    await check();
    // not built again (the catalogue has not doubled): the new videos were indexed as they came
    assert.equal(pairs.index.pairs.builtAt, builtAt);
    // only the rows written since were read (the 40 videos and the changed one)
    assert.equal(pairs.index.n, builtAt + 41);
  });

  test('a first search of a two-word phrase with many documents is answered from its pair\'s champion list, with the page positions give', async () => {
    const tuning = { championMinDf: 8, champions: 8, orderedScanMin: 16 };
    positions.tune(tuning);
    pairs.tune(tuning);
    // the most frequent indexed pair
    const [a, b, l] = [...pairs.index.pairs.pairs()].sort((x, y) => y[2].n - x[2].n)[0];
    assert.ok(l.n > 8, `the largest pair has ${l.n} documents`);
    const words = [a, b].map((t) => [...pairs.index.terms].find(([, id]) => id === t)![0]);
    assert.ok(pairs.index.pairChampions.has(`${a} ${b}`), 'its champion list was built with the term champions');
    const page = (engine: MediaSearch) => engine.search(query({ q: parseQuery(`"${words.join(' ')}"`), types: ['video'], order: 'relevance', limit: 5, maxReachable: 5 }));
    for (const engine of [positions, pairs]) engine.index.clearPhrases();
    const champions = pairs.index.stats.champions;
    const scans = pairs.index.stats.scan;
    const fromPair = await page(pairs);
    assert.equal(pairs.index.stats.champions, champions + 1, 'answered from the champion list');
    assert.equal(pairs.index.stats.scan, scans, 'no document scored beyond it');
    assert.equal(pairs.index.phraseChampions.has(`${a} ${b}`), false, 'none made at this search: every document of the phrase would have been scored');
    assert.deepEqual(fromPair.hits.map((h) => h.id), (await page(positions)).hits.map((h) => h.id));
    assert.equal(fromPair.hits.length, 5);
  });

  test('after a later write the champion lists are made at their first use, the same as a build makes them', async () => {
    const tuning = { championMinDf: 8, champions: 8, orderedScanMin: 16 };
    pairs.tune(tuning);
    assert.equal(pairs.index.lazyChampions, false, 'a build (or a change of the thresholds) makes them all');
    await load(f.store, [video('vidChampion1', 'the best rock of the best', { channelId: CH_BIG, day: 3 })]);
    fields.set('vidChampion1', { title: ['the', 'best', 'rock', 'of', 'the', 'best'], tags: [], description: [] });
    await pairs.search(query({ q: parseQuery('zzz'), types: ['video'] }));
    assert.equal(pairs.index.lazyChampions, true);
    assert.equal(pairs.index.champions.size + pairs.index.pairChampions.size, 0, 'the write dropped them');
    // the most frequent indexed pair, and its first word
    const [a, b] = [...pairs.index.pairs.pairs()].sort((x, y) => y[2].n - x[2].n)[0];
    const words = [a, b].map((t) => [...pairs.index.terms].find(([, id]) => id === t)![0]);
    // an engine built from the store now (every list made at once) ranks the same documents
    // (its totals are estimated from its own lists, which hold no replaced documents: not compared)
    const fresh = new MediaSearch(f.store.db);
    fresh.tune({ ...tuning, pairMinDf: 1 });
    const ids = async (engine: MediaSearch, q: string) => (await engine.search(query({ q: parseQuery(q), types: ['video'], order: 'relevance', limit: 5, maxReachable: 5 }))).hits.map((h) => h.id);
    for (const q of [words[0], `"${words.join(' ')}"`, `${words[0]}|${words[1]}`]) assert.deepEqual(await ids(pairs, q), await ids(fresh, q), q);
    const lazy = { term: pairs.index.champions.get(words[0]), pair: pairs.index.pairChampions.get(`${a} ${b}`), made: pairs.index.champions.size };
    assert.ok(lazy.term && lazy.pair, 'made at their first use');
    // the lists made at first use are those a build of them all makes on the same index
    buildChampions(pairs.index);
    const list = (c: Champion | null | undefined) => c && { ...c, bestFirst: undefined }; // (its order best first is made at its first use)
    assert.deepEqual(list(lazy.term), list(pairs.index.champions.get(words[0])));
    assert.deepEqual(list(lazy.pair!.champ), list(pairs.index.pairChampions.get(`${a} ${b}`)!.champ));
    assert.equal(lazy.pair!.idf, pairs.index.pairChampions.get(`${a} ${b}`)!.idf);
    assert.ok(lazy.made < pairs.index.champions.size, `only the lists asked for: ${lazy.made} of ${pairs.index.champions.size}`);
    await check();
  });

  test('the pair index is the same whatever the chunks of its build (and however often their stamps start again)', () => {
    const x = pairs.index;
    const lists = (p: PairIndex) => [...p.lists].map(([k, l]) => [k, [...l.docs.subarray(0, l.n)]]).sort((a, b) => Number(a[0]) - Number(b[0]));
    const reference = lists(PairIndex.build(x.postings, x.n, 1));
    assert.ok(reference.length >= 30);
    for (const chunking of [{ documents: 1, stamps: 3 }, { documents: 7, stamps: 2 }, { documents: 64, stamps: 1 }]) assert.deepEqual(lists(PairIndex.build(x.postings, x.n, 1, chunking)), reference, JSON.stringify(chunking));
  });

  test('the pair index is saved in the snapshot and loaded with it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'media-phrases-'));
    try {
      const snapshotFile = join(dir, 'cloudtwin.media-index');
      const built = new MediaSearch(f.store.db, { snapshotFile });
      built.tune({ pairMinDf: 1 });
      await built.refresh();
      await built.saved();
      assert.equal(built.stats.snapshotSaves, 1);
      const loaded = new MediaSearch(f.store.db, { snapshotFile });
      loaded.tune({ pairMinDf: 1 });
      await loaded.refresh();
      assert.equal(loaded.stats.snapshotLoads, 1);
      const lists = (e: MediaSearch) => [...e.index.pairs.lists].map(([k, l]) => [k, [...l.docs.subarray(0, l.n)]]);
      assert.deepEqual(lists(loaded), lists(built));
      assert.deepEqual([...loaded.index.pairs.terms], [...built.index.pairs.terms]);
      for (const phrase of phrases()) assert.deepEqual(await search(loaded, phrase), expected(fields, phrase), `loaded: "${phrase.join(' ')}"`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('media search: a document at every field limit', () => {
  let f: FixtureStore;
  before(async () => {
    f = await openFixture();
  });
  after(() => f.close());

  test('a field whose last words are a run of letters and a CJK character (one word over its limit) is indexed whole, its phrases found', async () => {
    // words() takes the run and the character together before it checks the limit: 101 title words,
    // 101 tag words and 49 description words, the most positions a document can have
    const title = `${'a '.repeat(99)}b漢`;
    const tags = [...Array.from({ length: 99 }, (_, i) => `t${i}`), 'k漢'];
    const description = `${'c '.repeat(47)}zeta漢`;
    await load(f.store, [video('vidAtLimit1', title, { channelId: CH_BIG, tags, description })]);
    const found = async (q: string) => (await f.media.engine.search(query({ q: parseQuery(q) }))).hits.map((h) => h.id);
    assert.deepEqual(await found('"zeta漢"'), ['vidAtLimit1'], 'the last two words of the description');
    assert.deepEqual(await found('"b漢"'), ['vidAtLimit1'], 'the last two words of the title');
    assert.ok((await found('rock')).length > 3, 'the rest of the catalogue is still searched');
  });
});
