/**
 * Compatibility: `gcloud compute networks`, `networks subnets` and `firewall-rules` (Cloud SDK on
 * PATH) against a `cloudtwin serve` process: create, describe, list, update and delete as a new
 * user would, and the refusals Compute answers (an overlapping range, a network in use). Every
 * answer the server journaled is checked against the discovery document.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type GcloudResult, gcloudAvailable, gcloudServerHooks } from '../support/gcloud.ts';
import { assertJournalConforms } from '../support/computeConformance.ts';
import { CAROL } from '../support/world.ts';
import { LINK, P, REGION, computeWorld } from '../http/compute.helpers.ts';

const ok = (r: GcloudResult) => assert.equal(r.code, 0, `${r.command}\n${r.stderr}`);
const failed = (r: GcloudResult, message: RegExp) => {
  assert.notEqual(r.code, 0, `${r.command} should fail`);
  assert.match(r.stderr, message, r.command);
};

if (gcloudAvailable('gcloud compute networks')) {
  describe('gcloud compute networks, subnets and firewall-rules against cloudtwin serve', () => {
    const t = gcloudServerHooks({ world: computeWorld, principal: CAROL, project: P, args: ['--journal-bodies'] });
    const R = `--region=${REGION}`;

    it('a custom network, a subnetwork, a firewall rule; the refusals', async () => {
      ok(await t.g.run(['compute', 'networks', 'create', 'gnet', '--subnet-mode=custom', '--bgp-routing-mode=regional']));
      ok(await t.g.run(['compute', 'networks', 'subnets', 'create', 'gsub', '--network=gnet', R, '--range=10.5.0.0/24', '--secondary-range=pods=10.6.0.0/20']));
      failed(await t.g.run(['compute', 'networks', 'subnets', 'create', 'gsub2', '--network=gnet', '--region=europe-west1', '--range=10.5.0.128/25']), /conflicts with existing subnetwork 'gsub' in region 'us-central1'/);
      failed(await t.g.run(['compute', 'networks', 'subnets', 'create', 'gsub3', '--network=gnet', R, '--range=10.7.0.1/24']), /Invalid IPCidrRange/);
      ok(await t.g.run(['compute', 'firewall-rules', 'create', 'gfw', '--network=gnet', '--allow=tcp:22,tcp:8000-8080,icmp', '--source-ranges=0.0.0.0/0', '--target-tags=web', '--priority=900']));
      failed(await t.g.run(['compute', 'firewall-rules', 'create', 'gfw-bad', '--network=gnet', '--allow=tcp:70000']), /ports/);
    });

    it('describe, list and update them', async () => {
      const [net, sub, fw, subs, rules, nets] = await Promise.all([
        t.g.run(['compute', 'networks', 'describe', 'gnet']),
        t.g.run(['compute', 'networks', 'subnets', 'describe', 'gsub', R]),
        t.g.run(['compute', 'firewall-rules', 'describe', 'gfw']),
        t.g.run(['compute', 'networks', 'subnets', 'list', '--network=gnet']),
        t.g.run(['compute', 'firewall-rules', 'list']),
        t.g.run(['compute', 'networks', 'list']),
      ]);
      for (const r of [net, sub, fw, subs, rules, nets]) ok(r);
      assert.equal(net.json.autoCreateSubnetworks, false);
      assert.deepEqual(net.json.subnetworks, [`${LINK}projects/${P}/regions/${REGION}/subnetworks/gsub`]);
      assert.equal(net.json.routingConfig.bgpBestPathSelectionMode, 'LEGACY');
      assert.equal(sub.json.ipCidrRange, '10.5.0.0/24');
      assert.deepEqual(sub.json.secondaryIpRanges, [{ rangeName: 'pods', ipCidrRange: '10.6.0.0/20' }]);
      // As gcloud sends them: one entry per --allow item.
      assert.deepEqual(fw.json.allowed, [{ IPProtocol: 'tcp', ports: ['22'] }, { IPProtocol: 'tcp', ports: ['8000-8080'] }, { IPProtocol: 'icmp' }]);
      assert.deepEqual([fw.json.priority, fw.json.targetTags], [900, ['web']]);
      assert.deepEqual(subs.json.map((s: any) => s.name), ['gsub']);
      assert.ok(rules.json.some((r: any) => r.name === 'gfw'));
      assert.ok(nets.json.some((n: any) => n.name === 'gnet'));

      ok(await t.g.run(['compute', 'networks', 'subnets', 'update', 'gsub', R, '--enable-private-ip-google-access']));
      assert.equal((await t.g.run(['compute', 'networks', 'subnets', 'describe', 'gsub', R])).json.privateIpGoogleAccess, true);
      ok(await t.g.run(['compute', 'firewall-rules', 'update', 'gfw', '--priority=800', '--source-ranges=10.0.0.0/8']));
      assert.equal((await t.g.run(['compute', 'firewall-rules', 'describe', 'gfw'])).json.priority, 800);
      ok(await t.g.run(['compute', 'networks', 'update', 'gnet', '--bgp-routing-mode=global']));
      assert.equal((await t.g.run(['compute', 'networks', 'describe', 'gnet'])).json.routingConfig.routingMode, 'GLOBAL');
    });

    it('a network in use is refused; deleted in order, all goes', async () => {
      failed(await t.g.run(['compute', 'networks', 'delete', 'gnet', '--quiet']), /The network resource 'projects\/demo-project\/global\/networks\/gnet' is already being used by/);
      ok(await t.g.run(['compute', 'firewall-rules', 'delete', 'gfw', '--quiet']));
      ok(await t.g.run(['compute', 'networks', 'subnets', 'delete', 'gsub', R, '--quiet']));
      ok(await t.g.run(['compute', 'networks', 'delete', 'gnet', '--quiet']));
      failed(await t.g.run(['compute', 'networks', 'describe', 'gnet']), /was not found/);
    });

    it('an auto-mode network lists a subnetwork in every region', async () => {
      ok(await t.g.run(['compute', 'networks', 'create', 'gauto', '--subnet-mode=auto']));
      const subs = await t.g.run(['compute', 'networks', 'subnets', 'list', '--network=gauto']);
      ok(subs);
      assert.equal(subs.json.length, 42);
      assert.equal(subs.json.find((s: any) => s.region.endsWith('/us-central1')).ipCidrRange, '10.128.0.0/20');
      ok(await t.g.run(['compute', 'networks', 'delete', 'gauto', '--quiet']));
    });

    it('every Compute answer of this suite conforms to the discovery document (the request journal, with bodies)', async () => {
      assert.ok((await assertJournalConforms(t.server.url, t.server.adminToken)) > 10);
    });
  });
}
