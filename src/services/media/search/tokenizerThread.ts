import { parentPort, workerData } from 'node:worker_threads';
import type { TokenizerThreadData } from './tokenizer.ts';
import { ROW_WORDS_MAX, rowWordCount, rowWords } from './rowWords.ts';
import { WordIds } from './text.ts';
import { grown } from './typedArrays.ts';

/**
 * The tokenizer's thread (started by tokenizer.ts for a build of the index from the store): the
 * word ids of each page's indexed fields, numbered as the index numbers its terms (its terms so
 * far keep their numbers, the next unseen word gets the next one), so that the index, given the
 * same pages in the same order, registers the same words in the same order. Each message is a
 * page's texts (title, tags / custom URL, description of each row); each reply its
 * `PageTokens` (search/rowWords.ts `rowWords` of each row), the pages in the order they came. A
 * thrown error ends the thread and reaches the parent as 'error'.
 */
const { terms } = workerData as TokenizerThreadData;
const port = parentPort!;
const known = new Map(terms.map((w, t) => [w, t]));
let next = terms.length;
let unseen: string[] = [];
const wordIds = new WordIds((word) => {
  const t = known.get(word);
  if (t !== undefined) return t;
  unseen.push(word);
  return next++;
});
let ids = new Int32Array(1 << 16);

port.on('message', (texts: string[]) => {
  const counts = new Int32Array(texts.length);
  let n = 0;
  for (let i = 0; i < texts.length; i += 3) {
    if (n + ROW_WORDS_MAX > ids.length) ids = grown(ids, 2 * (n + ROW_WORDS_MAX), n);
    const words = rowWords(wordIds, texts[i], texts[i + 1], texts[i + 2], ids, n);
    counts[i] = words.title;
    counts[i + 1] = words.searchText;
    counts[i + 2] = words.description;
    n += rowWordCount(words);
  }
  const page = ids.slice(0, n);
  const words = unseen;
  unseen = [];
  port.postMessage({ ids: page, counts, words }, [page.buffer, counts.buffer]);
});
