/**
 * Compatibility: `gcloud compute instances`, `disks`, `snapshots`, `addresses` and `operations
 * list --zones` (Cloud SDK on PATH) against a `cloudtwin serve` process, as a new user types them:
 * an instance made, read, stopped, started and deleted; one from a global template; a disk
 * snapshotted; an address reserved; and the refusals Compute answers (a service account without
 * actAs, a machine type the zone does not have, a disk in use). Each command works as against
 * Google: exit 0 and no warning. Every answer the server journaled is checked against the
 * discovery document.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type GcloudResult, gcloudAvailable, gcloudServerHooks } from '../support/gcloud.ts';
import { assertJournalConforms } from '../support/computeConformance.ts';
import { CAROL } from '../support/world.ts';
import { CORA, LINK, P, computeWorld } from '../http/compute.helpers.ts';

/** Succeeded, and printed no warning (gcloud prints `WARNING:` for what it finds odd in an answer). */
const ok = (r: GcloudResult) => {
  assert.equal(r.code, 0, `${r.command}\n${r.stderr}`);
  assert.doesNotMatch(r.stderr, /WARNING|^ERROR:/m, `${r.command}\n${r.stderr}`);
};
const failed = (r: GcloudResult, message: RegExp) => {
  assert.notEqual(r.code, 0, `${r.command} should fail`);
  assert.match(r.stderr, message, r.command);
};

if (gcloudAvailable('gcloud compute instances')) {
  describe('gcloud compute instances, disks, snapshots and addresses against cloudtwin serve', () => {
    const t = gcloudServerHooks({ world: computeWorld, principal: CAROL, project: P, args: ['--journal-bodies'] });
    const ZONE = 'us-central1-a';
    const Z = `--zone=${ZONE}`;
    const IMAGE = ['--image-family=debian-12', '--image-project=debian-cloud'];

    it('instances create, describe, list, stop, start, delete', async () => {
      ok(await t.g.run(['compute', 'instances', 'create', 'gvm', Z, '--machine-type=e2-medium', ...IMAGE, '--labels=env=test']));
      const [vm, list, disk] = await Promise.all([
        t.g.run(['compute', 'instances', 'describe', 'gvm', Z]),
        t.g.run(['compute', 'instances', 'list', '--zones', ZONE]),
        t.g.run(['compute', 'disks', 'describe', 'gvm', Z]),
      ]);
      for (const r of [vm, list, disk]) ok(r);
      assert.equal(vm.json.status, 'RUNNING');
      assert.equal(vm.json.machineType, `${LINK}projects/${P}/zones/${ZONE}/machineTypes/e2-medium`);
      assert.deepEqual(vm.json.labels, { env: 'test' });
      // The default network is auto-mode: the interface is in us-central1's range, 10.128.0.0/20.
      assert.match(vm.json.networkInterfaces[0].networkIP, /^10\.128\.\d+\.\d+$/);
      assert.match(vm.json.networkInterfaces[0].accessConfigs[0].natIP, /^\d+\.\d+\.\d+\.\d+$/);
      assert.match(vm.json.serviceAccounts[0].email, /^\d+-compute@developer\.gserviceaccount\.com$/);
      assert.deepEqual(list.json.map((i: any) => i.name), ['gvm']);
      assert.deepEqual(disk.json.users, [vm.json.selfLink]);

      ok(await t.g.run(['compute', 'instances', 'stop', 'gvm', Z]));
      assert.equal((await t.g.run(['compute', 'instances', 'describe', 'gvm', Z])).json.status, 'TERMINATED');
      ok(await t.g.run(['compute', 'instances', 'start', 'gvm', Z]));
      assert.equal((await t.g.run(['compute', 'instances', 'describe', 'gvm', Z])).json.status, 'RUNNING');

      const ops = await t.g.run(['compute', 'operations', 'list', '--zones', ZONE]);
      ok(ops);
      assert.deepEqual(
        ops.json.filter((o: any) => o.targetLink === vm.json.selfLink).map((o: any) => o.operationType).sort(),
        ['insert', 'start', 'stop'],
      );

      ok(await t.g.run(['compute', 'instances', 'delete', 'gvm', Z, '--quiet']));
      failed(await t.g.run(['compute', 'instances', 'describe', 'gvm', Z]), /was not found/);
      failed(await t.g.run(['compute', 'disks', 'describe', 'gvm', Z]), /was not found/);
    });

    it('instances create --source-instance-template: the template\'s properties, the flags over them', async () => {
      ok(await t.g.run(['compute', 'instance-templates', 'create', 'gtpl', '--machine-type=e2-small', ...IMAGE, '--labels=from=template']));
      ok(await t.g.run(['compute', 'instances', 'create', 'gvm-t', Z, '--source-instance-template=gtpl']));
      const vm = await t.g.run(['compute', 'instances', 'describe', 'gvm-t', Z]);
      ok(vm);
      assert.equal(vm.json.machineType, `${LINK}projects/${P}/zones/${ZONE}/machineTypes/e2-small`);
      assert.deepEqual(vm.json.labels, { from: 'template' });
      assert.equal(vm.json.disks[0].boot, true);
      ok(await t.g.run(['compute', 'instances', 'delete', 'gvm-t', Z, '--quiet']));
      ok(await t.g.run(['compute', 'instance-templates', 'delete', 'gtpl', '--quiet']));
    });

    it('disks create, snapshot, delete; snapshots describe, delete; addresses create, delete', async () => {
      ok(await t.g.run(['compute', 'disks', 'create', 'gdata', Z, '--size=200GB']));
      ok(await t.g.run(['compute', 'disks', 'snapshot', 'gdata', Z, '--snapshot-names=gsnap']));
      const snap = await t.g.run(['compute', 'snapshots', 'describe', 'gsnap']);
      ok(snap);
      assert.equal(snap.json.sourceDisk, `${LINK}projects/${P}/zones/${ZONE}/disks/gdata`);
      assert.deepEqual([snap.json.status, snap.json.diskSizeGb], ['READY', '200']);
      ok(await t.g.run(['compute', 'snapshots', 'delete', 'gsnap', '--quiet']));
      ok(await t.g.run(['compute', 'disks', 'delete', 'gdata', Z, '--quiet']));

      ok(await t.g.run(['compute', 'addresses', 'create', 'gip', '--region=us-central1']));
      const ip = await t.g.run(['compute', 'addresses', 'describe', 'gip', '--region=us-central1']);
      ok(ip);
      assert.deepEqual([ip.json.status, ip.json.addressType], ['RESERVED', 'EXTERNAL']);
      ok(await t.g.run(['compute', 'addresses', 'delete', 'gip', '--region=us-central1', '--quiet']));
    });

    it('the refusals: a service account without actAs, a machine type the zone does not have, a disk in use', async () => {
      failed(await t.g.run(['compute', 'instances', 'create', 'gvm-x', Z, ...IMAGE], { as: CORA }), /does not have access to service account '\d+-compute@developer\.gserviceaccount\.com'/);
      failed(await t.g.run(['compute', 'instances', 'create', 'gvm-x', Z, '--machine-type=n9-mega-7', ...IMAGE]), new RegExp(`Machine type with name 'n9-mega-7' does not exist in zone '${ZONE}'`));
      ok(await t.g.run(['compute', 'instances', 'create', 'gvm-d', Z, ...IMAGE, '--no-boot-disk-auto-delete']));
      failed(await t.g.run(['compute', 'disks', 'delete', 'gvm-d', Z, '--quiet']), /The disk resource 'projects\/demo-project\/zones\/us-central1-a\/disks\/gvm-d' is already being used by/);
      ok(await t.g.run(['compute', 'instances', 'delete', 'gvm-d', Z, '--quiet']));
      ok(await t.g.run(['compute', 'disks', 'delete', 'gvm-d', Z, '--quiet']));
    });

    it('every Compute answer of this suite conforms to the discovery document (the request journal, with bodies)', async () => {
      assert.ok((await assertJournalConforms(t.server.url, t.server.adminToken)) > 20);
    });
  });
}
