/**
 * Managed instance groups, zonal and regional: insert from a template (its instances made, named
 * BASE-xxxx, spread over a region's zones), get with status and current actions, list,
 * aggregatedList, listManagedInstances, resize, setInstanceTemplate, patch with updatePolicy (a
 * PROACTIVE update replaces the instances at once in instant mode, step by step on the twin's clock
 * in delayed mode, never beyond maxSurge / maxUnavailable), createInstances (named instances),
 * applyUpdatesToInstances, delete (its instances go too; refused while an autoscaler scales it). Every answer is checked against the discovery document.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { REGIONS } from '../../src/services/compute/catalogue.ts';
import { type TestTwin, startTestTwin } from '../support/twin.ts';
import { CAROL, DEMO } from '../support/world.ts';
import { CORA, LINK, P, VIC, assertComputeError, assertDone, computeWorld, templateBody } from './compute.helpers.ts';
import { advanceClock, setOperationsMode } from './helpers.ts';

const V1 = '/compute/v1';
const ZONE = 'us-central1-a';
const groups = (scope = `zones/${ZONE}`) => `${V1}/projects/${P}/${scope}/instanceGroupManagers`;
const tpl = (name: string) => `${LINK}projects/${P}/global/instanceTemplates/${name}`;

describe('managed instance groups', () => {
  let t: TestTwin;
  const call = (who: string, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
    t.call(who, { method, url, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });
  const done = assertDone;
  const get = async (url: string) => {
    const res = await call(VIC, 'GET', url);
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };
  const members = async (scope: string, name: string): Promise<any[]> => {
    const res = await call(VIC, 'POST', `${groups(scope)}/${name}/listManagedInstances`);
    assert.equal(res.statusCode, 200, res.body);
    return res.json().managedInstances ?? [];
  };

  before(async () => {
    t = await startTestTwin({ world: computeWorld });
    await done(await call(CAROL, 'POST', `${V1}/projects/${P}/global/networks`, { name: 'vpc', autoCreateSubnetworks: false }));
    await done(await call(CAROL, 'POST', `${V1}/projects/${P}/regions/us-central1/subnetworks`, { name: 'apps', network: 'global/networks/vpc', ipCidrRange: '10.20.0.0/24' }));
    for (const name of ['tpl-a', 'tpl-b']) {
      await done(await call(CORA, 'POST', `${V1}/projects/${P}/global/instanceTemplates`, templateBody(name, { networkInterfaces: [{ network: 'global/networks/vpc', subnetwork: 'regions/us-central1/subnetworks/apps' }], metadata: { items: [{ key: 'startup-script', value: 'echo hi' }] } })));
    }
  });
  after(() => t.close());

  test('a zonal group: its instances are made from the template, named BASE-xxxx, and listed as managed instances', async () => {
    const op = await done(await call(CORA, 'POST', groups(), { name: 'web', baseInstanceName: 'web', targetSize: 3, instanceTemplate: 'global/instanceTemplates/tpl-a' }));
    assert.equal(op.operationType, 'insert');
    assert.equal(op.targetLink, `${LINK}projects/${P}/zones/${ZONE}/instanceGroupManagers/web`);
    const g = await get(`${groups()}/web`);
    assert.equal(g.kind, 'compute#instanceGroupManager');
    assert.equal(g.targetSize, 3);
    assert.equal(g.instanceTemplate, tpl('tpl-a'));
    assert.deepEqual(g.versions, [{ instanceTemplate: tpl('tpl-a') }]);
    assert.equal(g.zone, `${LINK}projects/${P}/zones/${ZONE}`);
    assert.equal(g.instanceGroup, `${LINK}projects/${P}/zones/${ZONE}/instanceGroups/web`);
    assert.equal(g.status.isStable, true);
    assert.equal(g.status.versionTarget.isReached, true);
    assert.equal(g.currentActions.none, 3);
    assert.deepEqual(g.updatePolicy, {
      type: 'PROACTIVE',
      maxSurge: { fixed: 1, calculated: 1 },
      maxUnavailable: { fixed: 1, calculated: 1 },
      minimalAction: 'REPLACE',
      mostDisruptiveAllowedAction: 'REPLACE',
      replacementMethod: 'SUBSTITUTE',
    });
    const ms = await members(`zones/${ZONE}`, 'web');
    assert.equal(ms.length, 3);
    for (const m of ms) {
      assert.match(m.name, /^web-[a-z0-9]{4}$/);
      assert.equal(m.currentAction, 'NONE');
      assert.equal(m.instanceStatus, 'RUNNING');
      assert.deepEqual(m.version, { instanceTemplate: tpl('tpl-a') });
      const i = await get(`${V1}/projects/${P}/zones/${ZONE}/instances/${m.name}`);
      assert.equal(i.id, m.id);
      assert.equal(i.networkInterfaces[0].subnetwork, `${LINK}projects/${P}/regions/us-central1/subnetworks/apps`);
      // The template's metadata, and what Compute adds to a group's instance: its template and its group, by project number.
      assert.deepEqual(i.metadata.items, [
        { key: 'startup-script', value: 'echo hi' },
        { key: 'instance-template', value: `projects/${DEMO.projectNumber}/global/instanceTemplates/tpl-a` },
        { key: 'created-by', value: `projects/${DEMO.projectNumber}/zones/${ZONE}/instanceGroupManagers/web` },
      ]);
    }
    assert.deepEqual((await get(groups())).items, [g]);
    const agg = await get(`${V1}/projects/${P}/aggregated/instanceGroupManagers`);
    assert.deepEqual(agg.items[`zones/${ZONE}`].instanceGroupManagers, [g]);
    // the instance group it makes, read only
    const ig = await get(`${V1}/projects/${P}/zones/${ZONE}/instanceGroups/web`);
    assert.equal(ig.kind, 'compute#instanceGroup');
    assert.equal(ig.size, 3);
    assert.equal(ig.selfLink, g.instanceGroup);
    assert.deepEqual((await get(`${V1}/projects/${P}/zones/${ZONE}/instanceGroups`)).items, [ig]);
    assert.deepEqual((await get(`${V1}/projects/${P}/aggregated/instanceGroups`)).items[`zones/${ZONE}`].instanceGroups, [ig]);
  });

  test('resize up and down', async () => {
    await done(await call(CORA, 'POST', `${groups()}/web/resize?size=5`));
    assert.equal((await members(`zones/${ZONE}`, 'web')).length, 5);
    await done(await call(CORA, 'POST', `${groups()}/web/resize?size=2`));
    const ms = await members(`zones/${ZONE}`, 'web');
    assert.equal(ms.length, 2);
    assert.equal((await get(`${groups()}/web`)).targetSize, 2);
    assertComputeError(await call(CORA, 'POST', `${groups()}/web/resize?size=-1`), 400, 'invalid', /size/);
  });

  test('deleteInstances, abandonInstances, recreateInstances', async () => {
    await done(await call(CORA, 'POST', `${groups()}/web/resize?size=4`));
    const [a, b, c, d] = await members(`zones/${ZONE}`, 'web');
    const op = await done(await call(CORA, 'POST', `${groups()}/web/deleteInstances`, { instances: [a.instance] }));
    assert.equal(op.operationType, 'deleteInstances');
    assert.equal((await get(`${groups()}/web`)).targetSize, 3);
    assert.equal((await call(VIC, 'GET', a.instance.replace(LINK, `${V1}/`))).statusCode, 404, 'a deleted member\'s instance is gone');
    await done(await call(CORA, 'POST', `${groups()}/web/abandonInstances`, { instances: [b.instance] }));
    assert.equal((await get(`${groups()}/web`)).targetSize, 2);
    assert.equal((await call(VIC, 'GET', b.instance.replace(LINK, `${V1}/`))).statusCode, 200, 'an abandoned instance stays');
    await done(await call(CAROL, 'DELETE', b.instance.replace(LINK, `${V1}/`)));
    await done(await call(CORA, 'POST', `${groups()}/web/recreateInstances`, { instances: [c.instance] }));
    const after = await members(`zones/${ZONE}`, 'web');
    assert.deepEqual(after.map((m) => m.name).sort(), [c.name, d.name].sort());
    assert.notEqual(after.find((m) => m.name === c.name).id, c.id, 'recreated: the same name, a new instance');
    assertComputeError(await call(CORA, 'POST', `${groups()}/web/deleteInstances`, { instances: [b.instance] }), 400, 'invalid', /not a member/);
  });

  test('a template a group uses cannot be deleted', async () => {
    assertComputeError(await call(CORA, 'DELETE', `${V1}/projects/${P}/global/instanceTemplates/tpl-a`), 400, 'resourceInUseByAnotherResource', /instanceGroupManagers\/web/);
  });

  test('setInstanceTemplate with a PROACTIVE policy: in instant mode every instance is replaced at once', async () => {
    const before = (await members(`zones/${ZONE}`, 'web')).map((m) => m.name);
    await done(await call(CORA, 'POST', `${groups()}/web/setInstanceTemplate`, { instanceTemplate: 'global/instanceTemplates/tpl-b' }));
    const g = await get(`${groups()}/web`);
    assert.equal(g.instanceTemplate, tpl('tpl-b'));
    assert.equal(g.status.versionTarget.isReached, true);
    const ms = await members(`zones/${ZONE}`, 'web');
    assert.equal(ms.length, 2);
    for (const m of ms) assert.deepEqual(m.version, { instanceTemplate: tpl('tpl-b') });
    for (const name of before) assert.equal((await call(VIC, 'GET', `${V1}/projects/${P}/zones/${ZONE}/instances/${name}`)).statusCode, 404, 'substituted instances are gone');
  });

  test('an OPPORTUNISTIC policy leaves the instances as they are', async () => {
    await done(await call(CORA, 'PATCH', `${groups()}/web`, { updatePolicy: { type: 'OPPORTUNISTIC' }, versions: [{ instanceTemplate: 'global/instanceTemplates/tpl-a' }] }));
    const g = await get(`${groups()}/web`);
    assert.equal(g.status.isStable, true);
    assert.equal(g.status.versionTarget.isReached, false);
    for (const m of await members(`zones/${ZONE}`, 'web')) assert.deepEqual(m.version, { instanceTemplate: tpl('tpl-b') });
  });

  test('delayed mode: a rolling update reads within maxSurge and maxUnavailable at every step', async () => {
    await done(await call(CORA, 'POST', groups(), { name: 'roll', baseInstanceName: 'roll', targetSize: 4, instanceTemplate: 'global/instanceTemplates/tpl-a', updatePolicy: { maxSurge: { fixed: 1 }, maxUnavailable: { fixed: 0 } } }));
    await setOperationsMode(t, 'delayed', 2000);
    try {
      const op = (await call(CORA, 'PATCH', `${groups()}/roll`, { versions: [{ instanceTemplate: 'global/instanceTemplates/tpl-b' }] })).json();
      assert.notEqual(op.status, 'DONE');
      let steps = 0;
      for (; steps < 40; steps++) {
        await advanceClock(t, 2);
        const g = await get(`${groups()}/roll`);
        const ms = await members(`zones/${ZONE}`, 'roll');
        const available = ms.filter((m) => m.currentAction === 'NONE' && m.instanceStatus === 'RUNNING').length;
        assert.ok(ms.length <= 4 + 1, `${ms.length} instances exceed targetSize 4 + maxSurge 1`);
        assert.ok(4 - available <= 0, `${4 - available} unavailable exceed maxUnavailable 0`);
        const settled = ms.every((m) => m.currentAction === 'NONE');
        assert.equal(g.status.isStable, settled && ms.length === 4 && ms.every((m) => m.version.instanceTemplate === tpl('tpl-b')), JSON.stringify(g.status));
        if (g.status.versionTarget.isReached) {
          assert.ok(ms.every((m) => m.version.instanceTemplate === tpl('tpl-b')));
          break;
        }
      }
      assert.ok(steps > 2, 'the update took several steps');
      assert.ok(steps < 40, 'the update converged');
    } finally {
      await setOperationsMode(t, 'instant');
    }
  });

  test('a regional group spreads its instances over the region\'s zones', async () => {
    const region = 'regions/us-central1';
    await done(await call(CORA, 'POST', groups(region), { name: 'web-r', baseInstanceName: 'web-r', targetSize: 3, instanceTemplate: 'global/instanceTemplates/tpl-a' }));
    const g = await get(`${groups(region)}/web-r`);
    assert.equal(g.region, `${LINK}projects/${P}/regions/us-central1`);
    assert.equal(g.distributionPolicy.zones.length, REGIONS.get('us-central1')!.length);
    assert.equal(g.updatePolicy.maxSurge.fixed, REGIONS.get('us-central1')!.length);
    const ms = await members(region, 'web-r');
    const zones = new Set(ms.map((m) => m.instance.split('/')[8]));
    assert.equal(zones.size, 3);
    const created = (await get(ms[0].instance.replace(LINK, `${V1}/`))).metadata.items.find((x: any) => x.key === 'created-by');
    assert.equal(created.value, `projects/${DEMO.projectNumber}/regions/us-central1/instanceGroupManagers/web-r`);
    assert.equal((await get(groups(region))).kind, 'compute#regionInstanceGroupManagerList');
    assertComputeError(await call(CORA, 'POST', groups(region), { name: 'x', baseInstanceName: 'x', targetSize: 3, instanceTemplate: 'global/instanceTemplates/tpl-a', updatePolicy: { maxSurge: { fixed: 1 } } }), 400, 'invalid', /at least the number of zones/);
    await done(await call(CORA, 'DELETE', `${groups(region)}/web-r`));
  });

  test('the group\'s rules: baseInstanceName, targetSize, an existing template', async () => {
    assertComputeError(await call(CORA, 'POST', groups(), { name: 'bad', baseInstanceName: 'Bad', targetSize: 1, instanceTemplate: 'global/instanceTemplates/tpl-a' }), 400, 'invalid', /baseInstanceName/);
    assertComputeError(await call(CORA, 'POST', groups(), { name: 'bad', baseInstanceName: 'bad', instanceTemplate: 'global/instanceTemplates/tpl-a' }), 400, 'required', /targetSize/);
    assertComputeError(await call(CORA, 'POST', groups(), { name: 'bad', baseInstanceName: 'bad', targetSize: 1, instanceTemplate: 'global/instanceTemplates/ghost' }), 404, 'notFound', /instanceTemplates\/ghost/);
    assertComputeError(await call(VIC, 'POST', groups(), { name: 'bad', baseInstanceName: 'bad', targetSize: 1, instanceTemplate: 'global/instanceTemplates/tpl-a' }), 403, 'forbidden', /compute\.instanceGroupManagers\.create/);
  });

  test('createInstances: instances of the names asked for, from the group\'s version; the target size grows by their number', async () => {
    await done(await call(CORA, 'POST', groups(), { name: 'named', baseInstanceName: 'named', targetSize: 1, versions: [{ instanceTemplate: 'global/instanceTemplates/tpl-a' }, { instanceTemplate: 'global/instanceTemplates/tpl-b', targetSize: { fixed: 2 } }] }));
    const op = await done(await call(CORA, 'POST', `${groups()}/named/createInstances`, { instances: [{ name: 'db-1' }, { name: 'db-2' }] }));
    assert.equal(op.operationType, 'createInstances');
    assert.equal(op.targetLink, `${LINK}projects/${P}/zones/${ZONE}/instanceGroupManagers/named`);
    const g = await get(`${groups()}/named`);
    assert.equal(g.targetSize, 3);
    assert.equal(g.status.versionTarget.isReached, true, 'the named instances took the versions short of instances');
    const ms = await members(`zones/${ZONE}`, 'named');
    assert.equal(ms.length, 3);
    // size 1 was tpl-b's (fixed 2, capped at the size); at size 3 tpl-a wants one and tpl-b one more
    for (const [name, template] of [['db-1', 'tpl-a'], ['db-2', 'tpl-b']]) {
      const m = ms.find((x) => x.name === name);
      assert.ok(m, `${name} is a member`);
      assert.equal(m.currentAction, 'NONE');
      assert.equal(m.instanceStatus, 'RUNNING');
      assert.deepEqual(m.version, { instanceTemplate: tpl(template) });
      const i = await get(`${V1}/projects/${P}/zones/${ZONE}/instances/${name}`);
      assert.equal(i.id, m.id);
      assert.deepEqual(i.metadata.items.slice(1), [
        { key: 'instance-template', value: `projects/${DEMO.projectNumber}/global/instanceTemplates/${template}` },
        { key: 'created-by', value: `projects/${DEMO.projectNumber}/zones/${ZONE}/instanceGroupManagers/named` },
      ]);
    }
    // refused: a member's name, an instance of the zone, a name out of Compute's pattern, a name twice, none at all
    assertComputeError(await call(CORA, 'POST', `${groups()}/named/createInstances`, { instances: [{ name: 'db-1' }] }), 400, 'invalid', /instances\[0\]\.name.*already a member/);
    const other = (await members(`zones/${ZONE}`, 'web'))[0].name;
    assertComputeError(await call(CORA, 'POST', `${groups()}/named/createInstances`, { instances: [{ name: other }] }), 409, 'alreadyExists', `The resource 'projects/${P}/zones/${ZONE}/instances/${other}' already exists`);
    assertComputeError(await call(CORA, 'POST', `${groups()}/named/createInstances`, { instances: [{ name: 'Db_3' }] }), 400, 'invalid', /instances\[0\]\.name.*Must be a match of regex/);
    assertComputeError(await call(CORA, 'POST', `${groups()}/named/createInstances`, { instances: [{ name: 'db-3' }, { name: 'db-3' }] }), 400, 'invalid', /instances\[1\]\.name.*more than once/);
    assertComputeError(await call(CORA, 'POST', `${groups()}/named/createInstances`, { instances: [] }), 400, 'required', /instances/);
    assertComputeError(await call(CORA, 'POST', `${groups()}/named/createInstances`, { instances: [{}] }), 400, 'required', /instances\[0\]\.name/);
    assert.equal((await call(CORA, 'POST', `${groups()}/named/createInstances`, { instances: [{ name: 'db-3', size: 1 }] })).statusCode, 400, 'a field PerInstanceConfig does not have');
    assertComputeError(await call(VIC, 'POST', `${groups()}/named/createInstances`, { instances: [{ name: 'db-3' }] }), 403, 'forbidden', /compute\.instanceGroupManagers\.update/);
    assertComputeError(await call(CORA, 'POST', `${groups()}/ghost/createInstances`, { instances: [{ name: 'db-3' }] }), 404, 'notFound', /instanceGroupManagers\/ghost/);
    assert.equal((await get(`${groups()}/named`)).targetSize, 3, 'a refused request changes nothing');
  });

  test('createInstances in delayed mode: the named instances are CREATING until their step\'s delay has passed', async () => {
    await setOperationsMode(t, 'delayed', 2000);
    try {
      const op = (await call(CORA, 'POST', `${groups()}/named/createInstances`, { instances: [{ name: 'db-4' }] })).json();
      assert.notEqual(op.status, 'DONE');
      await advanceClock(t, 2);
      let m = (await members(`zones/${ZONE}`, 'named')).find((x) => x.name === 'db-4');
      assert.equal(m.currentAction, 'CREATING');
      assert.equal((await get(`${groups()}/named`)).status.isStable, false);
      await advanceClock(t, 2);
      m = (await members(`zones/${ZONE}`, 'named')).find((x) => x.name === 'db-4');
      assert.equal(m.currentAction, 'NONE');
      assert.equal(m.instanceStatus, 'RUNNING');
      const g = await get(`${groups()}/named`);
      assert.equal(g.targetSize, 4);
      assert.equal(g.status.isStable, true);
    } finally {
      await setOperationsMode(t, 'instant');
    }
  });

  test('createInstances in a regional group: each named instance in the zone with the fewest members; a name taken in any of its zones is refused; applyUpdatesToInstances of it', async () => {
    const region = 'regions/us-central1';
    await done(await call(CORA, 'POST', groups(region), { name: 'named-r', baseInstanceName: 'named-r', targetSize: 2, instanceTemplate: 'global/instanceTemplates/tpl-a' }));
    await done(await call(CORA, 'POST', `${groups(region)}/named-r/createInstances`, { instances: [{ name: 'r-1' }] }));
    const ms = await members(region, 'named-r');
    assert.equal(ms.length, 3);
    assert.equal(new Set(ms.map((m) => m.instance.split('/')[8])).size, 3, 'one instance in each of the three zones');
    assert.equal((await get(`${groups(region)}/named-r`)).targetSize, 3);
    assertComputeError(await call(CORA, 'POST', `${groups(region)}/named-r/createInstances`, { instances: [{ name: 'db-1' }] }), 409, 'alreadyExists', /zones\/us-central1-a\/instances\/db-1/);
    // applyUpdatesToInstances reads the regional request too: REPLACE recreates every member under its name
    assert.equal((await done(await call(CORA, 'POST', `${groups(region)}/named-r/applyUpdatesToInstances`, { allInstances: true, minimalAction: 'REPLACE' }))).operationType, 'applyUpdatesToInstances');
    const replaced = await members(region, 'named-r');
    assert.deepEqual(replaced.map((m) => m.name).sort(), ms.map((m) => m.name).sort());
    for (const m of replaced) assert.notEqual(m.id, ms.find((x) => x.name === m.name).id);
    await done(await call(CORA, 'DELETE', `${groups(region)}/named-r`));
  });

  test('applyUpdatesToInstances: the members asked for (or all) brought to their version now, within mostDisruptiveAllowedAction', async () => {
    await done(await call(CORA, 'POST', groups(), { name: 'upd', baseInstanceName: 'upd', targetSize: 3, instanceTemplate: 'global/instanceTemplates/tpl-a', updatePolicy: { type: 'OPPORTUNISTIC' } }));
    await done(await call(CORA, 'POST', `${groups()}/upd/setInstanceTemplate`, { instanceTemplate: 'global/instanceTemplates/tpl-b' }));
    const [a, b, c] = await members(`zones/${ZONE}`, 'upd');
    for (const m of [a, b, c]) assert.deepEqual(m.version, { instanceTemplate: tpl('tpl-a') }, 'OPPORTUNISTIC: nothing replaced yet');
    const apply = (body: Record<string, unknown>) => call(CORA, 'POST', `${groups()}/upd/applyUpdatesToInstances`, body);
    // a template change needs REPLACE: refused when less is allowed
    assertComputeError(await apply({ instances: [a.instance], mostDisruptiveAllowedAction: 'RESTART' }), 400, 'invalid', new RegExp(`instance '${a.name}'.*requires REPLACE`));
    assertComputeError(await apply({ instances: [a.instance], minimalAction: 'REPLACE', mostDisruptiveAllowedAction: 'RESTART' }), 400, 'invalid', /Minimal action cannot be more disruptive/);
    assertComputeError(await apply({ allInstances: true, instances: [a.instance] }), 400, 'invalid', /allInstances/);
    assertComputeError(await apply({}), 400, 'required', /instances/);
    assertComputeError(await apply({ instances: [`zones/${ZONE}/instances/ghost`] }), 400, 'invalid', /not a member/);
    assert.equal((await apply({ instances: [a.instance], minimalAction: 'SOMETIMES' })).statusCode, 400, 'an action the enum does not have');
    assertComputeError(await call(VIC, 'POST', `${groups()}/upd/applyUpdatesToInstances`, { allInstances: true }), 403, 'forbidden', /compute\.instanceGroupManagers\.update/);
    // one member, by its partial URL: replaced in place from tpl-b (same name, a new instance)
    const op = await done(await apply({ instances: [`zones/${ZONE}/instances/${a.name}`] }));
    assert.equal(op.operationType, 'applyUpdatesToInstances');
    let ms = await members(`zones/${ZONE}`, 'upd');
    const a2 = ms.find((m) => m.name === a.name);
    assert.deepEqual(a2.version, { instanceTemplate: tpl('tpl-b') });
    assert.notEqual(a2.id, a.id);
    assert.deepEqual(ms.find((m) => m.name === b.name).version, { instanceTemplate: tpl('tpl-a') }, 'a member not asked for is left as it is');
    // all members: the rest move to tpl-b; the group reaches its version target
    await done(await apply({ allInstances: true }));
    ms = await members(`zones/${ZONE}`, 'upd');
    assert.deepEqual(ms.map((m) => m.version.instanceTemplate), [tpl('tpl-b'), tpl('tpl-b'), tpl('tpl-b')]);
    assert.equal(ms.find((m) => m.name === a.name).id, a2.id, 'an up-to-date member with minimalAction NONE is left running');
    assert.equal((await get(`${groups()}/upd`)).status.versionTarget.isReached, true);
    // up to date: RESTART restarts (same instance), REPLACE recreates
    await setOperationsMode(t, 'delayed', 2000);
    try {
      const before = await members(`zones/${ZONE}`, 'upd');
      (await apply({ allInstances: true, minimalAction: 'RESTART' })).json();
      await advanceClock(t, 2);
      const restarting = await members(`zones/${ZONE}`, 'upd');
      assert.deepEqual(restarting.map((m) => m.currentAction), ['RESTARTING', 'RESTARTING', 'RESTARTING']);
      assert.equal((await get(`${groups()}/upd`)).currentActions.restarting, 3);
      await advanceClock(t, 2);
      const after = await members(`zones/${ZONE}`, 'upd');
      assert.deepEqual(after.map((m) => [m.currentAction, m.instanceStatus, m.id]), before.map((m) => ['NONE', 'RUNNING', m.id]));
    } finally {
      await setOperationsMode(t, 'instant');
    }
    await done(await apply({ instances: [b.instance], minimalAction: 'REPLACE' }));
    assert.notEqual((await members(`zones/${ZONE}`, 'upd')).find((m) => m.name === b.name).id, ms.find((m) => m.name === b.name).id);
    await done(await call(CORA, 'DELETE', `${groups()}/upd`));
  });

  test('delete: refused while an autoscaler scales the group; then its instances go with it', async () => {
    await done(await call(CORA, 'POST', `${V1}/projects/${P}/zones/${ZONE}/autoscalers`, { name: 'web-as', target: 'web', autoscalingPolicy: { maxNumReplicas: 4 } }));
    assertComputeError(await call(CORA, 'DELETE', `${groups()}/web`), 400, 'resourceInUseByAnotherResource', /autoscalers\/web-as/);
    await done(await call(CORA, 'DELETE', `${V1}/projects/${P}/zones/${ZONE}/autoscalers/web-as`));
    const ms = await members(`zones/${ZONE}`, 'web');
    await done(await call(CORA, 'DELETE', `${groups()}/web`));
    assert.equal((await call(VIC, 'GET', `${groups()}/web`)).statusCode, 404);
    for (const m of ms) assert.equal((await call(VIC, 'GET', `${V1}/projects/${P}/zones/${ZONE}/instances/${m.name}`)).statusCode, 404);
  });
});
