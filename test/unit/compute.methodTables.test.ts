/**
 * Compute's method tables against the discovery document: every Compute route is a discovery
 * method at the document's path with its verb (the tables are written by hand so that start-up
 * parses no discovery document; this is where a typo in one would show).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { everyRouteOf } from '../../src/platform/http/lazyApp.ts';
import { COMPUTE_SCHEMAS } from '../../src/services/compute/discovery/schema.ts';
import { startTestTwin } from '../support/twin.ts';

test('every Compute route is its discovery method: id, verb and path as the document gives them', async () => {
  const t = await startTestTwin();
  try {
    const byId = new Map(COMPUTE_SCHEMAS.methods.map((m) => [m.id, m]));
    const compute = (await everyRouteOf(t.twin.app)).filter((r) => r.config.api?.service === 'compute.googleapis.com');
    assert.ok(compute.length > 100);
    for (const r of compute) {
      const m = byId.get(r.config.api!.id);
      assert.ok(m, `${r.config.api!.id} (${r.method} ${r.url}) is a discovery method`);
      assert.equal(r.method, m.verb, m.id);
      assert.equal(r.url, `/compute/v1/${m.path.replace(/\{([A-Za-z]+)\}/g, ':$1')}`, m.id);
    }
    // The operations of every scope are served (zone operations among them).
    for (const id of ['compute.zoneOperations.get', 'compute.zoneOperations.list', 'compute.zoneOperations.delete', 'compute.zoneOperations.wait', 'compute.globalOperations.aggregatedList']) {
      assert.ok(compute.some((r) => r.config.api!.id === id), id);
    }
  } finally {
    await t.close();
  }
});
