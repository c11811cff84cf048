import { FLAG, type Attrs } from '../catalog/format.ts';
import type { MediaKind } from '../catalog/types.ts';
import { DESCRIPTION_LIMIT } from '../response.ts';
import { PairIndex, type PairState } from './pairs.ts';
import { PostingBlock } from './postingBlock.ts';
import type { Dense } from './postingLists.ts';
import { staticScoreOf } from './scoring.ts';
import { ROW_WORDS_MAX, type RowWords, rowWords } from './rowWords.ts';
import { WordIds } from './text.ts';
import { type GrowableArray, grown } from './typedArrays.ts';
import type { MediaRow } from '../../../platform/store/schema.ts';

/**
 * The in-memory search index: one document per searchable catalogue entry (videos, channels
 * and playlists share one numbering), columns of filterable attributes in typed arrays, and an
 * inverted index (term -> ascending document numbers with weighted term frequencies and the
 * term's word positions in each, for phrases). Documents are only appended; a changed entry
 * gets a new number and the old one is marked dead, so postings stay sorted.
 */

export const KIND_CODE: Record<MediaKind, number> = { video: 0, channel: 1, playlist: 2 };
export const KIND_NAME: MediaKind[] = ['video', 'channel', 'playlist'];

/** Weight of a title occurrence in the term frequency (other fields count 1). */
const TITLE_WEIGHT = 3;
/**
 * Word positions in a document: its title's words, a break, its tags' words, a break, its
 * description's words, a break (a break takes a position, so no phrase spans two fields). They
 * fit in a byte (TermPostings.pos). A field may give one word more than its count: `words` takes
 * a run of letters and the unspaced character after it (kana, CJK) together before it checks
 * its limit.
 */
const MAX_POSITIONS = ROW_WORDS_MAX + 3;
if (MAX_POSITIONS > 256) throw new Error('word positions must fit in a byte');
const FIELD_BREAK = -1;
/**
 * Code points of a description kept for the results: one more than the snippet shows, so the
 * snippet's truncation (response.ts) cuts the kept text exactly as it would cut the whole.
 */
const DESCRIPTION_KEPT = DESCRIPTION_LIMIT + 1;
/**
 * The word before each document's text (SearchIndex.text): bit 0 its width (UTF-16), bits 1-9
 * the description's length in code units (at most 2 x DESCRIPTION_KEPT), bits 10-31 the title's
 * (titles are at most 1,000 characters, catalog/format.ts).
 */
const TEXT_HEADER = { bytes: 4, wide: 1, descriptionShift: 1, descriptionMax: 0x1ff, titleShift: 10 } as const;
/** A character at or above U+0100 (the document's text is then kept in UTF-16). */
const NOT_LATIN1 = /[^\u0000-\u00ff]/;
/** Bounds of the phrase cache: phrases, and document numbers over all of them (4 bytes each). */
const PHRASE_CACHE_ENTRIES = 512;
const PHRASE_CACHE_INTS = 8 << 20;
/** Bound of the deep lists kept (see topDocuments.ts `deepList`; about 100 KiB each at the default sizes). */
const DEEP_LISTS = 512;
/** Bound of the impact arrays kept, in numbers (8 bytes each): 64 MiB. */
const IMPACT_NUMBERS = 8 << 20;

/**
 * The thresholds that choose how searches are answered (see evaluate.ts). Tests and benchmarks
 * change them on one index (see `MediaSearch.tune`); the champion sizes take effect when the
 * champion lists are built.
 */
export interface SearchTuning {
  /** Below this many candidates every candidate is scored; above it the ranking-order walk is tried first (0: always walk, never giving up). */
  orderedScanMin: number;
  /** Terms in at least this many documents get a champion list. */
  championMinDf: number;
  /** Documents per champion list: more than the deepest reachable result (about 500). */
  champions: number;
  /**
   * Terms in at least this many documents have their adjacent pairs indexed (pairs.ts): a phrase
   * of rarer words costs a check of the positions of at most about this many documents.
   */
  pairMinDf: number;
}
export const DEFAULT_TUNING: Readonly<SearchTuning> = { orderedScanMin: 20_000, championMinDf: 2000, champions: 1024, pairMinDf: 20_000 };

/** How many searches each strategy answered (tests and benchmarks look at it). */
export interface StrategyStats {
  champions: number;
  deep: number;
  walk: number;
  scan: number;
}

/**
 * The words of a document's record (SearchIndex.records), `words` per document. `gate`: what
 * every search checks first (bit 0 alive, bits 1-3 the kind, one bit each, bits 4-5 the
 * safe-search rating, bits 8-23 the flags, bits 24-27 see GATE); `length`: its length in words
 * (BM25's); `staticScore`: its popularity + freshness (float32, see scoring.ts); `language`: its
 * language's number.
 */
export const RECORD = { words: 4, gate: 0, length: 1, staticScore: 2, language: 3 } as const;

/**
 * The gate word's bits for the video filters a search checks on every candidate (a champion or
 * deep list carries each document's gate word, so these cost no read of the columns, each a cache
 * miss at a million documents): the duration's bucket (bits 24-25: 0 below zero, which no video
 * filter passes, then DURATION_BUCKET's short, medium and long), whether the video is live or
 * upcoming (no duration yet: no duration bucket holds it) and whether it has region restrictions.
 */
export const GATE = { durationShift: 24, liveOrUpcoming: 1 << 26, regionRestricted: 1 << 27 } as const;
/** `videoDuration`'s buckets (the real service's: under 4 minutes, 4 to 20, over 20) as the gate word holds them. */
export const DURATION_BUCKET = { short: 1, medium: 2, long: 3 } as const;

/** A duration's bucket (GATE.durationShift). */
function durationBucket(seconds: number): number {
  return seconds < 0 ? 0 : seconds <= 239 ? DURATION_BUCKET.short : seconds <= 1200 ? DURATION_BUCKET.medium : DURATION_BUCKET.long;
}

/**
 * The exact orders whose ranking key is a document's own, fixed when it is indexed (a changed
 * entry is a new document): their rankings are merged with the documents added, never sorted
 * again (rankings.ts `ordering`). Relevance's key, popularity and freshness, moves with the
 * catalogue.
 */
export const STABLE_ORDERS: readonly string[] = ['date', 'viewCount', 'rating', 'title', 'videoCount'];

/** What the index reads of a catalogue row. */
export type IndexRow = Omit<MediaRow, 'seq'>;

/**
 * Whether `upsert` indexes a row (FLAG.searchable in its attrs), read from the attrs' text without
 * parsing it: the flags are the array's first number, `[flags,...` (catalog/format.ts writes attrs
 * with JSON.stringify). Both `upsert` and the tokenizer thread decide by it.
 */
export function searchableRow(row: IndexRow): boolean {
  const attrs = row.attrs;
  let flags = 0;
  for (let i = 1; i < attrs.length; i++) {
    const digit = attrs.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) break;
    flags = flags * 10 + digit;
  }
  return (flags & FLAG.searchable) !== 0;
}

export class Postings {
  docs: Int32Array;
  tf: Uint8Array;
  n = 0;
  constructor(capacity = 4) {
    this.docs = new Int32Array(capacity);
    this.tf = new Uint8Array(capacity);
  }
  push(doc: number, tf: number): void {
    if (this.n === this.docs.length) {
      this.docs = grown(this.docs, this.n * 2);
      this.tf = grown(this.tf, this.n * 2);
    }
    this.docs[this.n] = doc;
    this.tf[this.n++] = tf > 255 ? 255 : tf;
  }
  /** Gives back the spare capacity (after a bulk load). */
  trim(): void {
    if (this.docs.length > this.n + 8) {
      this.docs = this.docs.slice(0, this.n);
      this.tf = this.tf.slice(0, this.n);
    }
  }
}

/**
 * A term's postings with its positions in each document (positional postings): phrases are
 * answered from them (phrases.ts), never by reading documents.
 */
export class TermPostings extends Postings {
  /** Where each posting's positions start in `pos`; they end where the next posting's start (the last one's at `posN`). */
  at: Int32Array;
  /** The term's word positions in each document (see MAX_POSITIONS), ascending per posting. */
  pos: Uint8Array;
  posN = 0;
  constructor(capacity = 2) {
    super(capacity);
    this.at = new Int32Array(capacity);
    this.pos = new Uint8Array(capacity);
  }
  /** Appends a posting with room for `count` positions; where they go in `pos`. */
  add(doc: number, tf: number, count: number): number {
    if (this.n === this.at.length) this.at = grown(this.at, this.n * 2);
    this.at[this.n] = this.posN;
    this.push(doc, tf);
    const start = this.posN;
    this.posN += count;
    if (this.posN > this.pos.length) this.pos = grown(this.pos, Math.max(this.pos.length * 2, this.posN), start);
    return start;
  }
  /** Makes room for `postings` more postings holding `positions` positions in all (see `append`). */
  reserve(postings: number, positions: number): void {
    const need = this.n + postings;
    if (need > this.docs.length) {
      const cap = Math.max(this.docs.length * 2, need);
      this.docs = grown(this.docs, cap, this.n);
      this.tf = grown(this.tf, cap, this.n);
      this.at = grown(this.at, cap, this.n);
    }
    if (this.posN + positions > this.pos.length) this.pos = grown(this.pos, Math.max(this.pos.length * 2, this.posN + positions), this.posN);
  }
  /** Appends a posting and its `count` positions (from `from[start]` on), in room `reserve` made: as `add` then writing its positions. */
  append(doc: number, tf: number, from: Uint8Array, start: number, count: number): void {
    const i = this.n++;
    this.at[i] = this.posN;
    this.docs[i] = doc;
    this.tf[i] = tf > 255 ? 255 : tf;
    const pos = this.pos;
    let p = this.posN;
    for (let k = 0; k < count; k++) pos[p++] = from[start + k];
    this.posN = p;
  }
  /** Where posting `i`'s positions end in `pos`. */
  end(i: number): number {
    return i + 1 < this.n ? this.at[i + 1] : this.posN;
  }
  override trim(): void {
    super.trim();
    if (this.at.length > this.n + 8) this.at = this.at.slice(0, this.n);
    if (this.pos.length > this.posN + 8) this.pos = this.pos.slice(0, this.posN);
  }
}

/** Interns strings to small integers (categories, languages, region lists, projects). */
class Interner {
  readonly values: string[] = [''];
  readonly #ids = new Map<string, number>([['', 0]]);
  id(v: string | null | undefined): number {
    if (!v) return 0;
    let id = this.#ids.get(v);
    if (id === undefined) {
      id = this.values.length;
      this.values.push(v);
      this.#ids.set(v, id);
    }
    return id;
  }
  find(v: string): number {
    return this.#ids.get(v) ?? -1;
  }
  /** Takes the values of a saved interner (see `SearchIndex.restore`). */
  restore(values: string[]): void {
    for (let i = 1; i < values.length; i++) this.id(values[i]);
  }
}

/** The per-document columns (typed arrays indexed by document number). */
const COLUMNS = [
  'kind', 'alive', 'flags', 'published', 'channel', 'duration', 'category', 'videoType', 'liveState', 'concurrent', 'lat', 'lng',
  'allowed', 'blocked', 'rating', 'views', 'likes', 'language', 'developer', 'count', 'docLen', 'textStart',
] as const;
export type Column = (typeof COLUMNS)[number];

/**
 * Each document's record words (RECORD) along a list of a term's best documents, read there by
 * the searches that walk it, where the records cost a cache miss per document at a million
 * documents: its length (with the term's frequency, its BM25 for the term), its gate word and its
 * popularity + freshness (its ranking key when another clause adds to its BM25). Valid until the
 * index changes (such lists are made again or dropped then).
 */
export interface RecordWords {
  length: Uint16Array;
  gate: Uint32Array;
  staticScore: Float32Array;
}

/** A term's (or phrase's) best documents by its BM25 + popularity and freshness, ascending, with their term frequencies; the last one's score; its highest BM25. */
export interface Champion extends RecordWords {
  docs: Int32Array;
  tf: Uint8Array;
  /** Each one's BM25 + popularity and freshness. */
  score: Float64Array;
  /** Positions in `docs`, best score first (see topDocuments.ts `bestFirst`; made at first use). */
  bestFirst?: Int32Array;
  threshold: number;
  maxBm25: number;
}

/** A term's best documents by some score, best first, with the best score left out (-Infinity: none); see topDocuments.ts `deepList`. */
export interface DeepList extends RecordWords {
  docs: Int32Array;
  /** The term's frequency in each document. */
  tf: Uint8Array;
  scores: Float64Array;
  cutoff: number;
}

/** The champion lists of a build (topDocuments.ts `buildChampions`) as a snapshot keeps them, with the tuning they were made with. */
export interface ChampionState {
  tuning: ChampionTuning;
  terms: [word: string, champ: Champion][];
  pairs: [key: string, pair: { champ: Champion; idf: number }][];
}
/** What the champion lists depend on besides the documents: which terms and pairs have one, and its size. */
export type ChampionTuning = Pick<SearchTuning, 'championMinDf' | 'champions' | 'pairMinDf'>;

/** What a snapshot holds (see `SearchIndex.state`). */
export interface IndexState {
  scalars: { n: number; live: number; totalLen: number; maxPublished: number; textLength: number };
  columns: Record<string, ArrayBufferView>;
  text: Uint8Array;
  strings: Record<'ids' | 'titles' | 'terms' | 'topics' | 'channelIds' | 'channelTitles' | 'categories' | 'languages' | 'regionLists' | 'developers', string[]>;
  channelShow: number[];
  /** Term postings (with their positions) in term-id order. */
  postings: TermPostings[];
  pairs: PairState;
  lists: Record<'topics' | 'kindDocs' | 'liveDocs' | 'geoDocs' | 'channelDocs', Postings[]>;
  /** Absent while they are made lazily (after a catch-up). */
  champions?: ChampionState;
}

export class SearchIndex {
  readonly tuning: SearchTuning = { ...DEFAULT_TUNING };
  readonly stats: StrategyStats = { champions: 0, deep: 0, walk: 0, scan: 0 };
  n = 0;
  live = 0;
  capacity = 0;
  kind = new Uint8Array(0);
  alive = new Uint8Array(0);
  flags = new Uint16Array(0);
  published = new Float64Array(0);
  channel = new Int32Array(0);
  duration = new Int32Array(0);
  category = new Int32Array(0);
  videoType = new Uint8Array(0);
  liveState = new Uint8Array(0);
  concurrent = new Float64Array(0);
  lat = new Float64Array(0);
  lng = new Float64Array(0);
  allowed = new Int32Array(0);
  blocked = new Int32Array(0);
  rating = new Uint8Array(0);
  views = new Float64Array(0);
  likes = new Float64Array(0);
  language = new Int32Array(0);
  developer = new Int32Array(0);
  count = new Float64Array(0);
  docLen = new Uint16Array(0);
  /** Where the document's title and (cut, see DESCRIPTION_KEPT) description are in `text` (see there). */
  textStart = new Float64Array(0);
  /**
   * What a search reads of every candidate, in one record of four 32-bit words per document (at a
   * million documents, each column read costs a cache miss; a record is one): see RECORD. Derived
   * from the columns after each refresh (`refreshRecords`), not saved in a snapshot.
   */
  records = new Uint32Array(0);
  /** The same memory as float32 (RECORD.staticScore). */
  recordScores = new Float32Array(0);
  ids: string[] = [];
  titles: string[] = [];

  /**
   * The titles and descriptions results show, document after document: a page of results needs
   * no store read (at a million videos, 25 lookups in a 2.7 GB database cost 0.2 - 0.4 ms, a
   * quarter of a search). Outside the JS heap (a typed array), so the collector never walks it.
   * Each document's is one piece that a result makes into strings with a copy, not a decoding
   * (UTF-8's was a fifth of a search's time at a million videos): a word (TEXT_HEADER) with the
   * title's and the description's lengths in UTF-16 code units and their width, then the title
   * and the description, in Latin-1 (one byte a character) when every character of both is below
   * U+0100, else in UTF-16 (two bytes a code unit, little-endian, at an even offset). One read
   * finds all of it, where the lengths in a column of their own cost another cache miss.
   */
  text: Uint8Array = new Uint8Array(1 << 16);
  /** What `readHitsAhead` last read (kept only so its reads are made). */
  #readAhead = 0;
  /** `text` as a Buffer (the same bytes), for its Latin-1 and UTF-16 strings. */
  #textBuffer = Buffer.from(this.text.buffer, this.text.byteOffset, this.text.byteLength);
  textLength = 0;
  totalLen = 0;
  maxPublished = 0;

  readonly terms = new Map<string, number>();
  /** Term number -> its word (the inverse of `terms`). */
  readonly termWords: string[] = [];
  readonly postings: TermPostings[] = [];
  /** Documents of adjacent frequent words (see pairs.ts; brought up to date by `refreshPairs`). */
  pairs = new PairIndex();
  readonly topics = new Map<string, Postings>();
  /** Documents by kind (video, channel, playlist), by live state (1 live, 2 upcoming, 3 completed), and geotagged ones: candidate lists for selective filters. */
  readonly kindDocs = [new Postings(), new Postings(), new Postings()];
  readonly liveDocs = [new Postings(), new Postings(), new Postings(), new Postings()];
  geoDocs = new Postings();
  /** Geotagged documents by 1-degree cell (see geoCells.ts; built on demand, dropped on any change). */
  geoCells: Map<number, Int32Array> | undefined;
  /** Documents in ranking order per `order` (built on demand by rankings.ts, dropped on any change). */
  readonly orderings = new Map<string, Int32Array>();
  /**
   * The rankings of the orders whose key never changes for a document (STABLE_ORDERS) as they
   * were before the changes since, with the documents the index had then: the next `ordering`
   * merges the documents added since into one (rankings.ts) instead of sorting the catalogue again.
   */
  readonly pastOrderings = new Map<string, { perm: Int32Array; n: number }>();
  /**
   * Documents of recent phrases (their words' ids joined by spaces -> ascending documents), least
   * recently used first: a phrase of frequent words costs an intersection of long lists and of
   * their positions (milliseconds at a million documents), so a phrase asked again (the next page,
   * another order, the same query from another caller) reuses it. Dropped on any change, like
   * `orderings`.
   */
  readonly phrases = new Map<string, Int32Array>();
  /** Champion lists of remembered phrases with many documents (see topDocuments.ts `phraseChampion`), same keys. */
  readonly phraseChampions = new Map<string, Champion>();
  /** Champion lists of the indexed pairs with many documents, by the phrase's key, with the idf they were scored with (null: none); made as the term champions are. */
  readonly pairChampions = new Map<string, { champ: Champion; idf: number } | null>();
  phraseInts = 0;
  /** Deep lists of the terms recently searched (least recently used first), dropped on any change. */
  readonly deepLists = new Map<string, DeepList>();
  /** Term id -> the bit set of a dense term's list (see postingLists.ts `denseOf`), dropped on any change. */
  readonly dense = new Map<number, Dense>();
  /** Term id -> each posting's BM25 + popularity and freshness, along its posting list (see topDocuments.ts `impactsOf`); least recently used first, dropped on any change. */
  readonly impacts = new Map<number, Float64Array>();
  #impactNumbers = 0;
  /**
   * Champion lists of frequent terms (see topDocuments.ts), null for a frequent term without one:
   * all made after a build or a snapshot load (`buildChampions`); after a catch-up with later
   * writes, each at its first use (`lazyChampions`, see `dropChampions`).
   */
  readonly champions = new Map<string, Champion | null>();
  lazyChampions = false;
  /** The tuning every champion list was made with (by `buildChampions` or a snapshot's); undefined while they are made lazily. */
  championsTuning: ChampionTuning | undefined;
  /** Channel number -> documents of the channel (its videos, playlists and itself). */
  readonly channelDocs: Postings[] = [];
  readonly channelIds: string[] = [];
  readonly channelTitles: string[] = [];
  readonly channelShow: number[] = [];
  readonly #channelNumbers = new Map<string, number>();
  /**
   * Id -> document, per kind: how a change finds the document it replaces. Neither kept through a
   * bulk load (it reads each entry once: nothing to replace) nor made by `restore`: made from
   * `ids` at the first change after them. At a million documents each insertion into it is a
   * cache miss (2 s of a build) and it holds tens of MB that a catalogue never written to does
   * not need.
   */
  #docOf: Map<string, number>[] | undefined = [new Map(), new Map(), new Map()];
  /**
   * Scratch while adding a document: per term, the document it was last counted for, its weighted
   * frequency, its occurrences and where its next position goes; the document's terms, and its
   * term per word position (FIELD_BREAK at a break).
   */
  #lastDoc = new Int32Array(1024).fill(-1);
  #tfScratch = new Uint16Array(1024);
  #countScratch = new Uint16Array(1024);
  #posCursor = new Int32Array(1024);
  readonly #docTerms: number[] = [];
  readonly #docWords = new Int32Array(MAX_POSITIONS);
  /**
   * A field's words as term ids (see text.ts WordIds: no string per word), and the title's words
   * (`titles`). `words` may give one word more than it is asked for (a run of letters ending at
   * an unspaced character, see unicodeWords): room for all of them.
   */
  readonly #wordIds = new WordIds((w) => this.#termId(w));
  readonly #fieldIds = new Int32Array(ROW_WORDS_MAX);
  readonly #titleWords: string[] = [];
  #docLength = 0;
  /** The postings of a bulk load not yet in the terms' lists (see `beginBulk`). */
  #block: PostingBlock | undefined;
  readonly categories = new Interner();
  readonly languages = new Interner();
  readonly regionLists = new Interner();
  readonly developers = new Interner();
  /** Region list number -> its codes (built on demand). */
  readonly #regionSets: (Set<string> | undefined)[] = [];

  channelNumber(id: string): number {
    let c = this.#channelNumbers.get(id);
    if (c === undefined) {
      c = this.channelIds.length;
      this.channelIds.push(id);
      this.channelTitles.push('');
      this.channelShow.push(0);
      this.channelDocs.push(new Postings(2));
      this.#channelNumbers.set(id, c);
    }
    return c;
  }
  findChannel(id: string): number {
    return this.#channelNumbers.get(id) ?? -1;
  }
  regionSet(list: number): Set<string> {
    let s = this.#regionSets[list];
    if (!s) this.#regionSets[list] = s = new Set(this.regionLists.values[list].split(' '));
    return s;
  }

  #grow(min: number): void {
    const cap = Math.max(1024, this.capacity * 2, min);
    const grow = <T extends GrowableArray>(a: T): T => grown(a, cap);
    this.kind = grow(this.kind);
    this.alive = grow(this.alive);
    this.flags = grow(this.flags);
    this.published = grow(this.published);
    this.channel = grow(this.channel);
    this.duration = grow(this.duration);
    this.category = grow(this.category);
    this.videoType = grow(this.videoType);
    this.liveState = grow(this.liveState);
    this.concurrent = grow(this.concurrent);
    this.lat = grow(this.lat);
    this.lng = grow(this.lng);
    this.allowed = grow(this.allowed);
    this.blocked = grow(this.blocked);
    this.rating = grow(this.rating);
    this.views = grow(this.views);
    this.likes = grow(this.likes);
    this.language = grow(this.language);
    this.developer = grow(this.developer);
    this.count = grow(this.count);
    this.docLen = grow(this.docLen);
    this.textStart = grow(this.textStart);
    this.capacity = cap;
  }

  /** Appends document `d`'s title and description to `text` (see there). */
  #pushText(d: number, title: string, description: string): void {
    const wide = NOT_LATIN1.test(title) || NOT_LATIN1.test(description);
    const width = wide ? 2 : 1;
    // a wide document starts at an even offset (its code units are then aligned)
    const start = this.textLength + (wide ? this.textLength & 1 : 0);
    const end = start + TEXT_HEADER.bytes + width * (title.length + description.length);
    if (end > this.text.length) {
      const b = grown(this.text, Math.max(this.text.length * 2, end), this.textLength);
      this.text = b;
      this.#textBuffer = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
    }
    const buf = this.#textBuffer;
    buf.writeUInt32LE(((title.length << TEXT_HEADER.titleShift) | (description.length << TEXT_HEADER.descriptionShift) | (wide ? TEXT_HEADER.wide : 0)) >>> 0, start);
    const encoding = wide ? 'utf16le' : 'latin1';
    const at = start + TEXT_HEADER.bytes;
    buf.write(title, at, encoding);
    buf.write(description, at + width * title.length, encoding);
    this.textStart[d] = start;
    this.textLength = end;
  }

  /**
   * Reads ahead what `textOf` and a hit (engine.ts) will read of each of `docs` (see readAhead.ts):
   * their columns, ids and the start of their text, so that the misses of a page's hits overlap.
   * At a million videos, bench:media's mix by 8 callers, reading ahead the hits not in the hit
   * cache and not: 0.94x the CPU time a search (two runs of twelve 1 s rounds each).
   */
  readHitsAhead(docs: readonly number[]): void {
    const { textStart, kind, published, channel, liveState, ids } = this;
    let sum = 0;
    for (let i = 0; i < docs.length; i++) {
      const d = docs[i];
      sum += textStart[d] + kind[d] + published[d] + channel[d] + liveState[d] + ids[d].length;
    }
    const text = this.text;
    for (let i = 0; i < docs.length; i++) sum += text[textStart[docs[i]]];
    // kept, so that the reads are not left out
    this.#readAhead = sum;
  }

  /** The document's title and (cut) description, as the results show them. */
  textOf(d: number): { title: string; description: string } {
    const buf = this.#textBuffer;
    const start = this.textStart[d];
    const header = buf.readUInt32LE(start);
    const titleUnits = header >>> TEXT_HEADER.titleShift;
    const descriptionUnits = (header >>> TEXT_HEADER.descriptionShift) & TEXT_HEADER.descriptionMax;
    const at = start + TEXT_HEADER.bytes;
    // one string copied out of the buffer, then cut in two (V8 keeps a longer piece as a view of it, not a copy): 20 % less
    // time a result than a copy each (at a million documents, 0.70 against 0.87 us, most of it the two cache misses)
    const units = titleUnits + descriptionUnits;
    const both = header & TEXT_HEADER.wide ? buf.toString('utf16le', at, at + 2 * units) : buf.toString('latin1', at, at + units);
    return { title: both.slice(0, titleUnits), description: both.slice(titleUnits) };
  }

  /**
   * Registers the words a tokenizer thread met first in a page (tokenizer.ts), before the page's
   * rows are given to `upsert`: each gets the next term number, as the thread numbered it.
   */
  registerTerms(words: readonly string[]): void {
    for (const w of words) {
      const expected = this.postings.length;
      if (this.#termId(w) !== expected) throw new Error(`the tokenizer's word '${w}' is a known term: its numbers are not the index's`);
    }
  }

  #termId(word: string): number {
    let t = this.terms.get(word);
    if (t === undefined) {
      t = this.postings.length;
      this.terms.set(word, t);
      this.termWords.push(word);
      this.postings.push(new TermPostings(2));
      if (t >= this.#lastDoc.length) this.#termScratch(this.#lastDoc.length * 2);
    }
    return t;
  }

  /** Grows the per-term scratch to `terms` terms (keeping what it holds: a document being added may have counted some). */
  #termScratch(terms: number): void {
    const grow = <T extends Int32Array | Uint16Array>(a: T, fill: number): T => grown(a, terms).fill(fill, a.length) as T;
    this.#lastDoc = grow(this.#lastDoc, -1);
    this.#tfScratch = grow(this.#tfScratch, 0);
    this.#countScratch = grow(this.#countScratch, 0);
    this.#posCursor = grow(this.#posCursor, 0);
  }

  /** `#docOf`, made now when it is not. */
  #documentsById(): Map<string, number>[] {
    if (this.#docOf) return this.#docOf;
    const maps = [new Map<string, number>(), new Map<string, number>(), new Map<string, number>()];
    for (let d = 0; d < this.n; d++) if (this.alive[d]) maps[this.kind[d]].set(this.ids[d], d);
    return (this.#docOf = maps);
  }

  /**
   * Adds (or replaces) an entry. Entries that are not public are removed from search. `given`:
   * its words split elsewhere (tokenizer.ts, whose new words were registered, see `registerTerms`).
   */
  upsert(kind: MediaKind, row: IndexRow, given?: RowWords): void {
    this.dropOrderings();
    this.geoCells = undefined;
    // nothing derived is held during a build: no clearing of empty maps per row
    if (this.dense.size || this.deepLists.size || this.impacts.size) this.clearScored();
    if (this.phrases.size) this.clearPhrases();
    // a bulk load has no document to replace (see #docOf)
    const docOf = this.#block ? undefined : this.#documentsById()[KIND_CODE[kind]];
    const old = docOf?.get(row.id);
    if (docOf && old !== undefined) {
      this.alive[old] = 0;
      this.live--;
      docOf.delete(row.id);
    }
    // a row left out still numbers its channel, as it did when every row was parsed (the channel
    // numbers, and so a snapshot, stay what they were)
    const channel = this.channelNumber(row.channel_id);
    // whether the row is indexed, as the tokenizer thread decides it (it sends no words for a row left out)
    const searchable = searchableRow(row);
    if (!searchable && kind !== 'channel') return;
    const a = JSON.parse(row.attrs) as Attrs;
    if (kind === 'channel') {
      this.channelTitles[channel] = row.title;
      this.channelShow[channel] = (a[0] & FLAG.show) !== 0 ? 1 : 0;
    }
    if (!searchable) return;
    const d = this.n;
    if (d === this.capacity) this.#grow(d + 1);
    this.n++;
    this.live++;
    docOf?.set(row.id, d);
    this.ids[d] = row.id;
    this.kind[d] = KIND_CODE[kind];
    this.alive[d] = 1;
    this.flags[d] = a[0];
    this.published[d] = row.published_at;
    if (row.published_at > this.maxPublished) this.maxPublished = row.published_at;
    this.channel[d] = channel;
    this.duration[d] = a[1];
    this.category[d] = this.categories.id(a[2]);
    this.videoType[d] = a[3];
    this.liveState[d] = a[4];
    this.concurrent[d] = a[5];
    this.lat[d] = a[6] === null ? NaN : (a[6] * Math.PI) / 180;
    this.lng[d] = a[7] === null ? NaN : (a[7] * Math.PI) / 180;
    this.allowed[d] = a[8] === null ? -1 : this.regionLists.id(a[8]);
    this.blocked[d] = a[9] === null ? -1 : this.regionLists.id(a[9]);
    this.rating[d] = a[10];
    this.views[d] = a[11];
    this.likes[d] = a[12];
    // the language's primary subtag (up to the first '-'), without split's array
    const language = a[13];
    const dash = language.indexOf('-');
    this.language[d] = this.languages.id(dash < 0 ? language : language.slice(0, dash));
    this.developer[d] = this.developers.id(a[15]);
    this.count[d] = a[17] ?? 0;
    this.channelDocs[channel].push(d, 1);
    this.kindDocs[this.kind[d]].push(d, 1);
    if (a[4]) this.liveDocs[a[4]].push(d, 1);
    if (a[6] !== null) this.geoDocs.push(d, 1);
    if (a[14]) {
      for (const t of a[14].split(' ')) {
        let p = this.topics.get(t);
        if (!p) this.topics.set(t, (p = new Postings()));
        p.push(d, 1);
      }
    }
    this.#pushText(d, row.title, cutCodePoints(row.description, DESCRIPTION_KEPT));
    // Text: title (weighted), then tags/custom URL, then the start of the description.
    this.#docLength = 0;
    const words = given ?? rowWords(this.#wordIds, row.title, row.search_text, row.description, this.#fieldIds, 0);
    const { ids, from } = words;
    // the title is always a field (an empty one has no words)
    const titleCount = Math.max(0, words.title);
    this.#title(d, ids, from, titleCount);
    let len = this.#field(d, ids, from, titleCount, TITLE_WEIGHT);
    let at = from + titleCount;
    if (words.searchText >= 0) len += this.#field(d, ids, at, words.searchText, 1);
    at += Math.max(0, words.searchText);
    if (words.description >= 0) len += this.#field(d, ids, at, words.description, 1);
    this.docLen[d] = Math.min(len, 65535);
    this.totalLen += len;
    // each term's posting with room for its positions, then the positions in document order
    const terms = this.#docTerms;
    const cursor = this.#posCursor;
    const dw = this.#docWords;
    if (this.#block) this.#block.add(this.postings, d, terms, this.#tfScratch, this.#countScratch, dw, this.#docLength, FIELD_BREAK, cursor);
    else this.#addPostings(d, terms, cursor, dw);
    this.pairs.addDocument(d, dw, this.#docLength);
    terms.length = 0;
  }

  /** Document `d`'s postings and positions, added to its terms' lists. */
  #addPostings(d: number, terms: number[], cursor: Int32Array, dw: Int32Array): void {
    for (let i = 0; i < terms.length; i++) {
      const t = terms[i];
      cursor[t] = this.postings[t].add(d, this.#tfScratch[t], this.#countScratch[t]);
    }
    for (let p = 0; p < this.#docLength; p++) {
      const t = dw[p];
      if (t !== FIELD_BREAK) this.postings[t].pos[cursor[t]++] = p;
    }
  }

  /** Drops the rankings (a change is coming), keeping those of the stable orders to merge into (`pastOrderings`). */
  dropOrderings(): void {
    if (!this.orderings.size) return;
    for (const order of STABLE_ORDERS) {
      const perm = this.orderings.get(order);
      if (perm && !this.pastOrderings.has(order)) this.pastOrderings.set(order, { perm, n: this.n });
    }
    this.orderings.clear();
  }

  /**
   * A build from the store: until `endBulk`, documents' postings are collected in a block and
   * added to the terms' lists a block at a time (postingBlock.ts), where nothing may read them.
   * Each entry comes at most once until then (a build reads each row once): none replaces
   * another. `blockEntries`: tests make blocks small.
   */
  beginBulk(blockEntries?: number): void {
    this.#docOf = undefined;
    this.#block ??= new PostingBlock(blockEntries);
  }

  /** Ends a bulk load: what the block holds is added to the terms' lists. */
  endBulk(): void {
    this.#block?.flushInto(this.postings);
    this.#block = undefined;
  }

  /** The title's words (`titles`): its term ids `ids[from, from + count)`, folded, joined by spaces. */
  #title(d: number, ids: Int32Array, from: number, count: number): void {
    const titleWords = this.#titleWords;
    titleWords.length = count;
    for (let k = 0; k < count; k++) titleWords[k] = this.termWords[ids[from + k]];
    this.titles[d] = titleWords.join(' ');
  }

  /** Counts a field's words (their term ids, `ids[from, from + count)`) in document `d`; how many. */
  #field(d: number, ids: Int32Array, from: number, count: number, weight: number): number {
    for (let i = from; i < from + count; i++) {
      const t = ids[i];
      if (this.#lastDoc[t] !== d) {
        this.#lastDoc[t] = d;
        this.#tfScratch[t] = 0;
        this.#countScratch[t] = 0;
        this.#docTerms.push(t);
      }
      this.#tfScratch[t] += weight;
      this.#countScratch[t]++;
      this.#docWords[this.#docLength++] = t;
    }
    this.#docWords[this.#docLength++] = FIELD_BREAK;
    return count;
  }

  /** Makes the records (RECORD) again from the columns: after every change, before any search. */
  refreshRecords(): void {
    const buffer = new ArrayBuffer(this.n * RECORD.words * 4);
    const records = new Uint32Array(buffer);
    const scores = new Float32Array(buffer);
    for (let d = 0, r = 0; d < this.n; d++, r += RECORD.words) {
      records[r + RECORD.gate] = this.#gateOf(d);
      records[r + RECORD.length] = this.docLen[d];
      scores[r + RECORD.staticScore] = staticScoreOf(this, d);
      records[r + RECORD.language] = this.language[d];
    }
    this.records = records;
    this.recordScores = scores;
  }

  /** The gate word (RECORD.gate). */
  #gateOf(d: number): number {
    if (!this.alive[d]) return 0;
    const live = this.liveState[d] === 1 || this.liveState[d] === 2 ? GATE.liveOrUpcoming : 0;
    const restricted = this.allowed[d] >= 0 || this.blocked[d] >= 0 ? GATE.regionRestricted : 0;
    return (1 | (2 << this.kind[d]) | (this.rating[d] << 4) | (this.flags[d] << 8) | (durationBucket(this.duration[d]) << GATE.durationShift) | live | restricted) >>> 0;
  }

  /** Builds the pair index again when its choice of frequent words is out of date (see PairIndex.stale). */
  refreshPairs(): void {
    if (this.pairs.stale(this.n, this.tuning.pairMinDf)) this.pairs = PairIndex.build(this.postings, this.n, this.tuning.pairMinDf);
  }

  clearPhrases(): void {
    this.phrases.clear();
    this.phraseChampions.clear();
    this.phraseInts = 0;
  }

  /** Drops what is derived from the lists and the scores (dense bit sets, deep lists, impacts): after any change. */
  clearScored(): void {
    this.dense.clear();
    this.deepLists.clear();
    this.impacts.clear();
    this.#impactNumbers = 0;
  }

  /** Remembers a term's impacts, forgetting the least recently used beyond the bound. */
  rememberImpacts(term: number, impacts: Float64Array): void {
    this.impacts.set(term, impacts);
    this.#impactNumbers += impacts.length;
    for (const [t, v] of this.impacts) {
      if (this.#impactNumbers <= IMPACT_NUMBERS || this.impacts.size <= 1) break;
      this.impacts.delete(t);
      this.#impactNumbers -= v.length;
    }
  }

  /** Remembers a deep list, forgetting the least recently used beyond the bound. */
  rememberDeepList(key: string, list: DeepList): void {
    this.deepLists.set(key, list);
    for (const k of this.deepLists.keys()) {
      if (this.deepLists.size <= DEEP_LISTS) break;
      this.deepLists.delete(k);
    }
  }

  /** Remembers a phrase's documents, forgetting the least recently used beyond the bounds. */
  rememberPhrase(key: string, docs: Int32Array): void {
    this.phrases.set(key, docs);
    this.phraseInts += docs.length;
    for (const [k, v] of this.phrases) {
      if (this.phrases.size <= PHRASE_CACHE_ENTRIES && this.phraseInts <= PHRASE_CACHE_INTS) break;
      this.phrases.delete(k);
      this.phraseChampions.delete(k);
      this.phraseInts -= v.length;
    }
  }

  /**
   * The index's state for a snapshot (search/snapshot.ts): typed arrays cut to their used length,
   * lists of strings, and posting lists flattened. Derived maps (entry and channel numbers,
   * term ids) are rebuilt by `restore`.
   */
  state(): IndexState {
    const n = this.n;
    const columns: Record<string, ArrayBufferView> = {};
    for (const c of COLUMNS) columns[c] = (this[c] as Uint8Array).subarray(0, n);
    return {
      scalars: { n, live: this.live, totalLen: this.totalLen, maxPublished: this.maxPublished, textLength: this.textLength },
      columns,
      text: this.text.subarray(0, this.textLength),
      strings: {
        ids: this.ids,
        titles: this.titles,
        terms: [...this.terms.keys()],
        topics: [...this.topics.keys()],
        channelIds: this.channelIds,
        channelTitles: this.channelTitles,
        categories: this.categories.values,
        languages: this.languages.values,
        regionLists: this.regionLists.values,
        developers: this.developers.values,
      },
      channelShow: this.channelShow,
      postings: this.postings,
      pairs: this.pairs.state(),
      lists: {
        topics: [...this.topics.values()],
        kindDocs: this.kindDocs,
        liveDocs: this.liveDocs,
        geoDocs: [this.geoDocs],
        channelDocs: this.channelDocs,
      },
      champions: this.championsTuning && {
        tuning: this.championsTuning,
        terms: [...this.champions].filter((e): e is [string, Champion] => e[1] !== null),
        pairs: [...this.pairChampions].filter((e): e is [string, { champ: Champion; idf: number }] => e[1] !== null),
      },
    };
  }

  /** An index from a snapshot's state (the inverse of `state`). */
  static restore(st: IndexState): SearchIndex {
    const x = new SearchIndex();
    const { n } = st.scalars;
    x.#grow(n);
    for (const c of COLUMNS) (x[c] as Uint8Array).set(st.columns[c] as Uint8Array);
    x.n = n;
    x.live = st.scalars.live;
    x.totalLen = st.scalars.totalLen;
    x.maxPublished = st.scalars.maxPublished;
    // the snapshot's bytes as they are (a copy is made only when documents are added)
    x.text = st.text;
    x.#textBuffer = Buffer.from(st.text.buffer, st.text.byteOffset, st.text.byteLength);
    x.textLength = st.scalars.textLength;
    const s = st.strings;
    x.ids = s.ids;
    x.titles = s.titles;
    s.terms.forEach((w, t) => {
      x.terms.set(w, t);
      x.termWords.push(w);
    });
    for (const p of st.postings) x.postings.push(p);
    x.pairs = PairIndex.restore(st.pairs, st.postings.length);
    s.topics.forEach((name, i) => x.topics.set(name, st.lists.topics[i]));
    st.lists.kindDocs.forEach((p, i) => (x.kindDocs[i] = p));
    st.lists.liveDocs.forEach((p, i) => (x.liveDocs[i] = p));
    x.geoDocs = st.lists.geoDocs[0];
    s.channelIds.forEach((id, c) => {
      x.#channelNumbers.set(id, c);
      x.channelIds.push(id);
      x.channelTitles.push(s.channelTitles[c]);
      x.channelShow.push(st.channelShow[c]);
      x.channelDocs.push(st.lists.channelDocs[c]);
    });
    x.categories.restore(s.categories);
    x.languages.restore(s.languages);
    x.regionLists.restore(s.regionLists);
    x.developers.restore(s.developers);
    if (st.champions) {
      for (const [word, champ] of st.champions.terms) x.champions.set(word, champ);
      for (const [key, pair] of st.champions.pairs) x.pairChampions.set(key, pair);
      x.championsTuning = st.champions.tuning;
    }
    // made at the first change (see #docOf)
    x.#docOf = undefined;
    let scratch = 1024;
    while (scratch < x.postings.length) scratch *= 2;
    x.#termScratch(scratch);
    return x;
  }

  /** Gives back spare capacity after a bulk load. */
  trim(): void {
    for (const p of this.postings) p.trim();
    for (const p of this.channelDocs) p.trim();
    for (const p of [...this.kindDocs, ...this.liveDocs, this.geoDocs, ...this.topics.values()]) p.trim();
  }

  get averageLength(): number {
    return this.n ? this.totalLen / this.n : 1;
  }

  termPostings(word: string): Postings | undefined {
    const t = this.terms.get(word);
    return t === undefined ? undefined : this.postings[t];
  }

  termIds(ws: string[]): number[] | undefined {
    const out: number[] = [];
    for (const w of ws) {
      const t = this.terms.get(w);
      if (t === undefined) return undefined;
      out.push(t);
    }
    return out;
  }
}

/** The first `max` code points of `s` (all of it when shorter). */
function cutCodePoints(s: string, max: number): string {
  if (s.length <= max) return s;
  let units = 0;
  for (let points = 0; points < max && units < s.length; points++) {
    const c = s.charCodeAt(units);
    units += c >= 0xd800 && c <= 0xdbff && units + 1 < s.length ? 2 : 1;
  }
  return s.slice(0, units);
}
