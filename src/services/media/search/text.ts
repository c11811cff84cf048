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
