import type { Worker } from 'node:worker_threads';
import type { Store, StoreOptions } from '../../../platform/store/store.ts';
import { threadBeside } from '../../../platform/threadBeside.ts';
import type { MediaSearchEngine, SearchQuery, SearchResult } from '../catalog/types.ts';
import type { VersionReader } from '../catalog/versionReader.ts';
import { MediaSearch } from './engine.ts';
import type { SearchTuning } from './index.ts';
import { type ResultMessage, resultOf } from './resultMessage.ts';

/** How long a thread told to end may take to close its connections. */
const STOP_MS = 5000;
/**
 * Searches the thread may have under way beyond this thread's: its answers wait until this thread,
 * which also makes its own searches and runs their callers, takes them in (bench:media at 1M, 8
 * callers, the same hour: 0, 1 and 2 gave p50 0.86 - 0.95, 0.68 - 0.84 and 0.79 - 0.84 ms).
 */
const THREAD_LEAD = 1;

/** What the search thread (searchThread.ts) is started with. */
export interface SearchThreadData {
  /** The pool's store, opened again (`secondary`) by the thread. */
  store: StoreOptions;
  /** The snapshot the pool's engine saved (loaded, never saved, by the thread). */
  snapshotFile?: string;
  /** The pool engine's tuning (see `MediaSearch.tune`). */
  tuning: SearchTuning;
}

/** Messages to the search thread. */
export type ToSearchThread = { id: number; q: SearchQuery } | { tune: Partial<SearchTuning> } | { close: true };
/** Messages from it. */
type FromSearchThread = { ready: true } | { id: number; result: ResultMessage } | { id: number; failed: true };

interface Waiting {
  q: SearchQuery;
  resolve: (r: SearchResult | Promise<SearchResult>) => void;
}

/** The thread and the searches it was given and has not answered. */
interface SearchThread {
  worker: Worker;
  ready: boolean;
  waiting: Map<number, Waiting>;
  /** What the engine had loaded when the thread was started (a later full build or snapshot load replaces the thread). */
  loads: number;
  /** Whether it came to answer searches (false: it ended first). */
  answering: Promise<boolean>;
}

export interface SearchPoolOptions {
  /** The snapshot file (engine.ts); the pool's engine saves it, the thread's loads it. */
  snapshotFile?: string | Promise<string | undefined>;
  versionReader?: VersionReader;
  /** 2: a second engine on a thread of its own answers searches too; 1 (default): this thread's alone. */
  threads?: 1 | 2;
}

/**
 * The media search engine, on one core or two (`--media-search-threads`). One Node thread answers
 * searches one at a time, so at a million videos 8 concurrent callers wait for each other's
 * searches (p50 about 8 times the mean search). With `threads: 2` the pool keeps, beside the
 * engine of this thread (engine.ts), a second engine on a thread of its own (searchThread.ts) on
 * the same store, and a search goes to the thread while it has at most THREAD_LEAD more under way
 * than this thread (a lone search is made here). Both engines read the catalogue's version before
 * their searches, as two processes on one store do, so each search shows whatever any process
 * wrote before it came, whichever engine answers it.
 *
 * What it costs (docs/benchmarks.md, bench:media): the thread holds an index of its own (about
 * 1 GB more at a million videos), loaded from the snapshot this thread's engine saved (no second
 * build), and each of its answers is copied across (resultMessage.ts). On a 2-core machine under
 * 8 callers it took p50 to about 0.7x, and p99 to about 1.7x, of one thread's: both cores are
 * then busy searching, and the thread's searches wait for V8's collector threads and for this
 * thread to take their answers. Not for an in-memory store (no other connection sees it). A
 * search the thread fails, or leaves unanswered when it ends, is made again here; a thread that
 * failed is not started again. After a full build or a snapshot load here (a new catalogue), the
 * thread is replaced by one that loads the new snapshot.
 */
export class SearchPool implements MediaSearchEngine {
  readonly #main: MediaSearch;
  readonly #store: StoreOptions | undefined;
  readonly #snapshotFile: Promise<string | undefined>;
  #thread: SearchThread | undefined;
  /** Set once a thread failed, or the pool is closed: no thread is started again. */
  #noThread = false;
  /** The thread's start, while it waits for the snapshot being saved. */
  #starting: Promise<void> | undefined;
  /** Searches under way on this thread's engine. */
  #here = 0;
  #nextId = 0;
  /** Searches each engine answered, threads started, threads that failed. */
  readonly threadStats = { here: 0, thread: 0, started: 0, failed: 0 };

  constructor(store: Store, opts: SearchPoolOptions = {}) {
    this.#snapshotFile = Promise.resolve(opts.snapshotFile).catch(() => undefined);
    this.#main = new MediaSearch(store.db, { snapshotFile: this.#snapshotFile, versionReader: opts.versionReader });
    this.#store = store.shareable;
    if (opts.threads === 2 && !this.#store) throw new Error('an in-memory store has no second connection for a search thread');
    if (opts.threads !== 2) this.#noThread = true;
  }

  /** This thread's engine (its index, stats, size, snapshot saving: tests and benchmarks). */
  get engine(): MediaSearch {
    return this.#main;
  }

  /** Whether the thread is answering searches. */
  get threaded(): boolean {
    return this.#thread?.ready === true;
  }

  /** Waits for a thread being started to answer searches (true), or to end first (false; also when none is started). */
  async whenThreaded(): Promise<boolean> {
    await this.#starting;
    return this.#thread ? this.#thread.answering : false;
  }

  /** Brings the index up to date (see `MediaSearch.refresh`), then starts the thread (`threads: 2`). */
  refresh(): Promise<void> {
    const refreshed = this.#main.refresh();
    refreshed.then(() => this.#manageThread(), () => {});
    return refreshed;
  }

  /** Changes the tuning of both engines (see `MediaSearch.tune`). */
  tune(tuning: Partial<SearchTuning>): void {
    this.#main.tune(tuning);
    this.#thread?.worker.postMessage({ tune: tuning } satisfies ToSearchThread);
  }

  /**
   * A lone search is made here (no message to a thread and back); with others under way, on the
   * thread while it has at most THREAD_LEAD more under way than this thread.
   */
  search(q: SearchQuery): Promise<SearchResult> {
    this.#manageThread();
    const t = this.#thread;
    return t?.ready && this.#here > 0 && t.waiting.size <= this.#here + THREAD_LEAD ? this.#searchOn(t, q) : this.#searchHere(q);
  }

  /** A search made on the thread when it is answering (else here): tests and benchmarks compare the engines' answers and warm both. */
  searchOnThread(q: SearchQuery): Promise<SearchResult> {
    const t = this.#thread;
    return t?.ready ? this.#searchOn(t, q) : this.#searchHere(q);
  }

  #searchOn(t: SearchThread, q: SearchQuery): Promise<SearchResult> {
    const id = this.#nextId++;
    this.threadStats.thread++;
    return new Promise((resolve) => {
      t.waiting.set(id, { q, resolve });
      t.worker.postMessage({ id, q } satisfies ToSearchThread);
    });
  }

  async #searchHere(q: SearchQuery): Promise<SearchResult> {
    this.#here++;
    this.threadStats.here++;
    try {
      return await this.#main.search(q);
    } finally {
      this.#here--;
    }
  }

  /** Starts the thread once the index is loaded, and replaces it after a new catalogue was loaded here. */
  #manageThread(): void {
    if (this.#noThread || this.#starting) return;
    const loads = this.#loads();
    if (this.#thread && this.#thread.loads !== loads) this.#stop(this.#thread);
    if (this.#thread || loads === 0) return;
    // the snapshot of the build is written in the background: the thread loads it once it is whole
    this.#starting = Promise.all([this.#main.saved(), this.#snapshotFile])
      .then(([, snapshotFile]) => {
        if (!this.#noThread) this.#start({ store: this.#store!, snapshotFile, tuning: { ...this.#main.index.tuning } }, loads);
      })
      .finally(() => (this.#starting = undefined));
  }

  #loads(): number {
    return this.#main.stats.fullBuilds + this.#main.stats.snapshotLoads;
  }

  #start(data: SearchThreadData, loads: number): void {
    const worker = threadBeside(import.meta.url, 'searchThread', data);
    // an idle pool does not keep the process alive (its owner closes it)
    worker.unref();
    let answering!: (yes: boolean) => void;
    const t: SearchThread = { worker, ready: false, waiting: new Map(), loads, answering: new Promise((resolve) => (answering = resolve)) };
    this.#thread = t;
    this.threadStats.started++;
    worker.on('message', (m: FromSearchThread) => {
      if ('ready' in m) {
        t.ready = true;
        answering(true);
      } else {
        const w = t.waiting.get(m.id);
        t.waiting.delete(m.id);
        w?.resolve('result' in m ? resultOf(m.result) : this.#searchHere(w.q));
      }
    });
    const ended = () => {
      answering(false);
      if (this.#thread === t) {
        this.#thread = undefined;
        this.#noThread = true;
        this.threadStats.failed++;
      }
      this.#answerHere(t);
    };
    worker.on('error', ended);
    worker.on('exit', ended);
  }

  /** The searches a thread was given and will not answer, made here. */
  #answerHere(t: SearchThread): void {
    for (const w of t.waiting.values()) w.resolve(this.#searchHere(w.q));
    t.waiting.clear();
  }

  /**
   * Ends a thread: the searches it has are made here. It closes its connections itself (a
   * PostgreSQL backend sees a goodbye, not a dropped socket), or is stopped after STOP_MS.
   */
  #stop(t: SearchThread): Promise<void> {
    if (this.#thread === t) this.#thread = undefined;
    t.ready = false;
    this.#answerHere(t);
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => void t.worker.terminate().finally(resolve), STOP_MS);
      t.worker.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      t.worker.postMessage({ close: true } satisfies ToSearchThread);
    });
  }

  /** The thread's end, then the engine's (see `MediaSearch.close`). */
  async close(): Promise<void> {
    this.#noThread = true;
    if (this.#thread) await this.#stop(this.#thread);
    await this.#main.close();
  }
}
