/** The service side of the InstanceTemplate rules: region-aware checks, the transcoded body stored, front-end errors, world rules. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestTwin, startTestTwin } from '../support/twin.ts';
import { CORA, LINK, P, assertComputeError, computeWorld, insertTemplate, templateBody, templatePath, templatesPath } from './compute.helpers.ts';

/** The stored template without what differs between two inserts of the same body. */
function comparable(tpl: Record<string, any>): Record<string, unknown> {
  const { id: _i, name: _n, creationTimestamp: _c, selfLink: _s, ...rest } = tpl;
  return rest;
}

describe('compute: the service side of the template rules', () => {
  let t: TestTwin;
  before(async () => {
    t = await startTestTwin({ world: computeWorld });
  });
  after(() => t.close());

  test('the request region reaches the rules: replica zones and subnetwork URLs outside it are 400', async () => {
    const zones = await t.call(CORA, {
      method: 'POST',
      url: templatesPath(),
      payload: templateBody('rz-out', {
        disks: [{ boot: true, initializeParams: { sourceImage: 'projects/debian-cloud/global/images/family/debian-12', diskType: 'pd-balanced', replicaZones: ['zones/europe-west1-b', 'zones/europe-west1-c'] } }],
      }),
    });
    const err = assertComputeError(zones, 400, 'invalid');
    assert.match(err.message, /replicaZones.*must be in region 'us-central1'/);
    const subnet = await t.call(CORA, {
      method: 'POST',
      url: templatesPath(),
      payload: templateBody('sub-out', { networkInterfaces: [{ subnetwork: `projects/${P}/regions/europe-west1/subnetworks/sub-eu` }] }),
    });
    assert.match(assertComputeError(subnet, 400, 'invalid').message, /Subnetwork must be in region 'us-central1'/);
    // the same zones in the template's region are fine
    const ok = await insertTemplate(t, templateBody('rz-in', {
      disks: [{ boot: true, initializeParams: { sourceImage: 'projects/debian-cloud/global/images/family/debian-12', diskType: 'pd-balanced', replicaZones: ['zones/us-central1-a', 'zones/us-central1-b'] } }],
    }));
    assert.equal(ok.error, undefined, JSON.stringify(ok));
  });

  test('proto field names (snake_case) store the same template and resolve the same references as JSON names', async () => {
    const camel = templateBody('camel-1', {
      machineType: 'e2-medium',
      canIpForward: true,
      disks: [{ boot: true, autoDelete: true, initializeParams: { sourceImage: `projects/${P}/global/images/family/my-fam`, diskSizeGb: '20' } }],
      networkInterfaces: [{ subnetwork: 'regions/us-central1/subnetworks/sub-a', aliasIpRanges: [{ ipCidrRange: '/24', subnetworkRangeName: 'pods' }] }],
    });
    const snake = {
      name: 'snake-1',
      properties: {
        machine_type: 'e2-medium',
        can_ip_forward: true,
        disks: [{ boot: true, auto_delete: true, initialize_params: { source_image: `projects/${P}/global/images/family/my-fam`, disk_size_gb: 20 } }],
        network_interfaces: [{ subnetwork: 'regions/us-central1/subnetworks/sub-a', alias_ip_ranges: [{ ip_cidr_range: '/24', subnetwork_range_name: 'pods' }] }],
      },
    };
    const a = await insertTemplate(t, camel);
    const b = await insertTemplate(t, snake);
    assert.equal(a.error, undefined, JSON.stringify(a));
    assert.equal(b.error, undefined, JSON.stringify(b));
    const ta = (await t.call(CORA, { method: 'GET', url: templatePath('camel-1') })).json();
    const tb = (await t.call(CORA, { method: 'GET', url: templatePath('snake-1') })).json();
    assert.equal(tb.properties.machineType, 'e2-medium');
    assert.equal(tb.properties.machine_type, undefined);
    assert.equal(tb.properties.disks[0].initializeParams.diskSizeGb, '20');
    assert.equal(tb.properties.networkInterfaces[0].network, `${LINK}projects/${P}/global/networks/custom-net`);
    assert.equal(tb.properties.networkInterfaces[0].subnetwork, `${LINK}projects/${P}/regions/us-central1/subnetworks/sub-a`);
    assert.deepEqual(comparable(tb), comparable(ta));
    // a snake_case reference that does not exist is found missing, as its camelCase twin would be
    const missing = await insertTemplate(t, { name: 'snake-2', properties: { ...snake.properties, network_interfaces: [{ network: 'global/networks/nope' }] } });
    assert.equal(missing.error.errors[0].code, 'RESOURCE_NOT_FOUND');
    assert.equal(missing.error.errors[0].location, 'resource.properties.networkInterfaces[0].network');
  });

  test('JSON-transcoding errors answer status INVALID_ARGUMENT with a BadRequest field violation, errors[] kept', async () => {
    const cases: [unknown, RegExp][] = [
      [{ name: 'tx-1', properties: { machineType: 'e2-medium', bogusField: 1 } }, /Unknown name "bogusField"/],
      [{ name: 'tx-2', properties: { machineType: 7 } }, /Invalid value at/],
      [{ name: 'tx-3', properties: { machineType: 'e2-medium', networkInterfaces: [{ stackType: 'NOPE' }] } }, /NOPE/],
    ];
    for (const [payload, message] of cases) {
      const res = await t.call(CORA, { method: 'POST', url: templatesPath(), payload: payload as Record<string, unknown> });
      assert.equal(res.statusCode, 400, res.body);
      const e = res.json().error;
      assert.equal(e.code, 400);
      assert.equal(e.status, 'INVALID_ARGUMENT');
      assert.match(e.message, message);
      assert.deepEqual(e.errors, [{ message: e.message, domain: 'global', reason: 'invalid' }]);
      assert.equal(e.details.length, 1);
      assert.equal(e.details[0]['@type'], 'type.googleapis.com/google.rpc.BadRequest');
      assert.equal(e.details[0].fieldViolations.length, 1);
      assert.match(e.details[0].fieldViolations[0].field, /^instance_template_resource/);
      assert.equal(e.details[0].fieldViolations[0].description, e.message);
    }
    // a field rule (not transcoding) keeps Compute's own envelope: no status, no details
    const rule = await t.call(CORA, { method: 'POST', url: templatesPath(), payload: templateBody('Bad_Name') });
    const e = assertComputeError(rule, 400, 'invalid');
    assert.equal(e.details, undefined);
  });

  test('a network interface without network or subnetwork stores the resolved default network URL', async () => {
    const op = await insertTemplate(t, templateBody('nic-bare', { networkInterfaces: [{ accessConfigs: [{ type: 'ONE_TO_ONE_NAT' }] }, {}] }));
    assert.equal(op.error, undefined, JSON.stringify(op));
    const tpl = (await t.call(CORA, { method: 'GET', url: templatePath('nic-bare') })).json();
    for (const nic of tpl.properties.networkInterfaces) assert.equal(nic.network, `${LINK}projects/${P}/global/networks/default`);
    const byName = await insertTemplate(t, templateBody('nic-named', { networkInterfaces: [{ network: 'default' }] }));
    assert.equal(byName.error, undefined, JSON.stringify(byName));
    const named = (await t.call(CORA, { method: 'GET', url: templatePath('nic-named') })).json();
    assert.equal(named.properties.networkInterfaces[0].network, `${LINK}projects/${P}/global/networks/default`);
  });

  test('a filter whose regexes run out of work budget is a 400 naming the filter, never a 500', async () => {
    const long = 'a'.repeat(4000);
    for (let i = 0; i < 14; i++) {
      const res = await t.call(CORA, { method: 'POST', url: templatesPath(), payload: { ...templateBody(`desc-${String(i).padStart(2, '0')}`), description: long } });
      assert.equal(res.statusCode, 200, res.body);
    }
    const filter = 'description eq "(.*a){200}b"';
    for (const url of [`${templatesPath()}?filter=${encodeURIComponent(filter)}`, `/compute/v1/projects/${P}/aggregated/instanceTemplates?filter=${encodeURIComponent(filter)}`]) {
      const res = await t.call(CORA, { method: 'GET', url });
      const e = assertComputeError(res, 400, 'invalid');
      assert.match(e.message, /Invalid value for field 'filter'.*too expensive/);
    }
    // a cheap filter over the same templates still answers
    const cheap = await t.call(CORA, { method: 'GET', url: `${templatesPath()}?filter=${encodeURIComponent('name eq "desc-0.*"')}` });
    assert.equal(cheap.statusCode, 200, cheap.body);
    assert.equal(cheap.json().items.length, 10);
  });

  test('maxResults is a uint32: out-of-range values get the TYPE_UINT32 message; in-range but above 500 the range error', async () => {
    for (const v of ['-1', '4294967296', '99999999999']) {
      const res = await t.call(CORA, { method: 'GET', url: `${templatesPath()}?maxResults=${v}` });
      assert.equal(res.statusCode, 400, res.body);
      assert.match(res.json().error.message, /TYPE_UINT32/);
    }
    const big = await t.call(CORA, { method: 'GET', url: `${templatesPath()}?maxResults=4294967295` });
    assertComputeError(big, 400, 'invalidParameter', /Values must be within the range: \[0, 500\]/);
    const agg = await t.call(CORA, { method: 'GET', url: `/compute/v1/projects/${P}/aggregated/instanceTemplates?maxResults=-5` });
    assert.match(agg.json().error.message, /TYPE_UINT32/);
  });

  test('world rules: a disk below its image size, or an image of another architecture than the machine type, ends the operation', async () => {
    const small = await insertTemplate(t, templateBody('disk-small', {
      disks: [{ boot: true, initializeParams: { sourceImage: 'projects/rocky-linux-cloud/global/images/family/rocky-linux-9', diskSizeGb: '10' } }],
    }));
    assert.equal(small.status, 'DONE');
    assert.equal(small.httpErrorStatusCode, 400, JSON.stringify(small));
    assert.equal(small.error.errors[0].code, 'INVALID_FIELD_VALUE');
    assert.equal(small.error.errors[0].location, 'resource.properties.disks[0].initializeParams.diskSizeGb');
    assert.match(small.error.errors[0].message, /Requested disk size cannot be smaller than the image size \(20 GB\)/);
    assertComputeError(await t.call(CORA, { method: 'GET', url: templatePath('disk-small') }), 404, 'notFound');
    const equal = await insertTemplate(t, templateBody('disk-equal', {
      disks: [{ boot: true, initializeParams: { sourceImage: 'projects/rocky-linux-cloud/global/images/family/rocky-linux-9', diskSizeGb: '20' } }],
    }));
    assert.equal(equal.error, undefined, JSON.stringify(equal));
    const arm = await insertTemplate(t, templateBody('arch-bad', { machineType: 't2a-standard-1' }));
    assert.equal(arm.error.errors[0].code, 'INVALID_FIELD_VALUE', JSON.stringify(arm));
    assert.match(arm.error.errors[0].message, /architecture of the image \(X86_64\).*'t2a-standard-1' \(ARM64\)/);
    const armOk = await insertTemplate(t, templateBody('arch-ok', {
      machineType: 't2a-standard-1',
      disks: [{ boot: true, initializeParams: { sourceImage: 'projects/debian-cloud/global/images/family/debian-12-arm64' } }],
    }));
    assert.equal(armOk.error, undefined, JSON.stringify(armOk));
    const x86Arm = await insertTemplate(t, templateBody('arch-bad-2', {
      disks: [{ boot: true, initializeParams: { sourceImage: 'projects/debian-cloud/global/images/family/debian-12-arm64' } }],
    }));
    assert.match(x86Arm.error.errors[0].message, /\(ARM64\).*'e2-medium' \(X86_64\)/);
  });
});
