import type { Kysely } from 'kysely';
import type { Database } from '../../../platform/store/schema.ts';
import { type CatalogVersion, type MediaTable, readVersion } from '../catalog/repository.ts';
import type { VersionReader } from '../catalog/versionReader.ts';
import type { MediaKind, MediaSearchEngine, SearchHit, SearchQuery, SearchResult } from '../catalog/types.ts';
import { evaluate } from './evaluate.ts';
import { HitCache } from './hitCache.ts';
import { type IndexRow, KIND_NAME, SearchIndex, type SearchTuning } from './index.ts';
import { rowWordCount } from './rowWords.ts';
import { loadSnapshot, saveSnapshot } from './snapshot.ts';
import { Tokenizer } from './tokenizer.ts';
import { buildChampions, championsCurrent, dropChampions } from './topDocuments.ts';

const LOAD_PAGE = 5000;
/** Slots of the cache of recent hits (hitCache.ts): at most this many hits kept, a few MiB. */
const HIT_CACHE = 8192;
const TABLES: [MediaKind, MediaTable][] = [
  ['channel', 'media_channels'],
  ['video', 'media_videos'],
  ['playlist', 'media_playlists'],
];

/**
 * The search engine: an in-memory index (search/index.ts) loaded from the store and kept in
 * step with it. Before each search it reads the catalogue's version (one small query); rows
 * written since (by this or another process) are loaded by their change sequence, and a
 * wiped catalogue (new epoch) is loaded again from scratch. The searches of one turn of the
 * event loop share one version read, made after they all came.
 */
export class MediaSearch implements MediaSearchEngine {
  readonly #db: Kysely<Database>;
  #index = new SearchIndex();
  #version: CatalogVersion = { epoch: 0, seq: 0 };
  /** The version read that the callers of this turn wait for (it starts at the end of the turn). */
  #nextRead: Promise<void> | undefined;
  /** Changes at the start and at the end of each change to the index (odd while one is under way): a search made before a read knows whether it is still current. */
  #stamp = 0;
  /** The last catch-up asked for: they run one after the other, in the order of their reads. */
  #catchingUp: Promise<void> = Promise.resolve();
  #onProgress: ((loaded: number) => void) | undefined;
  /** Rows of a build after which the words of the rest are split on another core (see #loadRows). */
  readonly #tokenizeAfter: number;
  readonly #snapshotFile: Promise<string | undefined>;
  readonly #saveSnapshots: boolean;
  readonly #versionReader: VersionReader | undefined;
  #snapshotTried = false;
  #saving: Promise<void> = Promise.resolve();
  /** The hits of recent results (hitCache.ts), for the index state of one `#stamp`. */
  readonly #hits: HitCache;
  /** How the index was last brought up: from the store (`built`, `caught up` with changes) or a snapshot. */
  readonly stats = { snapshotLoads: 0, snapshotSaves: 0, fullBuilds: 0, rowsLoaded: 0 };

  /**
   * `snapshotFile`: where to keep a snapshot of the index (search/snapshot.ts) so a restart
   * loads it instead of building the index from every row; saved after each full build.
   * `versionReader`: how the catalogue's version is read before each turn of searches
   * (catalog/versionReader.ts; else through `db`); closed by `close`.
   * `tokenizeAfter`: rows of a build after which the words of the rest are split on another core
   * (default: a page, so a catalogue of one page is built without a thread; tests: 0 or Infinity).
   * `saveSnapshots: false`: the snapshot is only loaded, never written (a second engine on the same
   * store and file, searchPool.ts, leaves the saving to the first).
   * `hitCache`: slots of the cache of recent hits (hitCache.ts; a power of two, 0: none).
   */
  constructor(db: Kysely<Database>, opts: { onProgress?: (loaded: number) => void; snapshotFile?: string | Promise<string | undefined>; saveSnapshots?: boolean; versionReader?: VersionReader; tokenizeAfter?: number; hitCache?: number } = {}) {
    this.#db = db;
    this.#onProgress = opts.onProgress;
    this.#tokenizeAfter = opts.tokenizeAfter ?? LOAD_PAGE;
    this.#snapshotFile = Promise.resolve(opts.snapshotFile).catch(() => undefined);
    this.#saveSnapshots = opts.saveSnapshots ?? true;
    this.#versionReader = opts.versionReader;
    this.#hits = new HitCache(opts.hitCache ?? HIT_CACHE);
  }

  /** Hits shown from the cache of recent hits, and hits made (hitCache.ts). */
  get hitCacheStats(): Readonly<HitCache['stats']> {
    return this.#hits.stats;
  }

  /** Waits for a snapshot being saved and ends the version reader. */
  async close(): Promise<void> {
    await this.#saving;
    await this.#versionReader?.close();
  }

  /** Waits for a snapshot being saved (tests, shutdown). */
  saved(): Promise<void> {
    return this.#saving;
  }

  /** Documents in the index (live ones). */
  get size(): number {
    return this.#index.live;
  }

  /** The current index (benchmarks time `evaluate` on it alone). */
  get index(): SearchIndex {
    return this.#index;
  }

  /** Changes the thresholds that choose how searches are answered (tests, benchmarks); kept by every index built after. */
  tune(tuning: Partial<SearchTuning>): void {
    this.#stamp += 2;
    Object.assign(this.#index.tuning, tuning);
    this.#index.refreshPairs();
    if (!championsCurrent(this.#index)) buildChampions(this.#index);
  }

  /**
   * Brings the index up to the store's version as of this call: whatever was written before it,
   * by any process, is found. A read already under way may have started before the caller's
   * write, so each caller waits for a read made after it came, shared by the callers of the same
   * turn (at most one round trip to the store, never two in a row).
   */
  refresh(): Promise<void> {
    if (this.#nextRead) return this.#nextRead;
    const read = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      this.#nextRead = undefined;
      return this.#versionReader ? this.#versionReader.read() : readVersion(this.#db);
    });
    const caughtUp = this.#catchingUp.then(() => read).then((v) => this.#catchUp(v));
    this.#catchingUp = caughtUp.catch(() => {});
    return (this.#nextRead = caughtUp);
  }

  /** Loads what version `v` holds that the index does not (nothing when the index is at `v` or later). */
  async #catchUp(v: CatalogVersion): Promise<void> {
    if (v.epoch === this.#version.epoch && v.seq <= this.#version.seq) return;
    this.#stamp++;
    try {
      await this.#load(v);
    } finally {
      this.#stamp++;
    }
  }

  /** The catch-up itself: a snapshot, else the rows written after the index's version (all of them for a new epoch). */
  async #load(v: CatalogVersion): Promise<void> {
    // the index is not changed while a snapshot of it is being written
    await this.#saving;
    const snapshotFile = await this.#snapshotFile;
    if (snapshotFile && !this.#snapshotTried && this.#version.epoch === 0 && v.epoch !== 0) {
      this.#snapshotTried = true;
      const snap = await loadSnapshot(snapshotFile, v);
      if (snap) {
        Object.assign(snap.index.tuning, this.#index.tuning);
        snap.index.refreshPairs();
        snap.index.refreshRecords();
        // the snapshot's, unless they were made with another tuning
        if (!championsCurrent(snap.index)) buildChampions(snap.index);
        this.#index = snap.index;
        this.#version = snap.version;
        this.stats.snapshotLoads++;
        if (v.seq === snap.version.seq) return;
      }
    }
    let index = this.#index;
    let from = this.#version.seq;
    if (v.epoch !== this.#version.epoch) {
      index = new SearchIndex();
      Object.assign(index.tuning, this.#index.tuning);
      from = 0;
    }
    // a new index is built in bulk (no search sees it before it is whole)
    const bulk = index !== this.#index;
    if (bulk) index.beginBulk();
    await this.#loadRows(index, v, from, bulk);
    if (bulk) index.endBulk();
    if (from === 0) index.trim();
    index.refreshPairs();
    index.refreshRecords();
    index.dropOrderings();
    index.clearScored();
    index.clearPhrases();
    if (from === 0) buildChampions(index);
    else dropChampions(index);
    this.#index = index;
    this.#version = v;
    if (from === 0) {
      this.stats.fullBuilds++;
      if (snapshotFile && this.#saveSnapshots) {
        const file = snapshotFile;
        // in the background: searches go on (the next change waits for it, see above); a failure only costs the next start a build
        this.#saving = saveSnapshot(file, index, v).then(
          () => void this.stats.snapshotSaves++,
          () => {},
        );
      }
    }
  }

  /**
   * Indexes the rows written after `from` up to `v`, a page at a time. The next page is asked for
   * before this one is indexed (a store in another process, PostgreSQL, reads it meanwhile). A
   * build (`bulk`) of more than `#tokenizeAfter` rows has the words of its next pages split on
   * another core (tokenizer.ts): each page is in the tokenizer's hands before the page before it is
   * indexed.
   */
  async #loadRows(index: SearchIndex, v: CatalogVersion, from: number, bulk: boolean): Promise<void> {
    let loaded = 0;
    let tokenizer: Tokenizer | undefined;
    const tokenizing = () => {
      // numbered from the terms the index has (those of the pages indexed without it)
      if (bulk && !tokenizer && loaded >= this.#tokenizeAfter) tokenizer = new Tokenizer(index.termWords);
      return tokenizer;
    };
    try {
      for (const [kind, table] of TABLES) {
        // rows written after `from` (the rows of `from` itself are in the index): ids are never empty, so (from + 1, '') precedes them all
        const page = (lastSeq: number, lastId: string) =>
          this.#db
            .selectFrom(table)
            .select(['id', 'seq', 'channel_id', 'published_at', 'title', 'description', 'search_text', 'attrs'])
            .where('seq', '<=', v.seq)
            // row-value comparison: both stores walk the (seq, id) index page by page
            .where((eb) => eb(eb.refTuple('seq', 'id'), '>', eb.tuple(lastSeq, lastId)))
            .orderBy('seq')
            .orderBy('id')
            .limit(LOAD_PAGE)
            .execute() as Promise<(IndexRow & { seq: number })[]>;
        const withTokens = (rows: (IndexRow & { seq: number })[]) => ({ rows, tokens: tokenizing()?.tokenize(rows) });
        let current = withTokens(await page(from + 1, ''));
        for (;;) {
          const { rows, tokens } = current;
          const more = rows.length === LOAD_PAGE;
          const next = more ? page(Number(rows[rows.length - 1].seq), rows[rows.length - 1].id) : undefined;
          next?.catch(() => {}); // awaited below, unless indexing this page throws first
          // with a tokenizer, the next page goes to it before this one is indexed
          let following: typeof current | undefined;
          if (next && tokenizer) {
            const nextRows = await next;
            following = { rows: nextRows, tokens: tokenizer.tokenize(nextRows) };
            following.tokens?.catch(() => {}); // awaited at its turn
          }
          const given = tokens && (await tokens);
          if (given) {
            index.registerTerms(given.words);
            const { ids, counts } = given;
            for (let i = 0, at = 0; i < rows.length; i++) {
              const words = { ids, from: at, title: counts[3 * i], searchText: counts[3 * i + 1], description: counts[3 * i + 2] };
              index.upsert(kind, rows[i], words);
              at += rowWordCount(words);
            }
          } else for (const r of rows) index.upsert(kind, r);
          loaded += rows.length;
          this.stats.rowsLoaded += rows.length;
          this.#onProgress?.(loaded);
          if (!next) break;
          current = following ?? withTokens(await next);
        }
      }
    } finally {
      await tokenizer?.close();
    }
  }

  /**
   * The search is made while its version read is on its way (on PostgreSQL a round trip during
   * which nothing else would run: at 8 concurrent callers a sixth of each turn), on the index as
   * it is; the read then only confirms that the index was current, else the search is made again
   * on the index caught up. Made only once the read is sent (it is started by an earlier
   * setImmediate), and never while a catch-up is changing the index (`#stamp` odd).
   */
  async search(q: SearchQuery): Promise<SearchResult> {
    const current = this.refresh();
    await new Promise<void>((resolve) => setImmediate(resolve));
    const stamp = this.#stamp;
    let early: SearchResult | undefined;
    if (stamp % 2 === 0) {
      try {
        early = this.#answer(q);
      } catch {
        // made again below, on the index caught up (where an error is the caller's)
      }
    }
    await current;
    return early && this.#stamp === stamp ? early : this.#answer(q);
  }

  #answer(q: SearchQuery): SearchResult {
    const index = this.#index;
    const ranked = evaluate(index, q);
    // a catch-up under way (`#stamp` odd) changes the index between its pages: no hit made then is kept
    const stamp = this.#stamp;
    const cache = stamp % 2 === 0 ? this.#hits : undefined;
    cache?.validFor(stamp);
    const make = (d: number) => hitOf(index, d);
    // what the hits to make will read of the index, read ahead (their cache misses overlap)
    index.readHitsAhead(cache ? ranked.docs.filter((d) => !cache.has(d)) : ranked.docs);
    const hits = ranked.docs.map((d) => (cache ? cache.hitOf(d, make) : make(d)));
    return { hits, totalResults: ranked.total, hasMore: ranked.hasMore };
  }
}

/** What a result shows of document `d`: its titles and description come from the index (the same catalogue version as the ranking), no store read. */
function hitOf(index: SearchIndex, d: number): SearchHit {
  const { title, description } = index.textOf(d);
  const live = index.liveState[d];
  return {
    kind: KIND_NAME[index.kind[d]],
    id: index.ids[d],
    publishedAt: index.published[d],
    channelId: index.channelIds[index.channel[d]],
    channelTitle: index.channelTitles[index.channel[d]],
    title,
    description,
    liveBroadcastContent: live === 1 ? 'live' : live === 2 ? 'upcoming' : 'none',
  };
}
