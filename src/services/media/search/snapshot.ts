import { createHash, type Hash } from 'node:crypto';
import { open, readFile, rename, rm } from 'node:fs/promises';
import type { CatalogVersion } from '../catalog/repository.ts';
import { type Champion, type ChampionState, type ChampionTuning, type IndexState, Postings, SearchIndex, TermPostings } from './index.ts';
import { DocList } from './pairs.ts';

/**
 * A snapshot of the search index in a file next to the SQLite database, so a restart loads it
 * (seconds) instead of building the index from every catalogue row (a minute for a million
 * videos). It records the catalogue version it was built at: it is used only while the
 * catalogue's epoch is the same and its change sequence has not gone back; rows written since
 * are then loaded by the usual incremental reload. Anything unexpected (another format, a short
 * or damaged file) and the snapshot is ignored: the index is built from the store as before.
 *
 * Layout: MAGIC, then sections (the raw bytes of typed arrays, each at a multiple of 8), then
 * a JSON header (the format, the version, scalars, string lists and where each section is), then
 * the SHA-256 of all that (a damaged file is not used), the header's offset and length (two
 * float64) and MAGIC again. A file of another format (an older release's) is not used either.
 */

const MAGIC = Buffer.from('CTMIDX01');
/**
 * 3: term postings carry their word positions, and the pair index is saved; the documents' token
 * sequences are gone. 4: a document's text is Latin-1 or UTF-16 after a header word, not UTF-8
 * (SearchIndex.text). 5: the champion lists are saved (half of a load at a million videos was
 * making them again).
 */
const FORMAT = 5;
const FLUSH = 16 << 20;
/** SHA-256 of everything before it, the header's offset and length (float64 each), MAGIC. */
const TRAILER = 32 + 16 + 8;

type ArrayKind = 'Int32Array' | 'Uint8Array' | 'Uint16Array' | 'Uint32Array' | 'Float32Array' | 'Float64Array';
const ARRAYS = { Int32Array, Uint8Array, Uint16Array, Uint32Array, Float32Array, Float64Array } as const;
interface Section {
  type: ArrayKind;
  offset: number;
  length: number;
}
interface ListsSection {
  count: number;
  sizes: Section;
  docs: Section;
  /** Absent for lists of documents alone (the pair index's). */
  tf?: Section;
}
/** The term postings' positions: per list its positions' count, then per posting where its own start (in its list's), then the positions. */
interface PositionsSection {
  sizes: Section;
  at: Section;
  pos: Section;
}
interface Header {
  format: number;
  version: CatalogVersion;
  scalars: IndexState['scalars'];
  strings: IndexState['strings'];
  channelShow: number[];
  columns: Record<string, Section>;
  text: Section;
  postings: ListsSection;
  positions: PositionsSection;
  pairs: { minDf: number; builtAt: number; terms: Section; keys: Section; lists: ListsSection };
  lists: Record<string, ListsSection>;
  champions?: ChampionsSection;
}
/**
 * The champion lists (ChampionState): the terms' then the pairs', each list's arrays one after
 * the other in each section (`sizes` says where), and per list its threshold, highest BM25 and
 * (a pair's) idf, as float64 (a threshold may be -Infinity, which JSON has not).
 */
interface ChampionsSection {
  tuning: ChampionTuning;
  words: string[];
  pairKeys: string[];
  sizes: Section;
  numbers: Section;
  docs: Section;
  tf: Section;
  score: Section;
  length: Section;
  gate: Section;
  staticScore: Section;
}
const CHAMPION_ARRAYS = { docs: 'Int32Array', tf: 'Uint8Array', score: 'Float64Array', length: 'Uint16Array', gate: 'Uint32Array', staticScore: 'Float32Array' } as const;
/** Per champion list in `numbers`: its threshold, its highest BM25, its idf (a pair's; NaN for a term's). */
const CHAMPION_NUMBERS = 3;

/** Writes sequentially to a file, in large chunks (one await per chunk: searches go on meanwhile). */
class Writer {
  readonly #fh: Awaited<ReturnType<typeof open>>;
  #buf = Buffer.allocUnsafe(FLUSH);
  #used = 0;
  position = 0;
  /** Of every byte written: the header records it, loading checks it (a damaged file is not used). */
  readonly hash: Hash = createHash('sha256');
  constructor(fh: Awaited<ReturnType<typeof open>>) {
    this.#fh = fh;
  }
  async bytes(b: Uint8Array): Promise<void> {
    let from = 0;
    while (from < b.length) {
      const n = Math.min(b.length - from, FLUSH - this.#used);
      this.#buf.set(b.subarray(from, from + n), this.#used);
      this.#used += n;
      from += n;
      this.position += n;
      if (this.#used === FLUSH) await this.flush();
    }
  }
  /** Pads to a multiple of 8 (where a section starts); the position. */
  async align(): Promise<number> {
    const pad = (8 - (this.position % 8)) % 8;
    if (pad) await this.bytes(new Uint8Array(pad));
    return this.position;
  }
  async array(a: ArrayBufferView, type: ArrayKind): Promise<Section> {
    const offset = await this.align();
    await this.bytes(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
    return { type, offset, length: a.byteLength / ARRAYS[type].BYTES_PER_ELEMENT };
  }
  async flush(): Promise<void> {
    if (!this.#used) return;
    this.hash.update(this.#buf.subarray(0, this.#used));
    await this.#fh.write(this.#buf, 0, this.#used);
    this.#used = 0;
  }
}

const typeOf = (a: ArrayBufferView): ArrayKind => a.constructor.name as ArrayKind;

async function writeLists(w: Writer, lists: (Postings | DocList)[]): Promise<ListsSection> {
  const sizes = new Int32Array(lists.length);
  let total = 0;
  lists.forEach((p, i) => {
    sizes[i] = p.n;
    total += p.n;
  });
  const s = await w.array(sizes, 'Int32Array');
  const docs: Section = { type: 'Int32Array', offset: await w.align(), length: total };
  for (const p of lists) await w.bytes(new Uint8Array(p.docs.buffer, p.docs.byteOffset, p.n * 4));
  if (!lists.every((p) => p instanceof Postings)) return { count: lists.length, sizes: s, docs };
  const tf: Section = { type: 'Uint8Array', offset: w.position, length: total };
  for (const p of lists) await w.bytes(p.tf.subarray(0, p.n));
  return { count: lists.length, sizes: s, docs, tf };
}

async function writePositions(w: Writer, lists: TermPostings[]): Promise<PositionsSection> {
  const sizes = await w.array(Int32Array.from(lists, (p) => p.posN), 'Int32Array');
  const at: Section = { type: 'Int32Array', offset: await w.align(), length: lists.reduce((s, p) => s + p.n, 0) };
  for (const p of lists) await w.bytes(new Uint8Array(p.at.buffer, p.at.byteOffset, p.n * 4));
  const pos: Section = { type: 'Uint8Array', offset: w.position, length: lists.reduce((s, p) => s + p.posN, 0) };
  for (const p of lists) await w.bytes(p.pos.subarray(0, p.posN));
  return { sizes, at, pos };
}

/** One section of each champion array (CHAMPION_ARRAYS), the lists' one after the other. */
async function writeChampions(w: Writer, st: ChampionState): Promise<ChampionsSection> {
  const all = [...st.terms.map(([, champ]) => ({ champ, idf: NaN })), ...st.pairs.map(([, pair]) => pair)];
  const sizes = await w.array(Int32Array.from(all, (c) => c.champ.docs.length), 'Int32Array');
  const numbers = await w.array(Float64Array.from(all.flatMap((c) => [c.champ.threshold, c.champ.maxBm25, c.idf])), 'Float64Array');
  const sections: Partial<Record<keyof typeof CHAMPION_ARRAYS, Section>> = {};
  for (const [name, type] of Object.entries(CHAMPION_ARRAYS) as [keyof typeof CHAMPION_ARRAYS, ArrayKind][]) {
    const offset = await w.align();
    let length = 0;
    for (const { champ } of all) {
      const a = champ[name];
      await w.bytes(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
      length += a.length;
    }
    sections[name] = { type, offset, length };
  }
  return { tuning: st.tuning, words: st.terms.map(([word]) => word), pairKeys: st.pairs.map(([key]) => key), sizes, numbers, ...(sections as Record<keyof typeof CHAMPION_ARRAYS, Section>) };
}

/** Saves the index at `version` to `file` (written to a temporary file, then renamed over it). */
export async function saveSnapshot(file: string, index: SearchIndex, version: CatalogVersion): Promise<void> {
  const st = index.state();
  const tmp = `${file}.${process.pid}.tmp`;
  // private like the database it mirrors
  const fh = await open(tmp, 'w', 0o600);
  try {
    const w = new Writer(fh);
    await w.bytes(MAGIC);
    const columns: Record<string, Section> = {};
    for (const [name, a] of Object.entries(st.columns)) columns[name] = await w.array(a, typeOf(a));
    const text = await w.array(st.text, 'Uint8Array');
    const postings = await writeLists(w, st.postings);
    const positions = await writePositions(w, st.postings);
    const pairs = { minDf: st.pairs.minDf, builtAt: st.pairs.builtAt, terms: await w.array(st.pairs.terms, 'Int32Array'), keys: await w.array(st.pairs.keys, 'Int32Array'), lists: await writeLists(w, st.pairs.lists) };
    const lists: Record<string, ListsSection> = {};
    for (const [name, ls] of Object.entries(st.lists)) lists[name] = await writeLists(w, ls);
    const champions = st.champions && (await writeChampions(w, st.champions));
    const header: Header = { format: FORMAT, version, scalars: st.scalars, strings: st.strings, channelShow: st.channelShow, columns, text, postings, positions, pairs, lists, champions };
    const json = Buffer.from(JSON.stringify(header));
    const headerAt = w.position;
    await w.bytes(json);
    await w.flush();
    const trailer = Buffer.concat([w.hash.digest(), new Uint8Array(new Float64Array([headerAt, json.length]).buffer), MAGIC]);
    await fh.write(trailer);
    await fh.sync();
  } catch (e) {
    await fh.close();
    await rm(tmp, { force: true });
    throw e;
  }
  await fh.close();
  await rename(tmp, file);
}

/**
 * The index saved in `file` when it can stand for the catalogue at `current` (same epoch, a
 * change sequence not beyond it), with the version it was saved at; else undefined.
 */
export async function loadSnapshot(file: string, current: CatalogVersion): Promise<{ index: SearchIndex; version: CatalogVersion } | undefined> {
  let buf: Buffer;
  try {
    buf = await readFile(file);
  } catch {
    return undefined;
  }
  try {
    const end = buf.length;
    const ab = buf.buffer as ArrayBuffer;
    if (end < TRAILER + 8 || !buf.subarray(0, 8).equals(MAGIC) || !buf.subarray(end - 8).equals(MAGIC)) return undefined;
    const body = end - TRAILER;
    if (!createHash('sha256').update(buf.subarray(0, body)).digest().equals(buf.subarray(body, body + 32))) return undefined;
    const [headerAt, headerLen] = new Float64Array(ab.slice(buf.byteOffset + body + 32, buf.byteOffset + body + 48));
    if (!(headerAt >= 8 && headerAt + headerLen === body)) return undefined;
    const h = JSON.parse(buf.toString('utf8', headerAt, headerAt + headerLen)) as Header;
    if (h.format !== FORMAT || h.version.epoch !== current.epoch || h.version.seq > current.seq) return undefined;
    const view = (s: Section): ArrayBufferView => {
      const T = ARRAYS[s.type];
      if (!T || s.offset < 8 || s.offset + s.length * T.BYTES_PER_ELEMENT > headerAt) throw new Error('section out of bounds');
      // aligned: a view on the file's bytes; else a copy
      if ((buf.byteOffset + s.offset) % T.BYTES_PER_ELEMENT === 0) return new T(ab, buf.byteOffset + s.offset, s.length);
      return new T(ab.slice(buf.byteOffset + s.offset, buf.byteOffset + s.offset + s.length * T.BYTES_PER_ELEMENT));
    };
    const lists = <P extends Postings | DocList>(l: ListsSection, make: () => P): P[] => {
      const sizes = view(l.sizes) as Int32Array;
      const docs = view(l.docs) as Int32Array;
      const tf = l.tf && (view(l.tf) as Uint8Array);
      const out: P[] = new Array(l.count);
      let at = 0;
      for (let i = 0; i < l.count; i++) {
        const n = sizes[i];
        const p = make();
        p.docs = docs.subarray(at, at + n);
        if (p instanceof Postings) {
          if (!tf) throw new Error('postings without term frequencies');
          p.tf = tf.subarray(at, at + n);
        }
        p.n = n;
        at += n;
        out[i] = p;
      }
      if (at !== docs.length) throw new Error('posting sizes do not add up');
      return out;
    };
    const postings = lists(h.postings, () => new TermPostings(0));
    {
      const sizes = view(h.positions.sizes) as Int32Array;
      const at = view(h.positions.at) as Int32Array;
      const pos = view(h.positions.pos) as Uint8Array;
      if (sizes.length !== postings.length || at.length !== postings.reduce((s, p) => s + p.n, 0)) throw new Error('positions do not match the postings');
      let atFrom = 0;
      let posFrom = 0;
      for (let i = 0; i < postings.length; i++) {
        const p = postings[i];
        p.at = at.subarray(atFrom, atFrom + p.n);
        p.pos = pos.subarray(posFrom, posFrom + sizes[i]);
        p.posN = sizes[i];
        // every posting's positions within its list's (a damaged file must not send a phrase out of bounds)
        for (let k = 0; k < p.n; k++) if (p.at[k] < (k ? p.at[k - 1] : 0) || p.at[k] > p.posN) throw new Error('positions out of order');
        atFrom += p.n;
        posFrom += sizes[i];
      }
      if (posFrom !== pos.length) throw new Error('position sizes do not add up');
    }
    const columns: Record<string, ArrayBufferView> = {};
    for (const [name, s] of Object.entries(h.columns)) {
      columns[name] = view(s);
      if (s.length !== h.scalars.n) throw new Error(`column ${name} has ${s.length} entries, not ${h.scalars.n}`);
    }
    const st: IndexState = {
      scalars: h.scalars,
      columns,
      text: view(h.text) as Uint8Array,
      strings: h.strings,
      channelShow: h.channelShow,
      postings,
      pairs: { minDf: h.pairs.minDf, builtAt: h.pairs.builtAt, terms: view(h.pairs.terms) as Int32Array, keys: view(h.pairs.keys) as Int32Array, lists: lists(h.pairs.lists, () => new DocList(0)) },
      lists: {
        topics: lists(h.lists.topics, () => new Postings(0)),
        kindDocs: lists(h.lists.kindDocs, () => new Postings(0)),
        liveDocs: lists(h.lists.liveDocs, () => new Postings(0)),
        geoDocs: lists(h.lists.geoDocs, () => new Postings(0)),
        channelDocs: lists(h.lists.channelDocs, () => new Postings(0)),
      },
      champions: h.champions && champions(h.champions, view, h.scalars.n),
    };
    if (st.strings.ids.length !== h.scalars.n || st.strings.terms.length !== st.postings.length || st.strings.channelIds.length !== st.lists.channelDocs.length) return undefined;
    if (st.text.length !== h.scalars.textLength) return undefined;
    const paired = st.pairs.terms.length;
    if (st.pairs.terms.some((t) => t < 0 || t >= st.postings.length) || st.pairs.keys.length !== st.pairs.lists.length || st.pairs.keys.some((k) => k < 0 || k >= paired * paired)) return undefined;
    return { index: SearchIndex.restore(st), version: h.version };
  } catch {
    return undefined;
  }
}

/** The champion lists of a snapshot (see writeChampions); a list out of bounds is a damaged file. */
function champions(c: ChampionsSection, view: (s: Section) => ArrayBufferView, documents: number): ChampionState {
  const sizes = view(c.sizes) as Int32Array;
  const numbers = view(c.numbers) as Float64Array;
  const count = c.words.length + c.pairKeys.length;
  if (sizes.length !== count || numbers.length !== count * CHAMPION_NUMBERS) throw new Error('champion lists do not match their keys');
  const arrays = Object.fromEntries(Object.entries(CHAMPION_ARRAYS).map(([name, type]) => {
    const s = c[name as keyof typeof CHAMPION_ARRAYS];
    if (s.type !== type) throw new Error(`champion ${name} is not ${type}`);
    return [name, view(s)];
  })) as { [K in keyof typeof CHAMPION_ARRAYS]: InstanceType<(typeof ARRAYS)[(typeof CHAMPION_ARRAYS)[K]]> };
  const out: ChampionState = { tuning: c.tuning, terms: [], pairs: [] };
  let at = 0;
  for (let i = 0; i < count; i++) {
    const end = at + sizes[i];
    if (sizes[i] < 0 || end > arrays.docs.length) throw new Error('champion list sizes out of bounds');
    const champ: Champion = {
      docs: arrays.docs.subarray(at, end),
      tf: arrays.tf.subarray(at, end),
      score: arrays.score.subarray(at, end),
      length: arrays.length.subarray(at, end),
      gate: arrays.gate.subarray(at, end),
      staticScore: arrays.staticScore.subarray(at, end),
      threshold: numbers[i * CHAMPION_NUMBERS],
      maxBm25: numbers[i * CHAMPION_NUMBERS + 1],
    };
    // a damaged file must not send a search to a document that is not there
    for (let k = 0; k < champ.docs.length; k++) if (champ.docs[k] < 0 || champ.docs[k] >= documents) throw new Error('champion document out of bounds');
    if (i < c.words.length) out.terms.push([c.words[i], champ]);
    else out.pairs.push([c.pairKeys[i - c.words.length], { champ, idf: numbers[i * CHAMPION_NUMBERS + 2] }]);
    at = end;
  }
  for (const name of Object.keys(CHAMPION_ARRAYS) as (keyof typeof CHAMPION_ARRAYS)[]) if (arrays[name].length !== at) throw new Error(`champion ${name} sizes do not add up`);
  return out;
}
