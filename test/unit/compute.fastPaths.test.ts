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
import { transcodeInsertBody } from '../../src/services/compute/instanceTemplate/schema/transcode.ts';
import { validateInsertBody } from '../../src/services/compute/instanceTemplate/validate.ts';
import { templateReferences } from '../../src/services/compute/instanceTemplate/references.ts';
import { parseReference } from '../../src/services/compute/references.ts';
import { TemplateResolver } from '../../src/services/compute/resolution.ts';
import { inRegion } from '../../src/services/compute/scope.ts';
import type { ComputeWorld } from '../../src/services/compute/world.ts';

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

describe('transcoding keeps what is already canonical, and reads as when it copies everything', () => {
  /** A realistic body, as JSON.parse gives it. */
  const template = () =>
    JSON.parse(
      JSON.stringify({
        name: 't',
        description: 'd',
        properties: {
          machineType: 'e2-medium',
          tags: { items: ['a', 'b'] },
          labels: { env: 'x' },
          metadata: { items: [{ key: 'k', value: 'v' }] },
          disks: [{ boot: true, initializeParams: { sourceImage: 'family/debian-12', diskSizeGb: '20', labels: { d: 'b' } } }, { deviceName: 'data', initializeParams: { diskSizeGb: '200' } }],
          networkInterfaces: [{ network: 'default', accessConfigs: [{ type: 'ONE_TO_ONE_NAT' }], aliasIpRanges: [{ ipCidrRange: '/24' }] }],
          scheduling: { onHostMaintenance: 'MIGRATE', automaticRestart: true, nodeAffinities: [{ key: 'k', operator: 'IN', values: ['v'] }] },
          advancedMachineFeatures: { threadsPerCore: 1 },
        },
      }),
    );
  const paths: string[][] = [];
  (function walk(o: any, p: string[]) {
    if (o && typeof o === 'object') for (const k of Object.keys(o)) (paths.push([...p, k]), walk(o[k], [...p, k]));
  })(template(), []);
  /** The template with a few fields rewritten: proto names, nulls, numbers for int64, strings for int32, -0, wrong types. */
  const bodies = fc
    .array(fc.tuple(fc.constantFrom(...paths), fc.constantFrom('proto name', 'null', 'number', 'string', '-0', 'wrong', 'drop')), { maxLength: 3 })
    .map((edits) => {
      const body = template();
      for (const [path, edit] of edits) {
        let o = body;
        for (const k of path.slice(0, -1)) o = o?.[k];
        const k = path[path.length - 1];
        if (!o || typeof o !== 'object' || !Object.hasOwn(o, k)) continue;
        const v = o[k];
        if (edit === 'proto name' && !Array.isArray(o)) (delete o[k], (o[k.replace(/[A-Z]/g, (c) => '_' + c.toLowerCase())] = v));
        else if (edit === 'null') o[k] = null;
        else if (edit === 'number' && typeof v === 'string' && /^\d+$/.test(v)) o[k] = Number(v);
        else if (edit === 'string' && typeof v === 'number') o[k] = String(v);
        else if (edit === '-0' && typeof v === 'number') o[k] = -0;
        else if (edit === 'wrong') o[k] = typeof v === 'string' ? 1 : 'x';
        else if (edit === 'drop' && !Array.isArray(o)) delete o[k];
      }
      return body;
    });
  /** The same value made of null-prototype objects and Array subclass instances: never kept, copied at every level. */
  class Copied extends Array {}
  const general = (v: unknown): unknown => {
    if (Array.isArray(v)) return Copied.from(v.map(general));
    if (v && typeof v === 'object') return Object.assign(Object.create(null), Object.fromEntries(Object.entries(v).map(([k, x]) => [k, general(x)])));
    return v;
  };
  test('generated bodies: the same answer, key order and values (-0 included) as a full copy', () => {
    fc.assert(
      fc.property(bodies, (body) => {
        const before = JSON.stringify(body);
        const kept = transcodeInsertBody(body);
        const copied = transcodeInsertBody(general(JSON.parse(before)));
        assert.equal(JSON.stringify(body), before, 'the input is never changed');
        assert.deepStrictEqual(kept.ok ? JSON.stringify(kept.value) : kept, copied.ok ? JSON.stringify(copied.value) : copied);
        if (kept.ok && copied.ok) {
          // -0 read as an int32 is 0 (JSON.stringify cannot tell them apart).
          const zeros = (v: any): unknown => (v && typeof v === 'object' ? Object.values(v).map(zeros) : Object.is(v, -0));
          assert.deepStrictEqual(zeros(kept.value), zeros(copied.value));
          assert.deepStrictEqual(validateInsertBody(kept.value, { region: 'us-central1' }), validateInsertBody(copied.value, { region: 'us-central1' }));
        }
      }),
      { numRuns: 3000 },
    );
  });
  test('a canonical body is kept as it is; a change copies only its way down', () => {
    const body = template();
    assert.equal(transcodeInsertBody(body).ok && (transcodeInsertBody(body) as any).value, body);
    const changed = template();
    changed.properties.disks[1].initializeParams.diskSizeGb = 200;
    const value = (transcodeInsertBody(changed) as any).value;
    assert.notEqual(value, changed);
    assert.notEqual(value.properties.disks[1], changed.properties.disks[1]);
    assert.equal(value.properties.disks[1].initializeParams.diskSizeGb, '200');
    assert.equal(value.properties.disks[0], changed.properties.disks[0]);
    assert.equal(value.properties.networkInterfaces, changed.properties.networkInterfaces);
    assert.equal(changed.properties.disks[1].initializeParams.diskSizeGb, 200);
  });
});

describe('parseReference remembers its answers', () => {
  test('the same answer every time, frozen, per defaults', () => {
    const a = { project: 'p-a', scope: 'regions/us-central1' };
    const b = { project: 'p-b', scope: 'regions/europe-west1' };
    for (const value of ['default', 'global/networks/x', 'regions/us-east1/subnetworks/s', 'bad/thing', 'projects/q/global/networks/n']) {
      for (const collection of ['networks', 'subnetworks']) {
        const first = parseReference(value, collection, a);
        assert.deepEqual(parseReference(value, collection, a), first);
        assert.ok(first === undefined || Object.isFrozen(first));
        assert.deepEqual(parseReference(value, collection, { ...b }), parseReference(value, collection, b));
      }
    }
    assert.equal(parseReference('default', 'networks', a)?.project, 'p-a');
    assert.equal(parseReference('default', 'networks', b)?.project, 'p-b');
    assert.equal(parseReference('s', 'subnetworks', b)?.scope, 'regions/europe-west1');
    // defaults that would make keys ambiguous are parsed, not remembered
    assert.equal(parseReference('x', 'networks', { project: 'p\nq', scope: 'global' }), undefined);
  });
});

describe('the resolver answers for the template\'s own project without a lookup', () => {
  test('own project by id or number: no lookup, the same resolution; other projects are still looked up', async () => {
    const scope = { projectId: 'demo-project', projectNumber: '300000000001', scope: inRegion('us-central1') };
    const rows: Record<string, Record<string, unknown>> = {
      '300000000001/global/net': { name: 'net', autoCreateSubnetworks: false },
      '300000000001/us-central1/sub': { name: 'sub', network: 'https://www.googleapis.com/compute/v1/projects/demo-project/global/networks/net', ipCidrRange: '10.0.0.0/24' },
      '400000000001/global/other': { name: 'other', autoCreateSubnetworks: true },
    };
    const world = {
      get: async (_kind: string, pn: string, location: string, name: string) => rows[`${pn}/${location}/${name}`],
      all: async () => [],
      declares: async () => true,
    } as unknown as ComputeWorld;
    const asked: string[] = [];
    const projects: Record<string, { projectNumber: string; projectId: string }> = {
      'demo-project': { projectNumber: '300000000001', projectId: 'demo-project' },
      '300000000001': { projectNumber: '300000000001', projectId: 'demo-project' },
      'other-project': { projectNumber: '400000000001', projectId: 'other-project' },
    };
    const dir = { project: async (p: string) => (asked.push(p), projects[p]), serviceAccount: async () => false };
    const resolve = async (properties: Record<string, unknown>) => {
      const body = { name: 't', properties: { machineType: 'e2-medium', ...properties } };
      return new TemplateResolver(world, undefined as never, dir, scope).resolve(body, templateReferences(body));
    };
    const own = await resolve({
      networkInterfaces: [{ network: 'projects/demo-project/global/networks/net', subnetwork: 'projects/300000000001/regions/us-central1/subnetworks/sub' }],
      serviceAccounts: [{ email: '300000000001-compute@developer.gserviceaccount.com' }],
    });
    assert.deepEqual(asked, []);
    assert.deepEqual(own.errors, []);
    assert.deepEqual([...own.links.values()], [
      'https://www.googleapis.com/compute/v1/projects/300000000001/regions/us-central1/subnetworks/sub',
      'https://www.googleapis.com/compute/v1/projects/demo-project/global/networks/net',
    ]);
    const other = await resolve({ networkInterfaces: [{ network: 'projects/other-project/global/networks/other' }, { network: 'projects/unknown/global/networks/x' }] });
    assert.deepEqual(asked, ['other-project', 'unknown']);
    assert.deepEqual(other.errors.map((e) => e.code), ['RESOURCE_NOT_FOUND']);
  });
});
