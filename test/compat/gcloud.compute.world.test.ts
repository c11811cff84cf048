/**
 * Compatibility: the real gcloud reading the world (`networks list`, `networks subnets list`,
 * `images list` with and without `--filter`, `images describe-from-family`, `machine-types list
 * --zones`, `zones list`, `regions list`) against a `cloudtwin serve` process, unchanged. gcloud
 * sends its list calls through POST /batch/compute/v1 and exits 0 even when some of them failed,
 * printing "Some requests did not succeed": that warning fails the test too. Every answer gcloud
 * got (the server's request journal, with bodies) is checked against the discovery document's
 * schemas, and so are the same lists fetched directly.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertComputeConforms, assertJournalConforms } from '../support/computeConformance.ts';
import { type GcloudResult, gcloudAvailable, gcloudServerHooks } from '../support/gcloud.ts';
import { CORA, P, computeWorld } from '../http/compute.helpers.ts';

const ok = (r: GcloudResult) => {
  assert.equal(r.code, 0, `${r.command}\n${r.stderr}`);
  assert.doesNotMatch(r.stderr, /Some requests did not succeed|^ERROR:/m, `${r.command}\n${r.stderr}`);
};

if (gcloudAvailable('gcloud compute (world)')) {
  describe('gcloud compute reads the world against cloudtwin serve', () => {
    const t = gcloudServerHooks({ world: computeWorld, principal: CORA, project: P, args: ['--journal-bodies'] });

    it('networks, subnets, zones, regions, machine types', async () => {
      const [networks, subnets, zones, regions, types] = await Promise.all([
        t.g.run(['compute', 'networks', 'list']),
        t.g.run(['compute', 'networks', 'subnets', 'list']),
        t.g.run(['compute', 'zones', 'list']),
        t.g.run(['compute', 'regions', 'list']),
        t.g.run(['compute', 'machine-types', 'list', '--zones=us-central1-a,europe-west1-b']),
      ]);
      for (const r of [networks, subnets, zones, regions, types]) ok(r);
      assert.deepEqual(networks.json.map((n: any) => n.name).sort(), ['custom-net', 'default', 'legacy-net']);
      // The auto-mode default network has one subnetwork per region; the world declares two more.
      const inDefault = (s: any) => s.network.endsWith('/global/networks/default');
      assert.equal(subnets.json.filter(inDefault).length, 42);
      assert.deepEqual(subnets.json.filter((s: any) => !inDefault(s)).map((s: any) => s.name).sort(), ['sub-a', 'sub-eu']);
      assert.ok(zones.json.some((z: any) => z.name === 'us-central1-f'));
      assert.equal(regions.json.length, 42);
      assert.equal(new Set(regions.json.map((r: any) => r.id)).size, 42, 'distinct region ids');
      const zonesOfTypes = new Set(types.json.map((t: any) => t.zone));
      assert.deepEqual([...zonesOfTypes].sort(), ['europe-west1-b', 'us-central1-a']);
      assert.ok(types.json.some((t: any) => t.name === 'e2-medium' && t.guestCpus === 2));
    });

    it('images list (the project and the 17 public image projects, one batch), --filter=family~debian, describe-from-family', async () => {
      const [all, debian, family] = await Promise.all([
        t.g.run(['compute', 'images', 'list', '--log-http']),
        t.g.run(['compute', 'images', 'list', '--filter=family~debian']),
        t.g.run(['compute', 'images', 'describe-from-family', 'debian-12', '--project=debian-cloud']),
      ]);
      for (const r of [all, debian, family]) ok(r);
      // One request on the wire: the batch of the project's and the 17 public image projects' lists.
      assert.deepEqual(all.stderr.match(/^uri: .*$/gm)?.map((u) => new URL(u.slice(5)).pathname), ['/batch/compute/v1']);
      const names = all.json.map((i: any) => i.name);
      assert.ok(names.includes('debian-12-bookworm-v20250610') && names.includes('my-image-v2'));
      assert.ok(debian.json.length >= 2 && debian.json.every((i: any) => /debian/.test(i.family)), JSON.stringify(debian.json.map((i: any) => i.family)));
      assert.equal(family.json.name, 'debian-12-bookworm-v20250610');
    });

    it('what gcloud read conforms to the discovery document', async () => {
      // The parts of gcloud's batches are journaled as the Compute calls they are.
      assert.ok((await assertJournalConforms(t.server.url, t.server.adminToken)) >= 20);
      const token = (await t.server.admin('POST', '/_twin/v1/tokens', { principal: CORA })).access_token;
      for (const path of [
        `projects/${P}/global/networks`,
        `projects/${P}/aggregated/subnetworks`,
        `projects/${P}/zones`,
        `projects/${P}/regions`,
        `projects/${P}/zones/us-central1-a/machineTypes`,
        `projects/${P}/aggregated/machineTypes?filter=${encodeURIComponent('zone eq us-central1-a')}`,
        `projects/${P}/global/images`,
        'projects/debian-cloud/global/images',
        'projects/debian-cloud/global/images/family/debian-12',
      ]) {
        const url = `/compute/v1/${path}`;
        const res = await fetch(t.server.url + url, { headers: { authorization: `Bearer ${token}` } });
        const body = await res.text();
        assert.equal(res.status, 200, body);
        assertComputeConforms('GET', url, res.status, body);
      }
    });
  });
}
