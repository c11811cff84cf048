// The best k documents of a search and the page taken from them: `ranks` must give what sorting
// every kept document gives, ties broken by id (then kind), for any page of the ranking.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SearchIndex } from '../../src/services/media/search/index.ts';
import { TopK } from '../../src/services/media/search/topK.ts';

test('TopK: the page [from, to) of the best k equals the same slice of every document sorted, keys tied or not', () => {
  const n = 3000;
  let state = 7;
  const rand = () => (state = (state * 1103515245 + 12345) >>> 0) / 2 ** 32;
  const ids = Array.from({ length: n }, (_, d) => `id${(d * 7919) % n}`);
  const index = { ids, kind: new Uint8Array(n), titles: ids } as unknown as SearchIndex;
  // few distinct keys: most comparisons are ties decided by id
  const keys = Array.from({ length: n }, () => Math.floor(rand() * 40));
  const all = [...keys.keys()].sort((a, b) => keys[b] - keys[a] || (ids[a] < ids[b] ? -1 : 1));
  for (const [k, from, to] of [[26, 0, 25], [501, 450, 500], [501, 0, 501], [1000, 990, 2000], [10, 5, 5], [10, 12, 20], [n, 0, n]]) {
    const top = new TopK(index, k, false);
    for (let d = 0; d < n; d++) top.offer(d, keys[d]);
    assert.deepEqual(top.ranks(from, to), all.slice(0, k).slice(from, to), `k ${k}, [${from}, ${to})`);
  }
});
