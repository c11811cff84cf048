import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { compileRe2, Re2SyntaxError } from '../../src/services/compute/filter/re2.ts';

const rows: [string, string, boolean][] = [
  ['abc', 'abc', true],
  ['abc', 'abcd', false], // whole value
  ['a.c', 'a-c', true],
  ['a.c', 'a\nc', false], // . excludes newline, as in RE2
  ['(?s)a.c', 'a\nc', true],
  ['a*', '', true],
  ['a+', '', false],
  ['colou?r', 'color', true],
  ['a{2,3}', 'aaaa', false],
  ['a{2,}', 'aaaa', true],
  ['a{2}', 'aa', true],
  ['x{', 'x{', true], // a literal brace
  ['[a-c]+', 'abcab', true],
  ['[^a-c]+', 'xyz', true],
  ['[^a-c]+', 'xaz', false],
  ['[]a]+', ']a]', true],
  ['[a-]+', 'a-a', true],
  ['[\\d\\-]+', '12-3', true],
  ['[[:upper:]][[:lower:]]+', 'Hello', true],
  ['[[:^digit:]]+', 'abc', true],
  ['\\d+\\.\\d+', '3.14', true],
  ['\\w+', 'a_1', true],
  ['\\W', '-', true],
  ['\\s', '\t', true],
  ['\\S+', 'a b', false],
  ['\\pL+', 'héllo', true],
  ['\\p{Greek}+', 'αβγ', true],
  ['\\PL', '1', true],
  ['\\x41\\x{42}', 'AB', true],
  ['a|b|c', 'b', true],
  ['(ab|cd)+', 'abcdab', true],
  ['(?:ab)?c', 'c', true],
  ['(?P<name>a+)b', 'aab', true],
  ['(?<name>a+)b', 'aab', true],
  ['(?i)abc', 'ABC', true],
  ['a(?i)bc', 'aBC', true],
  ['a(?i)bc', 'ABC', false],
  ['a(?i:b)c', 'aBc', true],
  ['a(?i:b)c', 'aBC', false],
  ['(?i)[a-c]+', 'ABC', true],
  ['.*\\bus\\-central1\\b.*', 'https://www.googleapis.com/compute/v1/projects/p/regions/us-central1', true],
  ['.*\\bus\\-central1\\b.*', 'https://www.googleapis.com/compute/v1/projects/p/regions/us-central10', false],
  ['.*\\b(us\\-central1|europe\\-west1)\\b.*', 'regions/europe-west1', true],
  ['\\Bb', 'b', false],
  ['a\\Bb', 'ab', true],
  ['^abc$', 'abc', true],
  ['\\Aabc\\z', 'abc', true],
  ['(?m)a$\\nb', 'a\nb', true],
  ['é+', 'ééé', true],
  ['😀.', '😀x', true], // code points, not UTF-16 units
  ['.', '😀', true],
  ['(a*)*', 'aaa', true],
  ['(a|)+b', 'aab', true],
  ['(?U)a+?', 'aaa', true],
  ['\\Qa.b*\\Ec', 'a.b*c', true],
  ['\\Qa.b', 'axb', false],
  ['\\Qa.b', 'a.b', true],
];

describe('RE2 matcher: whole-value matches', () => {
  for (const [pattern, input, expected] of rows) {
    test(`${pattern} ~ ${JSON.stringify(input)}`, () => assert.equal(compileRe2(pattern).test(input), expected));
  }
});

const syntaxErrors = ['(', ')', 'a)', '[a', '[z-a]', '*a', 'a**', 'a{2}{3}', '(?=a)', '(?!a)', '(?<=a)b', '(?<!a)b', '\\1', '(a)\\1', '\\k<a>', '\\', '\\xZZ', '\\p{NoSuchClass}', '[[:nope:]]', 'a{1001}', '(?P<>a)', '(?z)a', '(?:a{100}){100}'];

describe('RE2 matcher: what RE2 rejects is a syntax error', () => {
  for (const pattern of syntaxErrors) {
    test(pattern, () => assert.throws(() => compileRe2(pattern), Re2SyntaxError));
  }
});

describe('RE2 matcher: agrees with a backtracking engine on patterns both accept', () => {
  const atom = fc.constantFrom('a', 'b', '.', '[ab]', '[^a]', '\\d', '1', '(?:a|b)', '(a|)');
  const quant = fc.constantFrom('', '', '*', '+', '?', '{1,2}', '{2}');
  const piece = fc.tuple(atom, quant).map(([a, q]) => a + q);
  const seq = fc.array(piece, { minLength: 1, maxLength: 5 }).map((p) => p.join(''));
  const pattern = fc.array(seq, { minLength: 1, maxLength: 3 }).map((alts) => alts.map((a, i) => (i % 2 ? `(${a})*` : a)).join('|'));
  test('random patterns and inputs', () => {
    fc.assert(
      fc.property(pattern, fc.string({ unit: fc.constantFrom('a', 'b', '1', '-'), maxLength: 8 }), (p, s) => {
        assert.equal(compileRe2(p).test(s), new RegExp(`^(?:${p})$`).test(s), `${p} ~ ${s}`);
      }),
      { numRuns: 3000 },
    );
  });
});
