import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { buildStoredTemplate, fingerprint } from '../../src/services/compute/instanceTemplate/defaults.ts';
import { templateReferences } from '../../src/services/compute/instanceTemplate/references.ts';
import { validateInsertBody } from '../../src/services/compute/instanceTemplate/validate.ts';
import type { StoredTemplateContext } from '../../src/services/compute/instanceTemplate/types.ts';

const API = 'https://www.googleapis.com/compute/v1/projects/proj-123';

function ctx(links: [string, string][] = []): StoredTemplateContext {
  return {
    id: '1234567890123456789',
    creationTimestamp: '2026-11-23T05:31:00.000-08:00',
    selfLink: `${API}/regions/us-central1/instanceTemplates/web`,
    region: `${API}/regions/us-central1`,
    resolvedLinks: new Map(links),
    defaultServiceAccount: '123456789012-compute@developer.gserviceaccount.com',
  };
}

describe('buildStoredTemplate', () => {
  test('a minimal gcloud-like body gets every default a real GET shows, in order', () => {
    const body = {
      name: 'web',
      properties: {
        machineType: 'e2-medium',
        networkInterfaces: [{ network: `${API}/global/networks/default`, accessConfigs: [{ type: 'ONE_TO_ONE_NAT' }] }],
        disks: [{ boot: true, autoDelete: true, initializeParams: { sourceImage: 'projects/debian-cloud/global/images/family/debian-12' } }],
        serviceAccounts: [{ email: 'default', scopes: ['https://www.googleapis.com/auth/devstorage.read_only'] }],
      },
    };
    assert.deepEqual(validateInsertBody(body).errors, []);
    const stored = buildStoredTemplate(body, ctx([['resource.properties.networkInterfaces[0].network', `${API}/global/networks/default`]]));
    assert.equal(
      JSON.stringify(stored),
      JSON.stringify({
        kind: 'compute#instanceTemplate',
        id: '1234567890123456789',
        creationTimestamp: '2026-11-23T05:31:00.000-08:00',
        name: 'web',
        properties: {
          machineType: 'e2-medium',
          networkInterfaces: [
            {
              kind: 'compute#networkInterface',
              network: `${API}/global/networks/default`,
              name: 'nic0',
              accessConfigs: [{ kind: 'compute#accessConfig', type: 'ONE_TO_ONE_NAT', name: 'External NAT', networkTier: 'PREMIUM' }],
              stackType: 'IPV4_ONLY',
            },
          ],
          disks: [
            {
              kind: 'compute#attachedDisk',
              type: 'PERSISTENT',
              mode: 'READ_WRITE',
              deviceName: 'persistent-disk-0',
              index: 0,
              boot: true,
              initializeParams: { sourceImage: 'projects/debian-cloud/global/images/family/debian-12' },
              autoDelete: true,
              interface: 'SCSI',
            },
          ],
          metadata: { kind: 'compute#metadata', fingerprint: fingerprint([]) },
          serviceAccounts: [{ email: '123456789012-compute@developer.gserviceaccount.com', scopes: ['https://www.googleapis.com/auth/devstorage.read_only'] }],
          scheduling: { onHostMaintenance: 'MIGRATE', automaticRestart: true, preemptible: false, provisioningModel: 'STANDARD' },
        },
        selfLink: `${API}/regions/us-central1/instanceTemplates/web`,
        region: `${API}/regions/us-central1`,
      }),
    );
  });

  test('fingerprints are base64 of 8 bytes and follow the content', () => {
    const a = buildStoredTemplate({ name: 'a', properties: { machineType: 'm', tags: { items: ['x'] }, metadata: { items: [{ key: 'k', value: 'v' }] } } }, ctx()) as any;
    const b = buildStoredTemplate({ name: 'a', properties: { machineType: 'm', tags: { items: ['y'] }, metadata: { items: [{ key: 'k', value: 'w' }] } } }, ctx()) as any;
    for (const fp of [a.properties.tags.fingerprint, a.properties.metadata.fingerprint]) assert.equal(Buffer.from(fp, 'base64').length, 8);
    assert.notEqual(a.properties.tags.fingerprint, b.properties.tags.fingerprint);
    assert.notEqual(a.properties.metadata.fingerprint, b.properties.metadata.fingerprint);
    assert.deepEqual(a.properties.metadata.items, [{ key: 'k', value: 'v' }]);
    assert.deepEqual(Object.keys(a.properties.tags), ['items', 'fingerprint']);
  });

  test('preemptible and spot scheduling defaults', () => {
    const pre = buildStoredTemplate({ name: 'a', properties: { machineType: 'm', scheduling: { preemptible: true } } }, ctx()) as any;
    assert.deepEqual(pre.properties.scheduling, { onHostMaintenance: 'TERMINATE', automaticRestart: false, preemptible: true, provisioningModel: 'STANDARD' });
    const spot = buildStoredTemplate({ name: 'a', properties: { machineType: 'm', scheduling: { provisioningModel: 'SPOT' } } }, ctx()) as any;
    assert.deepEqual(spot.properties.scheduling, { onHostMaintenance: 'TERMINATE', automaticRestart: false, preemptible: true, provisioningModel: 'SPOT', instanceTerminationAction: 'STOP' });
  });

  test('disk defaults: device names by index, 500 GB without an image, scratch disks, raw keys dropped, int64 as strings', () => {
    const body = {
      name: 'a',
      properties: {
        machineType: 'm',
        disks: [
          { boot: true, source: 'boot-disk' },
          { initializeParams: { diskType: 'pd-ssd', diskSizeGb: 64 }, diskEncryptionKey: { rawKey: Buffer.alloc(32).toString('base64') } },
          { initializeParams: { disk_type: 'pd-standard' }, mode: 'READ_ONLY', deviceName: 'logs', diskEncryptionKey: { kmsKeyName: 'projects/p/locations/l/keyRings/r/cryptoKeys/k' } },
          { type: 'SCRATCH', initializeParams: { diskType: 'local-ssd' }, interface: 'NVME' },
        ],
      },
    };
    const disks = (buildStoredTemplate(body, ctx()) as any).properties.disks;
    assert.deepEqual(disks.map((d: any) => d.deviceName), ['persistent-disk-0', 'persistent-disk-1', 'logs', undefined]);
    assert.deepEqual(disks.map((d: any) => d.index), [0, 1, 2, 3]);
    assert.equal(disks[0].source, 'boot-disk');
    assert.equal(disks[1].initializeParams.diskSizeGb, '64');
    assert.equal(disks[1].diskEncryptionKey, undefined);
    assert.equal(disks[2].initializeParams.diskSizeGb, '500');
    assert.equal(disks[2].initializeParams.diskType, 'pd-standard');
    assert.equal(disks[2].mode, 'READ_ONLY');
    assert.deepEqual(disks[2].diskEncryptionKey, { kmsKeyName: 'projects/p/locations/l/keyRings/r/cryptoKeys/k' });
    assert.deepEqual([disks[3].type, disks[3].autoDelete, disks[3].interface, disks[3].initializeParams.diskSizeGb], ['SCRATCH', true, 'NVME', undefined]);
  });

  test('resolved links replace what was written; sourceInstanceParams spelled as the API does', () => {
    const body = {
      name: 'a',
      sourceInstance: 'zones/us-central1-a/instances/vm',
      sourceInstanceParams: { diskConfigs: [{ deviceName: 'd', instantiateFrom: 'source-image', autoDelete: true }] },
      properties: { machineType: 'm', networkInterfaces: [{ subnetwork: 's' }, {}] },
    };
    const stored = buildStoredTemplate(
      body,
      ctx([
        ['resource.sourceInstance', `${API}/zones/us-central1-a/instances/vm`],
        ['resource.properties.networkInterfaces[0].subnetwork', `${API}/regions/us-central1/subnetworks/s`],
        ['resource.properties.networkInterfaces[0].network', `${API}/global/networks/n`],
        ['resource.properties.networkInterfaces[1].network', `${API}/global/networks/default`],
      ]),
    ) as any;
    assert.equal(stored.sourceInstance, `${API}/zones/us-central1-a/instances/vm`);
    assert.deepEqual(stored.sourceInstanceParams, { diskConfigs: [{ deviceName: 'd', instantiateFrom: 'SOURCE_IMAGE', autoDelete: true }] });
    assert.deepEqual(stored.properties.networkInterfaces.map((n: any) => [n.name, n.network, n.subnetwork]), [
      ['nic0', `${API}/global/networks/n`, `${API}/regions/us-central1/subnetworks/s`],
      ['nic1', `${API}/global/networks/default`, undefined],
    ]);
    assert.deepEqual(Object.keys(stored), ['kind', 'id', 'creationTimestamp', 'name', 'properties', 'selfLink', 'sourceInstance', 'sourceInstanceParams', 'region']);
  });

  test('IPv6 access config defaults; labels with hostile keys stay own data', () => {
    const body = JSON.parse('{"name":"a","properties":{"machineType":"m","labels":{"__proto__":"x"},"networkInterfaces":[{"stackType":"IPV4_IPV6","ipv6AccessConfigs":[{}]}]}}');
    const stored = buildStoredTemplate(body, ctx()) as any;
    assert.deepEqual(stored.properties.networkInterfaces[0].ipv6AccessConfigs, [{ kind: 'compute#accessConfig', type: 'DIRECT_IPV6', name: 'External IPv6', networkTier: 'PREMIUM' }]);
    assert.ok(Object.hasOwn(stored.properties.labels, '__proto__'));
    assert.equal(JSON.parse(JSON.stringify(stored)).properties.labels.__proto__, 'x');
  });
});

describe('templateReferences', () => {
  test('every reference with its field path', () => {
    const body = {
      name: 'a',
      sourceInstance: 'zones/us-central1-a/instances/vm',
      sourceInstanceParams: { diskConfigs: [{ deviceName: 'd', instantiateFrom: 'custom-image', customImage: 'global/images/img' }] },
      properties: {
        machineType: 'e2-standard-4',
        networkInterfaces: [
          { network: 'global/networks/vpc', subnetwork: 'regions/us-central1/subnetworks/s', accessConfigs: [{ natIP: '34.1.2.3' }] },
          { networkAttachment: 'projects/123/regions/us-central1/networkAttachments/att', stackType: 'IPV4_IPV6', ipv6AccessConfigs: [{ externalIpv6: '2600::1' }] },
        ],
        disks: [
          { boot: true, initializeParams: { sourceImage: 'projects/debian-cloud/global/images/family/debian-12', resourcePolicies: ['snap'] } },
          { initializeParams: { sourceSnapshot: 'global/snapshots/snap-1' } },
          { source: 'data-disk' },
        ],
        guestAccelerators: [{ acceleratorType: 'nvidia-l4', acceleratorCount: 1 }],
        serviceAccounts: [{ email: 'sa@proj-123.iam.gserviceaccount.com' }],
        reservationAffinity: { consumeReservationType: 'SPECIFIC_RESERVATION', key: 'compute.googleapis.com/reservation-name', values: ['res-a'] },
        resourcePolicies: ['placement'],
      },
    };
    assert.deepEqual(
      templateReferences(body).map((r) => `${r.kind} ${r.value} ${r.location}`),
      [
        'instance zones/us-central1-a/instances/vm resource.sourceInstance',
        'image global/images/img resource.sourceInstanceParams.diskConfigs[0].customImage',
        'machineType e2-standard-4 resource.properties.machineType',
        'network global/networks/vpc resource.properties.networkInterfaces[0].network',
        'subnetwork regions/us-central1/subnetworks/s resource.properties.networkInterfaces[0].subnetwork',
        'address 34.1.2.3 resource.properties.networkInterfaces[0].accessConfigs[0].natIP',
        'networkAttachment projects/123/regions/us-central1/networkAttachments/att resource.properties.networkInterfaces[1].networkAttachment',
        'address 2600::1 resource.properties.networkInterfaces[1].ipv6AccessConfigs[0].externalIpv6',
        'image projects/debian-cloud/global/images/family/debian-12 resource.properties.disks[0].initializeParams.sourceImage',
        'resourcePolicy snap resource.properties.disks[0].initializeParams.resourcePolicies[0]',
        'snapshot global/snapshots/snap-1 resource.properties.disks[1].initializeParams.sourceSnapshot',
        'disk data-disk resource.properties.disks[2].source',
        'acceleratorType nvidia-l4 resource.properties.guestAccelerators[0].acceleratorType',
        'serviceAccount sa@proj-123.iam.gserviceaccount.com resource.properties.serviceAccounts[0].email',
        'reservation res-a resource.properties.reservationAffinity.values[0]',
        'resourcePolicy placement resource.properties.resourcePolicies[0]',
      ],
    );
  });
  test('no properties, no references beyond the source instance; ANY_RESERVATION names none', () => {
    assert.deepEqual(templateReferences({ name: 'a' }), []);
    assert.deepEqual(templateReferences({ name: 'a', properties: { reservationAffinity: { consumeReservationType: 'ANY_RESERVATION' } } }), []);
  });
});
