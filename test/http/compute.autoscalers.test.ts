/**
 * Autoscalers, zonal and regional, written through the API: insert on an existing managed
 * instance group (one autoscaler per group), get, list, aggregatedList, patch, update, delete,
 * with the policy's rules and defaults, IAM, requestId and the operations' delayed mode. gcloud's
 * MIG commands read them: an empty list answers until one is created. Every answer is checked
 * against the discovery document (startTestTwin's conformance recorder).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { INSTANCE_GROUP_MANAGERS } from '../../src/services/compute/instanceGroupManager/kind.ts';
import { inRegion, inZone, type Scope } from '../../src/services/compute/scope.ts';
import { ResourceStore } from '../../src/services/compute/store/resources.ts';
import { type TestTwin, startTestTwin } from '../support/twin.ts';
import { CAROL, DEMO, MALLORY } from '../support/world.ts';
import { CORA, LINK, P, VIC, assertComputeError, assertDone, computeWorld } from './compute.helpers.ts';
import { advanceClock, setOperationsMode } from './helpers.ts';

const V1 = '/compute/v1';
const ZONE = 'us-central1-a';
const zonal = (zone = ZONE, project = P) => `${V1}/projects/${project}/zones/${zone}/autoscalers`;
const regional = (region = 'us-central1', project = P) => `${V1}/projects/${project}/regions/${region}/autoscalers`;
const groupLink = (scope: string, name: string) => `${LINK}projects/${P}/${scope}/instanceGroupManagers/${name}`;

describe('autoscalers', () => {
  let t: TestTwin;
  const call = (who: string, method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', url: string, payload?: unknown) =>
    t.call(who, { method, url, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });
  const done = assertDone;
  /** A managed instance group row (the groups' own methods come later): what an autoscaler targets. */
  const group = (scope: Scope, name: string) =>
    new ResourceStore().insertIfAbsent(t.twin.store.db, { kind: INSTANCE_GROUP_MANAGERS.kind, projectNumber: DEMO.projectNumber, scope, name, id: String(7000 + name.length), creationMs: 0, body: { name } });

  before(async () => {
    t = await startTestTwin({ world: computeWorld });
    await group(inZone(ZONE), 'web');
    await group(inZone(ZONE), 'api');
    await group(inRegion('us-central1'), 'web-r');
  });
  after(() => t.close());

  test('none until one is created: list, aggregatedList, and get 404', async () => {
    const list = await call(VIC, 'GET', zonal());
    assert.equal(list.statusCode, 200, list.body);
    assert.deepEqual(list.json().items, undefined);
    assert.equal(list.json().kind, 'compute#autoscalerList');
    const regionList = (await call(VIC, 'GET', regional())).json();
    assert.equal(regionList.kind, 'compute#regionAutoscalerList');
    const agg = (await call(VIC, 'GET', `${V1}/projects/${P}/aggregated/autoscalers`)).json();
    assert.equal(agg.kind, 'compute#autoscalerAggregatedList');
    assert.equal(agg.items[`zones/${ZONE}`].warning.code, 'NO_RESULTS_ON_PAGE');
    assert.equal(agg.items['regions/us-central1'].warning.code, 'NO_RESULTS_ON_PAGE');
    assertComputeError(await call(VIC, 'GET', `${zonal()}/nope`), 404, 'notFound', `The resource 'projects/${P}/zones/${ZONE}/autoscalers/nope' was not found`);
  });

  test('a zonal autoscaler: insert on its group, get with Compute\'s defaults, list, aggregatedList', async () => {
    const op = await done(await call(CORA, 'POST', zonal(), { name: 'web-as', target: 'web', autoscalingPolicy: { maxNumReplicas: 5 } }));
    assert.equal(op.operationType, 'insert');
    assert.equal(op.targetLink, `${LINK}projects/${P}/zones/${ZONE}/autoscalers/web-as`);
    assert.equal(op.zone, `${LINK}projects/${P}/zones/${ZONE}`);
    const as = (await call(VIC, 'GET', `${zonal()}/web-as`)).json();
    assert.equal(as.kind, 'compute#autoscaler');
    assert.equal(as.id, op.targetId);
    assert.equal(as.target, groupLink(`zones/${ZONE}`, 'web'));
    assert.equal(as.zone, `${LINK}projects/${P}/zones/${ZONE}`);
    assert.equal(as.selfLink, `${LINK}projects/${P}/zones/${ZONE}/autoscalers/web-as`);
    assert.equal(as.status, 'ACTIVE');
    assert.deepEqual(as.autoscalingPolicy, { minNumReplicas: 1, maxNumReplicas: 5, coolDownPeriodSec: 60, mode: 'ON', cpuUtilization: { utilizationTarget: 0.6, predictiveMethod: 'NONE' } });
    assert.deepEqual((await call(VIC, 'GET', `${zonal()}/${as.id}`)).json(), as, 'by id too');
    assert.deepEqual((await call(VIC, 'GET', zonal())).json().items, [as]);
    const agg = (await call(VIC, 'GET', `${V1}/projects/${P}/aggregated/autoscalers`)).json();
    assert.deepEqual(agg.items[`zones/${ZONE}`].autoscalers, [as]);
    assert.deepEqual((await call(VIC, 'GET', `${zonal()}?filter=${encodeURIComponent('name = web-as')}`)).json().items, [as]);
  });

  test('one autoscaler per group; the target must exist in the autoscaler\'s zone', async () => {
    assertComputeError(
      await call(CORA, 'POST', zonal(), { name: 'web-as2', target: groupLink(`zones/${ZONE}`, 'web'), autoscalingPolicy: { maxNumReplicas: 3 } }),
      400,
      'resourceInUseByAnotherResource',
      `The instance group manager resource 'projects/${P}/zones/${ZONE}/instanceGroupManagers/web' is already being used by 'projects/${P}/zones/${ZONE}/autoscalers/web-as'`,
    );
    assertComputeError(await call(CORA, 'POST', zonal(), { name: 'x', target: 'ghost', autoscalingPolicy: { maxNumReplicas: 3 } }), 404, 'notFound', `The resource 'projects/${P}/zones/${ZONE}/instanceGroupManagers/ghost' was not found`);
    assertComputeError(await call(CORA, 'POST', zonal(), { name: 'x', target: `projects/${P}/zones/us-central1-b/instanceGroupManagers/web`, autoscalingPolicy: { maxNumReplicas: 3 } }), 400, 'invalid', /Target must be a managed instance group in zone 'us-central1-a'/);
    assertComputeError(await call(CORA, 'POST', zonal(), { name: 'x', autoscalingPolicy: { maxNumReplicas: 3 } }), 400, 'required', "Required field 'resource.target' not specified");
    assertComputeError(await call(CORA, 'POST', zonal(), { name: 'web-as', target: 'api', autoscalingPolicy: { maxNumReplicas: 3 } }), 409, 'alreadyExists');
  });

  test('the policy\'s rules', async () => {
    const bad = async (autoscalingPolicy: unknown, reason: string, message: RegExp) =>
      assertComputeError(await call(CORA, 'POST', zonal(), { name: 'api-as', target: 'api', autoscalingPolicy }), 400, reason, message);
    await bad({}, 'required', /resource\.autoscalingPolicy\.maxNumReplicas/);
    await bad({ maxNumReplicas: 2, minNumReplicas: 3 }, 'invalid', /must not be lower than the minimum number of replicas \(3\)/);
    await bad({ maxNumReplicas: 2, minNumReplicas: -1 }, 'invalid', /minNumReplicas/);
    await bad({ maxNumReplicas: 2, cpuUtilization: { utilizationTarget: 0 } }, 'invalid', /range \(0, 1\]/);
    await bad({ maxNumReplicas: 2, cpuUtilization: { utilizationTarget: 1.5 } }, 'invalid', /cpuUtilization\.utilizationTarget/);
    await bad({ maxNumReplicas: 2, loadBalancingUtilization: { utilizationTarget: -0.1 } }, 'invalid', /loadBalancingUtilization/);
    await bad({ maxNumReplicas: 2, customMetricUtilizations: [{ utilizationTarget: 5 }] }, 'required', /customMetricUtilizations\[0\]\.metric/);
    await bad({ maxNumReplicas: 2, customMetricUtilizations: [{ metric: 'm', utilizationTarget: 5, singleInstanceAssignment: 2 }] }, 'invalid', /Exactly one of utilizationTarget or singleInstanceAssignment/);
    await bad({ maxNumReplicas: 2, scalingSchedules: { nightly: { schedule: '0 0 * * *', minRequiredReplicas: 1, durationSec: 60 } } }, 'invalid', /at least 300 seconds/);
    // a field of the wrong type is the front end's transcoding error
    const typed = await call(CORA, 'POST', zonal(), { name: 'api-as', target: 'api', autoscalingPolicy: { maxNumReplicas: 'many' } });
    assert.equal(typed.statusCode, 400, typed.body);
    // the signals given replace the CPU default; theirs are filled in
    await done(await call(CORA, 'POST', zonal(), {
      name: 'api-as',
      target: 'api',
      autoscalingPolicy: { maxNumReplicas: 4, minNumReplicas: 0, loadBalancingUtilization: {}, customMetricUtilizations: [{ metric: 'custom.googleapis.com/q', utilizationTarget: 10 }], mode: 'ONLY_SCALE_OUT' },
    }));
    const p = (await call(VIC, 'GET', `${zonal()}/api-as`)).json().autoscalingPolicy;
    assert.equal(p.cpuUtilization, undefined);
    assert.deepEqual(p.loadBalancingUtilization, { utilizationTarget: 0.8 });
    assert.deepEqual(p.customMetricUtilizations, [{ metric: 'custom.googleapis.com/q', utilizationTarget: 10, utilizationTargetType: 'GAUGE' }]);
    assert.equal(p.mode, 'ONLY_SCALE_OUT');
    assert.equal(p.minNumReplicas, 0);
    await done(await call(CORA, 'DELETE', `${zonal()}/api-as`));
  });

  test('patch merges (the policy\'s fields too), update replaces; the autoscaler is named by the query or the body', async () => {
    await done(await call(CORA, 'PATCH', `${zonal()}?autoscaler=web-as`, { autoscalingPolicy: { minNumReplicas: 2 }, description: 'patched' }));
    let as = (await call(VIC, 'GET', `${zonal()}/web-as`)).json();
    assert.equal(as.description, 'patched');
    assert.equal(as.autoscalingPolicy.minNumReplicas, 2);
    assert.equal(as.autoscalingPolicy.maxNumReplicas, 5);
    assertComputeError(await call(CORA, 'PATCH', `${zonal()}?autoscaler=web-as`, { autoscalingPolicy: { maxNumReplicas: 1 } }), 400, 'invalid', /minimum number of replicas \(2\)/);
    const op = await done(await call(CORA, 'PUT', zonal(), { name: 'web-as', target: 'web', autoscalingPolicy: { maxNumReplicas: 8, cpuUtilization: { utilizationTarget: 0.9 } } }));
    assert.equal(op.operationType, 'update');
    as = (await call(VIC, 'GET', `${zonal()}/web-as`)).json();
    assert.equal(as.description, undefined, 'update replaces the whole autoscaler');
    assert.deepEqual(as.autoscalingPolicy, { minNumReplicas: 1, maxNumReplicas: 8, coolDownPeriodSec: 60, mode: 'ON', cpuUtilization: { utilizationTarget: 0.9, predictiveMethod: 'NONE' } });
    assertComputeError(await call(CORA, 'PATCH', `${zonal()}?autoscaler=ghost`, { description: 'x' }), 404, 'notFound', `The resource 'projects/${P}/zones/${ZONE}/autoscalers/ghost' was not found`);
    assertComputeError(await call(CORA, 'PATCH', zonal(), { description: 'x' }), 400, 'required');
  });

  test('a regional autoscaler on a regional group', async () => {
    const op = await done(await call(CORA, 'POST', regional(), { name: 'web-r-as', target: `regions/us-central1/instanceGroupManagers/web-r`, autoscalingPolicy: { maxNumReplicas: 6, minNumReplicas: 3 } }));
    assert.equal(op.region, `${LINK}projects/${P}/regions/us-central1`);
    const as = (await call(VIC, 'GET', `${regional()}/web-r-as`)).json();
    assert.equal(as.region, `${LINK}projects/${P}/regions/us-central1`);
    assert.equal(as.zone, undefined);
    assert.equal(as.target, groupLink('regions/us-central1', 'web-r'));
    const agg = (await call(VIC, 'GET', `${V1}/projects/${P}/aggregated/autoscalers`)).json();
    assert.deepEqual(agg.items['regions/us-central1'].autoscalers, [as]);
    // a zonal group is not a regional autoscaler's target
    assertComputeError(await call(CORA, 'POST', regional(), { name: 'x', target: groupLink(`zones/${ZONE}`, 'api'), autoscalingPolicy: { maxNumReplicas: 2 } }), 400, 'invalid', /region 'us-central1'/);
    await done(await call(CORA, 'DELETE', `${regional()}/web-r-as`));
    assert.equal((await call(VIC, 'GET', regional())).json().items, undefined);
  });

  test('IAM: compute.autoscalers.* (a viewer reads, cannot write; a stranger is refused)', async () => {
    assertComputeError(await call(VIC, 'POST', zonal(), { name: 'v', target: 'api', autoscalingPolicy: { maxNumReplicas: 2 } }), 403, 'forbidden', `Required 'compute.autoscalers.create' permission for 'projects/${P}/zones/${ZONE}/autoscalers/v'`);
    assertComputeError(await call(VIC, 'DELETE', `${zonal()}/web-as`), 403, 'forbidden', /compute\.autoscalers\.delete/);
    assertComputeError(await call(VIC, 'PATCH', `${zonal()}?autoscaler=web-as`, {}), 403, 'forbidden', /compute\.autoscalers\.update/);
    assertComputeError(await call(MALLORY, 'GET', zonal()), 403, 'forbidden', /compute\.autoscalers\.list/);
  });

  test('delayed mode: the autoscaler appears when its operation completes; a repeated requestId answers the first operation', async () => {
    await setOperationsMode(t, 'delayed', 2000);
    try {
      const first = await call(CAROL, 'POST', `${zonal()}?requestId=8d8b7f1e-1c1a-4d55-9f2e-2f3f0c7d1a10`, { name: 'api-as', target: 'api', autoscalingPolicy: { maxNumReplicas: 2 } });
      assert.equal(first.statusCode, 200, first.body);
      assert.notEqual(first.json().status, 'DONE');
      assertComputeError(await call(VIC, 'GET', `${zonal()}/api-as`), 404, 'notFound');
      const again = await call(CAROL, 'POST', `${zonal()}?requestId=8d8b7f1e-1c1a-4d55-9f2e-2f3f0c7d1a10`, { name: 'api-as', target: 'api', autoscalingPolicy: { maxNumReplicas: 2 } });
      assert.equal(again.json().name, first.json().name);
      await advanceClock(t, 3);
      assert.equal((await call(VIC, 'GET', `${zonal()}/api-as`)).statusCode, 200);
    } finally {
      await setOperationsMode(t, 'instant');
    }
    await done(await call(CORA, 'DELETE', `${zonal()}/api-as`));
    await done(await call(CORA, 'DELETE', `${zonal()}/web-as`));
    assert.equal((await call(VIC, 'GET', zonal())).json().items, undefined);
  });
});
