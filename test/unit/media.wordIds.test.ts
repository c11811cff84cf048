import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { generateCatalog } from '../../src/services/media/catalog/generator.ts';
import { MAX_WORD_LENGTH, WordIds, words } from '../../src/services/media/search/text.ts';

/** A table that numbers words its own way (ids need not be 0, 1, 2...), and the words it gives for a text. */
function table() {
  const seen = new Map<string, number>();
  const wordOf = new Map<number, string>();
  const ids = new WordIds((w) => {
    assert.ok(!seen.has(w), `${JSON.stringify(w)} resolved twice`);
    const id = 7 + 3 * seen.size;
    seen.set(w, id);
    wordOf.set(id, w);
    return id;
  });
  const out = new Int32Array(4096);
  return (text: string, max = Infinity) => {
    const n = ids.ids(text, max, out);
    return Array.from(out.subarray(0, n), (id) => wordOf.get(id));
  };
}

function* stringsOf(v: unknown): Generator<string> {
  if (typeof v === 'string') yield v;
  else if (Array.isArray(v)) for (const x of v) yield* stringsOf(x);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) yield* stringsOf(x);
}

const MAXES = [Infinity, 100, 48, 3, 1];

describe('media WordIds (the indexer\'s word ids) give exactly the words of `words`', () => {
  test('over the texts of a generated catalogue (every language)', () => {
    const wordsOf = table();
    let texts = 0;
    for (const entry of generateCatalog({ videos: 4000, seed: 5 })) {
      for (const s of stringsOf(entry)) {
        texts++;
        for (const max of MAXES) assert.deepEqual(wordsOf(s, max), words(s, max), JSON.stringify(s));
      }
    }
    assert.ok(texts > 20_000);
  });

  test('every code unit of the folded ranges and around them, alone and between letters (marks join, separators split, foldings, unspaced scripts)', () => {
    const wordsOf = table();
    const units: number[] = [];
    for (let c = 0; c < 0x600; c++) units.push(c);
    for (let c = 0x2f00; c < 0x3200; c++) units.push(c);
    for (let c = 0x4d00; c < 0xa100; c += c < 0x4f00 || c > 0x9f00 ? 1 : 7) units.push(c);
    for (let c = 0xa100; c < 0x10000; c += 61) units.push(c);
    for (const c of units) {
      const ch = String.fromCharCode(c);
      for (const s of [ch, `ab${ch}cd`, `Ab ${ch}Cd`, `${ch}${ch}x${ch}`, `x ${ch} ${'y'.repeat(70)}${ch}`, `e${ch}\u0301s ${ch}`, `音${ch}ab${ch}楽x`, `ー${ch}が${ch}`])
        for (const max of MAXES) assert.deepEqual(wordsOf(s, max), words(s, max), `U+${c.toString(16)} in ${JSON.stringify(s)} max ${max}`);
    }
  });

  test('adversarial strings (fuzz): Latin with marks, compatibility forms, unspaced scripts, surrogates, long words', () => {
    const wordsOf = table();
    const units = [
      ...'aZ9 _-.,\'"\u0000\t\nxyzXYZ0123456789', 'é', 'É', 'ñ', 'ç', 'ß', 'Æ', 'ø', 'ı', 'İ', 'Ǆ', 'ǅ', 'ŉ', 'ª', 'º', '²', '¼', 'µ', '\u00a0', '×', '·', '¿',
      '\u0301', '\u0308', '\u0327', '\u20dd', 'K', 'Ω', 'Σ', 'σ', 'ς', 'ﬁ', 'Ａ', '①', '音', '楽', 'ひ', 'が', 'ー', 'ラ', '々', 'ไทย', 'ก', '한', '\ud800', '\udc00',
      'ン', 'й', 'Й', 'ё', 'П', 'Ѐ', 'ΣΑΣ', 'ΌΣ', 'ｶ', 'ﾞ', 'ゝ', '〆', '、', '。', '\u3000', '\u3099', '〱', '漢字', 'ab音', '音ab', '\ud840\udc00', '\ud83d\ude00', 'x'.repeat(MAX_WORD_LENGTH - 1), 'Y'.repeat(MAX_WORD_LENGTH + 1), 'café', 'CAFE\u0301',
    ];
    const text = fc.oneof(
      fc.array(fc.constantFrom(...units), { maxLength: 120 }).map((a) => a.join('')),
      fc.string({ unit: 'binary', maxLength: 300 }),
      fc.string({ unit: fc.integer({ min: 0, max: 0x5ff }).map((c) => String.fromCharCode(c)), maxLength: 200 }),
      fc.string({ unit: fc.oneof(fc.integer({ min: 0x20, max: 0x7f }), fc.integer({ min: 0x2ff0, max: 0x3110 }), fc.integer({ min: 0x4e00, max: 0x4e20 })).map((c) => String.fromCharCode(c)), maxLength: 200 }),
    );
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 120 }), (s, max) => {
        assert.deepEqual(wordsOf(s), words(s));
        assert.deepEqual(wordsOf(s, max), words(s, max));
      }),
      { numRuns: 5000 },
    );
  });

  test('many words: the table grows and keeps every id', () => {
    const ids = new WordIds((w) => Number(w.slice(1)));
    const out = new Int32Array(256);
    for (let round = 0; round < 2; round++)
      for (let i = 0; i < 50_000; i += 100) {
        const text = Array.from({ length: 100 }, (_, k) => `W${i + k}`).join(' ');
        assert.equal(ids.ids(text, 100, out), 100);
        for (let k = 0; k < 100; k++) assert.equal(out[k], i + k);
      }
  });
});
