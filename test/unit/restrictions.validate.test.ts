import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  MAX_REPORTED_VIOLATIONS,
  normalizeSha1Fingerprint,
  validateRestrictions,
} from '../../src/services/apikeys/restrictions/validate.ts';
import type { FieldViolation, Restrictions } from '../../src/services/apikeys/restrictions/types.ts';

const FREE = { boundToServiceAccount: false };
const BOUND = { boundToServiceAccount: true };

const FP = 'DA39A3EE5E6B4B0D3255BFEF95601890AFD80709';
const FP_COLONS = 'DA:39:A3:EE:5E:6B:4B:0D:32:55:BF:EF:95:60:18:90:AF:D8:07:09';

function ok(input: unknown, opts = FREE): Restrictions {
  const r = validateRestrictions(input as Restrictions, opts);
  if (!r.ok) assert.fail(`expected valid, got ${JSON.stringify(r.violations, null, 1)}`);
  return r.value;
}

function bad(input: unknown, opts = FREE): FieldViolation[] {
  const r = validateRestrictions(input as Restrictions, opts);
  if (r.ok) assert.fail(`expected violations, got ok ${JSON.stringify(r.value)}`);
  assert.ok(r.violations.length > 0);
  for (const v of r.violations) {
    assert.equal(typeof v.field, 'string');
    assert.ok(v.description.length > 0);
  }
  return r.violations;
}

function fields(vs: FieldViolation[]): string[] {
  return vs.map((v) => v.field);
}

const browser = (allowedReferrers: unknown[]) => ({ browserKeyRestrictions: { allowedReferrers } });
const server = (allowedIps: unknown[]) => ({ serverKeyRestrictions: { allowedIps } });
const android = (allowedApplications: unknown[]) => ({ androidKeyRestrictions: { allowedApplications } });
const ios = (allowedBundleIds: unknown[]) => ({ iosKeyRestrictions: { allowedBundleIds } });
const targets = (apiTargets: unknown[]) => ({ apiTargets });

describe('validateRestrictions: shape', () => {
  test('absent, null and empty mean unrestricted', () => {
    assert.deepEqual(ok(undefined), {});
    assert.deepEqual(ok(null), {});
    assert.deepEqual(ok({}), {});
  });

  test('non-object restrictions are rejected', () => {
    for (const v of ['x', 1, true, []]) {
      assert.deepEqual(fields(bad(v)), ['restrictions']);
    }
  });

  test('empty parts are dropped', () => {
    assert.deepEqual(ok(browser([])), {});
    assert.deepEqual(ok({ browserKeyRestrictions: {} }), {});
    assert.deepEqual(ok(server([])), {});
    assert.deepEqual(ok(android([])), {});
    assert.deepEqual(ok(ios([])), {});
    assert.deepEqual(ok(targets([])), {});
    assert.deepEqual(ok({ browserKeyRestrictions: null, apiTargets: null }), {});
  });

  test('unknown fields are rejected at every level', () => {
    assert.deepEqual(fields(bad({ foo: 1 })), ['restrictions.foo']);
    assert.deepEqual(fields(bad({ browserKeyRestrictions: { allowedReferrers: ['a.com'], extra: [] } })),
      ['restrictions.browser_key_restrictions.extra']);
    assert.deepEqual(fields(bad(android([{ packageName: 'com.a.b', sha1Fingerprint: FP, x: 1 }]))),
      ['restrictions.android_key_restrictions.allowed_applications[0].x']);
    assert.deepEqual(fields(bad(targets([{ service: 'a.googleapis.com', method: ['Get'] }]))),
      ['restrictions.api_targets[0].method']);
  });

  test('snake_case proto field names are accepted and normalized to lowerCamelCase', () => {
    assert.deepEqual(ok({ browser_key_restrictions: { allowed_referrers: ['a.com/*'] } }),
      { browserKeyRestrictions: { allowedReferrers: ['a.com/*'] } });
    assert.deepEqual(ok({ server_key_restrictions: { allowed_ips: ['1.2.3.4'] } }),
      { serverKeyRestrictions: { allowedIps: ['1.2.3.4'] } });
    assert.deepEqual(ok({ android_key_restrictions: { allowed_applications: [{ package_name: 'com.a.b', sha1_fingerprint: FP_COLONS }] } }),
      { androidKeyRestrictions: { allowedApplications: [{ packageName: 'com.a.b', sha1Fingerprint: FP }] } });
    assert.deepEqual(ok({ ios_key_restrictions: { allowed_bundle_ids: ['com.a'] } }),
      { iosKeyRestrictions: { allowedBundleIds: ['com.a'] } });
    assert.deepEqual(ok({ api_targets: [{ service: 'A.googleapis.com' }] }), { apiTargets: [{ service: 'a.googleapis.com' }] });
  });

  test('wrong types are violations, not exceptions', () => {
    assert.deepEqual(fields(bad({ browserKeyRestrictions: 'a.com' })), ['restrictions.browser_key_restrictions']);
    assert.deepEqual(fields(bad({ browserKeyRestrictions: { allowedReferrers: 'a.com' } })),
      ['restrictions.browser_key_restrictions.allowed_referrers']);
    assert.deepEqual(fields(bad(browser([1]))), ['restrictions.browser_key_restrictions.allowed_referrers[0]']);
    assert.deepEqual(fields(bad(server([null]))), ['restrictions.server_key_restrictions.allowed_ips[0]']);
    assert.deepEqual(fields(bad(android(['com.a.b']))), ['restrictions.android_key_restrictions.allowed_applications[0]']);
    assert.deepEqual(fields(bad(ios([{}]))), ['restrictions.ios_key_restrictions.allowed_bundle_ids[0]']);
    assert.deepEqual(fields(bad({ apiTargets: {} })), ['restrictions.api_targets']);
    assert.deepEqual(fields(bad(targets(['a.googleapis.com']))), ['restrictions.api_targets[0]']);
    assert.deepEqual(fields(bad(targets([{ service: 5 }]))), ['restrictions.api_targets[0].service']);
    assert.deepEqual(fields(bad(targets([{ service: 'a.googleapis.com', methods: 'Get' }]))), ['restrictions.api_targets[0].methods']);
  });

  test('the output does not alias the input and the input is not mutated', () => {
    const input = { ...browser(['a.com/*']), apiTargets: [{ service: 'X.googleapis.com', methods: ['Get'] }] };
    const snapshot = structuredClone(input);
    const out = ok(input);
    assert.deepEqual(input, snapshot);
    out.browserKeyRestrictions!.allowedReferrers!.push('b.com');
    out.apiTargets![0].methods!.push('List');
    assert.deepEqual(input, snapshot);
  });
});

describe('validateRestrictions: one application restriction kind', () => {
  const kinds = {
    browser: browser(['a.com/*']),
    server: server(['1.2.3.4']),
    android: android([{ packageName: 'com.a.b', sha1Fingerprint: FP }]),
    ios: ios(['com.a.b']),
  };
  const names = Object.keys(kinds) as Array<keyof typeof kinds>;

  for (const k of names) {
    test(`${k} alone is valid, and combines with apiTargets`, () => {
      ok(kinds[k]);
      const out = ok({ ...kinds[k], ...targets([{ service: 'translate.googleapis.com' }]) });
      assert.deepEqual(out.apiTargets, [{ service: 'translate.googleapis.com' }]);
    });
  }

  for (let i = 0; i < names.length; i++) {
    for (let j = i + 1; j < names.length; j++) {
      test(`${names[i]} + ${names[j]} is rejected`, () => {
        const vs = bad({ ...kinds[names[i]], ...kinds[names[j]] });
        assert.deepEqual(fields(vs), ['restrictions']);
        assert.match(vs[0].description, /Only one application restriction/);
      });
    }
  }

  test('two kinds are rejected even when both are empty objects (proto oneof)', () => {
    assert.deepEqual(fields(bad({ browserKeyRestrictions: {}, serverKeyRestrictions: {} })), ['restrictions']);
  });

  test('all four kinds at once: one violation naming them', () => {
    const vs = bad({ ...kinds.browser, ...kinds.server, ...kinds.android, ...kinds.ios });
    assert.equal(vs.length, 1);
    assert.match(vs[0].description, /browserKeyRestrictions and serverKeyRestrictions and androidKeyRestrictions and iosKeyRestrictions/);
  });

  test('a key bound to a service account only accepts server restrictions (plus apiTargets)', () => {
    ok(kinds.server, BOUND);
    ok({ ...kinds.server, ...targets([{ service: 'aiplatform.googleapis.com' }]) }, BOUND);
    ok(targets([{ service: 'aiplatform.googleapis.com' }]), BOUND);
    ok({}, BOUND);
    assert.deepEqual(fields(bad(kinds.browser, BOUND)), ['restrictions.browser_key_restrictions']);
    assert.deepEqual(fields(bad(kinds.android, BOUND)), ['restrictions.android_key_restrictions']);
    assert.deepEqual(fields(bad(kinds.ios, BOUND)), ['restrictions.ios_key_restrictions']);
    assert.match(bad(kinds.ios, BOUND)[0].description, /service account/);
  });
});

describe('validateRestrictions: 1200 application restriction entries', () => {
  const make = {
    browser: (n: number) => browser(Array.from({ length: n }, (_, i) => `h${i}.example.com/*`)),
    server: (n: number) => server(Array.from({ length: n }, (_, i) => `10.${i >> 8}.${i & 255}.1`)),
    android: (n: number) => android(Array.from({ length: n }, (_, i) => ({ packageName: `com.example.app${i}`, sha1Fingerprint: FP }))),
    ios: (n: number) => ios(Array.from({ length: n }, (_, i) => `com.example.app${i}`)),
  };
  const listField = {
    browser: 'restrictions.browser_key_restrictions.allowed_referrers',
    server: 'restrictions.server_key_restrictions.allowed_ips',
    android: 'restrictions.android_key_restrictions.allowed_applications',
    ios: 'restrictions.ios_key_restrictions.allowed_bundle_ids',
  };
  for (const k of Object.keys(make) as Array<keyof typeof make>) {
    test(`${k}: 1200 entries accepted, 1201 rejected`, () => {
      ok(make[k](1200));
      const vs = bad(make[k](1201));
      assert.deepEqual(fields(vs), [listField[k]]);
      assert.match(vs[0].description, /At most 1200 .* got 1201/);
    });
  }

  test('duplicates count towards the limit', () => {
    ok(browser(Array(1200).fill('a.com')));
    bad(browser(Array(1201).fill('a.com')));
  });

  test('apiTargets do not count towards the limit', () => {
    const ts = Array.from({ length: 5 }, (_, i) => ({ service: `s${i}.googleapis.com` }));
    ok({ ...make.server(1200), ...targets(ts) });
  });
});

describe('validateRestrictions: referrers', () => {
  test('valid patterns are stored as given', () => {
    const list = ['example.com', '*.example.com/*', 'HTTPS://Example.com:8443/a/*', 'localhost:3000', '*', '[::1]/*'];
    assert.deepEqual(ok(browser(list)), { browserKeyRestrictions: { allowedReferrers: list } });
  });

  test('the wildcard violation names the value and the index', () => {
    const vs = bad(browser(['a.com', 'b.com', 'foo*.example.com']));
    assert.deepEqual(vs, [{
      field: 'restrictions.browser_key_restrictions.allowed_referrers[2]',
      description: "Invalid referrer pattern 'foo*.example.com': a wildcard may only replace a whole leading subdomain label or a trailing path.",
    }]);
  });

  test('every invalid entry is reported', () => {
    const vs = bad(browser(['', ' a.com', 'ok.com', '*foo.example.com', 'ex*ample.com', 'a.com/x*y', 'a'.repeat(2049)]));
    assert.deepEqual(fields(vs), [0, 1, 3, 4, 5, 6].map((i) => `restrictions.browser_key_restrictions.allowed_referrers[${i}]`));
    assert.match(vs[0].description, /^Invalid referrer pattern '': must not be empty\.$/);
    assert.match(vs[5].description, /2048/);
  });
});

describe('validateRestrictions: server IPs', () => {
  test('IPv4, IPv6 and CIDRs are accepted and stored as given', () => {
    const list = ['1.2.3.4', '10.0.0.0/8', '1.2.3.4/32', '0.0.0.0/0', '::1', '2001:DB8::/32', '2001:db8::1/128', '::/0'];
    assert.deepEqual(ok(server(list)), { serverKeyRestrictions: { allowedIps: list } });
  });

  test('boundaries /32 vs /33 and /128 vs /129', () => {
    ok(server(['1.2.3.4/32']));
    ok(server(['::1/128']));
    assert.deepEqual(fields(bad(server(['1.2.3.4/33']))), ['restrictions.server_key_restrictions.allowed_ips[0]']);
    assert.deepEqual(fields(bad(server(['::1/129']))), ['restrictions.server_key_restrictions.allowed_ips[0]']);
  });

  test('localhost, host names and whitespace are rejected, each reported', () => {
    const vs = bad(server(['localhost', '1.2.3.4', 'example.com', ' 1.2.3.4', '1.2.3.4 ', '300.1.1.1']));
    assert.deepEqual(fields(vs), [0, 2, 3, 4, 5].map((i) => `restrictions.server_key_restrictions.allowed_ips[${i}]`));
    assert.match(vs[0].description, /^Invalid IP address or CIDR block 'localhost': 'localhost' is not supported/);
  });
});

describe('validateRestrictions: Android applications', () => {
  const app = (packageName: unknown, sha1Fingerprint: unknown) => android([{ packageName, sha1Fingerprint }]);
  const fpField = 'restrictions.android_key_restrictions.allowed_applications[0].sha1_fingerprint';
  const pkgField = 'restrictions.android_key_restrictions.allowed_applications[0].package_name';
  const storedFp = (r: Restrictions) => r.androidKeyRestrictions!.allowedApplications![0].sha1Fingerprint;

  test('fingerprints with and without colons, any case, are stored uppercase without colons', () => {
    for (const fp of [FP, FP.toLowerCase(), FP_COLONS, FP_COLONS.toLowerCase(), 'da39A3ee5e6b4b0d3255bfef95601890afd80709',
      'dA:39:a3:EE:5e:6B:4b:0D:32:55:bF:Ef:95:60:18:90:aF:D8:07:09']) {
      assert.equal(storedFp(ok(app('com.example.app', fp))), FP, fp);
    }
  });

  test('19 and 21 byte fingerprints are rejected, 20 accepted', () => {
    const hex = (n: number) => 'AB'.repeat(n);
    const colons = (n: number) => Array(n).fill('AB').join(':');
    assert.equal(storedFp(ok(app('com.a.b', hex(20)))), hex(20));
    assert.equal(storedFp(ok(app('com.a.b', colons(20)))), hex(20));
    for (const fp of [hex(19), hex(21), colons(19), colons(21), hex(20) + 'A', hex(20).slice(1)]) {
      assert.deepEqual(fields(bad(app('com.a.b', fp))), [fpField], fp);
    }
  });

  test('malformed fingerprints are rejected', () => {
    for (const fp of [
      'G'.repeat(40),
      FP_COLONS.replace(':', ''), // one colon missing
      FP_COLONS.replace(':', '-'),
      FP.slice(0, 20) + ':' + FP.slice(20),
      ':' + FP,
      FP_COLONS + ':',
      'DA39:A3EE:5E6B:4B0D:3255:BFEF:9560:1890:AFD8:0709',
      ' ' + FP,
      FP + ' ',
      42,
    ]) {
      const vs = bad(app('com.a.b', fp));
      assert.deepEqual(fields(vs), [fpField], String(fp));
    }
    assert.match(bad(app('com.a.b', 'xyz'))[0].description, /^Invalid SHA-1 certificate fingerprint 'xyz': it must be 20 bytes/);
  });

  test('package names follow Java package rules', () => {
    for (const p of ['com.example', 'com.example.app', 'Com.Example_1.a_b', 'a.b', 'a1.b2.c3', 'com.example.' + 'a'.repeat(256 - 12)]) {
      ok(app(p, FP));
    }
    for (const p of ['com', 'example', '1com.example', 'com.1example', 'com..example', '.com.example', 'com.example.',
      'com.exa-mple', 'com.example app', '_com.example', 'com._example', 'com.example.' + 'a'.repeat(257 - 12), 'com.ex*']) {
      assert.deepEqual(fields(bad(app(p, FP))), [pkgField], p);
    }
    assert.match(bad(app('com', FP))[0].description, /^Invalid Android package name 'com'/);
  });

  test('256 characters accepted, 257 rejected', () => {
    const p256 = 'com.' + 'a'.repeat(252);
    assert.equal(p256.length, 256);
    ok(app(p256, FP));
    bad(app(p256 + 'a', FP));
  });

  test('package name and fingerprint are both required; both problems reported', () => {
    assert.deepEqual(fields(bad(android([{ sha1Fingerprint: FP }]))), [pkgField]);
    assert.deepEqual(fields(bad(android([{ packageName: 'com.a.b' }]))), [fpField]);
    assert.deepEqual(fields(bad(android([{}]))), [pkgField, fpField]);
    assert.deepEqual(fields(bad(app('', ''))), [pkgField, fpField]);
    assert.deepEqual(fields(bad(app('bad', 'bad'))), [pkgField, fpField]);
  });

  test('normalizeSha1Fingerprint', () => {
    assert.equal(normalizeSha1Fingerprint(FP_COLONS.toLowerCase()), FP);
    assert.equal(normalizeSha1Fingerprint('AB'.repeat(19)), null);
    assert.equal(normalizeSha1Fingerprint(undefined), null);
  });
});

describe('validateRestrictions: iOS bundle ids', () => {
  const field = 'restrictions.ios_key_restrictions.allowed_bundle_ids[0]';
  test('valid bundle ids are stored as given', () => {
    const list = ['com.example.App', 'com.example.my-app', 'single', 'A1.b2', 'com.example.' + 'a'.repeat(155 - 12)];
    assert.deepEqual(ok(ios(list)), { iosKeyRestrictions: { allowedBundleIds: list } });
  });
  test('invalid bundle ids are rejected', () => {
    for (const b of ['', '.com.example', 'com.example.', 'com..example', 'com.exa_mple', 'com.example app', 'com.*',
      'com/example', 'com.example.' + 'a'.repeat(156 - 12)]) {
      assert.deepEqual(fields(bad(ios([b]))), [field], b);
    }
    assert.match(bad(ios(['com..x']))[0].description, /^Invalid iOS bundle ID 'com\.\.x'/);
  });
  test('155 characters accepted, 156 rejected', () => {
    const b155 = 'com.' + 'a'.repeat(151);
    assert.equal(b155.length, 155);
    ok(ios([b155]));
    bad(ios([b155 + 'a']));
  });
});

describe('validateRestrictions: API targets', () => {
  test('services are stored lowercase; methods as given; empty methods dropped', () => {
    assert.deepEqual(ok(targets([
      { service: 'Translate.GoogleAPIs.com', methods: ['GetSupportedLanguage', 'Translate*'] },
      { service: 'youtube.googleapis.com', methods: [] },
      { service: 'my-api.example.com' },
    ])), {
      apiTargets: [
        { service: 'translate.googleapis.com', methods: ['GetSupportedLanguage', 'Translate*'] },
        { service: 'youtube.googleapis.com' },
        { service: 'my-api.example.com' },
      ],
    });
  });

  test('service is required and must be <api>.<domain>', () => {
    assert.deepEqual(fields(bad(targets([{}]))), ['restrictions.api_targets[0].service']);
    assert.deepEqual(fields(bad(targets([{ service: '' }]))), ['restrictions.api_targets[0].service']);
    assert.deepEqual(fields(bad(targets([{ methods: ['Get'] }]))), ['restrictions.api_targets[0].service']);
    for (const s of ['translate', 'translate.', '.googleapis.com', 'trans late.googleapis.com', 'translate..googleapis.com',
      '-translate.googleapis.com', 'translate-.googleapis.com', 'translate_v2.googleapis.com', 'https://translate.googleapis.com',
      'translate.googleapis.com/', '*.googleapis.com', 'a'.repeat(64) + '.com']) {
      assert.deepEqual(fields(bad(targets([{ service: s }]))), ['restrictions.api_targets[0].service'], s);
    }
    assert.match(bad(targets([{ service: 'translate' }]))[0].description, /^Invalid service name 'translate'/);
  });

  test('duplicate services are rejected case-insensitively, at the later index', () => {
    const vs = bad(targets([{ service: 'a.googleapis.com' }, { service: 'b.googleapis.com' }, { service: 'A.GoogleApis.com', methods: ['Get'] }]));
    assert.deepEqual(fields(vs), ['restrictions.api_targets[2].service']);
    assert.match(vs[0].description, /Duplicate/);
  });

  test('method patterns: trailing * only', () => {
    ok(targets([{ service: 'translate.googleapis.com', methods: [
      '*', 'Get*', 'GetSupportedLanguage', 'google.cloud.translate.v2.TranslateService.GetSupportedLanguage',
      'translate.googleapis.com.Get*', 'google.cloud.*', 'get_thing', 'V3DataSearchService.List',
    ] }]));
    const bads = ['', '*Get', 'G*et', '**', 'Get**', 'a.*.b', 'Get Thing', 'Get.', '.Get', 'a..b', 'Get/List', 'x'.repeat(513)];
    const vs = bad(targets([{ service: 'translate.googleapis.com', methods: bads }]));
    assert.deepEqual(fields(vs), bads.map((_, i) => `restrictions.api_targets[0].methods[${i}]`));
    assert.match(vs[1].description, /^Invalid method '\*Get': .* a wildcard '\*' may only be its last character\.$/);
  });
});

describe('validateRestrictions: collecting violations', () => {
  test('violations from every part are collected', () => {
    const vs = bad({
      browserKeyRestrictions: { allowedReferrers: ['foo*.a.com', 'ok.com', ''] },
      serverKeyRestrictions: { allowedIps: ['localhost'] },
      apiTargets: [{ service: 'nope' }, { service: 'a.googleapis.com', methods: ['*x'] }],
    });
    assert.deepEqual(fields(vs), [
      'restrictions',
      'restrictions.browser_key_restrictions.allowed_referrers[0]',
      'restrictions.browser_key_restrictions.allowed_referrers[2]',
      'restrictions.server_key_restrictions.allowed_ips[0]',
      'restrictions.api_targets[0].service',
      'restrictions.api_targets[1].methods[0]',
    ]);
  });

  test(`at most ${MAX_REPORTED_VIOLATIONS} violations are reported`, () => {
    const vs = bad(browser(Array(5000).fill('bad*')));
    assert.equal(vs.length, MAX_REPORTED_VIOLATIONS);
    assert.equal(vs[0].field, 'restrictions.browser_key_restrictions.allowed_referrers');
  });

  test('long values are truncated in descriptions', () => {
    const vs = bad(browser(['x'.repeat(3000)]));
    assert.ok(vs[0].description.length < 300);
  });
});
