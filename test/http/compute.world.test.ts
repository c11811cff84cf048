import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestTwin, startTestTwin } from '../support/twin.ts';
import { CORA, P, VIC, computeWorld, insertTemplate, templateBody, templatePath } from './compute.helpers.ts';

describe('world: the compute section', () => {
  let t: TestTwin;
  before(async () => {
    t = await startTestTwin({ world: computeWorld });
  });
  after(() => t.close());

  test('an invalid section is rejected whole, naming each bad field, and changes nothing', async () => {
    const res = await t.admin('POST', '/_twin/v1/world:apply', {
      projects: [{ projectId: 'brand-new-project', projectNumber: '300000000099' }],
      compute: {
        networks: [{ name: 'n1', project: 'brand-new-project', autoCreateSubnetworks: false }],
        subnetworks: [
          { name: 's1', project: 'no-such-project', region: 'us-central1', network: 'n1', ipCidrRange: '10.0.0.0/24' },
          { name: 's2', project: 'brand-new-project', region: 'mars-central1', network: 'n1', ipCidrRange: 'not-a-cidr' },
          { name: 's3', project: 'brand-new-project', region: 'us-central1', network: 'missing-net', ipCidrRange: '10.0.0.0/24' },
        ],
        addresses: [{ name: 'a1', project: 'brand-new-project', address: 'nope' }],
        disks: [{ name: 'd1', project: 'brand-new-project' }],
      },
    });
    assert.equal(res.statusCode, 400, res.body);
    const msg = res.json().error.message;
    for (const part of [
      "compute.subnetworks[0].project: project 'no-such-project' does not exist",
      "compute.subnetworks[1].region: unknown region 'mars-central1'",
      'compute.subnetworks[1].ipCidrRange: must be a CIDR range',
      "compute.subnetworks[2].network: network 'missing-net' is not declared",
      'compute.addresses[0].address: must be an IP address',
      'compute.disks[0]: a disk needs exactly one of zone or region',
    ]) {
      assert.ok(msg.includes(part), `${part} in ${msg}`);
    }
    const schema = await t.admin('POST', '/_twin/v1/world:apply', { compute: { networks: [{ name: 'Bad Name', project: P }], widgets: [] } });
    assert.equal(schema.statusCode, 400);
    const snap = (await t.admin('GET', '/_twin/v1/snapshot')).json();
    assert.ok(!snap.tables.projects.some((p: any) => p.project_id === 'brand-new-project'), 'the projects of a rejected document are not written');
  });

  test('apply is an idempotent upsert; unknown output fields are accepted; snapshot and reset include the section', async () => {
    const doc = { compute: { networks: [{ name: 'extra-net', project: P, autoCreateSubnetworks: true, kind: 'compute#network', id: '123', routingConfig: { routingMode: 'REGIONAL' } }] } };
    for (let i = 0; i < 2; i++) assert.equal((await t.admin('POST', '/_twin/v1/world:apply', doc)).statusCode, 200);
    const snap = (await t.admin('GET', '/_twin/v1/snapshot')).json();
    const rows = snap.tables.compute_resources.filter((r: any) => r.kind === 'network' && r.name === 'extra-net');
    assert.equal(rows.length, 1);
    const op = await insertTemplate(t, templateBody('on-extra', { networkInterfaces: [{ network: 'global/networks/extra-net' }] }));
    assert.equal(op.error, undefined, JSON.stringify(op));
    // snapshot round trip keeps templates and world; reset clears them
    assert.equal((await t.admin('PUT', '/_twin/v1/snapshot', (await t.admin('GET', '/_twin/v1/snapshot')).json())).statusCode, 200);
    assert.equal((await t.call(CORA, { method: 'GET', url: templatePath('on-extra') })).statusCode, 200);
    assert.equal((await t.admin('POST', '/_twin/v1/reset')).statusCode, 200);
    const after = (await t.admin('GET', '/_twin/v1/snapshot')).json();
    assert.equal(after.tables.compute_resources.length, 0);
  });

  test('entries are read as proto JSON reads the resource: numbers and int64 strings coerced, anything else refused naming the entry and field, nothing written', async () => {
    assert.equal((await t.admin('POST', '/_twin/v1/world:apply', computeWorld)).statusCode, 200);  // the test before resets (and with it every token: VIC's is minted after)
    const bad = await t.admin('POST', '/_twin/v1/world:apply', {
      projects: [{ projectId: 'never-written-1', projectNumber: '300000000098' }],
      compute: {
        networks: [{ name: 'n-bogus', project: P, bogus: 1 }, { name: 'n-mtu', project: P, mtu: 'big' }],
        images: [
          { name: 'i-status', project: P, status: 'WEIRD' },
          { name: 'i-time', project: P, creationTimestamp: 'last tuesday' },
          { name: 'i-size', project: P, diskSizeGb: 1.5 },
        ],
        disks: [{ name: 'd-size', project: P, zone: 'us-central1-a', sizeGb: '-1x' }],
        instances: [{ name: 'vm-bool', project: P, zone: 'us-central1-a', canIpForward: 'no' }],
        subnetworks: [{ name: 's-nested', project: P, region: 'us-central1', network: 'custom-net', ipCidrRange: '10.9.0.0/24', secondaryIpRanges: [{ rangeName: 'r', ipCidrRange: '10.8.0.0/24', colour: 'red' }] }],
      },
    });
    assert.equal(bad.statusCode, 400, bad.body);
    const msg = bad.json().error.message;
    for (const part of [
      'compute.networks[0].bogus: is not a field of this resource',
      "compute.networks[1].mtu: must be an integer in [-2147483648, 2147483647] (got 'big')",
      "compute.images[0].status: must be one of DELETING, FAILED, PENDING, READY (got 'WEIRD')",
      'compute.images[1].creationTimestamp: must be an RFC 3339 timestamp',
      'compute.images[2].diskSizeGb: must be an integer',
      'compute.disks[0].sizeGb: must be an integer',
      "compute.instances[0].canIpForward: must be true or false, not a string (got 'no')",
      'compute.subnetworks[0].secondaryIpRanges[0].colour: is not a field',
    ]) {
      assert.ok(msg.includes(part), `${part} in ${msg}`);
    }
    const snap = (await t.admin('GET', '/_twin/v1/snapshot')).json();
    assert.ok(!snap.tables.projects.some((p: any) => p.project_id === 'never-written-1'), 'nothing of a refused document is written');
    assert.ok(!snap.tables.compute_resources.some((r: any) => r.name === 'n-bogus' || r.name === 'i-status'));

    const good = await t.admin('POST', '/_twin/v1/world:apply', {
      compute: {
        disks: [{ name: 'd-coerced', project: P, zone: 'us-central1-a', sizeGb: 20 }],
        networks: [{ name: 'n-coerced', project: P, autoCreateSubnetworks: true, mtu: '1460', id: 42 }],
      },
    });
    assert.equal(good.statusCode, 200, good.body);
    const diskRes = await t.call(VIC, { method: 'GET', url: `/compute/v1/projects/${P}/zones/us-central1-a/disks/d-coerced` });
    assert.equal(diskRes.statusCode, 200, diskRes.body);
    const disk = diskRes.json();
    assert.equal(disk.sizeGb, '20');
    const net = (await t.call(VIC, { method: 'GET', url: `/compute/v1/projects/${P}/global/networks/n-coerced` })).json();
    assert.deepEqual([net.mtu, net.id], [1460, '42']);
  });
});

describe('world: snapshots of earlier versions', () => {
  let t: TestTwin;
  before(async () => {
    t = await startTestTwin({ world: computeWorld });
  });
  after(() => t.close());

  test('a snapshot taken before Compute had one resource table restores: world entries, templates and operations as they were', async () => {
    const op = await insertTemplate(t, templateBody('from-old'));
    assert.equal(op.error, undefined, JSON.stringify(op));
    const now = (await t.admin('GET', '/_twin/v1/snapshot')).json();
    const { compute_resources: resources, compute_operations: operations, ...rest } = now.tables;
    // The tables as the earlier version wrote them.
    const old = {
      ...now,
      tables: {
        ...rest,
        compute_world: resources.filter((r: any) => r.kind !== 'instanceTemplate').map(({ id: _i, creation_ms: _c, ...r }: any) => r),
        compute_instance_templates: resources.filter((r: any) => r.kind === 'instanceTemplate').map(({ kind: _k, location, ...r }: any) => ({ ...r, region: location })),
        compute_operations: operations.map(({ location, ...r }: any) => ({ ...r, region: location })),
      },
    };
    assert.equal((await t.admin('POST', '/_twin/v1/reset')).statusCode, 200);
    const restored = await t.admin('PUT', '/_twin/v1/snapshot', old);
    assert.equal(restored.statusCode, 200, restored.body);
    const again = (await t.admin('GET', '/_twin/v1/snapshot')).json();
    assert.deepEqual(
      again.tables.compute_resources.map((r: any) => [r.kind, r.location, r.name, r.id]).sort(),
      resources.map((r: any) => [r.kind, r.location, r.name, r.id]).sort(),
    );
    assert.equal((await t.call(CORA, { method: 'GET', url: templatePath('from-old') })).json().id, op.targetId);
    const opAgain = await t.call(CORA, { method: 'GET', url: new URL(op.selfLink).pathname });
    assert.equal(opAgain.statusCode, 200, opAgain.body);
    assert.equal(opAgain.json().id, op.id);
  });
});
