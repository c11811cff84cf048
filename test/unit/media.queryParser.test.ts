import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { describeQuery, MAX_PHRASE_WORDS, MAX_QUERY_ATOMS, parseQuery } from '../../src/services/media/search/queryParser.ts';
import { MAX_WORD_LENGTH, unicodeWords, words } from '../../src/services/media/search/text.ts';

const d = (q: string) => describeQuery(parseQuery(q));

describe('media q parser', () => {
  test('terms are ANDed, folded for case and accents', () => {
    assert.equal(d('Rock  MUSIC'), 'rock music');
    assert.equal(d('Crème Brûlée'), 'creme brulee');
    assert.equal(d('ＦＵＬＬ width'), 'full width');
    assert.equal(d('Straße Ærø'), 'straße ærø');
  });

  test('OR with | (spaced or not), NOT with -, phrases in quotes', () => {
    assert.equal(d('rock|jazz'), '(rock|jazz)');
    assert.equal(d('rock | jazz | blues live'), '(rock|jazz|blues) live');
    assert.equal(d('rock -live'), 'rock -live');
    assert.equal(d('"live at wembley" queen'), '"live at wembley" queen');
    assert.equal(d('queen -"live at wembley"'), 'queen -"live at wembley"');
    assert.equal(d('"a b"|c'), '("a b"|c)');
    assert.equal(d('rock|rock'), 'rock', 'duplicate alternatives collapse');
  });

  test('a term that folds into several words is a phrase; punctuation separates', () => {
    assert.equal(d('rock-n-roll'), '"rock n roll"');
    assert.equal(d("don't"), '"don t"');
    assert.equal(d('a - b'), 'a b', 'a lone dash is no NOT');
    assert.equal(d('-'), '');
  });

  test('unclosed quote runs to the end; empty parts vanish', () => {
    assert.equal(d('"open phrase'), '"open phrase"');
    assert.equal(d('""'), '');
    assert.equal(d('|||'), '');
    assert.equal(d('| rock'), 'rock', 'a leading | joins nothing');
  });

  test('scripts without spaces split per character, so phrases match by adjacency', () => {
    // (NFKD also folds the voicing mark: ブ -> フ, on both the query and the catalogue side)
    assert.deepEqual(words('音楽ライブ'), ['音', '楽', 'ラ', 'イ', 'フ']);
    assert.equal(d('音楽'), '"音 楽"');
    assert.deepEqual(words('abc日本def'), ['abc', '日', '本', 'def']);
  });

  test('ASCII text is split by a scan of its characters exactly as the general (Unicode) split does', () => {
    const ascii = fc.string({ unit: fc.constantFrom(...'aZ9 _-.,\'"|\u0000\t\nxyzXYZ0123456789', ...'Rock'), maxLength: 300 });
    fc.assert(fc.property(ascii, fc.integer({ min: 1, max: 50 }), (text, max) => {
      assert.deepEqual(words(text), unicodeWords(text));
      assert.deepEqual(words(text, max), unicodeWords(text, max));
    }), { numRuns: 2000 });
    assert.deepEqual(words(`Rock${'x'.repeat(100)} NIGHT_Live2024`), [`rock${'x'.repeat(60)}`, 'night', 'live2024']);
  });

  test('bounded: atoms, phrase length, word length', () => {
    const many = Array.from({ length: 100 }, (_, i) => `w${i}`).join(' ');
    const p = parseQuery(many);
    assert.equal(p.clauses.length, MAX_QUERY_ATOMS);
    const long = parseQuery(`"${Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ')}"`);
    assert.equal(long.clauses[0].alternatives[0].words.length, MAX_PHRASE_WORDS);
    assert.equal(parseQuery('x'.repeat(400)).clauses[0].alternatives[0].words[0].length, MAX_WORD_LENGTH);
  });

  test('never throws, and always returns folded, bounded, non-empty words (fuzz)', () => {
    const unicode = fc.string({ unit: 'binary', maxLength: 600 });
    const grammar = fc
      .array(fc.oneof(fc.constantFrom('-', '|', '"', ' ', '\u0000', '\uD800', 'é', '音', 'Ǆ', '\u0301', '__proto__', "'", ';', '*', '(', ')'), fc.string({ maxLength: 8 })), { maxLength: 80 })
      .map((a) => a.join(''));
    fc.assert(
      fc.property(fc.oneof(unicode, grammar), (q) => {
        const p = parseQuery(q);
        const atoms = [...p.clauses.flatMap((c) => c.alternatives), ...p.excluded];
        assert.ok(atoms.length <= MAX_QUERY_ATOMS);
        for (const c of p.clauses) assert.ok(c.alternatives.length >= 1);
        for (const a of atoms) {
          assert.ok(a.words.length >= 1 && a.words.length <= MAX_PHRASE_WORDS);
          for (const w of a.words) {
            assert.ok(w.length >= 1 && w.length <= MAX_WORD_LENGTH);
            assert.equal(w, w.toLowerCase());
            assert.ok(!/[\s"|\u0000]/u.test(w), JSON.stringify(w));
          }
        }
      }),
      { numRuns: 1000 },
    );
  });

  test('non-strings give an empty query', () => {
    assert.deepEqual(parseQuery(undefined as unknown as string), { clauses: [], excluded: [] });
    assert.deepEqual(parseQuery({} as unknown as string), { clauses: [], excluded: [] });
  });
});
