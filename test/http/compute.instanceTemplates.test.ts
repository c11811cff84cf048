import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestTwin, startTestTwin } from '../support/twin.ts';
import { DEMO, MALLORY } from '../support/world.ts';
import { CORA, LINK, NINA, P, TEMPLATE_SCOPES, VIC, assertComputeError, computeWorld, insertTemplate, templateBody } from './compute.helpers.ts';

const OP_NAME = /^operation-\d{13}-[0-9a-f]{13}-[0-9a-f]{8}-[0-9a-f]{8}$/;
const TS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[-+]\d\d:\d\d$/;

for (const s of TEMPLATE_SCOPES) describe(`instance templates (${s.label})`, () => {
  let t: TestTwin;
  const insert = (body: Record<string, unknown>, opts: { principal?: string; requestId?: string } = {}) => insertTemplate(t, body, { ...opts, scope: s });
  const templatesPath = (project?: string) => s.templatesPath(project);
  const templatePath = (name: string) => s.templatePath(name);
  before(async () => {
    t = await startTestTwin({ world: computeWorld });
  });
  after(() => t.close());

  test('insert answers a DONE compute#operation; get returns the stored template with links and ids', async () => {
    const op = await insert(templateBody('web-1', { labels: { env: 'prod' } }));
    assert.equal(op.kind, 'compute#operation');
    assert.match(op.name, OP_NAME);
    assert.match(op.id, /^[1-9][0-9]{18}$/);
    assert.equal(op.operationType, s.operationType('insert'));
    assert.equal(op.status, 'DONE');
    assert.equal(op.progress, 100);
    assert.equal(op.user, 'cora@example.com');
    assert.equal(op.targetLink, `${LINK}${s.scopePath()}/instanceTemplates/web-1`);
    // a global operation and template have no region field at all
    assert.equal(op.region, s.region ? `${LINK}${s.scopePath()}` : undefined);
    assert.equal(op.selfLink, `${LINK}${s.scopePath()}/operations/${op.name}`);
    for (const f of ['insertTime', 'startTime', 'endTime']) assert.match(op[f], TS);
    assert.equal(op.error, undefined);
    const res = await t.call(CORA, { method: 'GET', url: templatePath('web-1') });
    assert.equal(res.statusCode, 200, res.body);
    const tpl = res.json();
    assert.equal(tpl.kind, 'compute#instanceTemplate');
    assert.equal(tpl.id, op.targetId);
    assert.equal(tpl.name, 'web-1');
    assert.match(tpl.creationTimestamp, TS);
    assert.equal(tpl.selfLink, op.targetLink);
    assert.equal(tpl.region, op.region);
    assert.equal('region' in tpl, s.region !== undefined);
    assert.equal(tpl.properties.machineType, 'e2-medium');
    assert.deepEqual(tpl.properties.labels, { env: 'prod' });
    // by numeric id too
    assert.deepEqual((await t.call(VIC, { method: 'GET', url: templatePath(tpl.id) })).json(), tpl);
  });

  test('a duplicate name is 409 alreadyExists', async () => {
    await insert(templateBody('dup-1'));
    const res = await t.call(CORA, { method: 'POST', url: templatesPath(), payload: templateBody('dup-1') });
    assertComputeError(res, 409, 'alreadyExists', `The resource '${s.scopePath()}/instanceTemplates/dup-1' already exists`);
  });

  test('an invalid body is 400 with errors[] naming the field', async () => {
    const res = await t.call(CORA, { method: 'POST', url: templatesPath(), payload: templateBody('Bad_Name') });
    const err = assertComputeError(res, 400, 'invalid');
    assert.match(err.message, /resource\.name/);
    const none = await t.call(CORA, { method: 'GET', url: templatePath('bad-name') });
    assertComputeError(none, 404, 'notFound');
  });

  test('requestId: a repeat returns the original operation and creates nothing; a bad one is 400', async () => {
    const rid = '8c3f6a1e-2b4d-4c6e-9f10-1a2b3c4d5e6f';
    const first = await insert(templateBody('rid-1'), { requestId: rid });
    assert.equal(first.clientOperationId, rid);
    const again = await insert(templateBody('rid-2'), { requestId: rid });
    assert.deepEqual(again, first);
    assertComputeError(await t.call(CORA, { method: 'GET', url: templatePath('rid-2') }), 404, 'notFound');
    // concurrent repeats: one operation
    const rid2 = '0c3f6a1e-2b4d-4c6e-9f10-1a2b3c4d5e6f';
    const all = await Promise.all([1, 2, 3, 4].map(() => insert(templateBody('rid-3'), { requestId: rid2 })));
    assert.equal(new Set(all.map((o) => o.name)).size, 1);
    for (const bad of ['nope', '00000000-0000-0000-0000-000000000000']) {
      assertComputeError(await t.call(CORA, { method: 'POST', url: `${templatesPath()}?requestId=${bad}`, payload: templateBody('rid-4') }), 400, 'invalid', /requestId/);
    }
  });

  test('references are resolved when the operation runs: missing ones end it with RESOURCE_NOT_FOUND', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ networkInterfaces: [{ network: 'global/networks/nope' }] }, `projects/${P}/global/networks/nope`],
      [{ networkInterfaces: [{ subnetwork: 'regions/us-central1/subnetworks/nope' }] }, `projects/${P}/regions/us-central1/subnetworks/nope`],
      [{ disks: [{ boot: true, initializeParams: { sourceImage: 'projects/debian-cloud/global/images/family/nope' } }] }, 'projects/debian-cloud/global/images/family/nope'],
      [{ disks: [{ boot: true, initializeParams: { sourceSnapshot: 'global/snapshots/nope' } }] }, `projects/${P}/global/snapshots/nope`],
    ];
    for (const [i, [props, path]] of cases.entries()) {
      const op = await insert(templateBody(`missing-${i}`, props));
      assert.equal(op.status, 'DONE');
      assert.equal(op.httpErrorStatusCode, 404, JSON.stringify(op));
      assert.equal(op.httpErrorMessage, 'NOT FOUND');
      assert.equal(op.error.errors[0].code, 'RESOURCE_NOT_FOUND');
      assert.equal(op.error.errors[0].message, `The resource '${path}' was not found`);
      assertComputeError(await t.call(CORA, { method: 'GET', url: templatePath(`missing-${i}`) }), 404, 'notFound');
    }
  });

  test('network modes: only a subnetwork infers its network; custom needs a subnetwork; legacy forbids one', async () => {
    const op = await insert(templateBody('sub-only', { networkInterfaces: [{ subnetwork: 'regions/us-central1/subnetworks/sub-a', aliasIpRanges: [{ ipCidrRange: '/24', subnetworkRangeName: 'pods' }] }] }));
    assert.equal(op.error, undefined, JSON.stringify(op));
    const tpl = (await t.call(CORA, { method: 'GET', url: templatePath('sub-only') })).json();
    assert.equal(tpl.properties.networkInterfaces[0].network, `${LINK}projects/${P}/global/networks/custom-net`);
    assert.equal(tpl.properties.networkInterfaces[0].subnetwork, `${LINK}projects/${P}/regions/us-central1/subnetworks/sub-a`);
    const custom = await insert(templateBody('custom-nosub', { networkInterfaces: [{ network: 'global/networks/custom-net' }] }));
    assert.match(custom.error.errors[0].message, /Subnetwork should be specified for custom subnetmode network/);
    const legacy = await insert(templateBody('legacy-sub', { networkInterfaces: [{ network: 'global/networks/legacy-net', subnetwork: 'regions/us-central1/subnetworks/sub-a' }] }));
    assert.equal(legacy.httpErrorStatusCode, 400);
    const alias = await insert(templateBody('alias-out', { networkInterfaces: [{ subnetwork: 'regions/us-central1/subnetworks/sub-a', aliasIpRanges: [{ ipCidrRange: '192.168.0.0/24' }] }] }));
    assert.match(alias.error.errors[0].message, /within the subnetwork range '10\.1\.0\.0\/20'/);
    const eu = templateBody('sub-eu', { networkInterfaces: [{ subnetwork: 'regions/europe-west1/subnetworks/sub-eu', network: 'global/networks/custom-net' }] });
    if (s.region) {
      // a subnetwork URL of another region is refused at insert (the rules know the request's region)
      const region = await t.call(CORA, { method: 'POST', url: templatesPath(), payload: eu });
      assert.match(assertComputeError(region, 400, 'invalid').message, /Subnetwork must be in region 'us-central1', the region of the template/);
    } else {
      // a global template may name a subnetwork of any region (its instances go there) ...
      const op = await insert(eu);
      assert.equal(op.error, undefined, JSON.stringify(op));
      const tpl = (await t.call(CORA, { method: 'GET', url: templatePath('sub-eu') })).json();
      assert.equal(tpl.properties.networkInterfaces[0].subnetwork, `${LINK}projects/${P}/regions/europe-west1/subnetworks/sub-eu`);
      // ... but must name the region: a bare subnetwork name has none to default to
      const bare = await insert(templateBody('sub-bare', { networkInterfaces: [{ subnetwork: 'sub-a' }] }));
      assert.equal(bare.httpErrorStatusCode, 400, JSON.stringify(bare));
      assert.equal(bare.error.errors[0].location, 'resource.properties.networkInterfaces[0].subnetwork');
    }
  });

  test('networkTier must match a static address; gcloud-style URLs on any host resolve', async () => {
    const bad = await insert(templateBody('nat-bad', { networkInterfaces: [{ network: 'global/networks/default', accessConfigs: [{ natIP: '34.1.2.3' }] }] }));
    assert.match(bad.error.errors[0].message, /network tier/);
    const ok = await insert(templateBody('nat-ok', { networkInterfaces: [{ network: 'global/networks/default', accessConfigs: [{ natIP: '34.1.2.3', networkTier: 'STANDARD' }] }] }));
    assert.equal(ok.error, undefined, JSON.stringify(ok));
    const host = 'http://127.0.0.1:8080/compute/v1/';
    const g = await insert(templateBody('gcloud-urls', {
      networkInterfaces: [{ network: `${host}projects/${P}/global/networks/default` }],
      disks: [{ boot: true, initializeParams: { sourceImage: `${host}projects/${P}/global/images/family/my-fam` } }],
      serviceAccounts: [{ email: 'default', scopes: ['https://www.googleapis.com/auth/cloud-platform'] }],
    }));
    assert.equal(g.error, undefined, JSON.stringify(g));
    const tpl = (await t.call(CORA, { method: 'GET', url: templatePath('gcloud-urls') })).json();
    assert.equal(tpl.properties.networkInterfaces[0].network, `${LINK}projects/${P}/global/networks/default`);
    assert.equal(tpl.properties.serviceAccounts[0].email, `${DEMO.projectNumber}-compute@developer.gserviceaccount.com`);
  });

  test('list: pagination, order and filter; maxResults bounds', async () => {
    for (const n of ['ls-a', 'ls-b', 'ls-c']) await insert(templateBody(n, { labels: { team: n === 'ls-b' ? 'blue' : 'red' } }));
    const names: string[] = [];
    let token = '';
    for (let i = 0; i < 50; i++) {
      const res = await t.call(VIC, { method: 'GET', url: `${templatesPath()}?maxResults=2${token ? `&pageToken=${token}` : ''}` });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.equal(body.kind, 'compute#instanceTemplateList');
      names.push(...(body.items ?? []).map((x: any) => x.name));
      token = body.nextPageToken ?? '';
      if (!token) break;
    }
    assert.deepEqual(names, [...names].sort());
    assert.ok(names.includes('ls-a') && names.includes('ls-c'));
    const desc = (await t.call(VIC, { method: 'GET', url: `${templatesPath()}?orderBy=${encodeURIComponent('creationTimestamp desc')}` })).json();
    assert.equal(desc.items[0].name, 'ls-c');
    const f = (await t.call(VIC, { method: 'GET', url: `${templatesPath()}?filter=${encodeURIComponent('properties.labels.team = blue')}` })).json();
    assert.deepEqual(f.items.map((x: any) => x.name), ['ls-b']);
    assertComputeError(await t.call(VIC, { method: 'GET', url: `${templatesPath()}?maxResults=501` }), 400, 'invalidParameter', 'Invalid value \'501\'. Values must be within the range: [0, 500]');
    assertComputeError(await t.call(VIC, { method: 'GET', url: `${templatesPath()}?orderBy=zone` }), 400, 'invalid');
    assertComputeError(await t.call(VIC, { method: 'GET', url: `${templatesPath()}?pageToken=garbage` }), 400, 'invalid');
    const unknown = await t.call(VIC, { method: 'GET', url: `${templatesPath()}?pageSize=3` });
    assert.equal(unknown.statusCode, 400);
    assert.match(unknown.json().error.message, /Unknown name "pageSize"/);
    assert.equal((await t.call(VIC, { method: 'GET', url: `${templatesPath()}?alt=json&prettyPrint=false&returnPartialSuccess=True` })).statusCode, 200);
  });

  test('delete: an operation, then the template is gone; unknown is 404', async () => {
    await insert(templateBody('del-1'));
    const res = await t.call(CORA, { method: 'DELETE', url: templatePath('del-1') });
    assert.equal(res.statusCode, 200, res.body);
    const op = res.json();
    assert.equal(op.operationType, s.operationType('delete'));
    assert.equal(op.status, 'DONE');
    assertComputeError(await t.call(CORA, { method: 'GET', url: templatePath('del-1') }), 404, 'notFound', `The resource '${s.scopePath()}/instanceTemplates/del-1' was not found`);
    assertComputeError(await t.call(CORA, { method: 'DELETE', url: templatePath('del-1') }), 404, 'notFound');
  });

  test('path parameters, unknown region and project', async () => {
    assertComputeError(await t.call(CORA, { method: 'GET', url: templatePath('Bad_Name') }), 400, 'invalidParameter', /Values must match the following regular expression/);
    if (s.region) {
      assertComputeError(await t.call(CORA, { method: 'GET', url: `/compute/v1/projects/${P}/regions/mars-central1/instanceTemplates` }), 404, 'notFound', `The resource 'projects/${P}/regions/mars-central1' was not found`);
      // no region is called global: a regional path never reaches the global collection
      assertComputeError(await t.call(CORA, { method: 'GET', url: `/compute/v1/projects/${P}/regions/global/instanceTemplates` }), 404, 'notFound', `The resource 'projects/${P}/regions/global' was not found`);
    }
    // an outsider gets the same answer for a real and a fake project
    const real = await t.call(MALLORY, { method: 'GET', url: templatesPath() });
    const fake = await t.call(MALLORY, { method: 'GET', url: templatesPath('no-such-project') });
    assertComputeError(real, 403, 'forbidden');
    assertComputeError(fake, 403, 'forbidden');
    assert.equal(real.json().error.message.replace(P, 'X'), fake.json().error.message.replace('no-such-project', 'X'));
  });

  test('permissions: the method and the fields imply; scopes', async () => {
    const res = await t.call(VIC, { method: 'POST', url: templatesPath(), payload: templateBody('perm-1') });
    assertComputeError(res, 403, 'forbidden', `Required 'compute.instanceTemplates.create' permission for '${s.scopePath()}/instanceTemplates/perm-1'`);
    const nina = await t.call(NINA, { method: 'POST', url: templatesPath(), payload: templateBody('perm-2', { networkInterfaces: [{ network: 'global/networks/default' }] }) });
    assertComputeError(nina, 403, 'forbidden', `Required 'compute.networks.get' permission for 'projects/${P}/global/networks/default'`);
    const img = await t.call(NINA, { method: 'POST', url: templatesPath(), payload: templateBody('perm-3', { networkInterfaces: [], disks: [{ boot: true, initializeParams: { sourceImage: 'global/images/my-image-v1' } }] }) });
    assertComputeError(img, 403, 'forbidden', /compute\.images\.get/);
    // public images need no permission
    const pub = await t.call(NINA, { method: 'POST', url: templatesPath(), payload: templateBody('perm-4', { networkInterfaces: [] }) });
    assert.equal(pub.statusCode, 200, pub.body);
    // scopes: reads take compute.readonly, writes do not
    const ro = { scopes: ['https://www.googleapis.com/auth/compute.readonly'] };
    assert.equal((await t.call(CORA, { method: 'GET', url: templatesPath(), ...ro })).statusCode, 200);
    assert.equal((await t.call(CORA, { method: 'POST', url: templatesPath(), payload: templateBody('scope-1'), ...ro })).statusCode, 403);
    const cp = { scopes: ['https://www.googleapis.com/auth/compute'] };
    assert.equal((await t.call(CORA, { method: 'POST', url: templatesPath(), payload: templateBody('scope-2'), ...cp })).statusCode, 200);
    assert.equal((await t.call(CORA, { method: 'GET', url: templatesPath(), scopes: ['https://www.googleapis.com/auth/youtube'] })).statusCode, 403);
    assert.equal((await t.call(null, { method: 'GET', url: templatesPath() })).statusCode, 401);
  });
});
