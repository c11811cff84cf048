import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { methodPattern } from '../../src/platform/journal/journal.ts';

describe('method id patterns (fault rules, the journal filter)', () => {
  const rows: [string, string, boolean][] = [
    ['apikeys.keys.lookupKey', 'apikeys.keys.lookupKey', true],
    ['apikeys.keys.lookupKey', 'apikeys.keys.lookupKeys', false],
    ['*', '', true],
    ['*', 'compute.instanceTemplates.list', true],
    ['compute.*', 'compute.instanceTemplates.list', true],
    ['compute.*', 'apikeys.keys.lookupKey', false],
    ['*.list', 'youtube.search.list', true],
    ['*.list', 'youtube.search.lister', false],
    ['a*a', 'a', false], // the two ends may not overlap
    ['a*a', 'aa', true],
    ['*s*s*', 'ss', true],
    ['*s*s*', 's', false],
    ['*.*.*', 'a.b', false],
    ['compute.*Templates.*', 'compute.regionInstanceTemplates.insert', true],
    ['**', 'x', true],
    ['.*', 'x', false], // `.` is itself, not a regex
    ['a+', 'aa', false],
  ];
  for (const [pattern, id, expected] of rows) test(`${pattern} ~ ${id}`, () => assert.equal(methodPattern(pattern)(id), expected));

  test('agrees with the regular expression a `*` glob means', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'b', '.'), maxLength: 12 });
    const pattern = fc.string({ unit: fc.constantFrom('a', 'b', '.', '*'), maxLength: 8 });
    fc.assert(
      fc.property(pattern, text, (p, s) => {
        const re = new RegExp('^' + p.split('*').map((r) => r.replaceAll('.', '\\.')).join('.*') + '$', 's');
        assert.equal(methodPattern(p)(s), re.test(s), `${p} ~ ${s}`);
      }),
      { numRuns: 5000 },
    );
  });

  test('a pattern a backtracking engine never finishes is a plain linear match', () => {
    // As a regex (`^.*.*...a$`) this takes time exponential in the stars; the glob matcher takes
    // one pass per literal run: both ids answer at once.
    const subject = 'b'.repeat(10_000);
    const t0 = performance.now();
    assert.equal(methodPattern('*'.repeat(40) + 'a')(subject), false);
    assert.equal(methodPattern('*b'.repeat(40) + '*a')(subject), false);
    assert.equal(methodPattern('*b'.repeat(40) + '*')(subject), true);
    assert.ok(performance.now() - t0 < 1000, 'three matches of a 10,000-character id');
  });
});
