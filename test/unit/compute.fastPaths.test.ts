/**
 * The insert path's fast forms give the answers of the general forms they replace: each general
 * form is kept here, as written before, and both are run on generated inputs.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { fingerprint } from '../../src/services/compute/instanceTemplate/defaults.ts';
import { PROJECT, parseRef } from '../../src/services/compute/instanceTemplate/rules/common.ts';

/** Pieces references are made of, good and bad, so that generated values come near every branch. */
const segment = fc.oneof(
  fc.constantFrom(
    'https:', 'http:', 'ftp:', '', 'www.googleapis.com', 'compute.googleapis.com', '127.0.0.1:9', 'a b', 'h?x', 'h#x', 'compute', 'v1', 'beta', 'alpha', 'v2',
    'projects', 'p-1', 'demo-project', 'example.com:proj', 'a.b.c:d-e', ':x', 'x:', '1234567890123456789', '12345678901234567890', 'Proj',
    'global', 'regions', 'zones', 'us-central1', 'us-central1-a', '1bad', 'networks', 'subnetworks', 'images', 'disks', 'instances',
    'family', 'debian-12', 'my-image', '0', '-x', 'x-', 'a'.repeat(63), 'a'.repeat(64), 'x\n', '\u00a0',
  ),
  fc.string({ maxLength: 6 }),
);
const some = (...parts: fc.Arbitrary<string>[]) => fc.tuple(...parts).map((p) => p.join('/'));
const optional = (a: fc.Arbitrary<string>) => fc.option(a, { nil: '' });
/** A segment of a given place: mostly a right one, sometimes anything. */
const at = (...right: string[]) => fc.oneof({ arbitrary: fc.constantFrom(...right), weight: 8 }, { arbitrary: segment, weight: 1 });
/** Mostly the shape of a reference (prefix, project, scope, collection, name), any segment possibly wrong. */
const shaped = fc
  .tuple(
    optional(some(at('https:', 'http:'), at(''), at('www.googleapis.com', '127.0.0.1:9', 'x', 'a b'), at('compute'), at('v1', 'beta', 'alpha', 'v2'))),
    optional(some(at('projects'), at('p-1', 'example.com:proj', 'a.b.c:d-e', 'x:', '1234567890123456789', '12345678901234567890', 'Proj', 'a'.repeat(64)))),
    fc.oneof(at('global'), some(at('regions', 'zones'), at('us-central1', 'us-central1-a', '1bad', 'a'.repeat(63), 'a'.repeat(64)))),
    some(at('networks', 'subnetworks', 'images', 'disks'), at('n', 'debian-12', '0', '12345678901234567890', '123456789012345678901', '-x', 'x-', 'x\n')),
  )
  .map((parts) => parts.filter((p) => p !== '').join('/'));
const reference = fc.oneof(shaped, fc.array(segment, { minLength: 1, maxLength: 9 }).map((s) => s.join('/')));

describe('parseRef (segment by segment) answers as the one regular expression did', () => {
  const URL_PREFIX = String.raw`(?:https?://(?:www|compute)\.googleapis\.com/compute/(?:v1|beta|alpha)/|https?://[^/?#\s]+/compute/(?:v1|beta|alpha)/)?`;
  const RNAME = String.raw`[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?`;
  function general(value: string, scope: 'global' | 'regions' | 'zones', collection: string) {
    const scopePart = scope === 'global' ? 'global' : `${scope}/([a-z][-a-z0-9]{0,62})`;
    const m = new RegExp(`^${URL_PREFIX}(?:projects/(${PROJECT})/)?${scopePart}/${collection}/(${RNAME}|[0-9]{1,20})$`).exec(value);
    if (!m) return undefined;
    const full = /^https?:\/\//.test(value);
    if (full && m[1] === undefined) return undefined;
    const out: Record<string, unknown> = { collection, name: scope === 'global' ? m[2] : m[3], full };
    if (m[1] !== undefined) out.project = m[1];
    if (scope === 'regions') out.region = m[2];
    if (scope === 'zones') out.zone = m[2];
    return out;
  }
  const cases: [string, 'global' | 'regions' | 'zones', string][] = [
    ['https://www.googleapis.com/compute/v1/projects/p-1/global/networks/n', 'global', 'networks'],
    ['http://127.0.0.1:9/compute/beta/projects/example.com:proj/regions/us-central1/subnetworks/s', 'regions', 'subnetworks'],
    ['https://www.googleapis.com/compute/v1/global/networks/n', 'global', 'networks'],
    ['projects/debian-cloud/global/images/family/debian-12', 'global', 'images'],
    ['zones/us-central1-a/disks/12345678901234567890', 'zones', 'disks'],
    ['global/networks/n/', 'global', 'networks'],
    ['https:///compute/v1/projects/p/global/networks/n', 'global', 'networks'],
  ];
  for (const [value, scope, collection] of cases) {
    test(`${value} (${scope} ${collection})`, () => assert.deepEqual(parseRef(value, scope, collection), general(value, scope, collection)));
  }
  test('generated references', () => {
    fc.assert(
      fc.property(reference, (value) => {
        for (const scope of ['global', 'regions', 'zones'] as const) {
          for (const collection of ['networks', 'subnetworks', 'images', 'disks']) assert.deepEqual(parseRef(value, scope, collection), general(value, scope, collection));
        }
      }),
      { numRuns: 10000 },
    );
  });
});

describe('fingerprint (cut from the digest\'s base64) is the base64 of the digest\'s first 8 bytes', () => {
  const general = (content: unknown) => createHash('sha256').update(JSON.stringify(content) ?? '').digest().subarray(0, 8).toString('base64');
  test('generated contents', () => {
    fc.assert(fc.property(fc.jsonValue(), (content) => assert.equal(fingerprint(content), general(content))), { numRuns: 5000 });
    assert.equal(fingerprint(undefined), general(undefined));
  });
});
