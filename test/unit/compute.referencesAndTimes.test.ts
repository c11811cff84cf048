import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { computeTimestamp, operationName } from '../../src/services/compute/names.ts';
import { parseReference, refPath } from '../../src/services/compute/references.ts';

describe('computeTimestamp', () => {
  test('Pacific time with milliseconds and the offset in force, across DST changes', () => {
    assert.equal(computeTimestamp(Date.UTC(2024, 0, 2, 3, 4, 5, 678)), '2024-01-01T19:04:05.678-08:00');
    assert.equal(computeTimestamp(Date.UTC(2024, 6, 2, 3, 4, 5, 7)), '2024-07-01T20:04:05.007-07:00');
    assert.equal(computeTimestamp(Date.UTC(2024, 2, 10, 9, 59, 59, 999)), '2024-03-10T01:59:59.999-08:00');
    assert.equal(computeTimestamp(Date.UTC(2024, 2, 10, 10)), '2024-03-10T03:00:00.000-07:00');
    assert.equal(computeTimestamp(Date.UTC(2024, 10, 3, 8, 30)), '2024-11-03T01:30:00.000-07:00');
    assert.equal(computeTimestamp(Date.UTC(2024, 10, 3, 9, 30)), '2024-11-03T01:30:00.000-08:00');
  });
  test('operation names', () => {
    assert.match(operationName(1700000000000, 'ab'.repeat(16)), /^operation-1700000000000-[0-9a-f]{13}-[0-9a-f]{8}-[0-9a-f]{8}$/);
  });
});

describe('parseReference', () => {
  const d = { project: 'demo-project', scope: 'global' };
  const cases: [string, string, string | undefined][] = [
    ['default', 'networks', 'projects/demo-project/global/networks/default'],
    ['global/networks/x', 'networks', 'projects/demo-project/global/networks/x'],
    ['projects/p-1/global/networks/y', 'networks', 'projects/p-1/global/networks/y'],
    ['http://127.0.0.1:9/compute/v1/projects/p-1/global/networks/z', 'networks', 'projects/p-1/global/networks/z'],
    ['https://compute.googleapis.com/compute/v1/projects/p-1/global/networks/z', 'networks', 'projects/p-1/global/networks/z'],
    ['https://www.googleapis.com/compute/v1/projects/debian-cloud/global/images/family/debian-12', 'images', 'projects/debian-cloud/global/images/family/debian-12'],
    ['family/debian-12', 'images', 'projects/demo-project/global/images/family/debian-12'],
    ['regions/us-central1/subnetworks/s', 'subnetworks', 'projects/demo-project/regions/us-central1/subnetworks/s'],
    ['zones/us-central1-a/disks/d', 'disks', 'projects/demo-project/zones/us-central1-a/disks/d'],
    ['bad/thing', 'networks', undefined],
    ['global/images/x/y', 'images', undefined],
    ['global/subnetworks/x', 'networks', undefined],
    ['x'.repeat(3000), 'networks', undefined],
  ];
  for (const [value, collection, expected] of cases) {
    test(`${value.slice(0, 60)} as ${collection}`, () => {
      const r = parseReference(value, collection, d);
      assert.equal(r ? refPath(r) : undefined, expected);
    });
  }
});
