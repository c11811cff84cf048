import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ACCELERATOR_TYPES, MACHINE_TYPES, PUBLIC_IMAGES, REGIONS, ZONES, acceleratorTypeResource, machineTypeResource, regionResource, zoneResource } from '../../src/services/compute/catalogue.ts';

describe('the built-in catalogue', () => {
  test('every region, zone, image, machine and accelerator type has a distinct id within int64', () => {
    const ids = [
      ...[...REGIONS.keys()].map((r) => regionResource(r, 'p').id),
      ...[...ZONES.keys()].map((z) => zoneResource(z, 'p').id),
      ...[...PUBLIC_IMAGES.values()].flat().map((i) => i.id),
      ...[...MACHINE_TYPES.values()].map((t) => machineTypeResource(t, 'us-central1-a', 'p').id),
      ...[...ACCELERATOR_TYPES].map(([n, d]) => acceleratorTypeResource(n, d, 'us-central1-a', 'p').id),
    ] as string[];
    assert.equal(new Set(ids).size, ids.length);
    for (const id of ids) assert.ok(/^[1-9][0-9]{18}$/.test(id) && BigInt(id) < 2n ** 63n, id);
  });

  test('ids are stable: derived from the names, the same in every project, zone and release', () => {
    assert.equal(regionResource('us-central1', 'a').id, regionResource('us-central1', 'b').id);
    assert.equal(machineTypeResource(MACHINE_TYPES.get('e2-medium')!, 'us-central1-a', 'a').id, machineTypeResource(MACHINE_TYPES.get('e2-medium')!, 'europe-west1-b', 'b').id);
    // Pinned: a change of the derivation would change every id clients may have stored.
    assert.equal(regionResource('us-central1', 'p').id, '7203548590041936495');
    assert.equal(zoneResource('us-central1-a', 'p').id, '2546961890205147703');
  });
});
