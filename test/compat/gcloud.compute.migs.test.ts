/**
 * Compatibility: `gcloud compute instance-groups managed` (Cloud SDK on PATH) against a
 * `cloudtwin serve` process: a template, a managed instance group made from it, described,
 * resized, its instances listed, rolled to a new template, its template changed, deleted
 * (gcloud reads the group's autoscalers first). Every answer the server journaled is checked
 * against the discovery document.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type GcloudResult, gcloudAvailable, gcloudServerHooks } from '../support/gcloud.ts';
import { assertJournalConforms } from '../support/computeConformance.ts';
import { CAROL } from '../support/world.ts';
import { LINK, P, computeWorld } from '../http/compute.helpers.ts';

const ok = (r: GcloudResult) => assert.equal(r.code, 0, `${r.command}\n${r.stderr}`);
const Z = '--zone=us-central1-a';

if (gcloudAvailable('gcloud compute instance-groups managed')) {
  describe('gcloud compute instance-groups managed against cloudtwin serve', () => {
    const t = gcloudServerHooks({ world: computeWorld, principal: CAROL, project: P, args: ['--journal-bodies'] });

    it('create, describe, list, resize, list-instances, rolling-action start-update, set-instance-template, delete', { timeout: 600_000 }, async () => {
      ok(await t.g.run(['compute', 'networks', 'create', 'gmig-net', '--subnet-mode=custom']));
      ok(await t.g.run(['compute', 'networks', 'subnets', 'create', 'gmig-sub', '--network=gmig-net', '--region=us-central1', '--range=10.30.0.0/24']));
      for (const name of ['gtpl-a', 'gtpl-b']) {
        ok(await t.g.run(['compute', 'instance-templates', 'create', name, '--machine-type=e2-small', '--image-family=debian-12', '--image-project=debian-cloud', '--network=gmig-net', '--subnet=gmig-sub', '--region=us-central1']));
      }
      ok(await t.g.run(['compute', 'instance-groups', 'managed', 'create', 'gmig', Z, '--template=gtpl-a', '--size=2', '--base-instance-name=gweb']));
      const described = await t.g.run(['compute', 'instance-groups', 'managed', 'describe', 'gmig', Z]);
      ok(described);
      assert.equal(described.json.targetSize, 2);
      assert.equal(described.json.instanceTemplate, `${LINK}projects/${P}/global/instanceTemplates/gtpl-a`);
      assert.equal(described.json.status.isStable, true);
      const listed = await t.g.run(['compute', 'instance-groups', 'managed', 'list']);
      ok(listed);
      assert.ok(listed.json.some((g: any) => g.name === 'gmig'), listed.stdout);
      ok(await t.g.run(['compute', 'instance-groups', 'managed', 'resize', 'gmig', Z, '--size=3']));
      const instances = await t.g.run(['compute', 'instance-groups', 'managed', 'list-instances', 'gmig', Z]);
      ok(instances);
      assert.equal(instances.json.length, 3);
      for (const i of instances.json) assert.match(i.instance, /\/instances\/gweb-[a-z0-9]{4}$/);
      ok(await t.g.run(['compute', 'instance-groups', 'managed', 'rolling-action', 'start-update', 'gmig', Z, '--version=template=gtpl-b', '--max-surge=1', '--max-unavailable=0']));
      const rolled = await t.g.run(['compute', 'instance-groups', 'managed', 'list-instances', 'gmig', Z]);
      ok(rolled);
      assert.ok(rolled.json.every((i: any) => i.version.instanceTemplate.endsWith('/gtpl-b')), JSON.stringify(rolled.json));
      ok(await t.g.run(['compute', 'instance-groups', 'managed', 'set-instance-template', 'gmig', Z, '--template=gtpl-a']));
      assert.equal((await t.g.run(['compute', 'instance-groups', 'managed', 'describe', 'gmig', Z])).json.instanceTemplate, `${LINK}projects/${P}/global/instanceTemplates/gtpl-a`);
      ok(await t.g.run(['compute', 'instance-groups', 'managed', 'delete', 'gmig', Z, '--quiet']));
      assert.notEqual((await t.g.run(['compute', 'instance-groups', 'managed', 'describe', 'gmig', Z])).code, 0);
      for (const name of ['gtpl-a', 'gtpl-b']) ok(await t.g.run(['compute', 'instance-templates', 'delete', name, '--quiet']));
    });

    it('every Compute answer of this suite conforms to the discovery document (the request journal, with bodies)', async () => {
      assert.ok((await assertJournalConforms(t.server.url, t.server.adminToken)) > 5);
    });
  });
}
