import type { SearchHit, SearchResult } from '../catalog/types.ts';

/**
 * A search result as the search thread sends it (searchThread.ts -> searchPool.ts): the hits'
 * strings joined in one string, their other fields in small arrays. Posted as objects, 25 hits
 * (about 8 KB) cost the sending thread about 40 us and the receiving one 17 - 30 us to clone
 * (200 objects and strings), and the strings, promoted to the old generation under load, grew
 * it by about 60 MB a second between major collections; as one string, about 25 us and 1 - 10 us,
 * and the hits' strings are slices of it, made when they are read.
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
