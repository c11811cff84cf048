/**
 * Instances, disks, snapshots and addresses written through the API with Compute's rules: an
 * instance's boot disk made beside it, internal IPs from its subnetwork's range (never the four
 * Compute keeps), reserved addresses IN_USE, fingerprints, deletionProtection, the machine type of
 * the zone, actAs on a service account, an insert from a template, stop/start on the twin's clock,
 * and the refusals (disk in use, address in use, subnetwork in use). Every answer is checked
 * against the discovery document (startTestTwin's conformance recorder).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestTwin, startTestTwin } from '../support/twin.ts';
import { CAROL } from '../support/world.ts';
import { CORA, LINK, P, assertComputeError, computeWorld, templateBody } from './compute.helpers.ts';
import { advanceClock, setOperationsMode } from './helpers.ts';

const V1 = '/compute/v1';
const ZONE = 'us-central1-a';
const zonal = (collection: string, zone = ZONE) => `${V1}/projects/${P}/zones/${zone}/${collection}`;
const instances = (zone = ZONE) => zonal('instances', zone);
const IMAGE = 'projects/debian-cloud/global/images/family/debian-12';

const vm = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  machineType: `zones/${ZONE}/machineTypes/e2-medium`,
  disks: [{ boot: true, autoDelete: true, initializeParams: { sourceImage: IMAGE } }],
  networkInterfaces: [{ subnetwork: `regions/us-central1/subnetworks/tiny` }],
  ...extra,
});

describe('instances, disks, snapshots and addresses', () => {
  let t: TestTwin;
  const call = (who: string, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown) => t.call(who, { method, url, ...(payload ? { payload: payload as Record<string, unknown> } : {}) });
  const done = async (res: Awaited<ReturnType<typeof call>>) => {
    assert.equal(res.statusCode, 200, res.body);
    const op = res.json();
    assert.equal(op.status, 'DONE', res.body);
    assert.equal(op.error, undefined, res.body);
    return op;
  };
  const get = async (url: string) => {
    const res = await call(CAROL, 'GET', url);
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };
  before(async () => {
    t = await startTestTwin({ world: computeWorld });
    await done(await call(CAROL, 'POST', `${V1}/projects/${P}/global/networks`, { name: 'vpc', autoCreateSubnetworks: false }));
    // A /29: eight addresses, of which Compute keeps .0, .1, .6 and .7: four for VMs.
    await done(await call(CAROL, 'POST', `${V1}/projects/${P}/regions/us-central1/subnetworks`, { name: 'tiny', network: 'global/networks/vpc', ipCidrRange: '10.9.0.0/29' }));
  });
  after(() => t.close());

  test('insert: a zone operation; the instance RUNNING with its boot disk, an internal IP from the range and an ephemeral external one', async () => {
    const op = await done(await call(CORA, 'POST', instances(), vm('vm-a', { networkInterfaces: [{ subnetwork: 'regions/us-central1/subnetworks/tiny', accessConfigs: [{ type: 'ONE_TO_ONE_NAT' }] }] })));
    assert.equal(op.operationType, 'insert');
    assert.equal(op.zone, `${LINK}projects/${P}/zones/${ZONE}`);
    assert.equal(op.targetLink, `${LINK}projects/${P}/zones/${ZONE}/instances/vm-a`);
    const i = await get(`${instances()}/vm-a`);
    assert.equal(i.id, op.targetId);
    assert.equal(i.status, 'RUNNING');
    assert.equal(i.machineType, `${LINK}projects/${P}/zones/${ZONE}/machineTypes/e2-medium`);
    assert.equal(i.networkInterfaces[0].networkIP, '10.9.0.2');
    assert.equal(i.networkInterfaces[0].network, `${LINK}projects/${P}/global/networks/vpc`);
    assert.match(i.networkInterfaces[0].accessConfigs[0].natIP, /^34\.\d+\.\d+\.\d+$/);
    assert.equal(i.disks[0].boot, true);
    assert.equal(i.disks[0].source, `${LINK}projects/${P}/zones/${ZONE}/disks/vm-a`);
    const disk = await get(`${zonal('disks')}/vm-a`);
    assert.deepEqual(disk.users, [i.selfLink]);
    assert.equal(disk.sourceImage, `${LINK}${IMAGE}`);
    const list = await get(instances());
    assert.deepEqual(list.items.map((x: { name: string }) => x.name), ['vm-a']);
    const agg = await get(`${V1}/projects/${P}/aggregated/instances`);
    assert.deepEqual(agg.items[`zones/${ZONE}`].instances.map((x: { name: string }) => x.name), ['vm-a']);
  });

  test('internal IPs: unique in the subnetwork, never the reserved four; a taken or reserved one is refused; a full range is exhausted', async () => {
    await done(await call(CORA, 'POST', instances(), vm('vm-b')));
    assert.equal((await get(`${instances()}/vm-b`)).networkInterfaces[0].networkIP, '10.9.0.3');
    const taken = await call(CORA, 'POST', instances(), vm('vm-x', { networkInterfaces: [{ subnetwork: 'regions/us-central1/subnetworks/tiny', networkIP: '10.9.0.2' }] }));
    assertComputeError(taken, 400, 'invalid', /already being used/);
    const gateway = await call(CORA, 'POST', instances(), vm('vm-x', { networkInterfaces: [{ subnetwork: 'regions/us-central1/subnetworks/tiny', networkIP: '10.9.0.1' }] }));
    assertComputeError(gateway, 400, 'invalid', /reserved/);
    const outside = await call(CORA, 'POST', instances(), vm('vm-x', { networkInterfaces: [{ subnetwork: 'regions/us-central1/subnetworks/tiny', networkIP: '10.9.1.2' }] }));
    assertComputeError(outside, 400, 'invalid', /outside the subnetwork/);
    await done(await call(CORA, 'POST', instances(), vm('vm-c', { networkInterfaces: [{ subnetwork: 'regions/us-central1/subnetworks/tiny', networkIP: '10.9.0.5' }] })));
    await done(await call(CORA, 'POST', instances(), vm('vm-d')));
    assert.equal((await get(`${instances()}/vm-d`)).networkInterfaces[0].networkIP, '10.9.0.4');
    const full = await call(CORA, 'POST', instances(), vm('vm-x'));
    assertComputeError(full, 400, 'ipSpaceExhausted', /exhausted/);
    for (const n of ['vm-c', 'vm-d']) await done(await call(CORA, 'DELETE', `${instances()}/${n}`));
  });

  test('refusals: unknown machine type in the zone, a taken name, a disk in use, a subnetwork in use', async () => {
    const unknown = await call(CORA, 'POST', instances(), vm('vm-x', { machineType: `zones/${ZONE}/machineTypes/n9-mega-7` }));
    assertComputeError(unknown, 400, 'invalid', new RegExp(`Machine type with name 'n9-mega-7' does not exist in zone '${ZONE}'`));
    const elsewhere = await call(CORA, 'POST', instances(), vm('vm-x', { machineType: 'zones/europe-west1-b/machineTypes/e2-medium' }));
    assertComputeError(elsewhere, 400, 'invalid', /must be in zone/);
    assertComputeError(await call(CORA, 'POST', instances(), vm('vm-a')), 409, 'alreadyExists', /vm-a' already exists/);
    const diskInUse = await call(CORA, 'DELETE', `${zonal('disks')}/vm-a`);
    assertComputeError(diskInUse, 400, 'resourceInUseByAnotherResource', new RegExp(`The disk resource 'projects/${P}/zones/${ZONE}/disks/vm-a' is already being used by 'projects/${P}/zones/${ZONE}/instances/vm-a'`));
    const subnetInUse = await call(CAROL, 'DELETE', `${V1}/projects/${P}/regions/us-central1/subnetworks/tiny`);
    assertComputeError(subnetInUse, 400, 'resourceInUseByAnotherResource', /instances\/vm-/);
  });

  test('a service account needs iam.serviceAccounts.actAs: refused without it, accepted with it', async () => {
    const sa = { serviceAccounts: [{ email: 'default', scopes: ['https://www.googleapis.com/auth/cloud-platform'] }] };
    const refused = await call(CORA, 'POST', instances(), vm('vm-sa', sa));
    assertComputeError(refused, 400, 'badRequest', /does not have access to service account '\d+-compute@developer\.gserviceaccount\.com'.*cora@example\.com/);
    await done(await call(CAROL, 'POST', instances(), vm('vm-sa', sa)));
    const i = await get(`${instances()}/vm-sa`);
    assert.match(i.serviceAccounts[0].email, /^\d+-compute@developer\.gserviceaccount\.com$/);
    await done(await call(CAROL, 'DELETE', `${instances()}/vm-sa`));
  });

  test('setLabels, setMetadata, setTags: the current fingerprint changes it, a stale one is 412 conditionNotMet', async () => {
    const i = await get(`${instances()}/vm-b`);
    await done(await call(CORA, 'POST', `${instances()}/vm-b/setLabels`, { labels: { env: 'test' }, labelFingerprint: i.labelFingerprint }));
    const after = await get(`${instances()}/vm-b`);
    assert.deepEqual(after.labels, { env: 'test' });
    assert.notEqual(after.labelFingerprint, i.labelFingerprint);
    assertComputeError(await call(CORA, 'POST', `${instances()}/vm-b/setLabels`, { labels: {}, labelFingerprint: i.labelFingerprint }), 412, 'conditionNotMet', /fingerprint/);
    await done(await call(CORA, 'POST', `${instances()}/vm-b/setMetadata`, { fingerprint: i.metadata.fingerprint, items: [{ key: 'k', value: 'v' }] }));
    assert.deepEqual((await get(`${instances()}/vm-b`)).metadata.items, [{ key: 'k', value: 'v' }]);
    assertComputeError(await call(CORA, 'POST', `${instances()}/vm-b/setMetadata`, { fingerprint: i.metadata.fingerprint, items: [] }), 412, 'conditionNotMet', /fingerprint/);
    await done(await call(CORA, 'POST', `${instances()}/vm-b/setTags`, { fingerprint: i.tags.fingerprint, items: ['web'] }));
    assert.deepEqual((await get(`${instances()}/vm-b`)).tags.items, ['web']);
    assertComputeError(await call(CORA, 'POST', `${instances()}/vm-b/setTags`, { fingerprint: 'AAAAAAAAAAA=', items: [] }), 412, 'conditionNotMet', /fingerprint/);
  });

  test('stop, start, reset; deletionProtection refuses a delete; delete takes the autoDelete boot disk', async () => {
    await done(await call(CORA, 'POST', `${instances()}/vm-b/stop`));
    assert.equal((await get(`${instances()}/vm-b`)).status, 'TERMINATED');
    assertComputeError(await call(CORA, 'POST', `${instances()}/vm-b/reset`), 400, 'resourceNotReady', /not ready/);
    await done(await call(CORA, 'POST', `${instances()}/vm-b/start`));
    assert.equal((await get(`${instances()}/vm-b`)).status, 'RUNNING');
    await done(await call(CORA, 'POST', `${instances()}/vm-b/reset`));
    await done(await call(CORA, 'POST', instances(), vm('vm-p', { deletionProtection: true })));
    assertComputeError(await call(CORA, 'DELETE', `${instances()}/vm-p`), 400, 'resourceIsProtected', /protected against deletion/);
    await done(await call(CORA, 'DELETE', `${instances()}/vm-b`));
    assert.equal((await call(CAROL, 'GET', `${instances()}/vm-b`)).statusCode, 404);
    assert.equal((await call(CAROL, 'GET', `${zonal('disks')}/vm-b`)).statusCode, 404, 'the autoDelete boot disk goes with it');
  });

  test('an instance from a global template: its properties, the body overriding them field by field', async () => {
    const tpl = templateBody('tpl-i', { labels: { from: 'template' }, networkInterfaces: [{ network: 'global/networks/vpc', subnetwork: 'regions/us-central1/subnetworks/tiny' }] });
    await done(await call(CORA, 'POST', `${V1}/projects/${P}/global/instanceTemplates`, tpl));
    await done(await call(CORA, 'POST', `${instances()}?sourceInstanceTemplate=global/instanceTemplates/tpl-i`, { name: 'vm-t', labels: { from: 'body' } }));
    const i = await get(`${instances()}/vm-t`);
    assert.deepEqual(i.labels, { from: 'body' });
    assert.equal(i.machineType, `${LINK}projects/${P}/zones/${ZONE}/machineTypes/e2-medium`);
    assert.equal(i.networkInterfaces[0].subnetwork, `${LINK}projects/${P}/regions/us-central1/subnetworks/tiny`);
    assert.equal(i.disks[0].autoDelete, true);
    const missing = await call(CORA, 'POST', `${instances()}?sourceInstanceTemplate=global/instanceTemplates/nope`, { name: 'vm-u' });
    assertComputeError(missing, 404, 'notFound', /instanceTemplates\/nope/);
    await done(await call(CORA, 'DELETE', `${instances()}/vm-t`));
  });

  test('addresses: a reserved external address named by natIP is IN_USE with users[] and cannot be deleted until the instance goes', async () => {
    const regional = `${V1}/projects/${P}/regions/us-central1/addresses`;
    await done(await call(CORA, 'POST', regional, { name: 'ip-1' }));
    const a = await get(`${regional}/ip-1`);
    assert.equal(a.status, 'RESERVED');
    assert.equal(a.addressType, 'EXTERNAL');
    await done(await call(CORA, 'POST', instances(), vm('vm-n', { networkInterfaces: [{ subnetwork: 'regions/us-central1/subnetworks/tiny', accessConfigs: [{ natIP: a.address }] }] })));
    assert.equal((await get(`${instances()}/vm-n`)).networkInterfaces[0].accessConfigs[0].natIP, a.address);
    const used = await get(`${regional}/ip-1`);
    assert.equal(used.status, 'IN_USE');
    assert.deepEqual(used.users, [`${LINK}projects/${P}/zones/${ZONE}/instances/vm-n`]);
    assertComputeError(await call(CORA, 'DELETE', `${regional}/ip-1`), 400, 'resourceInUseByAnotherResource', /ip-1' is already being used by/);
    await done(await call(CORA, 'DELETE', `${instances()}/vm-n`));
    assert.equal((await get(`${regional}/ip-1`)).status, 'RESERVED');
    await done(await call(CORA, 'DELETE', `${regional}/ip-1`));
    const global = `${V1}/projects/${P}/global/addresses`;
    await done(await call(CORA, 'POST', global, { name: 'gip', address: '34.1.2.3' }));
    assert.equal((await get(`${global}/gip`)).ipVersion, 'IPV4');
    await done(await call(CORA, 'DELETE', `${global}/gip`));
  });

  test('disks: insert, resize (only larger), createSnapshot, snapshots get/list/delete, delete', async () => {
    await done(await call(CORA, 'POST', `${zonal('disks')}?sourceImage=${IMAGE}`, { name: 'data', sizeGb: '20' }));
    const d = await get(`${zonal('disks')}/data`);
    assert.equal(d.sizeGb, '20');
    assert.equal(d.type, `${LINK}projects/${P}/zones/${ZONE}/diskTypes/pd-standard`);
    assertComputeError(await call(CORA, 'POST', `${zonal('disks')}/data/resize`, { sizeGb: '10' }), 400, 'invalid', /cannot be smaller/);
    await done(await call(CORA, 'POST', `${zonal('disks')}/data/resize`, { sizeGb: '30' }));
    assert.equal((await get(`${zonal('disks')}/data`)).sizeGb, '30');
    const op = await done(await call(CORA, 'POST', `${zonal('disks')}/data/createSnapshot`, { name: 'snap-mine' }));
    assert.equal(op.operationType, 'createSnapshot');
    const s = await get(`${V1}/projects/${P}/global/snapshots/snap-mine`);
    assert.equal(s.sourceDisk, `${LINK}projects/${P}/zones/${ZONE}/disks/data`);
    assert.equal(s.diskSizeGb, '30');
    assert.equal(s.status, 'READY');
    assert.ok((await get(`${V1}/projects/${P}/global/snapshots`)).items.some((x: { name: string }) => x.name === 'snap-mine'));
    await done(await call(CORA, 'DELETE', `${V1}/projects/${P}/global/snapshots/snap-mine`));
    await done(await call(CORA, 'DELETE', `${zonal('disks')}/data`));
  });

  test('delayed mode: PROVISIONING, then STAGING, then RUNNING on the twin\'s clock; STOPPING then TERMINATED', async () => {
    await setOperationsMode(t, 'delayed', 10_000);
    try {
      const res = await call(CORA, 'POST', instances(), vm('vm-slow'));
      assert.equal(res.json().status, 'PENDING');
      assert.equal((await get(`${instances()}/vm-slow`)).status, 'PROVISIONING');
      await advanceClock(t, 6);
      assert.equal((await get(`${instances()}/vm-slow`)).status, 'STAGING');
      await advanceClock(t, 5);
      assert.equal((await call(CORA, 'GET', `${V1}/projects/${P}/zones/${ZONE}/operations/${res.json().name}`)).json().status, 'DONE');
      assert.equal((await get(`${instances()}/vm-slow`)).status, 'RUNNING');
      await call(CORA, 'POST', `${instances()}/vm-slow/stop`);
      assert.equal((await get(`${instances()}/vm-slow`)).status, 'STOPPING');
      await advanceClock(t, 11);
      const ops = (await get(`${V1}/projects/${P}/zones/${ZONE}/operations`)).items;
      assert.ok(ops.every((o: { status: string }) => o.status === 'DONE'));
      assert.equal((await get(`${instances()}/vm-slow`)).status, 'TERMINATED');
    } finally {
      await setOperationsMode(t, 'instant');
    }
  });
  test('an internal address takes its IP when its insert runs: the first free one then, or its operation fails when the one asked for was taken meanwhile', async () => {
    await done(await call(CAROL, 'POST', `${V1}/projects/${P}/regions/us-central1/subnetworks`, { name: 'addr', network: 'global/networks/vpc', ipCidrRange: '10.9.8.0/29' }));
    const addresses = `${V1}/projects/${P}/regions/us-central1/addresses`;
    const subnetwork = 'regions/us-central1/subnetworks/addr';
    await setOperationsMode(t, 'delayed', 10_000);
    try {
      const auto = (await call(CAROL, 'POST', addresses, { name: 'in-auto', addressType: 'INTERNAL', subnetwork })).json();
      const asked = (await call(CAROL, 'POST', addresses, { name: 'in-asked', addressType: 'INTERNAL', subnetwork, address: '10.9.8.3' })).json();
      assert.deepEqual([auto.status, asked.status], ['PENDING', 'PENDING']);
      // Meanwhile instances take .3 (asked) and .2 (the first free one): their IPs are stored with their requests.
      await call(CORA, 'POST', instances(), vm('vm-addr-1', { networkInterfaces: [{ subnetwork, networkIP: '10.9.8.3' }] }));
      await call(CORA, 'POST', instances(), vm('vm-addr-2', { networkInterfaces: [{ subnetwork }] }));
      assert.equal((await get(`${instances()}/vm-addr-2`)).networkInterfaces[0].networkIP, '10.9.8.2');
      await advanceClock(t, 11);
      const operation = async (name: string) => (await call(CAROL, 'GET', `${V1}/projects/${P}/regions/us-central1/operations/${name}`)).json();
      assert.equal((await operation(auto.name)).error, undefined);
      assert.equal((await get(`${addresses}/in-auto`)).address, '10.9.8.4', 'the first address free when the insert ran');
      const failed = await operation(asked.name);
      assert.equal(failed.status, 'DONE');
      assert.equal(failed.error.errors[0].code, 'IP_IN_USE_BY_ANOTHER_RESOURCE');
      assert.match(failed.error.errors[0].message, /IP address '10\.9\.8\.3' is already being used/);
      assert.equal((await call(CAROL, 'GET', `${addresses}/in-asked`)).statusCode, 404);
    } finally {
      await setOperationsMode(t, 'instant');
    }
  });
});
