/** Templates made from an instance: the properties built from the world's instance, for each instantiateFrom, regional and global alike. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestTwin, startTestTwin } from '../support/twin.ts';
import { DEMO } from '../support/world.ts';
import { CORA, LINK, NINA, P, SOURCE_ZONE as ZONE, TEMPLATE_SCOPES, assertComputeError, insertTemplate, sourceInstanceWorld } from './compute.helpers.ts';

const zonal = (what: string) => `${LINK}projects/${P}/zones/${ZONE}/${what}`;


for (const s of TEMPLATE_SCOPES) describe(`templates from instances (${s.label})`, () => {
  let t: TestTwin;
  before(async () => {
    t = await startTestTwin({ world: sourceInstanceWorld });
  });
  after(() => t.close());

  const fromInstance = async (name: string, diskConfigs?: Record<string, unknown>[], source = `zones/${ZONE}/instances/web-vm`) => {
    const op = await insertTemplate(t, { name, sourceInstance: source, ...(diskConfigs ? { sourceInstanceParams: { diskConfigs } } : {}) }, { scope: s });
    return { op, template: op.error ? undefined : (await t.call(CORA, { method: 'GET', url: s.templatePath(name) })).json() };
  };
  const diskOf = (tpl: Record<string, any>, device: string) => tpl.properties.disks.find((d: any) => d.deviceName === device || (device === 'local-ssd-0' && d.type === 'SCRATCH'));

  test('defaults: the instance copied, boot from its image, a data disk without one blank, read-only disks attached, local SSDs blank', async () => {
    const { op, template } = await fromInstance('from-vm');
    assert.equal(op.error, undefined, JSON.stringify(op));
    const tpl = template!;
    assert.equal(tpl.sourceInstance, zonal('instances/web-vm'));
    assert.equal(tpl.sourceInstanceParams, undefined);
    const p = tpl.properties;
    assert.equal(p.machineType, 'e2-standard-4');
    assert.equal(p.description, 'the web server');
    assert.deepEqual(p.labels, { app: 'web' });
    assert.deepEqual(p.tags.items, ['http-server']);
    assert.notEqual(p.tags.fingerprint, 'tag=');
    assert.deepEqual(p.metadata.items, [{ key: 'startup-script', value: 'echo hi' }]);
    assert.equal(p.scheduling.onHostMaintenance, 'MIGRATE');
    assert.deepEqual(p.serviceAccounts, [{ email: `${DEMO.projectNumber}-compute@developer.gserviceaccount.com`, scopes: ['https://www.googleapis.com/auth/cloud-platform'] }]);
    assert.deepEqual(p.shieldedInstanceConfig, { enableSecureBoot: true, enableVtpm: true, enableIntegrityMonitoring: true });
    const nic = p.networkInterfaces[0];
    assert.equal(nic.network, `${LINK}projects/${P}/global/networks/default`);
    assert.equal(nic.networkIP, undefined);
    assert.equal(nic.fingerprint, undefined);
    assert.deepEqual(nic.accessConfigs.map((a: any) => [a.type, a.name, a.natIP, a.networkTier]), [['ONE_TO_ONE_NAT', 'External NAT', undefined, 'PREMIUM']]);
    const boot = diskOf(tpl, 'boot');
    assert.deepEqual([boot.boot, boot.autoDelete, boot.mode, boot.type], [true, true, 'READ_WRITE', 'PERSISTENT']);
    assert.deepEqual(boot.initializeParams, { sourceImage: `${LINK}projects/${P}/global/images/my-image-v1`, diskSizeGb: '20', diskType: 'pd-balanced' });
    assert.equal(boot.source, undefined);
    const data = diskOf(tpl, 'data');
    assert.deepEqual(data.initializeParams, { diskSizeGb: '100', diskType: 'pd-ssd' });
    const ro = diskOf(tpl, 'ro');
    assert.deepEqual([ro.mode, ro.source, ro.initializeParams], ['READ_ONLY', 'shared-ro', undefined]);
    const ssd = diskOf(tpl, 'local-ssd-0');
    assert.deepEqual([ssd.type, ssd.interface, ssd.initializeParams.diskType, ssd.initializeParams.diskSizeGb], ['SCRATCH', 'NVME', 'local-ssd', '375']);
    assert.equal(tpl.properties.disks.length, 4);
  });

  test('each instantiateFrom value (gcloud spelling and the API enum), autoDelete overridden', async () => {
    const { op, template } = await fromInstance('from-vm-each', [
      { deviceName: 'boot', instantiateFrom: 'source-image-family', autoDelete: false },
      { deviceName: 'data', instantiateFrom: 'CUSTOM_IMAGE', customImage: 'global/images/my-image-v2' },
      { deviceName: 'ro', instantiateFrom: 'do-not-include' },
      { deviceName: 'local-ssd-0', instantiateFrom: 'BLANK' },
    ]);
    assert.equal(op.error, undefined, JSON.stringify(op));
    const tpl = template!;
    assert.deepEqual(tpl.sourceInstanceParams.diskConfigs.map((c: any) => c.instantiateFrom), ['SOURCE_IMAGE_FAMILY', 'CUSTOM_IMAGE', 'DO_NOT_INCLUDE', 'BLANK']);
    const boot = diskOf(tpl, 'boot');
    assert.equal(boot.initializeParams.sourceImage, `${LINK}projects/${P}/global/images/family/my-fam`);
    assert.equal(boot.autoDelete, false);
    assert.equal(diskOf(tpl, 'data').initializeParams.sourceImage, `${LINK}projects/${P}/global/images/my-image-v2`);
    assert.equal(diskOf(tpl, 'ro'), undefined);
    assert.equal(tpl.properties.disks.length, 3);

    const more = await fromInstance('from-vm-more', [
      { deviceName: 'boot', instantiateFrom: 'SOURCE_IMAGE' },
      { deviceName: 'data', instantiateFrom: 'attach-read-only' },
      { deviceName: 'ro', instantiateFrom: 'default' },
    ]);
    assert.equal(more.op.error, undefined, JSON.stringify(more.op));
    assert.equal(diskOf(more.template!, 'boot').initializeParams.sourceImage, `${LINK}projects/${P}/global/images/my-image-v1`);
    assert.deepEqual([diskOf(more.template!, 'data').mode, diskOf(more.template!, 'data').source], ['READ_ONLY', 'web-data']);
    assert.equal(diskOf(more.template!, 'ro').mode, 'READ_ONLY');
    const blankData = await fromInstance('from-vm-blank', [{ deviceName: 'data', instantiateFrom: 'blank' }]);
    assert.deepEqual(diskOf(blankData.template!, 'data').initializeParams, { diskSizeGb: '100', diskType: 'pd-ssd' });
  });

  test('what cannot be built ends the operation with INVALID_FIELD_VALUE naming the disk config', async () => {
    const cases: [Record<string, unknown>[], string, RegExp][] = [
      [[{ deviceName: 'boot', instantiateFrom: 'do-not-include' }], 'resource.sourceInstanceParams.diskConfigs[0].instantiateFrom', /boot disk 'boot' cannot be left out/],
      [[{ deviceName: 'data', instantiateFrom: 'source-image' }], 'resource.sourceInstanceParams.diskConfigs[0].instantiateFrom', /has no source image/],
      [[{ deviceName: 'ro', instantiateFrom: 'source-image-family' }], 'resource.sourceInstanceParams.diskConfigs[0].instantiateFrom', /belongs to no image family/],
      [[{ deviceName: 'local-ssd-0', instantiateFrom: 'source-image' }], 'resource.sourceInstanceParams.diskConfigs[0].instantiateFrom', /can only be created blank/],
      [[{ deviceName: 'nope', instantiateFrom: 'blank' }], 'resource.sourceInstanceParams.diskConfigs[0].deviceName', /no disk with device name 'nope'/],
    ];
    for (const [i, [configs, location, message]] of cases.entries()) {
      const { op } = await fromInstance(`bad-from-${i}`, configs);
      assert.equal(op.httpErrorStatusCode, 400, JSON.stringify(op));
      assert.equal(op.error.errors[0].code, 'INVALID_FIELD_VALUE');
      assert.equal(op.error.errors[0].location, location);
      assert.match(op.error.errors[0].message, message);
      assertComputeError(await t.call(CORA, { method: 'GET', url: s.templatePath(`bad-from-${i}`) }), 404, 'notFound');
    }
  });

  test('the instance: by full URL on any host too; a missing one ends RESOURCE_NOT_FOUND; compute.instances.get is required', async () => {
    const byUrl = await fromInstance('from-vm-url', undefined, `https://compute.googleapis.com/compute/v1/projects/${P}/zones/${ZONE}/instances/web-vm`);
    assert.equal(byUrl.template!.sourceInstance, zonal('instances/web-vm'));
    const missing = await fromInstance('from-nothing', undefined, `zones/${ZONE}/instances/nope`);
    assert.equal(missing.op.error.errors[0].code, 'RESOURCE_NOT_FOUND');
    assert.match(missing.op.error.errors[0].message, new RegExp(`projects/${P}/zones/${ZONE}/instances/nope`));
    const denied = await t.call(NINA, { method: 'POST', url: s.templatesPath(), payload: { name: 'from-denied', sourceInstance: `zones/${ZONE}/instances/web-vm` } });
    assertComputeError(denied, 403, 'forbidden', `Required 'compute.instances.get' permission for 'projects/${P}/zones/${ZONE}/instances/web-vm'`);
  });
});
