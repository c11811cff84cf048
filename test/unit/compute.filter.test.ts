import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ApiError } from '../../src/platform/http/errors.ts';
import { MAX_FILTER_LENGTH, matchesFilter, parseComputeFilter } from '../../src/services/compute/filter/filter.ts';

const tmpl = {
  kind: 'compute#instanceTemplate',
  id: '4567890123456789012',
  creationTimestamp: '2026-11-23T10:00:00.000-08:00',
  name: 'web-1',
  description: 'Front end',
  region: 'https://www.googleapis.com/compute/v1/projects/proj-123/regions/us-central1',
  selfLink: 'https://www.googleapis.com/compute/v1/projects/proj-123/regions/us-central1/instanceTemplates/web-1',
  properties: {
    machineType: 'e2-medium',
    canIpForward: false,
    labels: { env: 'prod', tier: 'front' },
    tags: { items: ['http-server', 'https-server'] },
    scheduling: { automaticRestart: true, preemptible: false, onHostMaintenance: 'MIGRATE' },
    disks: [{ boot: true, initializeParams: { diskSizeGb: '20' } }, { boot: false, initializeParams: { diskSizeGb: '500' } }],
  },
};

const cases: [string, boolean][] = [
  ['', true],
  ['   ', true],
  ['name = "web-1"', true],
  ["name = 'web-1'", true],
  ['name = web-1', true],
  ['name = web-2', false],
  ['name != web-1', false],
  ['name != "web-2"', true],
  ['name = web*', true],
  ['name = *-1', true],
  ['name = w*2', false],
  ["name eq 'web-.*'", true],
  ['name eq web-.*', true],
  ["name eq 'web'", false], // the regex must match the whole value
  ["name ne 'web'", true],
  ["name ne 'web-[0-9]'", false],
  ['name eq "(?i)WEB-1"', true],
  ['(name = web-1) AND (id = 4567890123456789012)', true],
  ['(name = web-1) AND (id = 1)', false],
  ['(name = x) OR (properties.machineType = e2-medium)', true],
  ['(name = x) OR (name = y)', false],
  ['(name = web-1) (properties.labels.env = prod)', true],
  ['(name = web-1) (properties.labels.env = dev)', false],
  ['name = web-1 properties.labels.tier = front', true],
  ['properties.machineType = e2-medium', true],
  ['properties.labels.env = prod', true],
  ['properties.labels.missing = prod', false],
  ['properties.labels.missing != prod', true],
  ['properties.labels.env:*', true],
  ['properties.labels.missing:*', false],
  ['properties.labels:env', true],
  ['name:eb', true],
  ['name:web*', true],
  ['name:xyz', false],
  ['properties.tags.items = http-server', true],
  ['properties.tags.items:https', true],
  ['properties.disks.initializeParams.diskSizeGb = 500', true],
  ['properties.disks.initializeParams.diskSizeGb > 400', true],
  ['properties.disks.initializeParams.diskSizeGb > 600', false],
  ['properties.scheduling.automaticRestart = true', true],
  ['properties.scheduling.automaticRestart = TRUE', true],
  ['properties.scheduling.preemptible = false', true],
  ['properties.canIpForward = true', false],
  ['creationTimestamp < "2027-01-01"', true],
  ['creationTimestamp > "2027-01-01"', false],
  ['id >= 4567890123456789012', true],
  ['id = 4567890123456789013', false], // 64-bit ids compare exactly
  ['id < 4567890123456789013', true],
  ['id = 4.567890123456789012e18', true],
  ['NOT name = web-1', false],
  ['NOT (name = x)', true],
  ['-(name = web-1)', false],
  ['region eq ".*\\bus\\-central1\\b.*"', true],
  ['region eq ".*\\bus\\-east1\\b.*"', false],
  ['(region eq ".*\\bus\\-central1\\b.*") (name eq "web.*")', true],
  ['selfLink = https://www.googleapis.com/compute/v1/projects/proj-123/regions/us-central1/instanceTemplates/web-1', true],
  ['description = "Front end"', true],
  ['description = "Front \\"end\\""', false],
  ['__proto__ = x', false],
  ['constructor:*', false],
  ['properties.labels.toString:*', false],
  ['name.length = 5', false],
  // Patterns a backtracking engine would take forever on are plain linear-time matches here.
  ["name eq '(w+)+'", false],
  ["name eq '(web|we|w)(-|b)*(-1|1)'", true],
  ["name eq '(.*)*-1'", true],
  ["name eq '[[:alpha:]]+-\\d'", true],
  ["name eq 'WEB-1'", false],
  ["name eq '(?i)WEB-1'", true],
  ["name eq '\\x{77}eb-1'", true],
  ["name eq 'web\\B-1'", false],
  ["name eq '^web-1$'", true],
  // RE2's syntax, as RE2 reads it: group names may start with a digit, Unicode classes, quoted text.
  ["name eq '(?P<1x>web)-1'", true],
  ["name eq '\\pL+-\\d'", true],
  ["name eq '\\Qweb-\\E1'", true],
  ["name eq '\\Qweb.\\E1'", false],
];

describe('Compute list filter: matching', () => {
  for (const [filter, expected] of cases) {
    test(filter || '(empty)', () => assert.equal(matchesFilter(parseComputeFilter(filter), tmpl), expected));
  }
});

const invalid = [
  'name',
  'name =',
  '= x',
  '(name = x',
  'name = x)',
  '()',
  'AND',
  'name = x AND',
  'OR name = x',
  'name = "unterminated',
  "name eq 'a**'", // RE2: bad repetition operator
  "name eq '\\k<a>'",
  "name eq '(?=a)a'", // lookarounds: not RE2
  "name eq '(a)\\1'", // backreferences: not RE2
  "name eq '[a'",
  `name eq '${'a'.repeat(300)}'`,
  `name = ${'a*'.repeat(200)}`,
  "name eq '(?:a{1,50}){1,50}'", // expands past the program bound
  '('.repeat(40) + 'name = x' + ')'.repeat(40),
  'x.'.repeat(10) + ' = 1',
  'name = x\0',
  Array.from({ length: 70 }, (_, i) => `(n${i} = 1)`).join(' '),
  'a'.repeat(MAX_FILTER_LENGTH + 1),
];

describe('Compute list filter: invalid filters are 400 invalid, never match-all', () => {
  for (const filter of invalid) {
    test(JSON.stringify(filter.slice(0, 60)), () => {
      assert.throws(
        () => parseComputeFilter(filter),
        (e: unknown) => {
          assert.ok(e instanceof ApiError);
          assert.equal(e.httpCode, 400);
          assert.equal(e.reason, 'invalid');
          assert.match(e.message, /^Invalid value for field 'filter': '.*'\. Invalid list filter expression\.$/s);
          return true;
        },
      );
    });
  }
  test('the message quotes the filter', () => {
    assert.throws(() => parseComputeFilter('name ='), { message: "Invalid value for field 'filter': 'name ='. Invalid list filter expression." });
  });
});

describe('Compute list filter: regex work is bounded', () => {
  test('pathological patterns on long values stay linear', () => {
    const long = { name: 'a'.repeat(4000) + '!' };
    for (const f of ["name eq '(a+)+b'", "name eq '(a|aa)*b'", "name eq '.*.*.*.*.*.*.*b'", "name eq '(a*)*(a*)*(a*)*b'"]) {
      const t0 = performance.now();
      assert.equal(matchesFilter(parseComputeFilter(f), long), false);
      assert.ok(performance.now() - t0 < 500, f);
    }
  });
  test('a filter that exhausts its work budget is a 400, not a hang', () => {
    const f = parseComputeFilter(`name eq '(?:.?){300}x'`);
    const long = { name: 'a'.repeat(4000) };
    assert.throws(
      () => {
        for (let i = 0; i < 1000; i++) matchesFilter(f, long);
      },
      (e: unknown) => e instanceof ApiError && e.httpCode === 400 && /too expensive/.test(e.message),
    );
  });
});

describe('Compute list filter: fuzz', () => {
  test('any text parses or is a 400; evaluation never throws and stays fast', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200, unit: fc.constantFrom('a', 'n', 'e', 'q', ' ', '=', '!', ':', '(', ')', '"', "'", '*', '.', '+', '|', '\\', '-', 'AND ', 'OR ', 'NOT ', 'name', 'eq ', 'ne ') }), (text) => {
        let f;
        try {
          f = parseComputeFilter(text);
        } catch (e) {
          assert.ok(e instanceof ApiError && e.httpCode === 400, String(e));
          return;
        }
        const t0 = performance.now();
        matchesFilter(f, { ...tmpl, name: 'a'.repeat(2000) });
        assert.ok(performance.now() - t0 < 200);
      }),
      { numRuns: 2000 },
    );
  });
});
