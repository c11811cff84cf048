import { grown } from './typedArrays.ts';

/**
 * Text folding and word splitting shared by the indexer and the query parser, so that a query
 * word and a catalogue word compare equal exactly when their folded forms do.
 *
 * Folding: NFKD, combining marks removed, lower case. Words are runs of letters and digits;
 * scripts written without spaces (Han, Hiragana, Katakana, Thai, Hangul syllables stay whole)
 * are split one character per word, so a phrase of them matches by adjacency.
 */

/** Longest word kept (longer ones are cut): bounds the dictionary and the work per word. */
export const MAX_WORD_LENGTH = 64;

const MARKS = /\p{M}+/gu;
const WORDS = /[\p{L}\p{N}]+/gu;
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]/u;

const ASCII = /^[\x00-\x7F]*$/;

export function fold(text: string): string {
  // ASCII has nothing to decompose or strip (the common case, and the costly part of indexing)
  if (ASCII.test(text)) return text.toLowerCase();
  return text.normalize('NFKD').replace(MARKS, '').toLowerCase();
}

/** Folded words of `text`, in order. Never throws (lone surrogates and NUL are separators). */
export function words(text: string, max = Infinity): string[] {
  return ASCII.test(text) ? asciiWords(text.toLowerCase(), max) : unicodeWords(text, max);
}

/**
 * `words` of lower-case ASCII text, by a scan of its characters (letters and digits are the
 * word characters; nothing to decompose, no unspaced script): what most catalogue text is, and
 * the costly part of building the index.
 */
function asciiWords(text: string, max: number): string[] {
  const out: string[] = [];
  let start = -1;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 0;
    if ((c >= 97 && c <= 122) || (c >= 48 && c <= 57)) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      out.push(text.slice(start, Math.min(i, start + MAX_WORD_LENGTH)));
      if (out.length >= max) return out;
      start = -1;
    }
  }
  return out;
}

/** `words` of any text (exported for tests: the ASCII scan must give what it gives). */
export function unicodeWords(text: string, max = Infinity): string[] {
  const out: string[] = [];
  for (const m of fold(text).matchAll(WORDS)) {
    const w = m[0];
    if (UNSPACED.test(w)) {
      let run = '';
      for (const ch of w) {
        if (UNSPACED.test(ch)) {
          if (run) out.push(run.slice(0, MAX_WORD_LENGTH));
          run = '';
          out.push(ch);
        } else run += ch;
        if (out.length >= max) return out;
      }
      if (run) out.push(run.slice(0, MAX_WORD_LENGTH));
    } else out.push(w.length > MAX_WORD_LENGTH ? w.slice(0, MAX_WORD_LENGTH) : w);
    if (out.length >= max) return out.slice(0, max);
  }
  return out;
}

/**
 * How the indexer's scan (`WordIds.ids`) reads a code unit below FOLD_TABLE_SIZE: the code of
 * its folded form when that is one letter or digit (with UNSPACED_CHAR when of an unspaced
 * script), SEPARATOR when its folded form is not empty and holds no letter nor digit, else
 * UNSAFE (a mark, which joins what is around it, or a fold of several characters). Made from
 * `fold` itself, character by character, for Latin (ASCII, Latin-1, Latin Extended), Cyrillic,
 * kana and the CJK punctuation, and the CJK ideographs (the rest is UNSAFE, Greek too). Such text
 * folds character by character: NFKD decomposes each into a base and marks (reordering moves
 * marks only), the marks go, and lower case maps each letter alone (its one context rule, the
 * final sigma, is Greek's, which is left out);
 * so the words of such text are its runs of word characters, each unspaced one a word of its
 * own. Any other code unit sends the text to `words`.
 */
const FOLD_TABLE_SIZE = 0xa000;
const FOLDED_RANGES: [number, number][] = [
  [0, 0x300],
  [0x400, 0x530],
  [0x3000, 0x3100],
  [0x4e00, 0xa000],
];
const SEPARATOR = -1;
const UNSAFE = -2;
const UNSPACED_CHAR = 1 << 16;
let foldTable: Int32Array | undefined;
function makeFoldTable(): Int32Array {
  const table = new Int32Array(FOLD_TABLE_SIZE).fill(UNSAFE);
  const wordChar = /[\p{L}\p{N}]/u;
  for (const [from, to] of FOLDED_RANGES) {
    for (let c = from; c < to; c++) {
      const f = fold(String.fromCharCode(c));
      if (f.length === 1 && wordChar.test(f)) table[c] = f.charCodeAt(0) | (UNSPACED.test(f) ? UNSPACED_CHAR : 0);
      else if (f.length > 0 && !wordChar.test(f)) table[c] = SEPARATOR;
    }
  }
  return table;
}

const FNV_OFFSET = 0x811c9dc5 | 0;
const FNV_PRIME = 0x01000193;
/** The final mix of a word's hash (FNV-1a's low bits are weak for short words). */
function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return h;
}

/**
 * Word -> id for the indexer: the ids of a text's `words` without making a string per word.
 * Text the table folds (see makeFoldTable) is scanned once: each word is folded, hashed and looked up in
 * an open-addressing table as it is read, and a string is made only for a word the table has
 * not seen; other text is split by `words` and its words looked up in the same table. `resolve`
 * gives an unseen word its id (the caller's numbering: the table learns words as they come).
 */
export class WordIds {
  readonly #resolve: (word: string) => number;
  /** Open addressing, linear probing: entry + 1 (0: empty), at most half full. */
  #slots = new Int32Array(1 << 12);
  #hashes = new Int32Array(1 << 11);
  #ids = new Int32Array(1 << 11);
  #entries: string[] = [];
  readonly #fold: Int32Array;

  constructor(resolve: (word: string) => number) {
    this.#resolve = resolve;
    this.#fold = foldTable ??= makeFoldTable();
  }

  /** The ids of `words(text, max)`, written to `out` (at least `max` long, or `words`' count); how many. */
  ids(text: string, max: number, out: Int32Array): number {
    const n = this.#scan(text, max, out);
    if (n >= 0) return n;
    const ws = words(text, max);
    for (let i = 0; i < ws.length; i++) out[i] = this.#idOfString(ws[i]);
    return ws.length;
  }

  /**
   * The scan of text the table folds (see makeFoldTable); -1 at a code unit it does not (the
   * caller splits the text with `words`). A run of letters is split at each unspaced character,
   * a word of its own; as in unicodeWords, the run before an unspaced character and the character
   * are both taken before the count is checked against `max` (so one word more may be given).
   */
  #scan(text: string, max: number, out: Int32Array): number {
    const table = this.#fold;
    const len = text.length;
    let n = 0;
    let i = 0;
    while (i < len) {
      const c = text.charCodeAt(i);
      if (c >= FOLD_TABLE_SIZE) return -1;
      const f = table[c];
      if (f === SEPARATOR) {
        i++;
        continue;
      }
      if (f === UNSAFE) return -1;
      if (f >= UNSPACED_CHAR) {
        out[n++] = this.#idOfRun(text, i, 1, mix(Math.imul(FNV_OFFSET ^ (f & 0xffff), FNV_PRIME)));
        i++;
        if (n >= max) return n;
        continue;
      }
      // a word (up to a separator or an unspaced character): its first MAX_WORD_LENGTH folded characters hashed, the rest skipped
      const start = i;
      let h = FNV_OFFSET;
      let g = f;
      for (;;) {
        if (i - start < MAX_WORD_LENGTH) h = Math.imul(h ^ g, FNV_PRIME);
        if (++i === len) break;
        const d = text.charCodeAt(i);
        if (d >= FOLD_TABLE_SIZE) return -1;
        g = table[d];
        if (g === UNSAFE) return -1;
        if (g === SEPARATOR || g >= UNSPACED_CHAR) break;
      }
      out[n++] = this.#idOfRun(text, start, Math.min(i - start, MAX_WORD_LENGTH), mix(h));
      if (i < len && g >= UNSPACED_CHAR) {
        out[n++] = this.#idOfRun(text, i, 1, mix(Math.imul(FNV_OFFSET ^ (g & 0xffff), FNV_PRIME)));
        i++;
      }
      if (n >= max) return n;
    }
    return n;
  }

  /** The id of the word folded from `text[start, start + length)` (word characters of the table), hash `h`. */
  #idOfRun(text: string, start: number, length: number, h: number): number {
    const table = this.#fold;
    const mask = this.#slots.length - 1;
    for (let s = h & mask; ; s = (s + 1) & mask) {
      const e = this.#slots[s] - 1;
      if (e < 0) break;
      if (this.#hashes[e] !== h) continue;
      const w = this.#entries[e];
      if (w.length !== length) continue;
      let k = 0;
      while (k < length && w.charCodeAt(k) === (table[text.charCodeAt(start + k)] & 0xffff)) k++;
      if (k === length) return this.#ids[e];
    }
    let w = '';
    for (let k = 0; k < length; k++) w += String.fromCharCode(table[text.charCodeAt(start + k)] & 0xffff);
    return this.#add(w, h);
  }

  #idOfString(w: string): number {
    let h = FNV_OFFSET;
    for (let k = 0; k < w.length; k++) h = Math.imul(h ^ w.charCodeAt(k), FNV_PRIME);
    h = mix(h);
    const mask = this.#slots.length - 1;
    for (let s = h & mask; ; s = (s + 1) & mask) {
      const e = this.#slots[s] - 1;
      if (e < 0) break;
      if (this.#hashes[e] === h && this.#entries[e] === w) return this.#ids[e];
    }
    return this.#add(w, h);
  }

  #add(w: string, h: number): number {
    const id = this.#resolve(w);
    const e = this.#entries.length;
    if (e === this.#hashes.length) {
      this.#hashes = grown(this.#hashes, e * 2);
      this.#ids = grown(this.#ids, e * 2);
    }
    this.#entries.push(w);
    this.#hashes[e] = h;
    this.#ids[e] = id;
    if (2 * (e + 1) > this.#slots.length) {
      const slots = new Int32Array(this.#slots.length * 2);
      const mask = slots.length - 1;
      for (let x = 0; x <= e; x++) {
        let s = this.#hashes[x] & mask;
        while (slots[s]) s = (s + 1) & mask;
        slots[s] = x + 1;
      }
      this.#slots = slots;
    } else {
      const mask = this.#slots.length - 1;
      let s = h & mask;
      while (this.#slots[s]) s = (s + 1) & mask;
      this.#slots[s] = e + 1;
    }
    return id;
  }
}
