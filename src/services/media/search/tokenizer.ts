import type { Worker } from 'node:worker_threads';
import { threadBeside } from '../../../platform/threadBeside.ts';
import { type IndexRow, searchableRow } from './index.ts';

/** What the tokenizer's thread is started with (tokenizerThread.ts). */
export interface TokenizerThreadData {
  /** The index's terms so far, in their numbers' order (the next one unseen gets the next number). */
  terms: readonly string[];
}

/**
 * A page's indexed fields as term ids: for row r, field f (title, tags / custom URL,
 * description) `counts[3r + f]` ids (-1: the field is empty), one after another in `ids`;
 * `words` are the terms first seen in this page, in their numbers' order.
 */
export interface PageTokens {
  ids: Int32Array;
  counts: Int32Array;
  words: string[];
}

/**
 * Word splitting on a second core for a build of the index from the store (index.ts
 * `upsert` with the words given): the next page is split by the thread while this one indexes
 * the page before. Pages are answered in the order they were given.
 */
export class Tokenizer {
  readonly #thread: Worker;
  readonly #waiting: { resolve: (t: PageTokens) => void; reject: (e: unknown) => void }[] = [];
  #failure: unknown;

  /** `terms`: the index's, in their numbers' order (see TokenizerThreadData). */
  constructor(terms: readonly string[]) {
    const data: TokenizerThreadData = { terms };
    this.#thread = threadBeside(import.meta.url, 'tokenizerThread', data);
    this.#thread.on('message', (t: PageTokens) => this.#waiting.shift()?.resolve(t));
    const fail = (e: unknown) => {
      this.#failure ??= e;
      for (const w of this.#waiting.splice(0)) w.reject(e);
    };
    this.#thread.on('error', fail);
    this.#thread.on('exit', () => fail(new Error("the index tokenizer's thread ended")));
  }

  /** The term ids of the rows' indexed fields (see PageTokens). */
  tokenize(rows: readonly IndexRow[]): Promise<PageTokens> {
    if (this.#failure) return Promise.reject(this.#failure);
    const texts: string[] = new Array(rows.length * 3);
    rows.forEach((r, i) => {
      // a row the index leaves out (`upsert`) has no words: none of its words may become a term
      const indexed = searchableRow(r);
      texts[3 * i] = indexed ? r.title : '';
      texts[3 * i + 1] = indexed ? r.search_text : '';
      texts[3 * i + 2] = indexed ? r.description : '';
    });
    const tokens = new Promise<PageTokens>((resolve, reject) => this.#waiting.push({ resolve, reject }));
    this.#thread.postMessage(texts);
    return tokens;
  }

  /** Ends the thread. */
  async close(): Promise<void> {
    this.#failure ??= new Error('the index tokenizer is closed');
    await this.#thread.terminate();
  }
}
