/**
 * Compatibility: the real `gcloud compute instance-templates` and `gcloud compute operations`
 * commands (Cloud SDK on PATH) against a `cloudtwin serve` process, with the compute endpoint
 * override and an access-token file from the admin API. Independent commands run in parallel.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type GcloudResult, gcloudAvailable, gcloudServerHooks } from '../support/gcloud.ts';
import { assertJournalConforms } from '../support/computeConformance.ts';
import { DEMO } from '../support/world.ts';
import { CORA, LINK, P, REGION, SOURCE_ZONE, VIC, sourceInstanceWorld } from '../http/compute.helpers.ts';

const ok = (r: GcloudResult) => assert.equal(r.code, 0, `${r.command}\n${r.stderr}`);
const failed = (r: GcloudResult, message: RegExp) => {
  assert.notEqual(r.code, 0, `${r.command} should fail`);
  assert.match(r.stderr, message, r.command);
};

if (gcloudAvailable('gcloud compute')) {
  describe('gcloud compute instance-templates and operations against cloudtwin serve', () => {
    const t = gcloudServerHooks({ world: sourceInstanceWorld, principal: CORA, project: P, args: ['--journal-bodies'] });
    const R = `--region=${REGION}`;

    it('create with every default and with flags; describe; list regional and aggregated', async () => {
      const [plain, full, disk] = await Promise.all([
        t.g.run(['compute', 'instance-templates', 'create', 'gc-default', `--instance-template-region=${REGION}`]),
        t.g.run([
          'compute', 'instance-templates', 'create', 'gc-full', `--instance-template-region=${REGION}`, '--machine-type=e2-small',
          '--network=custom-net', `--subnet=projects/${P}/regions/${REGION}/subnetworks/sub-a`, '--tags=web,db', '--labels=env=prod,team=blue',
          '--metadata=k1=v1,k2=v2', '--preemptible', '--service-account=default', '--scopes=cloud-platform',
        ]),
        t.g.run([
          'compute', 'instance-templates', 'create', 'gc-disk', `--instance-template-region=${REGION}`, '--image-family=debian-12', '--image-project=debian-cloud',
          '--create-disk=image-family=ubuntu-2204-lts,image-project=ubuntu-os-cloud,size=20GB',
        ]),
      ]);
      for (const r of [plain, full, disk]) ok(r);
      const [d, f, regional, aggregated] = await Promise.all([
        t.g.run(['compute', 'instance-templates', 'describe', 'gc-default', R]),
        t.g.run(['compute', 'instance-templates', 'describe', 'gc-full', R]),
        t.g.run(['compute', 'instance-templates', 'list', `--regions=${REGION}`]),
        t.g.run(['compute', 'instance-templates', 'list']),
      ]);
      for (const r of [d, f, regional, aggregated]) ok(r);
      assert.equal(d.json.name, 'gc-default');
      assert.equal(d.json.region, `${LINK}projects/${P}/regions/${REGION}`);
      assert.match(d.json.properties.disks[0].initializeParams.sourceImage, /projects\/debian-cloud\/global\/images\/family\/debian-12$/);
      assert.equal(d.json.properties.networkInterfaces[0].network, `${LINK}projects/${P}/global/networks/default`);
      const p = f.json.properties;
      assert.equal(p.machineType, 'e2-small');
      assert.deepEqual(p.tags.items, ['web', 'db']);
      assert.deepEqual(p.labels, { env: 'prod', team: 'blue' });
      assert.equal(p.scheduling.preemptible, true);
      assert.equal(p.serviceAccounts[0].email, `${DEMO.projectNumber}-compute@developer.gserviceaccount.com`);
      assert.equal(p.networkInterfaces[0].subnetwork, `${LINK}projects/${P}/regions/${REGION}/subnetworks/sub-a`);
      assert.ok(p.metadata.items.some((i: any) => i.key === 'k1' && i.value === 'v1'));
      const names = (r: GcloudResult) => r.json.map((t: any) => t.name).sort();
      assert.deepEqual(names(regional), ['gc-default', 'gc-disk', 'gc-full']);
      assert.deepEqual(names(aggregated), ['gc-default', 'gc-disk', 'gc-full']);
    });

    it('operations list (by region and by filter) and describe', async () => {
      const [byRegion, byFilter] = await Promise.all([
        t.g.run(['compute', 'operations', 'list', `--regions=${REGION}`]),
        t.g.run(['compute', 'operations', 'list', `--filter=region:${REGION}`]),
      ]);
      ok(byRegion);
      ok(byFilter);
      assert.ok(byRegion.json.length >= 3);
      assert.deepEqual(byFilter.json.map((o: any) => o.name).sort(), byRegion.json.map((o: any) => o.name).sort());
      const op = byRegion.json[0];
      const described = await t.g.run(['compute', 'operations', 'describe', op.name, R]);
      ok(described);
      assert.equal(described.json.name, op.name);
      assert.equal(described.json.status, 'DONE');
    });

    it('create waits on a running operation (regionOperations.wait) until it is DONE', async () => {
      await t.server.admin('PUT', '/_twin/v1/operations/config', { mode: 'delayed', delayMs: 1500 });
      try {
        const r = await t.g.run(['compute', 'instance-templates', 'create', 'gc-slow', `--instance-template-region=${REGION}`]);
        ok(r);
        assert.equal(r.json[0].name, 'gc-slow');
      } finally {
        await t.server.admin('PUT', '/_twin/v1/operations/config', { mode: 'instant' });
      }
    });

    it('failures print the server\'s message: a missing network, a bad field, a missing permission, an unknown template', async () => {
      const [net, bad, perm, missing] = await Promise.all([
        t.g.run(['compute', 'instance-templates', 'create', 'gc-nonet', `--instance-template-region=${REGION}`, '--network=nope']),
        t.g.run(['compute', 'instance-templates', 'create', 'gc-bad', `--instance-template-region=${REGION}`, '--metadata=bad key=v']),
        t.g.run(['compute', 'instance-templates', 'create', 'gc-perm', `--instance-template-region=${REGION}`], { as: VIC }),
        t.g.run(['compute', 'instance-templates', 'describe', 'nope', R]),
      ]);
      failed(net, /projects\/demo-project\/global\/networks\/nope' was not found/);
      failed(bad, /metadata/i);
      failed(perm, /compute\.instanceTemplates\.create/);
      failed(missing, /instanceTemplates\/nope' was not found/);
    });

    it('delete', async () => {
      const del = await t.g.run(['compute', 'instance-templates', 'delete', 'gc-disk', R, '--quiet']);
      ok(del);
      failed(await t.g.run(['compute', 'instance-templates', 'describe', 'gc-disk', R]), /was not found/);
    });

    it('global templates, unchanged gcloud without any region flag: create (defaults, flags, from an instance), describe, list with the regional ones, operations, delete', async () => {
      await t.server.admin('PUT', '/_twin/v1/operations/config', { mode: 'delayed', delayMs: 1500 });
      let plain: GcloudResult;
      try {
        // gcloud waits on the running operation through globalOperations.wait
        plain = await t.g.run(['compute', 'instance-templates', 'create', 'gc-global']);
      } finally {
        await t.server.admin('PUT', '/_twin/v1/operations/config', { mode: 'instant' });
      }
      ok(plain);
      const [full, fromVm] = await Promise.all([
        t.g.run(['compute', 'instance-templates', 'create', 'gc-global-full', '--machine-type=e2-small', '--tags=web', '--labels=env=prod', '--metadata=k1=v1', '--image-family=debian-12', '--image-project=debian-cloud']),
        t.g.run([
          'compute', 'instance-templates', 'create', 'gc-global-vm', '--source-instance=web-vm', `--source-instance-zone=${SOURCE_ZONE}`,
          '--configure-disk=device-name=boot,instantiate-from=source-image-family,auto-delete=true',
          '--configure-disk=device-name=data,instantiate-from=custom-image,custom-image=projects/demo-project/global/images/my-image-v2',
          '--configure-disk=device-name=ro,instantiate-from=do-not-include',
        ]),
      ]);
      ok(full);
      ok(fromVm);
      const [d, f, vm, all, ops] = await Promise.all([
        t.g.run(['compute', 'instance-templates', 'describe', 'gc-global']),
        t.g.run(['compute', 'instance-templates', 'describe', 'gc-global-full']),
        t.g.run(['compute', 'instance-templates', 'describe', 'gc-global-vm']),
        t.g.run(['compute', 'instance-templates', 'list']),
        t.g.run(['compute', 'operations', 'list', '--global']),
      ]);
      for (const r of [d, f, vm, all, ops]) ok(r);
      assert.equal(d.json.selfLink, `${LINK}projects/${P}/global/instanceTemplates/gc-global`);
      assert.equal(d.json.region, undefined);
      assert.equal(d.json.properties.networkInterfaces[0].network, `${LINK}projects/${P}/global/networks/default`);
      assert.equal(f.json.properties.machineType, 'e2-small');
      assert.deepEqual(f.json.properties.labels, { env: 'prod' });
      assert.equal(vm.json.sourceInstance, `${LINK}projects/${P}/zones/${SOURCE_ZONE}/instances/web-vm`);
      assert.equal(vm.json.properties.machineType, 'e2-standard-4');
      const disks = vm.json.properties.disks;
      assert.equal(disks.find((x: any) => x.deviceName === 'boot').initializeParams.sourceImage, `${LINK}projects/${P}/global/images/family/my-fam`);
      assert.equal(disks.find((x: any) => x.deviceName === 'data').initializeParams.sourceImage, `${LINK}projects/${P}/global/images/my-image-v2`);
      assert.equal(disks.find((x: any) => x.deviceName === 'ro'), undefined);
      // global and regional together, in one list
      const listed = all.json.map((t: any) => t.name);
      for (const n of ['gc-global', 'gc-global-full', 'gc-global-vm', 'gc-default', 'gc-full']) assert.ok(listed.includes(n), `${n} in ${listed}`);
      const globalOps = ops.json.filter((o: any) => /\/global\/instanceTemplates\/gc-global/.test(o.targetLink));
      assert.equal(globalOps.length, 3);
      const described = await t.g.run(['compute', 'operations', 'describe', globalOps[0].name, '--global']);
      ok(described);
      assert.equal(described.json.operationType, 'compute.instanceTemplates.insert');
      assert.equal(described.json.status, 'DONE');
      const del = await t.g.run(['compute', 'instance-templates', 'delete', 'gc-global', '--quiet']);
      ok(del);
      failed(await t.g.run(['compute', 'instance-templates', 'describe', 'gc-global']), /global\/instanceTemplates\/gc-global' was not found/);
    });

    it('every Compute answer of this suite conforms to the discovery document (the request journal, with bodies)', async () => {
      assert.ok((await assertJournalConforms(t.server.url, t.server.adminToken)) > 0);
    });
  });
}
