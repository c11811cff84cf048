import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ApiError } from '../../src/platform/http/errors.ts';
import { REGIONS } from '../../src/services/compute/catalogue.ts';
import {
  checkApplyUpdates,
  checkBaseInstanceName,
  checkPerInstanceNames,
  checkTargetSize,
  checkUpdatePolicy,
  checkVersions,
  groupZones,
  instanceName,
  presentedPolicy,
  versionTargets,
} from '../../src/services/compute/instanceGroupManager/rules.ts';
import { inRegion, inZone } from '../../src/services/compute/scope.ts';

const LINK = 'https://www.googleapis.com/compute/v1/';

/** The 400 a rule throws: its reason and message. */
function refused(f: () => unknown): { reason: string; message: string } {
  try {
    f();
  } catch (err) {
    assert.ok(err instanceof ApiError, String(err));
    assert.equal(err.httpCode, 400);
    return { reason: err.errors?.[0]?.reason ?? '', message: err.message };
  }
  assert.fail('not refused');
}

describe('managed instance group rules', () => {
  test('baseInstanceName: Compute pattern, at most 58 characters, -### sequences; by default the group name cut to 58', () => {
    assert.equal(checkBaseInstanceName({ baseInstanceName: 'web' }), 'web');
    assert.equal(checkBaseInstanceName({ baseInstanceName: 'a'.repeat(58) }), 'a'.repeat(58));
    assert.equal(checkBaseInstanceName({ baseInstanceName: 'vm-###' }), 'vm-###');
    assert.equal(checkBaseInstanceName({ baseInstanceName: 'vm-##[10]' }), 'vm-##[10]');
    assert.match(refused(() => checkBaseInstanceName({ baseInstanceName: 'a'.repeat(59) })).message, /resource\.baseInstanceName.*Must be a match of regex/);
    assert.match(refused(() => checkBaseInstanceName({ baseInstanceName: 'Web' })).message, /baseInstanceName/);
    assert.match(refused(() => checkBaseInstanceName({ baseInstanceName: '1web' })).message, /baseInstanceName/);
    assert.match(refused(() => checkBaseInstanceName({})).message, /Required field 'resource.baseInstanceName' not specified/);
    assert.match(refused(() => checkBaseInstanceName({ name: 'web', baseInstanceName: '' })).message, /Required field 'resource.baseInstanceName' not specified/);
    assert.equal(checkBaseInstanceName({ name: 'web' }), 'web');
    assert.equal(checkBaseInstanceName({ name: `w${'-x'.repeat(31)}` }), `w${'-x'.repeat(31)}`.slice(0, 58));
  });

  test('targetSize: required, an integer >= 0', () => {
    assert.equal(checkTargetSize({ targetSize: 0 }), 0);
    assert.equal(checkTargetSize({ targetSize: 3 }), 3);
    assert.match(refused(() => checkTargetSize({})).message, /Required field 'resource.targetSize'/);
    assert.match(refused(() => checkTargetSize({ targetSize: -1 })).message, /resource\.targetSize/);
  });

  test('the template: global or regional in the group\'s region, full URLs back', () => {
    assert.deepEqual(checkVersions({ instanceTemplate: 'global/instanceTemplates/t' }, 'p', undefined), [{ instanceTemplate: `${LINK}projects/p/global/instanceTemplates/t` }]);
    assert.deepEqual(checkVersions({ instanceTemplate: `${LINK}projects/q/regions/us-central1/instanceTemplates/t` }, 'p', 'us-central1'), [
      { instanceTemplate: `${LINK}projects/q/regions/us-central1/instanceTemplates/t` },
    ]);
    assert.deepEqual(checkVersions({ instanceTemplate: 'http://127.0.0.1:8080/compute/v1/projects/p/global/instanceTemplates/t' }, 'p', undefined), [{ instanceTemplate: `${LINK}projects/p/global/instanceTemplates/t` }]);
    assert.match(refused(() => checkVersions({ instanceTemplate: 'regions/europe-west1/instanceTemplates/t' }, 'p', 'us-central1')).message, /must be in region 'us-central1'/);
    assert.match(refused(() => checkVersions({ instanceTemplate: 'regions/us-central1/instanceTemplates/t' }, 'p', undefined)).message, /must be in region/);
    assert.match(refused(() => checkVersions({ instanceTemplate: 'global/networks/n' }, 'p', undefined)).message, /instance template URL/);
    assert.match(refused(() => checkVersions({}, 'p', undefined)).message, /Required field 'resource.instanceTemplate'/);
  });

  test('versions: each template once, exactly one without targetSize when several, fixed or percent', () => {
    const v = checkVersions(
      { versions: [{ name: 'stable', instanceTemplate: 'global/instanceTemplates/a' }, { name: 'canary', instanceTemplate: 'global/instanceTemplates/b', targetSize: { percent: 20 } }] },
      'p',
      undefined,
    );
    assert.equal(v.length, 2);
    assert.deepEqual(v[1].targetSize, { percent: 20 });
    const two = (a: object, b: object) => ({ versions: [{ instanceTemplate: 'global/instanceTemplates/a', ...a }, { instanceTemplate: 'global/instanceTemplates/b', ...b }] });
    assert.match(refused(() => checkVersions(two({}, {}), 'p', undefined)).message, /Exactly one version must leave targetSize unset/);
    assert.match(refused(() => checkVersions(two({ targetSize: { fixed: 1 } }, { targetSize: { fixed: 1 } }), 'p', undefined)).message, /Exactly one version/);
    assert.match(refused(() => checkVersions(two({}, { targetSize: { fixed: 1, percent: 5 } }), 'p', undefined)).message, /Only one of fixed or percent/);
    assert.match(refused(() => checkVersions(two({}, { targetSize: { percent: 101 } }), 'p', undefined)).message, /versions\[1\]\.targetSize\.percent/);
    assert.match(refused(() => checkVersions(two({}, { targetSize: { fixed: -1 } }), 'p', undefined)).message, /versions\[1\]\.targetSize\.fixed/);
    assert.match(
      refused(() => checkVersions({ versions: [{ instanceTemplate: 'global/instanceTemplates/a' }, { instanceTemplate: 'global/instanceTemplates/a', targetSize: { fixed: 1 } }] }, 'p', undefined)).message,
      /at most once/,
    );
    // a single version may carry a targetSize (it is the whole group anyway)
    assert.equal(checkVersions({ versions: [{ instanceTemplate: 'global/instanceTemplates/a', targetSize: { fixed: 2 } }] }, 'p', undefined).length, 1);
  });

  test('each version\'s share: fixed capped at the size, percent rounded, the open version takes the rest', () => {
    const vs = [{ instanceTemplate: 'a' }, { instanceTemplate: 'b', targetSize: { percent: 25 } }];
    assert.deepEqual(versionTargets(vs, 10), [7, 3]);
    assert.deepEqual(versionTargets(vs, 150), [112, 38]);
    assert.deepEqual(versionTargets([{ instanceTemplate: 'a' }, { instanceTemplate: 'b', targetSize: { fixed: 5 } }], 3), [0, 3]);
    assert.deepEqual(versionTargets([{ instanceTemplate: 'a' }], 4), [4]);
  });

  test('updatePolicy defaults: PROACTIVE, REPLACE, SUBSTITUTE, maxSurge and maxUnavailable = the number of zones', () => {
    const zonal = checkUpdatePolicy(undefined, 3, 1, false);
    assert.deepEqual(zonal, { type: 'PROACTIVE', maxSurge: { fixed: 1 }, maxUnavailable: { fixed: 1 }, minimalAction: 'REPLACE', mostDisruptiveAllowedAction: 'REPLACE', replacementMethod: 'SUBSTITUTE' });
    const regional = checkUpdatePolicy({ type: 'OPPORTUNISTIC' }, 3, 3, true);
    assert.deepEqual(regional.maxSurge, { fixed: 3 });
    assert.equal(regional.type, 'OPPORTUNISTIC');
    assert.equal(regional.instanceRedistributionType, 'PROACTIVE');
    assert.deepEqual(checkUpdatePolicy({ replacementMethod: 'RECREATE' }, 3, 1, false).maxSurge, { fixed: 0 });
    assert.deepEqual(presentedPolicy(checkUpdatePolicy({ maxSurge: { percent: 50 } }, 10, 1, false), 10).maxSurge, { percent: 50, calculated: 5 });
  });

  test('updatePolicy constraints', () => {
    assert.match(refused(() => checkUpdatePolicy({ maxSurge: { fixed: 0 }, maxUnavailable: { fixed: 0 } }, 3, 1, false)).message, /At least one of maxSurge or maxUnavailable must be greater than 0/);
    assert.match(refused(() => checkUpdatePolicy({ maxSurge: { percent: 0 }, maxUnavailable: { fixed: 0 } }, 30, 1, false)).message, /At least one/);
    assert.match(refused(() => checkUpdatePolicy({ maxSurge: { percent: 20 } }, 9, 1, false)).message, /group of 10 or more instances/);
    assert.equal(checkUpdatePolicy({ maxSurge: { percent: 20 } }, 10, 1, false).maxSurge.percent, 20);
    // a regional group: fixed values 0 or at least its number of zones
    assert.match(refused(() => checkUpdatePolicy({ maxUnavailable: { fixed: 2 } }, 6, 3, true)).message, /at least the number of zones.*\(3\)/);
    assert.equal(checkUpdatePolicy({ maxSurge: { fixed: 0 }, maxUnavailable: { fixed: 3 } }, 6, 3, true).maxSurge.fixed, 0);
    assert.equal(checkUpdatePolicy({ maxUnavailable: { fixed: 2 } }, 6, 1, false).maxUnavailable.fixed, 2);
    assert.match(refused(() => checkUpdatePolicy({ replacementMethod: 'RECREATE', maxSurge: { fixed: 1 } }, 3, 1, false)).message, /maxSurge must be 0 when replacementMethod is RECREATE/);
    assert.match(refused(() => checkUpdatePolicy({ minimalAction: 'REPLACE', mostDisruptiveAllowedAction: 'RESTART' }, 3, 1, false)).message, /cannot be more disruptive/);
    assert.equal(checkUpdatePolicy({ minimalAction: 'REFRESH', mostDisruptiveAllowedAction: 'RESTART' }, 3, 1, false).minimalAction, 'REFRESH');
    assert.match(refused(() => checkUpdatePolicy({ maxSurge: {} }, 3, 1, false)).message, /Either fixed or percent/);
  });

  test('distribution: a zonal group its zone; a regional one its region\'s zones or those named, in the region, once each', () => {
    assert.deepEqual(groupZones(inZone('us-central1-a'), {}), ['us-central1-a']);
    assert.deepEqual(groupZones(inRegion('us-central1'), {}), [...REGIONS.get('us-central1')!]);
    const [a, b] = REGIONS.get('us-central1')!;
    assert.deepEqual(groupZones(inRegion('us-central1'), { distributionPolicy: { zones: [{ zone: `${LINK}projects/p/zones/${a}` }, { zone: `zones/${b}` }] } }), [a, b]);
    assert.match(refused(() => groupZones(inRegion('us-central1'), { distributionPolicy: { zones: [{ zone: 'zones/europe-west1-b' }] } })).message, /must be in region 'us-central1'/);
    assert.match(refused(() => groupZones(inRegion('us-central1'), { distributionPolicy: { zones: [{ zone: `zones/${a}` }, { zone: `zones/${a}` }] } })).message, /more than once/);
    assert.match(refused(() => groupZones(inRegion('us-central1'), { distributionPolicy: { zones: [{}] } })).message, /Required field 'resource.distributionPolicy.zones\[0\].zone'/);
  });

  test('instance names: BASE-xxxx, or the next free number of a -### base', () => {
    const draws = ['ab12', 'ab12', 'zz99'];
    assert.equal(instanceName('web', new Set(['web-ab12']), () => draws.shift()!), 'web-zz99');
    assert.equal(instanceName('vm-###', new Set(['vm-001', 'vm-002']), () => 'x'), 'vm-003');
    assert.equal(instanceName('vm-##[10]', new Set(['vm-10']), () => 'x'), 'vm-11');
  });
});

describe('createInstances and applyUpdatesToInstances requests', () => {
  test('per-instance names: Compute\'s name pattern, each once, at least one', () => {
    assert.deepEqual(checkPerInstanceNames({ instances: [{ name: 'a' }, { name: 'b-2' }] }), ['a', 'b-2']);
    assert.match(refused(() => checkPerInstanceNames({ instances: [] })).message, /Required field 'instances'/);
    assert.match(refused(() => checkPerInstanceNames({ instances: [{ name: 'a' }, {}] })).message, /'instances\[1\]\.name' not specified/);
    assert.match(refused(() => checkPerInstanceNames({ instances: [{ name: 'a-' }] })).message, /instances\[0\]\.name.*regex/);
    assert.match(refused(() => checkPerInstanceNames({ instances: [{ name: 'x'.repeat(64) }] })).message, /regex/);
    assert.match(refused(() => checkPerInstanceNames({ instances: [{ name: 'a' }, { name: 'a' }] })).message, /more than once/);
  });

  test('apply updates: instances or allInstances, NONE and REPLACE by default, minimal no more disruptive than allowed', () => {
    assert.deepEqual(checkApplyUpdates({ allInstances: true }), { instances: [], allInstances: true, minimalAction: 'NONE', mostDisruptiveAllowedAction: 'REPLACE' });
    assert.deepEqual(checkApplyUpdates({ instances: ['a'], minimalAction: 'RESTART', mostDisruptiveAllowedAction: 'RESTART' }).minimalAction, 'RESTART');
    assert.match(refused(() => checkApplyUpdates({})).message, /Required field 'instances'/);
    assert.match(refused(() => checkApplyUpdates({ allInstances: true, instances: ['a'] })).message, /allInstances/);
    assert.match(refused(() => checkApplyUpdates({ instances: ['a'], minimalAction: 'RESTART', mostDisruptiveAllowedAction: 'REFRESH' })).message, /Minimal action/);
  });
});
