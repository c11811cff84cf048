import type { SearchHit, SearchResult } from '../catalog/types.ts';

/**
 * A search result as the search thread sends it (searchThread.ts -> searchPool.ts): the hits'
 * strings joined and written as UTF-16 code units into one buffer, which is transferred (moved,
 * not copied), their other fields in small arrays; the receiver reads the joined string out of the
 * buffer in one call and the hits' strings are slices of it. Measured at a million videos with 5
 * callers searching only on the thread (1.5 s rounds, the same hour): the result posted as objects
 * (25 hits, about 8 KB; 200 objects and strings cloned on each side) gave 4,200 - 5,600 searches a
 * round, the joined string posted as a string 4,900 - 6,100, this buffer 6,900 - 8,100, and a
 * result with no hits (what the search costs without its answer crossing) 7,400 - 9,700. UTF-16
 * keeps every string as it was, a lone surrogate too.
 */
export interface ResultMessage {
  /** The hits' id, channelId, channelTitle, title and description, one after another, as UTF-16 code units. */
  text: ArrayBuffer;
  /** Per hit, each of those five strings' length in code units. */
  lengths: Uint32Array;
  publishedAt: Float64Array;
  /** Per hit, its kind and its liveBroadcastContent (their places in KINDS and LIVE). */
  codes: Uint8Array;
  totalResults: number;
  hasMore: boolean;
}

const KINDS: readonly SearchHit['kind'][] = ['video', 'channel', 'playlist'];
const LIVE: readonly SearchHit['liveBroadcastContent'][] = ['none', 'live', 'upcoming'];
const STRINGS = 5;

/** The message for `result`. */
export function resultMessage(result: SearchResult): ResultMessage {
  const { hits } = result;
  const lengths = new Uint32Array(hits.length * STRINGS);
  const publishedAt = new Float64Array(hits.length);
  const codes = new Uint8Array(hits.length * 2);
  let text = '';
  hits.forEach((h, i) => {
    const k = i * STRINGS;
    lengths[k] = h.id.length;
    lengths[k + 1] = h.channelId.length;
    lengths[k + 2] = h.channelTitle.length;
    lengths[k + 3] = h.title.length;
    lengths[k + 4] = h.description.length;
    text += h.id + h.channelId + h.channelTitle + h.title + h.description;
    publishedAt[i] = h.publishedAt;
    codes[2 * i] = KINDS.indexOf(h.kind);
    codes[2 * i + 1] = LIVE.indexOf(h.liveBroadcastContent);
  });
  const units = Buffer.allocUnsafeSlow(text.length * 2);
  units.write(text, 'utf16le');
  return { text: units.buffer as ArrayBuffer, lengths, publishedAt, codes, totalResults: result.totalResults, hasMore: result.hasMore };
}

/** The result a message carries (see ResultMessage). */
export function resultOf(m: ResultMessage): SearchResult {
  const { lengths } = m;
  const text = Buffer.from(m.text).toString('utf16le');
  const hits: SearchHit[] = new Array(m.publishedAt.length);
  let at = 0;
  const next = (length: number) => text.slice(at, (at += length));
  for (let i = 0; i < hits.length; i++) {
    const k = i * STRINGS;
    hits[i] = {
      kind: KINDS[m.codes[2 * i]],
      id: next(lengths[k]),
      publishedAt: m.publishedAt[i],
      channelId: next(lengths[k + 1]),
      channelTitle: next(lengths[k + 2]),
      title: next(lengths[k + 3]),
      description: next(lengths[k + 4]),
      liveBroadcastContent: LIVE[m.codes[2 * i + 1]],
    };
  }
  return { hits, totalResults: m.totalResults, hasMore: m.hasMore };
}
