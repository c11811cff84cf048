import { parentPort, workerData } from 'node:worker_threads';
import type { TokenizerThreadData } from './tokenizer.ts';
import { WordIds } from './text.ts';
import { grown } from './typedArrays.ts';

/**
 * The tokenizer's thread (started by tokenizer.ts for a build of the index from the store): the
 * word ids of each page's indexed fields, numbered as the index numbers its terms (its terms so
 * far keep their numbers, the next unseen word gets the next one), so that the index, given the
 * same pages in the same order, registers the same words in the same order. Each message is a page's texts
 * (title, tags / custom URL, description of each row); each reply its `PageTokens`, the pages in
 * the order they came. A thrown error ends the thread and reaches the parent as 'error'.
 */
const { terms, fieldWords } = workerData as TokenizerThreadData;
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
// room for a field's words and the one `words` may give beyond its limit (see index.ts MAX_POSITIONS)
const room = Math.max(...fieldWords) + 2;
let ids = new Int32Array(1 << 16);

port.on('message', (texts: string[]) => {
  const counts = new Int32Array(texts.length);
  let n = 0;
  for (let i = 0; i < texts.length; i++) {
    const text = texts[i];
    // an empty field is none (the index adds no field break for it)
    if (!text) {
      counts[i] = -1;
      continue;
    }
    if (n + room > ids.length) ids = grown(ids, 2 * (n + room), n);
    counts[i] = wordIds.ids(text, fieldWords[i % fieldWords.length], ids.subarray(n));
    n += counts[i];
  }
  const page = ids.slice(0, n);
  const words = unseen;
  unseen = [];
  port.postMessage({ ids: page, counts, words }, [page.buffer, counts.buffer]);
});
