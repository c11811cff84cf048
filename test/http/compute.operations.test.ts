import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestTwin, startTestTwin } from '../support/twin.ts';
import { MALLORY } from '../support/world.ts';
import { advanceClock, setOperationsMode } from './helpers.ts';
import { CORA, GLOBAL_SCOPE, LINK, P, TEMPLATE_SCOPES, VIC, assertComputeError, computeWorld, insertTemplate, templateBody } from './compute.helpers.ts';

for (const s of TEMPLATE_SCOPES) describe(`operations (${s.label})`, () => {
  let t: TestTwin;
  const insert = (body: Record<string, unknown>) => insertTemplate(t, body, { scope: s });
  const templatesPath = () => s.templatesPath();
  const operationsPath = () => s.operationsPath();
  before(async () => {
    t = await startTestTwin({ world: computeWorld, computeWaitTimeoutMs: 300 });
  });
  after(() => t.close());

  test('get by name and by numeric id; list; a viewer may read them', async () => {
    const op = await insert(templateBody('op-1'));
    const byName = await t.call(VIC, { method: 'GET', url: `${operationsPath()}/${op.name}` });
    assert.equal(byName.statusCode, 200, byName.body);
    assert.deepEqual(byName.json(), op);
    assert.deepEqual((await t.call(VIC, { method: 'GET', url: `${operationsPath()}/${op.id}` })).json(), op);
    const list = (await t.call(VIC, { method: 'GET', url: operationsPath() })).json();
    assert.equal(list.kind, 'compute#operationList');
    assert.equal(list.selfLink, `${LINK}${s.scopePath()}/operations`);
    assert.ok(list.items.some((o: any) => o.name === op.name));
    const filtered = (await t.call(VIC, { method: 'GET', url: `${operationsPath()}?filter=${encodeURIComponent(`targetId = "${op.targetId}"`)}` })).json();
    assert.deepEqual(filtered.items.map((o: any) => o.name), [op.name]);
    // an operation is found in its own scope only
    const elsewhere = s.region ? GLOBAL_SCOPE.operationsPath() : `/compute/v1/projects/${P}/regions/us-east1/operations`;
    assertComputeError(await t.call(VIC, { method: 'GET', url: `${elsewhere}/${op.name}` }), 404, 'notFound');
    assertComputeError(await t.call(MALLORY, { method: 'GET', url: `${operationsPath()}/${op.name}` }), 403, 'forbidden');
  });

  test('list pages: every operation once, by name (the default) or newest first, whichever page size', async () => {
    const ops: Record<string, any>[] = [];
    for (let i = 0; i < 5; i++) ops.push(await insert(templateBody(`page-op-${i}`)));
    const ours = new Set(ops.map((o) => o.name));
    const walk = async (query: string, maxResults: number) => {
      const names: string[] = [];
      let token = '';
      for (let n = 0; n < 200; n++) {
        const page = (await t.call(VIC, { method: 'GET', url: `${operationsPath()}?maxResults=${maxResults}${query}${token ? `&pageToken=${token}` : ''}` })).json();
        names.push(...(page.items ?? []).map((o: any) => o.name));
        // other tests' operations share the region: keep this test's, in the order the pages gave
        if (!page.nextPageToken) return names.filter((n) => ours.has(n));
        token = encodeURIComponent(page.nextPageToken);
      }
      throw new Error('no end of pages');
    };
    const byName = ops.map((o) => o.name).sort();
    for (const size of [1, 2, 5]) {
      assert.deepEqual(await walk('', size), byName, `by name (the default), pages of ${size}`);
      assert.deepEqual(await walk('&orderBy=name', size), byName, `by name, pages of ${size}`);
      const newest = await walk(`&orderBy=${encodeURIComponent('creationTimestamp desc')}`, size);
      assert.deepEqual([...newest].sort(), byName, `newest first, pages of ${size}: each once`);
      const times = newest.map((n) => Date.parse(ops.find((o) => o.name === n)!.insertTime));
      assert.deepEqual(times, [...times].sort((a, b) => b - a), 'newest first');
    }
  });

  test('delayed mode: PENDING, RUNNING, DONE in order, progress rising; wait blocks until DONE or its deadline', async () => {
    await setOperationsMode(t, 'delayed', 10_000);
    try {
      const res = await t.call(CORA, { method: 'POST', url: templatesPath(), payload: templateBody('slow-1') });
      const op = res.json();
      assert.equal(op.status, 'PENDING');
      assert.equal(op.progress, 0);
      assert.equal(op.startTime, undefined);
      await advanceClock(t, 6);
      const running = (await t.call(CORA, { method: 'GET', url: `${operationsPath()}/${op.name}` })).json();
      assert.equal(running.status, 'RUNNING');
      assert.ok(running.progress > 0 && running.progress < 100);
      assert.ok(running.startTime);
      // wait returns at its (test-sized) deadline while the operation is still running
      const waited = await t.call(CORA, { method: 'POST', url: `${operationsPath()}/${op.name}/wait`, payload: '""', headers: { 'content-type': 'application/json' } });
      assert.equal(waited.statusCode, 200, waited.body);
      assert.equal(waited.json().status, 'RUNNING');
      await advanceClock(t, 5);
      const done = (await t.call(CORA, { method: 'POST', url: `${operationsPath()}/${op.name}/wait` })).json();
      assert.equal(done.status, 'DONE');
      assert.equal(done.progress, 100);
      assert.ok(done.endTime);
      assert.equal((await t.call(CORA, { method: 'GET', url: `${templatesPath()}/slow-1` })).statusCode, 200);
    } finally {
      await setOperationsMode(t, 'instant');
    }
  });

  test('an operation completed after the IAM directory went stale does not deadlock (SQLite: lookups stay in the transaction)', async () => {
    await setOperationsMode(t, 'delayed', 700);
    try {
      const op = (await t.call(CORA, { method: 'POST', url: templatesPath(), payload: templateBody('stale-dir', { serviceAccounts: [{ email: 'default', scopes: [] }] }) })).json();
      await new Promise((r) => setTimeout(r, 800));
      await t.admin('POST', '/_twin/v1/world:apply', { projects: [] });
      const done = (await t.call(CORA, { method: 'POST', url: `${operationsPath()}/${op.name}/wait` })).json();
      assert.equal(done.status, 'DONE');
      assert.equal(done.error, undefined, JSON.stringify(done));
    } finally {
      await setOperationsMode(t, 'instant');
    }
  });

  test('two pending inserts of one name: the second operation ends RESOURCE_ALREADY_EXISTS', async () => {
    await setOperationsMode(t, 'delayed', 1_000);
    try {
      const a = (await t.call(CORA, { method: 'POST', url: templatesPath(), payload: templateBody('race-1') })).json();
      const b = (await t.call(CORA, { method: 'POST', url: templatesPath(), payload: templateBody('race-1') })).json();
      await advanceClock(t, 2);
      const ra = (await t.call(CORA, { method: 'POST', url: `${operationsPath()}/${a.name}/wait` })).json();
      const rb = (await t.call(CORA, { method: 'POST', url: `${operationsPath()}/${b.name}/wait` })).json();
      assert.equal(ra.error, undefined);
      assert.equal(rb.error.errors[0].code, 'RESOURCE_ALREADY_EXISTS');
      assert.equal(rb.httpErrorStatusCode, 409);
    } finally {
      await setOperationsMode(t, 'instant');
    }
  });

  test('a machineType URL ends the operation with INTERNAL_ERROR', async () => {
    const op = await insert(templateBody('mt-url', { machineType: 'zones/us-central1-a/machineTypes/e2-medium' }));
    assert.equal(op.status, 'DONE');
    assert.equal(op.error.errors[0].code, 'INTERNAL_ERROR');
    assert.ok(op.httpErrorStatusCode >= 400);
  });

  test('wait rejects a non-empty body; delete answers an empty body and then 404', async () => {
    const op = await insert(templateBody('op-del'));
    const bad = await t.call(CORA, { method: 'POST', url: `${operationsPath()}/${op.name}/wait`, payload: { x: 1 } });
    assert.equal(bad.statusCode, 400);
    assertComputeError(await t.call(VIC, { method: 'DELETE', url: `${operationsPath()}/${op.name}` }), 403, 'forbidden', new RegExp(s.operationPermission('delete').replaceAll('.', '\\.')));
    const del = await t.call(CORA, { method: 'DELETE', url: `${operationsPath()}/${op.name}` });
    assert.equal(del.statusCode, 204);
    assert.equal(del.body, '');
    assertComputeError(await t.call(CORA, { method: 'GET', url: `${operationsPath()}/${op.name}` }), 404, 'notFound', `The resource '${s.scopePath()}/operations/${op.name}' was not found`);
    assertComputeError(await t.call(CORA, { method: 'GET', url: `${operationsPath()}/operation-Bad` }), 400, 'invalidParameter');
  });

  test('finished operations are kept for the retention period, then 404', async () => {
    const op = await insert(templateBody('op-old'));
    await advanceClock(t, 31 * 24 * 3600);
    await t.twin.worker.tick();
    await (t.twin as any).compute.purgeForgottenOperations();
    assertComputeError(await t.call(CORA, { method: 'GET', url: `${operationsPath()}/${op.name}` }), 404, 'notFound');
    const list = (await t.call(CORA, { method: 'GET', url: operationsPath() })).json();
    assert.ok(!(list.items ?? []).some((o: any) => o.name === op.name));
  });
});

describe('aggregated lists, images and regions', () => {
  let t: TestTwin;
  before(async () => {
    t = await startTestTwin({ world: computeWorld });
    await insertTemplate(t, templateBody('agg-1'));
    await insertTemplate(t, templateBody('agg-2', { networkInterfaces: [{ subnetwork: 'regions/europe-west1/subnetworks/sub-eu' }] }), { region: 'europe-west1' });
    // a global template of the same name as a regional one: another collection
    await insertTemplate(t, templateBody('agg-1'), { scope: GLOBAL_SCOPE });
  });
  after(() => t.close());

  test('aggregated instanceTemplates: items keyed by scope (global too), a warning for empty scopes, gcloud region filter', async () => {
    const res = await t.call(VIC, { method: 'GET', url: `/compute/v1/projects/${P}/aggregated/instanceTemplates?includeAllScopes=True&maxResults=500&returnPartialSuccess=True` });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal(body.kind, 'compute#instanceTemplateAggregatedList');
    assert.deepEqual(body.items['regions/us-central1'].instanceTemplates.map((x: any) => x.name), ['agg-1']);
    assert.deepEqual(body.items['regions/europe-west1'].instanceTemplates.map((x: any) => x.name), ['agg-2']);
    assert.deepEqual(body.items.global.instanceTemplates.map((x: any) => [x.name, x.selfLink]), [['agg-1', `${LINK}projects/${P}/global/instanceTemplates/agg-1`]]);
    assert.equal(body.items['regions/asia-east1'].warning.code, 'NO_RESULTS_ON_PAGE');
    assert.deepEqual(body.items['regions/us-east1'].warning.data, [{ key: 'scope', value: 'regions/us-east1' }]);
    const filter = encodeURIComponent('region eq ".*\\bus\\-central1\\b.*"');
    const f = (await t.call(VIC, { method: 'GET', url: `/compute/v1/projects/${P}/aggregated/instanceTemplates?filter=${filter}` })).json();
    assert.ok(f.items['regions/us-central1'].instanceTemplates);
    assert.equal(f.items['regions/europe-west1'].instanceTemplates, undefined);
  });

  test('aggregated operations with the gcloud region filter', async () => {
    const filter = encodeURIComponent('region eq ".*\\bus\\-central1\\b.*"');
    const res = await t.call(VIC, { method: 'GET', url: `/compute/v1/projects/${P}/aggregated/operations?filter=${filter}&maxResults=500&returnPartialSuccess=True` });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal(body.kind, 'compute#operationAggregatedList');
    assert.equal(body.items['regions/us-central1'].operations.length, 1);
    assert.equal(body.items['regions/europe-west1'].warning.code, 'NO_RESULTS_ON_PAGE');
    assert.equal(body.items.global.warning.code, 'NO_RESULTS_ON_PAGE');
    // unfiltered: the global scope holds the global template's operation (no region field)
    const all = (await t.call(VIC, { method: 'GET', url: `/compute/v1/projects/${P}/aggregated/operations` })).json();
    assert.deepEqual(all.items.global.operations.map((o: any) => [o.operationType, o.region, o.targetLink]), [['compute.instanceTemplates.insert', undefined, `${LINK}projects/${P}/global/instanceTemplates/agg-1`]]);
    assert.equal(all.items['regions/europe-west1'].operations.length, 1);
  });

  test('images: public families for everybody authenticated, world images with compute.images.get', async () => {
    const deb = await t.call(MALLORY, { method: 'GET', url: '/compute/v1/projects/debian-cloud/global/images/family/debian-12' });
    assert.equal(deb.statusCode, 200, deb.body);
    const img = deb.json();
    assert.equal(img.kind, 'compute#image');
    assert.equal(img.family, 'debian-12');
    assert.equal(img.status, 'READY');
    assert.equal(img.selfLink, `${LINK}projects/debian-cloud/global/images/${img.name}`);
    assert.deepEqual((await t.call(MALLORY, { method: 'GET', url: `/compute/v1/projects/debian-cloud/global/images/${img.name}` })).json(), img);
    for (const [project, family] of [['ubuntu-os-cloud', 'ubuntu-2204-lts'], ['cos-cloud', 'cos-stable'], ['rocky-linux-cloud', 'rocky-linux-9'], ['centos-cloud', 'centos-stream-9'], ['windows-cloud', 'windows-2022']]) {
      assert.equal((await t.call(VIC, { method: 'GET', url: `/compute/v1/projects/${project}/global/images/family/${family}` })).statusCode, 200, `${project}/${family}`);
    }
    assertComputeError(await t.call(VIC, { method: 'GET', url: '/compute/v1/projects/debian-cloud/global/images/family/debian-1' }), 404, 'notFound', "The resource 'projects/debian-cloud/global/images/family/debian-1' was not found");
    const mine = (await t.call(VIC, { method: 'GET', url: `/compute/v1/projects/${P}/global/images/family/my-fam` })).json();
    assert.equal(mine.name, 'my-image-v2');
    assertComputeError(await t.call(MALLORY, { method: 'GET', url: `/compute/v1/projects/${P}/global/images/my-image-v1` }), 403, 'forbidden');
  });

  test('regions.get', async () => {
    const r = (await t.call(VIC, { method: 'GET', url: `/compute/v1/projects/${P}/regions/us-central1` })).json();
    assert.equal(r.kind, 'compute#region');
    assert.equal(r.zones.length, 4);
    assertComputeError(await t.call(VIC, { method: 'GET', url: `/compute/v1/projects/${P}/regions/nowhere1` }), 404, 'notFound');
  });
});

describe('zone operations', () => {
  let t: TestTwin;
  const zoneOps = (zone = 'us-central1-a') => `/compute/v1/projects/${P}/zones/${zone}/operations`;
  before(async () => {
    t = await startTestTwin({ world: computeWorld });
  });
  after(() => t.close());

  test('list, get, wait and delete answer in the zone scope with the zone operation permissions', async () => {
    const list = await t.call(VIC, { method: 'GET', url: zoneOps() });
    assert.equal(list.statusCode, 200, list.body);
    assert.deepEqual(list.json(), { kind: 'compute#operationList', id: `projects/${P}/zones/us-central1-a/operations`, selfLink: `${LINK}projects/${P}/zones/us-central1-a/operations` });
    assertComputeError(await t.call(VIC, { method: 'GET', url: `${zoneOps()}/operation-1-2-3` }), 404, 'notFound', `The resource 'projects/${P}/zones/us-central1-a/operations/operation-1-2-3' was not found`);
    assertComputeError(await t.call(VIC, { method: 'POST', url: `${zoneOps()}/operation-1-2-3/wait` }), 404, 'notFound');
    assertComputeError(await t.call(VIC, { method: 'DELETE', url: `${zoneOps()}/operation-1-2-3` }), 403, 'forbidden', `Required 'compute.zoneOperations.delete' permission for 'projects/${P}/zones/us-central1-a/operations/operation-1-2-3'`);
    assertComputeError(await t.call(MALLORY, { method: 'GET', url: zoneOps() }), 403, 'forbidden', `Required 'compute.zoneOperations.list' permission for 'projects/${P}/zones/us-central1-a'`);
    assertComputeError(await t.call(VIC, { method: 'GET', url: zoneOps('us-central1-q') }), 404, 'notFound', `The resource 'projects/${P}/zones/us-central1-q' was not found`);
    assertComputeError(await t.call(VIC, { method: 'GET', url: zoneOps('Bad_Zone') }), 400, 'invalidParameter');
  });

  test('the aggregated list has a key for every zone beside global and the regions', async () => {
    const agg = (await t.call(VIC, { method: 'GET', url: `/compute/v1/projects/${P}/aggregated/operations` })).json();
    assert.ok(agg.items.global && agg.items['regions/us-central1'] && agg.items['zones/us-central1-a']);
    assert.equal(agg.items['zones/us-central1-a'].warning.code, 'NO_RESULTS_ON_PAGE');
  });
});
