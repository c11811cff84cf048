import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { validateInsertBody } from '../../src/services/compute/instanceTemplate/validate.ts';
import { buildStoredTemplate } from '../../src/services/compute/instanceTemplate/defaults.ts';
import { templateReferences } from '../../src/services/compute/instanceTemplate/references.ts';

const ctx = {
  id: '1',
  creationTimestamp: '2026-01-01T00:00:00.000-08:00',
  selfLink: 'https://www.googleapis.com/compute/v1/projects/p-123456/regions/us-central1/instanceTemplates/t',
  region: 'https://www.googleapis.com/compute/v1/projects/p-123456/regions/us-central1',
  resolvedLinks: new Map<string, string>(),
  defaultServiceAccount: '1-compute@developer.gserviceaccount.com',
};

const hostileKey = fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', 'name', 'properties', 'disks', 'items', 'key', 'value', 'scheduling', 'machine_type', 'foo', '\0', 'ü');
const scalar = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme', maxLength: 50 }),
  fc.constantFrom('', '\0', '\u{1F600}', '\uD800', 'e2-medium', 'TERMINATE', 'SPOT', 'default', '10', '-1', '9223372036854775808', 'global/networks/default', 'x'.repeat(70000)),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.bigInt().map((b) => Number(b)),
);
const json = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 4 }),
  object: fc.dictionary(fc.oneof(hostileKey, fc.string({ maxLength: 8 })), tie('value'), { maxKeys: 5 }),
})).value;

/** Mostly the right shape, sometimes anything. */
const mostly = <T,>(shape: fc.Arbitrary<T>) => fc.oneof({ arbitrary: shape, weight: 6 }, { arbitrary: json, weight: 1 });

/** Bodies that follow the schema's shape closely enough to reach the field rules. */
const near = fc.record(
  {
    name: fc.oneof(fc.constantFrom('t', 'web-1', 'X'), fc.string({ maxLength: 70 })),
    properties: fc.record(
      {
        machineType: fc.oneof(fc.constantFrom('e2-medium', 'zones/z/machineTypes/m'), fc.string()),
        labels: fc.dictionary(fc.oneof(hostileKey, fc.string()), fc.string({ maxLength: 70 }), { maxKeys: 70 }),
        tags: fc.record({ items: fc.array(fc.string(), { maxLength: 5 }), fingerprint: fc.constantFrom('', 'AAAA', '!') }, { requiredKeys: [] }),
        metadata: fc.record({ items: fc.array(fc.record({ key: fc.string(), value: fc.string() }, { requiredKeys: [] }), { maxLength: 4 }) }, { requiredKeys: [] }),
        disks: mostly(fc.constant([{ boot: true, initializeParams: { sourceImage: 'family/debian-12' } }])),
        networkInterfaces: mostly(fc.array(fc.record({ network: fc.string(), stackType: fc.constantFrom('IPV4_ONLY', 'IPV4_IPV6'), vlan: fc.integer(), accessConfigs: fc.array(fc.record({ natIP: fc.string() }, { requiredKeys: [] }), { maxLength: 2 }) }, { requiredKeys: [] }), { maxLength: 3 })),
        scheduling: mostly(fc.record({ preemptible: fc.boolean(), automaticRestart: fc.boolean(), hostErrorTimeoutSeconds: fc.integer(), maxRunDuration: fc.record({ seconds: fc.bigInt().map(String), nanos: fc.integer() }, { requiredKeys: [] }), terminationTime: fc.string() }, { requiredKeys: [] })),
        guestAccelerators: fc.array(fc.record({ acceleratorType: fc.string(), acceleratorCount: fc.integer() }, { requiredKeys: [] }), { maxLength: 2 }),
        serviceAccounts: fc.array(fc.record({ email: fc.string(), scopes: fc.array(fc.string(), { maxLength: 2 }) }, { requiredKeys: [] }), { maxLength: 2 }),
        reservationAffinity: mostly(fc.record({ consumeReservationType: fc.constantFrom('ANY_RESERVATION', 'SPECIFIC_RESERVATION'), key: fc.string(), values: fc.array(fc.string(), { maxLength: 2 }) }, { requiredKeys: [] })),
      },
      { requiredKeys: [] },
    ),
    sourceInstance: fc.oneof(fc.constant('zones/us-central1-a/instances/vm'), fc.string()),
    sourceInstanceParams: mostly(fc.record({ diskConfigs: fc.array(fc.record({ deviceName: fc.string(), instantiateFrom: fc.constantFrom('source-image', 'CUSTOM_IMAGE', 'x'), customImage: fc.string() }, { requiredKeys: [] }), { maxLength: 2 }) })),
  },
  { requiredKeys: [] },
);

/** Valid bodies with random valid content. */
const nameArb = fc.stringMatching(/^[a-z]([-a-z0-9]{0,20}[a-z0-9])?$/);
const valid = fc.record({
  name: nameArb,
  description: fc.string({ unit: 'grapheme', maxLength: 40 }),
  properties: fc.record({
    machineType: fc.constantFrom('e2-medium', 'n2-standard-8', 'custom-4-5120'),
    tags: fc.record({ items: fc.uniqueArray(nameArb, { maxLength: 5 }) }),
    labels: fc.dictionary(fc.stringMatching(/^[a-zé][-_a-z0-9é]{0,20}$/), fc.stringMatching(/^[-_a-z0-9]{0,20}$/), { maxKeys: 10 }),
    metadata: fc.record({ items: fc.uniqueArray(fc.record({ key: fc.stringMatching(/^[a-zA-Z0-9_-]{1,30}$/), value: fc.string({ unit: 'grapheme', maxLength: 50 }) }), { maxLength: 5, selector: (i) => i.key }) }),
    disks: fc.constant([{ boot: true, autoDelete: true, initializeParams: { sourceImage: 'family/debian-12', diskSizeGb: '10' } }]),
    networkInterfaces: fc.constant([{ network: 'default', accessConfigs: [{}] }]),
  }),
});

/** How the checked bodies ended: valid, stopped by the transcoding step, or by field rules. */
const outcomes = { valid: 0, transcoding: 0, rules: 0 };

function check(body: unknown): void {
  const r = validateInsertBody(body, { region: 'us-central1' });
  if (r.errors.length === 0) outcomes.valid++;
  else if (r.errors[0].badRequestField) outcomes.transcoding++;
  else outcomes.rules++;
  assert.ok(Array.isArray(r.errors) && Array.isArray(r.deferred));
  for (const e of r.errors) {
    assert.equal(typeof e.message, 'string');
    assert.ok(e.reason === 'invalid' || e.reason === 'required', e.reason);
  }
  if (r.errors.length === 0 && typeof body === 'object' && body !== null && !Array.isArray(body)) {
    // A body that passes is storable and its references readable.
    const stored = buildStoredTemplate(body as Record<string, unknown>, ctx);
    assert.equal(stored.kind, 'compute#instanceTemplate');
    JSON.stringify(stored);
    templateReferences(body as Record<string, unknown>);
  }
}

describe('validateInsertBody fuzz: never throws, always returns', () => {
  test('arbitrary JSON', () => fc.assert(fc.property(json, (b) => check(b)), { numRuns: 1500 }));
  test('near-valid bodies reach every stage', () => {
    Object.assign(outcomes, { valid: 0, transcoding: 0, rules: 0 });
    fc.assert(fc.property(near, (b) => check(b)), { numRuns: 1500 });
    assert.ok(outcomes.transcoding > 100 && outcomes.rules > 100, JSON.stringify(outcomes));
  });
  test('valid bodies with random content stay valid and store deterministically', () => {
    fc.assert(
      fc.property(valid, (b) => {
        const r = validateInsertBody(b, { region: 'us-central1' });
        assert.deepEqual(r.errors, []);
        const once = JSON.stringify(buildStoredTemplate(r.resource!, ctx));
        assert.equal(JSON.stringify(buildStoredTemplate(b, ctx)), once);
        const stored = JSON.parse(once);
        // (fast-check builds null-prototype records: compare as JSON.)
        assert.equal(JSON.stringify(stored.properties.labels ?? {}), JSON.stringify(b.properties.labels));
        assert.equal(JSON.stringify(stored.properties.metadata.items ?? []), JSON.stringify(b.properties.metadata.items));
      }),
      { numRuns: 300 },
    );
  });
  test('deep nesting', () => {
    let deep: any = { name: 't' };
    for (let i = 0; i < 100000; i++) deep = { properties: deep };
    check(deep);
    let list: any = [];
    for (let i = 0; i < 100000; i++) list = [list];
    check({ name: 't', properties: { disks: list } });
  });
  test('huge strings and many entries', () => {
    check({ name: 'x'.repeat(5_000_000), properties: { machineType: 'y'.repeat(1_000_000), tags: { items: Array.from({ length: 10000 }, () => 'a') } } });
    check({ name: 't', properties: { machineType: 'm', metadata: { items: Array.from({ length: 5000 }, (_, i) => ({ key: `k${i}`, value: 'v'.repeat(200) })) } } });
  });
});
