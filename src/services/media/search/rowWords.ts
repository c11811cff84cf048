import type { WordIds } from './text.ts';

/** Words of the title and of the tags / custom URL that are indexed. */
export const TITLE_WORDS = 100;
export const SEARCH_TEXT_WORDS = 100;
/** Words of the description that are indexed (the rest are not searchable). */
export const DESCRIPTION_WORDS = 48;
/** Room for a row's words: each field may give one word more than its count (see `words`). */
export const ROW_WORDS_MAX = TITLE_WORDS + 1 + SEARCH_TEXT_WORDS + 1 + DESCRIPTION_WORDS + 1;

/**
 * A row's indexed words as term ids: from `ids[from]`, the title's `title` ids, then the tags'
 * `searchText`, then the description's `description` (-1: an empty field, which is none).
 */
export interface RowWords {
  ids: Int32Array;
  from: number;
  title: number;
  searchText: number;
  description: number;
}

/**
 * The words the index indexes of a row (index.ts `upsert`), as `wordIds` numbers them, written
 * to `out` from `from` (room for ROW_WORDS_MAX). Made on the index's thread, or on the
 * tokenizer's for a build (tokenizerThread.ts).
 */
export function rowWords(wordIds: WordIds, title: string, searchText: string, description: string, out: Int32Array, from: number): RowWords {
  const words: RowWords = { ids: out, from, title: -1, searchText: -1, description: -1 };
  let at = from;
  if (title) at += words.title = wordIds.ids(title, TITLE_WORDS, out.subarray(at));
  if (searchText) at += words.searchText = wordIds.ids(searchText, SEARCH_TEXT_WORDS, out.subarray(at));
  if (description) words.description = wordIds.ids(description, DESCRIPTION_WORDS, out.subarray(at));
  return words;
}

/** How many ids a row's words take in `ids`. */
export function rowWordCount(w: RowWords): number {
  return Math.max(0, w.title) + Math.max(0, w.searchText) + Math.max(0, w.description);
}
