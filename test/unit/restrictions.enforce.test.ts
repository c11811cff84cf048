import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  compileRestrictions,
  UNRESTRICTED,
  type RequestOrigin,
} from '../../src/services/apikeys/restrictions/enforce.ts';
import { validateRestrictions } from '../../src/services/apikeys/restrictions/validate.ts';
import type { Restrictions } from '../../src/services/apikeys/restrictions/types.ts';

const FP = 'DA39A3EE5E6B4B0D3255BFEF95601890AFD80709';
const FP_COLONS = 'DA:39:A3:EE:5E:6B:4B:0D:32:55:BF:EF:95:60:18:90:AF:D8:07:09';
const OTHER_FP = 'AB'.repeat(20);

const SEARCH: RequestOrigin = { service: 'youtube.googleapis.com', method: 'youtube.api.v3.V3DataSearchService.List' };

/** Compiles what validation would store, like the service does. */
function compile(r: unknown) {
  const v = validateRestrictions(r as Restrictions, { boundToServiceAccount: false });
  if (!v.ok) assert.fail(JSON.stringify(v.violations));
  return compileRestrictions(v.value);
}

function reason(r: unknown, origin: Partial<RequestOrigin>): string | null {
  const f = compile(r).check({ ...SEARCH, ...origin });
  return f === null ? null : f.reason;
}

describe('no restrictions', () => {
  test('empty restrictions allow everything', () => {
    assert.equal(compileRestrictions({}).check(SEARCH), null);
    assert.equal(compileRestrictions({}).check({ service: 'x.googleapis.com', method: 'Any' }), null);
    assert.equal(UNRESTRICTED.check(SEARCH), null);
  });
  test('empty lists count as no restriction', () => {
    const c = compileRestrictions({ browserKeyRestrictions: { allowedReferrers: [] }, apiTargets: [] });
    assert.equal(c.check(SEARCH), null);
  });
});

describe('browser restrictions', () => {
  const r = { browserKeyRestrictions: { allowedReferrers: ['*.example.com/*', 'example.com:8443/app/*'] } };
  test('allowed referers pass', () => {
    assert.equal(reason(r, { referer: 'https://www.example.com/x' }), null);
    assert.equal(reason(r, { referer: 'https://example.com:8443/app/page' }), null);
  });
  test('other, empty or missing referers are blocked', () => {
    for (const referer of ['https://example.com/x', 'https://example.com:8443/other', 'https://evil.test/', '', 'garbage', undefined]) {
      assert.equal(reason(r, { referer }), 'API_KEY_HTTP_REFERRER_BLOCKED', String(referer));
    }
  });
  test('other origin fields do not satisfy a browser restriction', () => {
    assert.equal(reason(r, { ip: '1.2.3.4', iosBundleId: 'com.example' }), 'API_KEY_HTTP_REFERRER_BLOCKED');
  });
});

describe('server restrictions', () => {
  const r = { serverKeyRestrictions: { allowedIps: ['203.0.113.0/24', '2001:db8::/32', '198.51.100.7'] } };
  test('allowed IPs pass, including IPv4-mapped IPv6', () => {
    for (const ip of ['203.0.113.9', '::ffff:203.0.113.200', '2001:db8::1', '198.51.100.7', '::ffff:198.51.100.7']) {
      assert.equal(reason(r, { ip }), null, ip);
    }
  });
  test('other, unparsable or missing IPs are blocked', () => {
    for (const ip of ['203.0.114.1', '198.51.100.8', '2001:db9::1', '::1', 'localhost', '', undefined]) {
      assert.equal(reason(r, { ip }), 'API_KEY_IP_ADDRESS_BLOCKED', String(ip));
    }
  });
});

describe('android restrictions', () => {
  const r = {
    androidKeyRestrictions: {
      allowedApplications: [
        { packageName: 'com.example.app', sha1Fingerprint: FP_COLONS.toLowerCase() },
        { packageName: 'com.example.other', sha1Fingerprint: OTHER_FP },
      ],
    },
  };
  test('package + matching cert pass, cert in any form', () => {
    for (const cert of [FP, FP.toLowerCase(), FP_COLONS, FP_COLONS.toLowerCase()]) {
      assert.equal(reason(r, { androidPackage: 'com.example.app', androidCert: cert }), null, cert);
    }
    assert.equal(reason(r, { androidPackage: 'com.example.other', androidCert: OTHER_FP.toLowerCase() }), null);
  });
  test('the cert must belong to the same entry as the package', () => {
    assert.equal(reason(r, { androidPackage: 'com.example.app', androidCert: OTHER_FP }), 'API_KEY_ANDROID_APP_BLOCKED');
    assert.equal(reason(r, { androidPackage: 'com.example.other', androidCert: FP }), 'API_KEY_ANDROID_APP_BLOCKED');
  });
  test('package comparison is case-sensitive', () => {
    assert.equal(reason(r, { androidPackage: 'com.example.App', androidCert: FP }), 'API_KEY_ANDROID_APP_BLOCKED');
  });
  test('missing or malformed headers are blocked', () => {
    const cases: Array<Partial<RequestOrigin>> = [
      {},
      { androidPackage: 'com.example.app' },
      { androidCert: FP },
      { androidPackage: 'com.example.app', androidCert: '' },
      { androidPackage: 'com.example.app', androidCert: FP.slice(2) },
      { androidPackage: 'com.example.app', androidCert: FP + 'AB' },
      { androidPackage: 'com.example.app', androidCert: FP_COLONS.replaceAll(':', '-') },
      { androidPackage: 'com.example.unknown', androidCert: FP },
      { androidPackage: '', androidCert: FP },
    ];
    for (const c of cases) assert.equal(reason(r, c), 'API_KEY_ANDROID_APP_BLOCKED', JSON.stringify(c));
  });
});

describe('ios restrictions', () => {
  const r = { iosKeyRestrictions: { allowedBundleIds: ['com.example.App', 'com.example.other'] } };
  test('exact bundle id passes', () => {
    assert.equal(reason(r, { iosBundleId: 'com.example.App' }), null);
    assert.equal(reason(r, { iosBundleId: 'com.example.other' }), null);
  });
  test('anything else is blocked (exact, case-sensitive match)', () => {
    for (const iosBundleId of ['com.example.app', 'com.example.App.extension', 'com.example', '', undefined]) {
      assert.equal(reason(r, { iosBundleId }), 'API_KEY_IOS_APP_BLOCKED', String(iosBundleId));
    }
  });
});

describe('API targets', () => {
  test('services are matched case-insensitively; a target without methods allows every method', () => {
    const r = { apiTargets: [{ service: 'YouTube.googleapis.com' }] };
    assert.equal(reason(r, {}), null);
    assert.equal(reason(r, { service: 'YOUTUBE.GOOGLEAPIS.COM', method: 'Anything' }), null);
    assert.equal(reason(r, { service: 'translate.googleapis.com' }), 'API_KEY_SERVICE_BLOCKED');
    assert.equal(reason(r, { service: 'youtube.googleapis.co' }), 'API_KEY_SERVICE_BLOCKED');
    assert.equal(reason(r, { service: '' }), 'API_KEY_SERVICE_BLOCKED');
  });

  test('method patterns: exact and trailing-* prefix, case-insensitive, full or short names', () => {
    const r = { apiTargets: [{ service: 'youtube.googleapis.com', methods: ['List', 'Get*'] }] };
    const allowed = [
      'youtube.api.v3.V3DataSearchService.List',
      'List',
      'list',
      'LIST',
      'GetThing',
      'get',
      'a.b.GetThing',
      'a.b.gEtThInG',
    ];
    for (const method of allowed) assert.equal(reason(r, { method }), null, method);
    const blocked = ['Insert', 'Lists', 'Lis', 'youtube.api.v3.V3DataSearchService.Insert', 'ListGet', 'Ge', 'a.List.Insert', ''];
    for (const method of blocked) assert.equal(reason(r, { method }), 'API_KEY_SERVICE_BLOCKED', method);
  });

  test('full-name patterns match the full method name', () => {
    const r = { apiTargets: [{ service: 'youtube.googleapis.com', methods: ['youtube.api.v3.V3DataSearchService.List'] }] };
    assert.equal(reason(r, { method: 'youtube.api.v3.V3DataSearchService.List' }), null);
    assert.equal(reason(r, { method: 'Youtube.Api.V3.V3DataSearchService.list' }), null);
    assert.equal(reason(r, { method: 'youtube.api.v3.V3DataVideoService.List' }), 'API_KEY_SERVICE_BLOCKED');
  });

  test('full-name prefix patterns', () => {
    const r = { apiTargets: [{ service: 'translate.googleapis.com', methods: ['google.cloud.translate.v2.*'] }] };
    assert.equal(reason(r, { service: 'translate.googleapis.com', method: 'google.cloud.translate.v2.TranslateService.Translate' }), null);
    assert.equal(reason(r, { service: 'translate.googleapis.com', method: 'google.cloud.translate.v3.TranslateService.Translate' }), 'API_KEY_SERVICE_BLOCKED');
  });

  test('a lone * allows every method', () => {
    const r = { apiTargets: [{ service: 'youtube.googleapis.com', methods: ['*'] }] };
    assert.equal(reason(r, { method: 'whatever.Anything' }), null);
  });

  test('patterns prefixed with the service name are relative to that service', () => {
    const r = { apiTargets: [{ service: 'translate.googleapis.com', methods: ['translate.googleapis.com.Get*'] }] };
    assert.equal(reason(r, { service: 'translate.googleapis.com', method: 'GetSupportedLanguages' }), null);
    assert.equal(reason(r, { service: 'translate.googleapis.com', method: 'google.cloud.translate.v2.TranslateService.GetSupportedLanguages' }), null);
    assert.equal(reason(r, { service: 'translate.googleapis.com', method: 'TranslateText' }), 'API_KEY_SERVICE_BLOCKED');
  });

  test('several targets: each service with its own methods', () => {
    const r = { apiTargets: [
      { service: 'youtube.googleapis.com', methods: ['List'] },
      { service: 'translate.googleapis.com' },
    ] };
    assert.equal(reason(r, { method: 'V3DataSearchService.List' }), null);
    assert.equal(reason(r, { method: 'V3DataSearchService.Insert' }), 'API_KEY_SERVICE_BLOCKED');
    assert.equal(reason(r, { service: 'translate.googleapis.com', method: 'Anything' }), null);
    assert.equal(reason(r, { service: 'compute.googleapis.com', method: 'List' }), 'API_KEY_SERVICE_BLOCKED');
  });
});

describe('order: application restriction first, then API targets', () => {
  const r = {
    serverKeyRestrictions: { allowedIps: ['10.0.0.0/8'] },
    apiTargets: [{ service: 'translate.googleapis.com' }],
  };
  test('bad origin and bad service -> origin failure', () => {
    assert.equal(reason(r, { ip: '192.0.2.1' }), 'API_KEY_IP_ADDRESS_BLOCKED');
  });
  test('good origin and bad service -> service failure', () => {
    assert.equal(reason(r, { ip: '10.1.2.3' }), 'API_KEY_SERVICE_BLOCKED');
  });
  test('bad origin and good service -> origin failure', () => {
    assert.equal(reason(r, { ip: '192.0.2.1', service: 'translate.googleapis.com' }), 'API_KEY_IP_ADDRESS_BLOCKED');
  });
  test('good origin and good service -> allowed', () => {
    assert.equal(reason(r, { ip: '10.1.2.3', service: 'translate.googleapis.com' }), null);
  });
});

describe('robustness of compileRestrictions on unvalidated input', () => {
  test('invalid stored entries are skipped (fail closed)', () => {
    const c = compileRestrictions({ browserKeyRestrictions: { allowedReferrers: ['foo*.bad', 'ok.test'] } });
    assert.equal(c.check({ ...SEARCH, referer: 'https://ok.test/' }), null);
    assert.equal(c.check({ ...SEARCH, referer: 'https://foox.bad/' })?.reason, 'API_KEY_HTTP_REFERRER_BLOCKED');
  });
  test('two application kinds (never stored by validation): both must pass', () => {
    const c = compileRestrictions({
      serverKeyRestrictions: { allowedIps: ['10.0.0.1'] },
      iosKeyRestrictions: { allowedBundleIds: ['com.a'] },
    });
    assert.equal(c.check({ ...SEARCH, ip: '10.0.0.1' })?.reason, 'API_KEY_IOS_APP_BLOCKED');
    assert.equal(c.check({ ...SEARCH, iosBundleId: 'com.a' })?.reason, 'API_KEY_IP_ADDRESS_BLOCKED');
    assert.equal(c.check({ ...SEARCH, ip: '10.0.0.1', iosBundleId: 'com.a' }), null);
  });
  test('a target whose methods are all invalid allows no method', () => {
    const c = compileRestrictions({ apiTargets: [{ service: 'youtube.googleapis.com', methods: ['*bad'] }] });
    assert.equal(c.check(SEARCH)?.reason, 'API_KEY_SERVICE_BLOCKED');
  });
  test('non-normalized stored fingerprints still work', () => {
    const c = compileRestrictions({ androidKeyRestrictions: { allowedApplications: [{ packageName: 'com.a.b', sha1Fingerprint: FP_COLONS.toLowerCase() }] } });
    assert.equal(c.check({ ...SEARCH, androidPackage: 'com.a.b', androidCert: FP }), null);
  });
  test('failure objects are shared constants (no per-call allocation)', () => {
    const c = compile({ apiTargets: [{ service: 'a.googleapis.com' }] });
    const a = c.check(SEARCH);
    const b = c.check(SEARCH);
    assert.ok(a !== null && a === b);
    assert.ok(Object.isFrozen(a));
  });
});

describe('hot path', () => {
  test('100k checks against 1200 referrers and 1200 CIDRs stay fast', () => {
    const referrers = Array.from({ length: 1200 }, (_, i) => `site${i}.example.com/*`);
    const br = compile({ browserKeyRestrictions: { allowedReferrers: referrers }, apiTargets: [{ service: 'youtube.googleapis.com', methods: ['List', 'Get*'] }] });
    const ips = Array.from({ length: 1200 }, (_, i) => `10.${i >> 8}.${i & 255}.0/24`);
    const sv = compile({ serverKeyRestrictions: { allowedIps: ips } });
    const t0 = performance.now();
    let allowed = 0;
    for (let i = 0; i < 100_000; i++) {
      if (br.check({ ...SEARCH, referer: `https://site${i % 1500}.example.com/page?x=${i}` }) === null) allowed++;
      if (sv.check({ ...SEARCH, ip: `10.${(i >> 8) & 7}.${i & 255}.9` }) === null) allowed++;
    }
    const ms = performance.now() - t0;
    assert.ok(allowed > 0);
    assert.ok(ms < 1500, `took ${ms.toFixed(0)} ms`);
  });
});
