import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  compileIpMatcher,
  ipEntryProblem,
  parseIpEntry,
  parseIpv4,
} from '../../src/services/apikeys/restrictions/ip.ts';

const RUNS = 300;

describe('allowedIps entry validation', () => {
  const valid = [
    '0.0.0.0', '1.2.3.4', '255.255.255.255', '192.168.0.0/16', '10.0.0.0/8', '1.2.3.4/32', '0.0.0.0/0',
    '10.1.2.3/8', // host bits set: accepted
    '::', '::1', '2001:db8::1', '2001:DB8::1', '2001:0db8:0000:0000:0000:0000:0000:0001', 'fe80::/10',
    '2001:db8::/32', '::/0', '2001:db8::1/128', '::ffff:1.2.3.4', '::ffff:10.0.0.0/104',
  ];
  for (const e of valid) {
    test(`accepts ${e}`, () => assert.equal(ipEntryProblem(e), null));
  }

  const invalid: Array<[unknown, RegExp]> = [
    ['', /empty/],
    [' 1.2.3.4', /whitespace/],
    ['1.2.3.4 ', /whitespace/],
    ['1.2.3.4/ 8', /whitespace/],
    ['localhost', /localhost/],
    ['LOCALHOST', /localhost/],
    ['example.com', /host names/],
    ['1.2.3', /IPv4 address/],
    ['1.2.3.4.5', /IPv4 address/],
    ['256.1.1.1', /IPv4 address/],
    ['01.2.3.4', /IPv4 address/],
    ['1.2.3.04', /IPv4 address/],
    ['0x7f.0.0.1', /IPv4 address/],
    ['127.1', /IPv4 address/],
    ['1.2.3.-4', /IPv4 address/],
    ['1.2.3.4/33', /0 to 32/],
    ['1.2.3.4/-1', /0 to 32/],
    ['1.2.3.4/', /0 to 32/],
    ['1.2.3.4/08', /0 to 32/],
    ['1.2.3.4/8/8', /0 to 32/],
    ['1.2.3.4/a', /0 to 32/],
    ['::1/129', /0 to 128/],
    ['::1/', /0 to 128/],
    ['::1/0128', /0 to 128/],
    ['1::2::3', /IPv6 address/],
    ['12345::1', /IPv6 address/],
    ['[::1]', /IPv6 address/],
    ['fe80::1%eth0', /zone/],
    ['1.2.3.4-1.2.3.9', /IPv4 address/],
    ['*', /IPv4 address/],
    [42, /string/],
    [null, /string/],
  ];
  for (const [e, reason] of invalid) {
    test(`rejects ${JSON.stringify(e)}`, () => {
      const problem = ipEntryProblem(e);
      assert.notEqual(problem, null);
      assert.match(problem!, reason);
    });
  }

  test('prefix bounds: /32 ok, /33 rejected; /128 ok, /129 rejected', () => {
    assert.equal(ipEntryProblem('1.2.3.4/32'), null);
    assert.notEqual(ipEntryProblem('1.2.3.4/33'), null);
    assert.equal(ipEntryProblem('1.2.3.4/0'), null);
    assert.equal(ipEntryProblem('::1/128'), null);
    assert.notEqual(ipEntryProblem('::1/129'), null);
    assert.equal(ipEntryProblem('::/0'), null);
  });

  test('parseIpEntry', () => {
    assert.deepEqual(parseIpEntry('1.2.3.4'), { kind: 'v4', addr: 0x01020304, prefix: 32 });
    assert.deepEqual(parseIpEntry('10.0.0.0/8'), { kind: 'v4', addr: 0x0a000000, prefix: 8 });
    assert.deepEqual(parseIpEntry('2001:db8::1/64'), { kind: 'v6', words: [0x20010db8, 0, 0, 1], prefix: 64 });
    assert.equal(parseIpEntry('nope'), null);
  });

  test('parseIpv4 is strict', () => {
    assert.equal(parseIpv4('255.255.255.255'), 0xffffffff);
    assert.equal(parseIpv4('0.0.0.0'), 0);
    for (const s of ['', '1.2.3', '1.2.3.4.', '.1.2.3.4', '1..2.3', '1.2.3.256', '1.2.3.4x', '00.1.2.3', '1234.1.1.1']) {
      assert.equal(parseIpv4(s), -1, s);
    }
  });
});

describe('IP matcher', () => {
  const CASES: Array<[string[], string, boolean]> = [
    [['1.2.3.4'], '1.2.3.4', true],
    [['1.2.3.4'], '1.2.3.5', false],
    [['1.2.3.4/32'], '1.2.3.4', true],
    [['1.2.3.4/32'], '1.2.3.5', false],
    [['1.2.3.0/24'], '1.2.3.255', true],
    [['1.2.3.0/24'], '1.2.4.0', false],
    [['10.1.2.3/8'], '10.200.0.1', true],
    [['10.1.2.3/8'], '11.0.0.1', false],
    [['0.0.0.0/0'], '203.0.113.9', true],
    [['0.0.0.0/0'], '::1', false],
    [['128.0.0.0/1'], '127.255.255.255', false],
    [['128.0.0.0/1'], '128.0.0.0', true],
    // IPv4-mapped callers
    [['1.2.3.4'], '::ffff:1.2.3.4', true],
    [['1.2.3.4'], '::FFFF:1.2.3.4', true],
    [['1.2.3.0/24'], '::ffff:1.2.3.77', true],
    [['1.2.3.0/24'], '::ffff:1.2.4.77', false],
    [['1.2.3.4'], '::ffff:102:304', true],
    [['1.2.3.4'], '0:0:0:0:0:ffff:1.2.3.4', true],
    // IPv4-mapped entries
    [['::ffff:1.2.3.4'], '1.2.3.4', true],
    [['::ffff:1.2.3.0/120'], '1.2.3.99', true],
    [['::ffff:1.2.3.0/120'], '1.2.4.99', false],
    [['::ffff:0:0/96'], '8.8.8.8', true],
    // IPv6
    [['::1'], '::1', true],
    [['::1'], '0:0:0:0:0:0:0:1', true],
    [['::1'], '::2', false],
    [['2001:db8::/32'], '2001:db8:ffff::1', true],
    [['2001:db8::/32'], '2001:db9::1', false],
    [['2001:DB8::/32'], '2001:db8::abcd', true],
    [['2001:db8::1'], '2001:DB8::1', true],
    [['fe80::/10'], 'febf::1', true],
    [['fe80::/10'], 'fec0::1', false],
    [['fe80::/10'], 'fe80::1%eth0', true],
    [['::/0'], '2001:db8::1', true],
    [['::/0'], '1.2.3.4', false],
    [['2001:db8::/127'], '2001:db8::1', true],
    [['2001:db8::/127'], '2001:db8::2', false],
    [['2001:db8:0:0:8000::/65'], '2001:db8:0:0:ffff::', true],
    [['2001:db8::/65'], '2001:db8:0:0:7fff:ffff:ffff:ffff', true],
    [['2001:db8::/65'], '2001:db8:0:0:8000::', false],
    [['2001:db8:0:0:8000::/65'], '2001:db8:0:0:7fff::', false],
    // mixed lists
    [['1.2.3.4', '2001:db8::/32'], '2001:db8::5', true],
    [['1.2.3.4', '2001:db8::/32'], '1.2.3.4', true],
    [['1.2.3.4', '2001:db8::/32'], '4.3.2.1', false],
    // unparsable / empty callers and entries
    [['1.2.3.4'], '', false],
    [['1.2.3.4'], 'localhost', false],
    [['1.2.3.4'], '1.2.3.4.5', false],
    [['1.2.3.4'], '01.2.3.4', false],
    [['1.2.3.4'], ' 1.2.3.4', false],
    [['1.2.3.4'], '::ffff:1.2.3', false],
    [['1.2.3.4'], '1.2.3.4/32', false],
    [['0.0.0.0/0'], 'garbage', false],
    [['::/0'], 'g::1', false],
    [['localhost', 'not-an-ip'], '127.0.0.1', false],
    [[], '1.2.3.4', false],
  ];
  for (const [entries, ip, expected] of CASES) {
    test(`${JSON.stringify(entries)} ${expected ? 'matches' : 'does not match'} ${JSON.stringify(ip)}`, () => {
      assert.equal(compileIpMatcher(entries)(ip), expected);
    });
  }

  test('non-string callers never match', () => {
    const m = compileIpMatcher(['0.0.0.0/0', '::/0']);
    assert.equal(m(undefined as unknown as string), false);
    assert.equal(m(null as unknown as string), false);
  });
});

// ---- property-based tests with bit-arithmetic oracles ----

const u32 = fc.integer({ min: 0, max: 0xffffffff });
const v4str = (a: number) => `${a >>> 24}.${(a >>> 16) & 255}.${(a >>> 8) & 255}.${a & 255}`;
const v4InCidr = (ip: number, net: number, n: number) => {
  // Oracle: compare the first n bits one by one.
  for (let i = 31; i > 31 - n; i--) {
    if (((ip >>> i) & 1) !== ((net >>> i) & 1)) return false;
  }
  return true;
};

const u128 = fc.bigInt({ min: 0n, max: (1n << 128n) - 1n });
const isMapped = (a: bigint) => (a >> 32n) === 0xffffn;
const v6full = (a: bigint) => {
  const groups: string[] = [];
  for (let i = 7; i >= 0; i--) groups.push(((a >> BigInt(16 * i)) & 0xffffn).toString(16));
  return groups.join(':');
};
const v6compressed = (a: bigint) => {
  // Compress the longest run of zero groups (>= 2) as "::".
  const g: string[] = [];
  for (let i = 7; i >= 0; i--) g.push(((a >> BigInt(16 * i)) & 0xffffn).toString(16));
  let best = -1, bestLen = 0;
  for (let i = 0; i < 8;) {
    if (g[i] !== '0') { i++; continue; }
    let j = i;
    while (j < 8 && g[j] === '0') j++;
    if (j - i > bestLen) { best = i; bestLen = j - i; }
    i = j;
  }
  if (bestLen < 2) return g.join(':');
  return g.slice(0, best).join(':') + '::' + g.slice(best + bestLen).join(':');
};
const v6InCidr = (ip: bigint, net: bigint, n: number) => {
  if (n === 0) return true;
  const shift = BigInt(128 - n);
  return (ip >> shift) === (net >> shift);
};

describe('IP matcher properties', () => {
  test('IPv4 CIDR a.b.c.d/n matches exactly the addresses sharing the first n bits', () => {
    fc.assert(fc.property(u32, fc.integer({ min: 0, max: 32 }), u32, fc.integer({ min: 0, max: 32 }), (net, n, noise, keep) => {
      const m = compileIpMatcher([`${v4str(net)}/${n}`]);
      // A random address and one that agrees with net on its first `keep` bits.
      const lowMask = keep === 32 ? 0 : (0xffffffff >>> keep);
      const near = ((net & ~lowMask) | (noise & lowMask)) >>> 0;
      return m(v4str(noise)) === v4InCidr(noise, net, n) && m(v4str(near)) === v4InCidr(near, net, n);
    }), { numRuns: RUNS });
  });

  test('an IPv4 /32 (or a bare address) matches only itself', () => {
    fc.assert(fc.property(u32, u32, (a, b) => {
      const m32 = compileIpMatcher([`${v4str(a)}/32`]);
      const bare = compileIpMatcher([v4str(a)]);
      return m32(v4str(a)) && bare(v4str(a)) && m32(v4str(b)) === (a === b) && bare(v4str(b)) === (a === b);
    }), { numRuns: RUNS });
  });

  test('the ::ffff: mapped form of a caller matches like its IPv4 form', () => {
    fc.assert(fc.property(u32, fc.integer({ min: 0, max: 32 }), u32, (net, n, ip) => {
      const m = compileIpMatcher([`${v4str(net)}/${n}`]);
      const hex = `::ffff:${(ip >>> 16).toString(16)}:${(ip & 0xffff).toString(16)}`;
      const expected = m(v4str(ip));
      return m(`::ffff:${v4str(ip)}`) === expected && m(hex) === expected;
    }), { numRuns: RUNS });
  });

  test('a ::ffff:-mapped entry matches like the IPv4 entry', () => {
    fc.assert(fc.property(u32, fc.integer({ min: 0, max: 32 }), u32, (net, n, ip) => {
      const v4 = compileIpMatcher([`${v4str(net)}/${n}`]);
      const mapped = compileIpMatcher([`::ffff:${v4str(net)}/${96 + n}`]);
      return v4(v4str(ip)) === mapped(v4str(ip));
    }), { numRuns: RUNS });
  });

  test('IPv6 CIDR matches exactly the addresses sharing the first n bits (BigInt oracle)', () => {
    fc.assert(fc.property(u128, fc.integer({ min: 0, max: 128 }), u128, fc.integer({ min: 0, max: 128 }), fc.boolean(),
      (net, n, noise, keep, compressed) => {
        const fmt = compressed ? v6compressed : v6full;
        const m = compileIpMatcher([`${fmt(net)}/${n}`]);
        const lowMask = (1n << BigInt(128 - keep)) - 1n;
        const near = (net & ~lowMask) | (noise & lowMask);
        // Oracle, including the documented rule: callers in ::ffff:0:0/96 are IPv4
        // callers and only match entries inside that range.
        const netMapped = n >= 96 && isMapped(net);
        const oracle = (ip: bigint) => (isMapped(ip) && !netMapped ? false : v6InCidr(ip, net, n));
        return m(fmt(noise)) === oracle(noise) && m(fmt(near)) === oracle(near);
      }), { numRuns: RUNS });
  });

  test('an IPv6 /128 (or a bare address) matches only itself', () => {
    fc.assert(fc.property(u128, u128, fc.integer({ min: 0, max: 127 }), (a, b, bit) => {
      fc.pre(!isMapped(a));
      const flipped = a ^ (1n << BigInt(bit));
      const m128 = compileIpMatcher([`${v6compressed(a)}/128`]);
      const bare = compileIpMatcher([v6full(a)]);
      return m128(v6full(a)) && bare(v6compressed(a)) &&
        !m128(v6full(flipped)) && !bare(v6full(flipped)) &&
        m128(v6full(b)) === (a === b);
    }), { numRuns: RUNS });
  });

  test('IPv4 entries never match non-mapped IPv6 callers and vice versa', () => {
    fc.assert(fc.property(u32, u128, (a, b) => {
      fc.pre(!isMapped(b));
      const v4any = compileIpMatcher(['0.0.0.0/0']);
      const v6any = compileIpMatcher(['::/0']);
      return !v4any(v6full(b)) && v6any(v6full(b)) && v4any(v4str(a)) && !v6any(v4str(a)) && !v6any(`::ffff:${v4str(a)}`);
    }), { numRuns: RUNS });
  });

  test('a list matches iff some entry matches', () => {
    const entryArb = fc.oneof(
      fc.tuple(u32, fc.integer({ min: 0, max: 32 })).map(([a, n]) => `${v4str(a)}/${n}`),
      u32.map(v4str),
      fc.tuple(u128, fc.integer({ min: 0, max: 128 })).map(([a, n]) => `${v6compressed(a)}/${n}`),
    );
    const callerArb = fc.oneof(u32.map(v4str), u128.map(v6full), u32.map((a) => `::ffff:${v4str(a)}`));
    fc.assert(fc.property(fc.array(entryArb, { maxLength: 8 }), fc.array(callerArb, { minLength: 1, maxLength: 5 }), (entries, callers) => {
      const all = compileIpMatcher(entries);
      const singles = entries.map((e) => compileIpMatcher([e]));
      return callers.every((c) => all(c) === singles.some((m) => m(c)));
    }), { numRuns: 200 });
  });
});
