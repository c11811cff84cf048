// The searches of a posting list that a walk in score order makes: `seek` (through the list's
// table by document number) must find what a binary search of the whole list finds, for every
// list size and target, also after the list grew in place.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { list, lowerBound, seek } from '../../src/services/media/search/postingLists.ts';

/** `n` ascending documents with gaps of 1 to `gap`, in an array with room to grow. */
function ascending(n: number, gap: number, seed: number, room = 0): Int32Array {
  let state = seed;
  const docs = new Int32Array(n + room);
  for (let i = 0, d = 0; i < n; i++) {
    state = (state * 1103515245 + 12345) >>> 0;
    d += 1 + (state % gap);
    docs[i] = d;
  }
  return docs;
}

describe('posting lists: seek', () => {
  test('finds the first document >= the target as a binary search does, for lists below and above the size that gets a table', () => {
    for (const n of [0, 1, 15, 16, 17, 1023, 1024, 1025, 1040, 4096, 30_001]) {
      const docs = ascending(n, 9, n + 1);
      const word = list({ docs, n }, 1, false, undefined, 7);
      const last = n ? docs[n - 1] : 0;
      for (let target = -1; target <= last + 2; target += n > 5000 ? 3 : 1) {
        assert.equal(seek(word, target), lowerBound(docs, n, target), `n ${n}, target ${target}`);
      }
    }
  });

  test('a list that grew in place (a word found in new documents) gets a new table', () => {
    const docs = ascending(2000, 5, 3, 2000);
    const word = list({ docs, n: 2000 }, 1, false, undefined, 3);
    const end = docs[1999];
    assert.equal(seek(word, end + 1), 2000, 'past the end');
    for (let i = 2000; i < 4000; i++) docs[i] = end + 2 * (i - 1999);
    const grown = list({ docs, n: 4000 }, 1, false, undefined, 3);
    for (let target = end - 40; target <= docs[3999] + 1; target++) assert.equal(seek(grown, target), lowerBound(docs, 4000, target), `target ${target}`);
  });

  test('a list of no word (a phrase, a union) is searched whole', () => {
    const docs = ascending(5000, 4, 11);
    const phrase = list({ docs, n: 5000 }, 1, false);
    for (const target of [0, docs[0], docs[17] + 1, docs[4999], docs[4999] + 1]) assert.equal(seek(phrase, target), lowerBound(docs, 5000, target));
  });
});
