import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  compileReferrerPattern,
  compileReferrerPatterns,
  parseReferer,
  parseReferrerPattern,
  referrerPatternProblem,
  WILDCARD_REASON,
} from '../../src/services/apikeys/restrictions/referrer.ts';

const RUNS = 300;

describe('referrer pattern validation', () => {
  const valid = [
    '*',
    'example.com',
    'example.com/*',
    'example.com/',
    'example.com/a',
    'example.com/foo/*',
    'example.com/foo*',
    '*.example.com',
    '*.example.com/*',
    '*.com/*',
    'sub.example.com/*',
    'a.b.c.example.co.uk/path/page.html',
    'example.com:8000/*',
    'example.com:1/*',
    'example.com:65535',
    '*.example.com:443/*',
    'http://example.com/*',
    'https://example.com/*',
    'HTTPS://Example.COM/*',
    'localhost',
    'localhost:3000/*',
    '127.0.0.1:8080/*',
    '[::1]',
    '[::1]:8080/*',
    '[2001:db8::1]/app/*',
    'my-site.example.com/*',
    'xn--bcher-kva.example/*',
    '*:8080/*',
    '*/*',
    'example.com/a%20b/~x(1);y=2,z+@!$&\'/*',
    'a'.repeat(63) + '.com',
    'example.com/' + 'a'.repeat(2048 - 'example.com/'.length),
  ];
  for (const p of valid) {
    test(`accepts ${JSON.stringify(p.length > 80 ? p.slice(0, 40) + '...' : p)}`, () => {
      assert.equal(referrerPatternProblem(p), null);
    });
  }

  const invalid: Array<[string, RegExp]> = [
    ['', /empty/],
    [' ', /whitespace/],
    [' example.com', /whitespace/],
    ['example.com ', /whitespace/],
    ['example .com', /whitespace/],
    ['example.com/\t', /whitespace/],
    ['example.com/' + 'a'.repeat(2049 - 'example.com/'.length), /2048/],
    ['foo*.example.com', /wildcard/],
    ['*foo.example.com', /wildcard/],
    ['ex*ample.com', /wildcard/],
    ['example.*', /wildcard/],
    ['example.*.com', /wildcard/],
    ['*.*.example.com', /wildcard/],
    ['**.example.com', /wildcard/],
    ['example.com/*/foo', /wildcard/],
    ['example.com/a*b', /wildcard/],
    ['example.com/**', /wildcard/],
    ['*.1.2.3', /wildcard/],
    ['example.com:*/*', /port/],
    ['example.com:0/*', /port/],
    ['example.com:65536/*', /port/],
    ['example.com:080/*', /port/],
    ['example.com:http/*', /port/],
    ['example.com:/*', /port/],
    ['ftp://example.com/*', /scheme/],
    ['*://example.com/*', /scheme/],
    ['http://', /host/],
    ['/path/*', /host/],
    [':8080/*', /host/],
    ['.example.com', /empty label/],
    ['example..com', /empty label/],
    ['example.com.', /empty label/],
    ['-example.com', /letters, digits/],
    ['example-.com', /letters, digits/],
    ['exa_mple.com', /letters, digits/],
    ['a'.repeat(64) + '.com', /63/],
    [('a'.repeat(60) + '.').repeat(5) + 'com', /253/],
    ['bücher.example', /ASCII/],
    ['1.2.3', /IPv4/],
    ['1.2.3.256', /IPv4/],
    ['[::1', /bracket/],
    ['[not-ip]', /IPv6/],
    ['[::1]x', /after/],
    ['::1', /bracket/],
    ['user@example.com', /user/],
    ['example.com/?q=1', /query/],
    ['example.com/#frag', /fragment/],
    ['example.com/a b', /whitespace/],
  ];
  for (const [p, reason] of invalid) {
    test(`rejects ${JSON.stringify(p.length > 80 ? p.slice(0, 40) + '...' : p)}`, () => {
      const problem = referrerPatternProblem(p);
      assert.notEqual(problem, null, `expected ${p} to be rejected`);
      assert.match(problem!, reason);
    });
  }

  test('wildcard inside a label gives the canonical reason', () => {
    for (const p of ['foo*.example.com', '*foo.example.com', 'ex*ample.com']) {
      assert.equal(referrerPatternProblem(p), WILDCARD_REASON);
    }
  });

  test('non-strings are rejected', () => {
    for (const v of [null, undefined, 42, {}, ['example.com']]) {
      assert.equal(parseReferrerPattern(v).ok, false);
    }
  });

  test('2048 characters is the inclusive bound', () => {
    const base = 'example.com/';
    assert.equal(referrerPatternProblem(base + 'a'.repeat(2048 - base.length)), null);
    assert.notEqual(referrerPatternProblem(base + 'a'.repeat(2049 - base.length)), null);
  });

  test('compileReferrerPattern throws on an invalid pattern', () => {
    assert.throws(() => compileReferrerPattern('foo*.example.com'), /Invalid referrer pattern 'foo\*\.example\.com'/);
  });
});

describe('referer parsing', () => {
  test('absolute URL with userinfo, port, query and fragment', () => {
    assert.deepEqual(parseReferer('https://User:pw@Example.COM:8443/a/B?x=1#y'), {
      scheme: 'https', host: 'example.com', port: 8443, path: '/a/B',
    });
  });
  test('default ports by scheme', () => {
    assert.equal(parseReferer('http://example.com/')!.port, 80);
    assert.equal(parseReferer('https://example.com/')!.port, 443);
    assert.equal(parseReferer('HTTPS://example.com/')!.port, 443);
    assert.equal(parseReferer('https://example.com:/')!.port, 443);
  });
  test('empty path is "/"', () => {
    assert.equal(parseReferer('https://example.com')!.path, '/');
    assert.equal(parseReferer('https://example.com?q')!.path, '/');
    assert.equal(parseReferer('https://example.com#f')!.path, '/');
  });
  test('IPv6 hosts are canonicalized', () => {
    assert.equal(parseReferer('http://[0:0::1]:8080/')!.host, '[::1]');
    assert.equal(parseReferer('http://[2001:DB8:0:0::1]/')!.host, '[2001:db8::1]');
  });
  test('scheme-less referer', () => {
    assert.deepEqual(parseReferer('example.com:8080/x'), { scheme: '', host: 'example.com', port: 8080, path: '/x' });
  });
  test('unparsable referers', () => {
    for (const r of ['', 'https://', 'https:///path', 'http://example.com:99999/', 'http://example.com:12a/',
      'http://[::1/', 'http://[zz]/', 'http://user@/x', 'http://:80/']) {
      assert.equal(parseReferer(r), null, r);
    }
  });
});

// [pattern, referer, expected]
const CASES: Array<[string, string, boolean]> = [
  // bare domain and host/*
  ['example.com/*', 'https://example.com/', true],
  ['example.com/*', 'https://example.com', true],
  ['example.com/*', 'http://example.com/any/path?q=1#f', true],
  ['example.com/*', 'https://www.example.com/', false],
  ['example.com/*', 'https://example.com.evil.net/', false],
  ['example.com/*', 'https://notexample.com/', false],
  ['example.com', 'https://example.com/deep/path', true],
  ['example.com', 'https://sub.example.com/', false],
  // subdomains
  ['*.example.com/*', 'https://www.example.com/x', true],
  ['*.example.com/*', 'https://a.b.c.example.com/x', true],
  ['*.example.com/*', 'https://example.com/x', false],
  ['*.example.com/*', 'https://example.com', false],
  ['*.example.com/*', 'https://badexample.com/', false],
  ['*.example.com/*', 'https://example.com.evil.net/', false],
  ['*.example.com/*', 'https://.example.com/', false],
  ['*.example.com', 'http://x.example.com/', true],
  ['sub.example.com/*', 'https://sub.example.com/a', true],
  ['sub.example.com/*', 'https://other.example.com/a', false],
  ['sub.example.com/*', 'https://x.sub.example.com/a', false],
  // exact path
  ['example.com/a', 'https://example.com/a', true],
  ['example.com/a', 'https://example.com/a?x=1', true],
  ['example.com/a', 'https://example.com/a#top', true],
  ['example.com/a', 'https://example.com/a/b', false],
  ['example.com/a', 'https://example.com/a/', false],
  ['example.com/a', 'https://example.com/ab', false],
  ['example.com/a', 'https://example.com/', false],
  ['example.com/a', 'https://example.com/A', false],
  ['example.com/', 'https://example.com', true],
  ['example.com/', 'https://example.com/x', false],
  // prefix paths
  ['example.com/foo/*', 'https://example.com/foo/', true],
  ['example.com/foo/*', 'https://example.com/foo/bar/baz', true],
  ['example.com/foo/*', 'https://example.com/foo', false],
  ['example.com/foo/*', 'https://example.com/foobar', false],
  ['example.com/foo*', 'https://example.com/foobar', true],
  ['example.com/foo/*', 'https://example.com/bar/foo/', false],
  // ports
  ['example.com:8000/*', 'https://example.com:8000/', true],
  ['example.com:8000/*', 'http://example.com:8000/x', true],
  ['example.com:8000/*', 'https://example.com/', false],
  ['example.com:8000/*', 'https://example.com:8001/', false],
  ['example.com:443/*', 'https://example.com/', true],
  ['example.com:80/*', 'http://example.com/', true],
  ['example.com:80/*', 'https://example.com/', false],
  ['example.com/*', 'https://example.com:9999/', true],
  ['*.example.com:8443/*', 'https://a.example.com:8443/', true],
  ['*.example.com:8443/*', 'https://a.example.com/', false],
  // schemes
  ['http://example.com/*', 'http://example.com/', true],
  ['http://example.com/*', 'https://example.com/', false],
  ['https://example.com/*', 'https://example.com/', true],
  ['https://example.com/*', 'http://example.com/', false],
  ['HTTPS://EXAMPLE.com/*', 'https://example.com/', true],
  ['example.com/*', 'ftp://example.com/', false],
  ['example.com/*', 'chrome-extension://example.com/', false],
  ['example.com/*', 'example.com/x', true],
  ['https://example.com/*', 'example.com/x', false],
  // case-insensitive hosts
  ['Example.COM/*', 'https://EXAMPLE.com/x', true],
  ['*.Example.com/*', 'https://WWW.EXAMPLE.COM/x', true],
  // IP literals and localhost
  ['localhost/*', 'http://localhost:3000/', true],
  ['localhost:3000/*', 'http://localhost:3000/', true],
  ['localhost:3000/*', 'http://localhost:3001/', false],
  ['127.0.0.1/*', 'http://127.0.0.1:8080/', true],
  ['[::1]/*', 'http://[::1]:8080/', true],
  ['[::1]:8080/*', 'http://[0:0:0:0:0:0:0:1]:8080/', true],
  ['[::1]:8080/*', 'http://[::2]:8080/', false],
  // userinfo is not the host
  ['example.com/*', 'https://example.com@evil.net/', false],
  ['evil.net/*', 'https://example.com@evil.net/', true],
  // lone * and host *
  ['*', 'https://anything.test/x', true],
  ['*', 'not a url at all', true],
  ['*', '', false],
  ['*/*', 'https://anything.test/x', true],
  ['*/*', 'ftp://anything.test/x', false],
  ['*:8080/*', 'http://a.test:8080/', true],
  ['*:8080/*', 'http://a.test/', false],
  // empty / unparsable referers
  ['example.com/*', '', false],
  ['example.com/*', 'https://', false],
  ['example.com/*', 'https://example.com:99999/', false],
];

describe('referrer matching', () => {
  for (const [pattern, referer, expected] of CASES) {
    test(`${pattern} ${expected ? 'matches' : 'does not match'} ${JSON.stringify(referer)}`, () => {
      assert.equal(compileReferrerPattern(pattern)(referer), expected);
      assert.equal(compileReferrerPatterns([pattern])(referer), expected, 'list matcher');
    });
  }

  test('list matcher: any pattern may match; invalid patterns are ignored', () => {
    const m = compileReferrerPatterns(['foo*.example.com', 'a.test/x', '*.b.test/*', 'c.test:81/*']);
    assert.equal(m('https://a.test/x'), true);
    assert.equal(m('https://a.test/y'), false);
    assert.equal(m('https://q.b.test/y'), true);
    assert.equal(m('https://b.test/y'), false);
    assert.equal(m('http://c.test:81/'), true);
    assert.equal(m('http://c.test/'), false);
    assert.equal(m('https://foox.example.com/'), false);
    assert.equal(compileReferrerPatterns([])('https://a.test/'), false);
  });

  test('list matcher: several patterns for the same host', () => {
    const m = compileReferrerPatterns(['a.test/one', 'a.test/two/*', 'https://a.test:444/three']);
    assert.equal(m('https://a.test/one'), true);
    assert.equal(m('https://a.test/two/x'), true);
    assert.equal(m('https://a.test:444/three'), true);
    assert.equal(m('https://a.test/three'), false);
    assert.equal(m('https://a.test/four'), false);
  });

  test('a whole site needs both the bare and the wildcard entry', () => {
    const sub = compileReferrerPatterns(['*.example.com/*']);
    const both = compileReferrerPatterns(['*.example.com/*', 'example.com/*']);
    assert.equal(sub('https://example.com/'), false);
    assert.equal(both('https://example.com/'), true);
    assert.equal(both('https://www.example.com/'), true);
  });
});

// ---- property-based tests ----

const label = fc.stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,8}[a-z0-9])?$/);
const tld = fc.stringMatching(/^[a-z]{2,6}$/);
const hostArb = fc.tuple(fc.array(label, { minLength: 1, maxLength: 3 }), tld).map(([ls, t]) => [...ls, t].join('.'));
const pathArb = fc.array(fc.stringMatching(/^[A-Za-z0-9._~-]{1,8}$/), { maxLength: 4 }).map((s) => '/' + s.join('/'));
const portArb = fc.integer({ min: 1, max: 65535 });
const randomCase = (s: string, mask: number) =>
  [...s].map((ch, i) => ((mask >> (i % 31)) & 1 ? ch.toUpperCase() : ch)).join('');

describe('referrer matcher properties', () => {
  test('h/* matches https://h/p and http://h:port/p', () => {
    fc.assert(fc.property(hostArb, pathArb, portArb, (h, p, port) => {
      const m = compileReferrerPattern(`${h}/*`);
      return m(`https://${h}${p}`) && m(`http://${h}:${port}${p}`) && m(`https://${h}${p}?q=1#frag`);
    }), { numRuns: RUNS });
  });

  test('bare host h behaves as h/*', () => {
    fc.assert(fc.property(hostArb, hostArb, pathArb, fc.boolean(), (h, h2, p, https) => {
      const a = compileReferrerPattern(h);
      const b = compileReferrerPattern(`${h}/*`);
      const scheme = https ? 'https' : 'http';
      return a(`${scheme}://${h}${p}`) === b(`${scheme}://${h}${p}`) &&
        a(`${scheme}://${h2}${p}`) === b(`${scheme}://${h2}${p}`);
    }), { numRuns: RUNS });
  });

  test('*.h/* matches https://x.h/p at any depth but never https://h/p', () => {
    fc.assert(fc.property(hostArb, fc.array(label, { minLength: 1, maxLength: 3 }), pathArb, (h, xs, p) => {
      const m = compileReferrerPattern(`*.${h}/*`);
      const l = compileReferrerPatterns([`*.${h}/*`]);
      const sub = `https://${xs.join('.')}.${h}${p}`;
      const bare = `https://${h}${p}`;
      return m(sub) && l(sub) && !m(bare) && !l(bare);
    }), { numRuns: RUNS });
  });

  test('host comparison is case-insensitive', () => {
    fc.assert(fc.property(hostArb, pathArb, fc.integer({ min: 0, max: 0x7fffffff }), fc.integer({ min: 0, max: 0x7fffffff }),
      (h, p, m1, m2) => {
        const m = compileReferrerPattern(`${randomCase(h, m1)}/*`);
        return m(`https://${randomCase(h, m2)}${p}`);
      }), { numRuns: RUNS });
  });

  test('a pattern with a port matches exactly that effective port', () => {
    fc.assert(fc.property(hostArb, pathArb, portArb, portArb, (h, p, a, b) => {
      const m = compileReferrerPattern(`${h}:${a}/*`);
      const httpDefault = m(`http://${h}${p}`) === (a === 80);
      const httpsDefault = m(`https://${h}${p}`) === (a === 443);
      return m(`https://${h}:${a}${p}`) && m(`https://${h}:${b}${p}`) === (a === b) && httpDefault && httpsDefault;
    }), { numRuns: RUNS });
  });

  test('an exact path matches only that path (query and fragment ignored)', () => {
    fc.assert(fc.property(hostArb, pathArb, pathArb, (h, p, q) => {
      const m = compileReferrerPattern(`${h}${p}`);
      const other = m(`https://${h}${q}`) === (p === q);
      const longer = !m(`https://${h}${p === '/' ? '' : p}/x`) || p === '/';
      return m(`https://${h}${p}`) && m(`http://${h}${p}?a=b#c`) && other && longer;
    }), { numRuns: RUNS });
  });

  test('a trailing-* path is a prefix match', () => {
    fc.assert(fc.property(hostArb, pathArb, pathArb, (h, p, q) => {
      const prefix = p.endsWith('/') ? p : p + '/';
      const m = compileReferrerPattern(`${h}${prefix}*`);
      return m(`https://${h}${prefix}${q.slice(1)}`) && m(`https://${h}${q}`) === q.startsWith(prefix);
    }), { numRuns: RUNS });
  });

  test('a different host never matches h/* (nor a suffix attack)', () => {
    fc.assert(fc.property(hostArb, hostArb, pathArb, (h, h2, p) => {
      fc.pre(h !== h2);
      const m = compileReferrerPattern(`${h}/*`);
      return !m(`https://${h2}${p}`) && !m(`https://${h}.${h2}${p}`) && !m(`https://x${h}${p}`);
    }), { numRuns: RUNS });
  });

  test('the indexed list matcher agrees with the per-pattern matchers', () => {
    const patternArb = fc.oneof(
      hostArb,
      hostArb.map((h) => `*.${h}`),
      fc.tuple(hostArb, pathArb).map(([h, p]) => h + p),
      fc.tuple(hostArb, pathArb).map(([h, p]) => `${h}${p}*`),
      fc.tuple(hostArb, portArb).map(([h, port]) => `${h}:${port}/*`),
      fc.tuple(fc.constantFrom('http', 'https'), hostArb).map(([s, h]) => `${s}://${h}/*`),
    );
    const refererArb = fc.tuple(fc.constantFrom('http', 'https'), fc.array(label, { maxLength: 2 }), hostArb,
      fc.option(portArb), pathArb).map(([s, pre, h, port, p]) =>
      `${s}://${[...pre, h].join('.')}${port === null ? '' : ':' + port}${p}`);
    fc.assert(fc.property(fc.array(patternArb, { minLength: 1, maxLength: 6 }), fc.array(refererArb, { maxLength: 4 }),
      (patterns, referers) => {
        const list = compileReferrerPatterns(patterns);
        const singles = patterns.map((p) => compileReferrerPattern(p));
        // Also probe referers built from the patterns' own hosts so matches happen.
        const probes = [...referers, ...patterns.map((p) => `https://www.${p.replace(/^\*\.|^https?:\/\//, '').replace(/[:/].*$/, '')}/`),
          ...patterns.map((p) => `https://${p.replace(/^\*\.|^https?:\/\//, '').replace(/\*$/, '')}`)];
        return probes.every((r) => list(r) === singles.some((m) => m(r)));
      }), { numRuns: 200 });
  });
});
