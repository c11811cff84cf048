import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestTwin, startTestTwin } from '../support/twin.ts';
import { CORA, P, computeWorld, insertTemplate, templateBody, templatePath } from './compute.helpers.ts';

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
    const rows = snap.tables.compute_world.filter((r: any) => r.kind === 'network' && r.name === 'extra-net');
    assert.equal(rows.length, 1);
    const op = await insertTemplate(t, templateBody('on-extra', { networkInterfaces: [{ network: 'global/networks/extra-net' }] }));
    assert.equal(op.error, undefined, JSON.stringify(op));
    // snapshot round trip keeps templates and world; reset clears them
    assert.equal((await t.admin('PUT', '/_twin/v1/snapshot', (await t.admin('GET', '/_twin/v1/snapshot')).json())).statusCode, 200);
    assert.equal((await t.call(CORA, { method: 'GET', url: templatePath('on-extra') })).statusCode, 200);
    assert.equal((await t.admin('POST', '/_twin/v1/reset')).statusCode, 200);
    const after = (await t.admin('GET', '/_twin/v1/snapshot')).json();
    assert.equal(after.tables.compute_world.length, 0);
    assert.equal(after.tables.compute_instance_templates.length, 0);
  });
});
