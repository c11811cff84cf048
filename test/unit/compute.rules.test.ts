import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { validateInsertBody } from '../../src/services/compute/instanceTemplate/validate.ts';

type Body = Record<string, any>;

/** A valid template using most sub-messages. */
function base(): Body {
  return {
    name: 'web-template',
    description: 'a template',
    properties: {
      machineType: 'e2-medium',
      tags: { items: ['http-server', 'https-server'] },
      labels: { env: 'prod', 'team_a-1': '', 'ünïcode': 'ÿes' },
      metadata: { items: [{ key: 'startup-script', value: '#!/bin/sh\necho hi' }, { key: 'enable_oslogin', value: 'TRUE' }] },
      disks: [
        { boot: true, autoDelete: true, initializeParams: { sourceImage: 'projects/debian-cloud/global/images/family/debian-12', diskSizeGb: '20', diskType: 'pd-balanced' } },
        { deviceName: 'data', initializeParams: { diskSizeGb: 100, diskType: 'pd-ssd', labels: { kind: 'data' } } },
        { type: 'SCRATCH', interface: 'NVME', initializeParams: { diskType: 'local-ssd' } },
      ],
      networkInterfaces: [
        { network: 'global/networks/default', accessConfigs: [{ type: 'ONE_TO_ONE_NAT', name: 'External NAT', networkTier: 'PREMIUM' }] },
        { subnetwork: 'projects/p-123456/regions/us-central1/subnetworks/sub-a', stackType: 'IPV4_IPV6', ipv6AccessConfigs: [{ type: 'DIRECT_IPV6' }], aliasIpRanges: [{ ipCidrRange: '/24', subnetworkRangeName: 'pods' }] },
      ],
      serviceAccounts: [{ email: 'default', scopes: ['https://www.googleapis.com/auth/cloud-platform'] }],
      scheduling: { onHostMaintenance: 'MIGRATE', automaticRestart: true, hostErrorTimeoutSeconds: 120, localSsdRecoveryTimeout: { seconds: '7200' }, nodeAffinities: [{ key: 'k', operator: 'IN', values: ['v'] }] },
      reservationAffinity: { consumeReservationType: 'SPECIFIC_RESERVATION', key: 'compute.googleapis.com/reservation-name', values: ['res-1'] },
      shieldedInstanceConfig: { enableSecureBoot: true, enableVtpm: true, enableIntegrityMonitoring: true },
      advancedMachineFeatures: { threadsPerCore: 1, visibleCoreCount: 2 },
      confidentialInstanceConfig: { enableConfidentialCompute: false },
      resourceManagerTags: { 'tagKeys/123': 'tagValues/456' },
    },
  };
}

function errorsOf(mutate: (b: Body) => void, region?: string) {
  const b = base();
  mutate(b);
  return validateInsertBody(b, { region });
}

/** What `gcloud compute instance-templates create t --region us-central1` sends (URLs on the overridden host). */
function gcloudBody(): Body {
  const h = 'http://127.0.0.1:41234/compute/v1/';
  return {
    name: 't',
    properties: {
      canIpForward: false,
      disks: [{ autoDelete: true, boot: true, initializeParams: { sourceImage: `${h}projects/debian-cloud/global/images/family/debian-12` }, mode: 'READ_WRITE', type: 'PERSISTENT' }],
      machineType: 'n1-standard-1',
      metadata: {},
      networkInterfaces: [{ accessConfigs: [{ name: 'external-nat', type: 'ONE_TO_ONE_NAT' }], network: `${h}projects/proj-123/global/networks/default` }],
      reservationAffinity: { consumeReservationType: 'ANY_RESERVATION' },
      scheduling: { automaticRestart: true, onHostMaintenance: 'MIGRATE', provisioningModel: 'STANDARD' },
      serviceAccounts: [{ email: 'default', scopes: ['https://www.googleapis.com/auth/devstorage.read_only', 'https://www.googleapis.com/auth/logging.write', 'https://www.googleapis.com/auth/service.management.readonly', 'https://www.googleapis.com/auth/trace.append'] }],
    },
  };
}

describe('validateInsertBody: valid bodies', () => {
  test("gcloud's body is valid", () => assert.deepEqual(validateInsertBody(gcloudBody(), { region: 'us-central1' }).errors, []));
  test('the base body is valid', () => {
    const r = validateInsertBody(base());
    assert.deepEqual([r.errors, r.deferred], [[], []]);
    const expected = base();
    expected.properties.disks[1].initializeParams.diskSizeGb = '100';
    assert.deepEqual(r.resource, expected);
  });
  test('the canonical resource: JSON names, int64 as strings, int32 as numbers, no nulls', () => {
    const r = validateInsertBody({
      name: 't',
      description: null,
      properties: { machine_type: 'e2-medium', can_ip_forward: true, advanced_machine_features: { threads_per_core: '2' }, disks: [{ boot: true, initialize_params: { source_image: 'family/f', disk_size_gb: 10 } }] },
    });
    assert.deepEqual(r.errors, []);
    assert.deepEqual(r.resource, {
      name: 't',
      properties: { machineType: 'e2-medium', canIpForward: true, advancedMachineFeatures: { threadsPerCore: 2 }, disks: [{ boot: true, initializeParams: { sourceImage: 'family/f', diskSizeGb: '10' } }] },
    });
  });
  const valid: [string, (b: Body) => void][] = [
    ['proto field names', (b) => { b.properties.can_ip_forward = true; b.properties.disks[0].initialize_params = b.properties.disks[0].initializeParams; delete b.properties.disks[0].initializeParams; }],
    ['null reads as unset', (b) => { b.description = null; b.properties.scheduling = null; }],
    ['int64 as a number', (b) => { b.properties.disks[0].initializeParams.diskSizeGb = 30; }],
    ['int32 as a decimal string', (b) => { b.properties.advancedMachineFeatures.threadsPerCore = '2'; }],
    ['output fields are accepted', (b) => { Object.assign(b, { kind: 'compute#instanceTemplate', id: '1', selfLink: 'x', region: 'y' }); }],
    ['preemptible with defaults', (b) => { b.properties.scheduling = { preemptible: true }; }],
    ['spot', (b) => { b.properties.scheduling = { provisioningModel: 'SPOT', instanceTerminationAction: 'DELETE' }; }],
    ['maxRunDuration alone', (b) => { b.properties.scheduling = { maxRunDuration: { seconds: '3600', nanos: 0 }, instanceTerminationAction: 'STOP' }; }],
    ['terminationTime alone', (b) => { b.properties.scheduling = { terminationTime: '2030-01-02T03:04:05.123Z', instanceTerminationAction: 'DELETE' }; }],
    ['image family forms', (b) => { for (const img of ['family/debian-12', 'global/images/family/x', 'https://www.googleapis.com/compute/v1/projects/debian-cloud/global/images/debian-12-v1', 'my-image']) { b.properties.disks[0].initializeParams.sourceImage = img; assert.deepEqual(validateInsertBody(b).errors, [], img); } }],
    ['boot from a regional disk with force attach', (b) => { b.properties.disks[0] = { boot: true, source: 'projects/p-123456/regions/us-central1/disks/d1', forceAttach: true }; }],
    ['replica zones in the region', (b) => { b.properties.disks[1].initializeParams.replicaZones = ['us-central1-a', 'projects/p-123456/zones/us-central1-b']; }],
    ['rawKey of 32 bytes', (b) => { b.properties.disks[1].diskEncryptionKey = { rawKey: Buffer.alloc(32, 7).toString('base64') }; }],
    ['gcloud instantiateFrom spelling', (b) => { b.sourceInstance = 'zones/us-central1-a/instances/vm-1'; b.sourceInstanceParams = { diskConfigs: [{ deviceName: 'd', instantiateFrom: 'source-image' }, { deviceName: 'e', instantiateFrom: 'CUSTOM_IMAGE', customImage: 'global/images/i' }] }; }],
    ['sourceInstance without properties', (b) => { b.sourceInstance = 'projects/p-123456/zones/us-central1-a/instances/vm-1'; delete b.properties; }],
    ['dynamic interface with vlan', (b) => { b.properties.networkInterfaces.push({ parentNicName: 'nic0', vlan: 2, network: 'default' }); }],
    ['fingerprints in base64 (standard, URL-safe, unpadded)', (b) => { b.properties.tags.fingerprint = 'Kg1eVmw49aE='; b.properties.metadata.fingerprint = 'ab-_'; b.properties.networkInterfaces[0].fingerprint = 'AAA'; }],
    ['64 labels', (b) => { b.properties.labels = Object.fromEntries(Array.from({ length: 64 }, (_, i) => [`k${i}`, 'v'])); }],
    ['metadata key of 127 bytes, value of 262144 bytes', (b) => { b.properties.metadata.items = [{ key: 'k'.repeat(127), value: 'v'.repeat(262144) }]; }],
    ['guest accelerators with TERMINATE', (b) => { b.properties.guestAccelerators = [{ acceleratorType: 'nvidia-tesla-t4', acceleratorCount: 1 }]; b.properties.scheduling = { onHostMaintenance: 'TERMINATE' }; }],
    ['guest accelerators on spot VMs', (b) => { b.properties.guestAccelerators = [{ acceleratorType: 'nvidia-l4', acceleratorCount: 2 }]; b.properties.scheduling = { provisioningModel: 'SPOT' }; }],
    ['spec guest OS feature', (b) => { b.properties.disks[0].guestOsFeatures = [{ type: 'SUSPEND_RESUME_COMPATIBLE' }, { type: 'GVNIC' }]; }],
  ];
  for (const [name, mutate] of valid) {
    test(name, () => assert.deepEqual(errorsOf(mutate, 'us-central1').errors, []));
  }
});

/** [rule, mutation, expected location, message fragment] — one row per rule. */
const rows: [string, (b: Body) => void, string, string][] = [
  // resource
  ['name required', (b) => delete b.name, 'resource.name', "Required field 'resource.name' not specified"],
  ['name regex', (b) => (b.name = 'Bad_Name'), 'resource.name', "Invalid value for field 'resource.name': 'Bad_Name'. Must be a match of regex '(?:[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?)'"],
  ['name length 64', (b) => (b.name = 'a'.repeat(64)), 'resource.name', 'Must be a match of regex'],
  ['name trailing dash', (b) => (b.name = 'abc-'), 'resource.name', 'Must be a match of regex'],
  ['properties required', (b) => delete b.properties, 'resource.properties', "Required field 'resource.properties' not specified"],
  ['sourceInstance syntax', (b) => (b.sourceInstance = 'instances/vm'), 'resource.sourceInstance', 'The URL is malformed.'],
  ['sourceInstanceParams needs sourceInstance', (b) => (b.sourceInstanceParams = { diskConfigs: [] }), 'resource.sourceInstanceParams', 'sourceInstance'],
  ['customImage required for custom-image', (b) => { b.sourceInstance = 'zones/us-central1-a/instances/vm'; b.sourceInstanceParams = { diskConfigs: [{ deviceName: 'd', instantiateFrom: 'custom-image' }] }; }, 'resource.sourceInstanceParams.diskConfigs[0].customImage', 'customImage must be specified'],
  ['customImage only for custom-image', (b) => { b.sourceInstance = 'zones/us-central1-a/instances/vm'; b.sourceInstanceParams = { diskConfigs: [{ deviceName: 'd', instantiateFrom: 'SOURCE_IMAGE', customImage: 'global/images/i' }] }; }, 'resource.sourceInstanceParams.diskConfigs[0].customImage', 'only be specified'],
  ['diskConfigs deviceName required', (b) => { b.sourceInstance = 'zones/us-central1-a/instances/vm'; b.sourceInstanceParams = { diskConfigs: [{ instantiateFrom: 'DEFAULT' }] }; }, 'resource.sourceInstanceParams.diskConfigs[0].deviceName', 'Required field'],
  // general properties
  ['machineType required', (b) => delete b.properties.machineType, 'resource.properties.machineType', 'Required field'],
  ['machineType syntax', (b) => (b.properties.machineType = 'E2 medium'), 'resource.properties.machineType', 'Must be a match of regex'],
  ['tag regex', (b) => (b.properties.tags.items = ['ok', 'Not_OK']), 'resource.properties.tags.items[1]', "'Not_OK'. Must be a match of regex"],
  ['tag length', (b) => (b.properties.tags.items = ['a'.repeat(64)]), 'resource.properties.tags.items[0]', 'Must be a match of regex'],
  ['at most 64 tags', (b) => (b.properties.tags.items = Array.from({ length: 65 }, (_, i) => `t${i}`)), 'resource.properties.tags.items', 'at most 64 tags'],
  ['label key uppercase', (b) => (b.properties.labels = { Env: 'x' }), 'resource.properties.labels', "Label key 'Env' violates format constraints"],
  ['label key starts with digit', (b) => (b.properties.labels = { '1a': 'x' }), 'resource.properties.labels', 'Label key'],
  ['label key length 64', (b) => (b.properties.labels = { ['a'.repeat(64)]: 'x' }), 'resource.properties.labels', 'Label key'],
  ['label value chars', (b) => (b.properties.labels = { env: 'Prod.1' }), 'resource.properties.labels', "Label value 'Prod.1' violates format constraints"],
  ['label value length 64', (b) => (b.properties.labels = { env: 'a'.repeat(64) }), 'resource.properties.labels', 'Label value'],
  ['at most 64 labels', (b) => (b.properties.labels = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, 'v']))), 'resource.properties.labels', 'at most 64 labels'],
  ['resourceManagerTags key form', (b) => (b.properties.resourceManagerTags = { foo: 'tagValues/1' }), 'resource.properties.resourceManagerTags', 'tagKeys/'],
  ['resourceManagerTags value form', (b) => (b.properties.resourceManagerTags = { 'tagKeys/1': 'bar' }), 'resource.properties.resourceManagerTags', 'tagValues/'],
  ['resourcePolicies names only', (b) => (b.properties.resourcePolicies = ['projects/p/regions/r/resourcePolicies/x']), 'resource.properties.resourcePolicies[0]', 'must be a valid resource name (not an url)'],
  ['accelerator type name only', (b) => { b.properties.guestAccelerators = [{ acceleratorType: 'zones/us-central1-a/acceleratorTypes/nvidia-tesla-t4', acceleratorCount: 1 }]; b.properties.scheduling = { onHostMaintenance: 'TERMINATE' }; }, 'resource.properties.guestAccelerators[0].acceleratorType', 'not an url'],
  ['accelerator count >= 1', (b) => { b.properties.guestAccelerators = [{ acceleratorType: 'nvidia-tesla-t4', acceleratorCount: 0 }]; b.properties.scheduling = { onHostMaintenance: 'TERMINATE' }; }, 'resource.properties.guestAccelerators[0].acceleratorCount', "'0'. Accelerator count must be greater than 0."],
  ['accelerators forbid MIGRATE', (b) => (b.properties.guestAccelerators = [{ acceleratorType: 'nvidia-tesla-t4', acceleratorCount: 1 }]), 'resource.properties.scheduling.onHostMaintenance', 'do not support live migration'],
  ['accelerators forbid the default MIGRATE', (b) => { b.properties.guestAccelerators = [{ acceleratorType: 'nvidia-tesla-t4', acceleratorCount: 1 }]; b.properties.scheduling = {}; }, 'resource.properties.scheduling.onHostMaintenance', "'MIGRATE'. Instances with guest accelerators do not support live migration."],
  ['at most one service account', (b) => b.properties.serviceAccounts.push({ email: 'a@p-123456.iam.gserviceaccount.com' }), 'resource.properties.serviceAccounts', 'At most 1 service account'],
  ['service account email syntax', (b) => (b.properties.serviceAccounts[0].email = 'nobody'), 'resource.properties.serviceAccounts[0].email', 'malformed'],
  ['service account email required', (b) => (b.properties.serviceAccounts[0] = { scopes: [] }), 'resource.properties.serviceAccounts[0].email', 'Required field'],
  ['scopes are URLs', (b) => (b.properties.serviceAccounts[0].scopes = ['cloud-platform']), 'resource.properties.serviceAccounts[0].scopes[0]', 'Scopes must be full'],
  ['specific reservation key', (b) => (b.properties.reservationAffinity.key = 'env'), 'resource.properties.reservationAffinity.key', 'compute.googleapis.com/reservation-name'],
  ['specific reservation values', (b) => (b.properties.reservationAffinity.values = []), 'resource.properties.reservationAffinity.values', 'Required field'],
  ['specific reservation value syntax', (b) => (b.properties.reservationAffinity.values = ['a b']), 'resource.properties.reservationAffinity.values[0]', 'reservation name'],
  ['ANY reservation without values', (b) => (b.properties.reservationAffinity = { consumeReservationType: 'ANY_RESERVATION', values: ['x'] }), 'resource.properties.reservationAffinity.consumeReservationType', 'SPECIFIC_RESERVATION'],
  ['NO reservation without key', (b) => (b.properties.reservationAffinity = { consumeReservationType: 'NO_RESERVATION', key: 'k' }), 'resource.properties.reservationAffinity.consumeReservationType', 'SPECIFIC_RESERVATION'],
  ['integrity monitoring needs vTPM', (b) => (b.properties.shieldedInstanceConfig = { enableVtpm: false, enableIntegrityMonitoring: true }), 'resource.properties.shieldedInstanceConfig.enableIntegrityMonitoring', 'vTPM'],
  ['confidential flag with a non-SEV type', (b) => (b.properties.confidentialInstanceConfig = { enableConfidentialCompute: true, confidentialInstanceType: 'TDX' }), 'resource.properties.confidentialInstanceConfig.enableConfidentialCompute', 'TDX'],
  ['threadsPerCore 1..2', (b) => (b.properties.advancedMachineFeatures.threadsPerCore = 3), 'resource.properties.advancedMachineFeatures.threadsPerCore', "'3'"],
  ['threadsPerCore not 0', (b) => (b.properties.advancedMachineFeatures.threadsPerCore = 0), 'resource.properties.advancedMachineFeatures.threadsPerCore', "'0'"],
  ['visibleCoreCount >= 1', (b) => (b.properties.advancedMachineFeatures.visibleCoreCount = 0), 'resource.properties.advancedMachineFeatures.visibleCoreCount', 'at least 1'],
  ['turboMode value', (b) => (b.properties.advancedMachineFeatures.turboMode = 'FAST'), 'resource.properties.advancedMachineFeatures.turboMode', 'ALL_CORE_MAX'],
  // metadata
  ['metadata key regex', (b) => (b.properties.metadata.items[0].key = 'bad key'), 'resource.properties.metadata.items[0].key', "'bad key'. Must be a match of regex '[a-zA-Z0-9-_]+'"],
  ['metadata key under 128 bytes', (b) => (b.properties.metadata.items[0].key = 'k'.repeat(128)), 'resource.properties.metadata.items[0].key', 'under 128 bytes'],
  ['metadata key required', (b) => (b.properties.metadata.items[0] = { value: 'x' }), 'resource.properties.metadata.items[0].key', 'Required field'],
  ['metadata value <= 262144 bytes', (b) => (b.properties.metadata.items[0].value = 'é'.repeat(131073)), 'resource.properties.metadata.items[0].value', '262146 bytes'],
  ['metadata total under 512 KB', (b) => (b.properties.metadata.items = [{ key: 'a', value: 'v'.repeat(262144) }, { key: 'b', value: 'v'.repeat(262143) }]), 'resource.properties.metadata', 'under 512 KB'],
  ['metadata duplicate keys', (b) => (b.properties.metadata.items[1].key = 'startup-script'), 'resource.properties.metadata.items[1].key', 'Duplicate metadata key'],
  // scheduling
  ['preemptible forbids automaticRestart', (b) => (b.properties.scheduling = { preemptible: true, automaticRestart: true }), 'resource.properties.scheduling.preemptible', "'true'. Scheduling must have preemptible be false when AutomaticRestart is true."],
  ['preemptible forbids MIGRATE', (b) => (b.properties.scheduling = { preemptible: true, onHostMaintenance: 'MIGRATE', automaticRestart: false }), 'resource.properties.scheduling.preemptible', "OnHostMaintenance isn't TERMINATE"],
  ['spot forbids automaticRestart', (b) => (b.properties.scheduling = { provisioningModel: 'SPOT', automaticRestart: true }), 'resource.properties.scheduling.automaticRestart', 'Spot'],
  ['spot forbids MIGRATE', (b) => (b.properties.scheduling = { provisioningModel: 'SPOT', onHostMaintenance: 'MIGRATE' }), 'resource.properties.scheduling.onHostMaintenance', 'Spot'],
  ['hostErrorTimeoutSeconds below 90', (b) => (b.properties.scheduling.hostErrorTimeoutSeconds = 60), 'resource.properties.scheduling.hostErrorTimeoutSeconds', "'60'"],
  ['hostErrorTimeoutSeconds above 330', (b) => (b.properties.scheduling.hostErrorTimeoutSeconds = 360), 'resource.properties.scheduling.hostErrorTimeoutSeconds', "'360'"],
  ['hostErrorTimeoutSeconds step 30', (b) => (b.properties.scheduling.hostErrorTimeoutSeconds = 100), 'resource.properties.scheduling.hostErrorTimeoutSeconds', 'steps of 30'],
  ['localSsdRecoveryTimeout whole hours', (b) => (b.properties.scheduling.localSsdRecoveryTimeout = { seconds: '5400' }), 'resource.properties.scheduling.localSsdRecoveryTimeout', '168 hours'],
  ['localSsdRecoveryTimeout <= 168 h', (b) => (b.properties.scheduling.localSsdRecoveryTimeout = { seconds: String(169 * 3600) }), 'resource.properties.scheduling.localSsdRecoveryTimeout', '168 hours'],
  ['localSsdRecoveryTimeout no nanos', (b) => (b.properties.scheduling.localSsdRecoveryTimeout = { seconds: '3600', nanos: 5 }), 'resource.properties.scheduling.localSsdRecoveryTimeout', '168 hours'],
  ['maxRunDuration vs terminationTime', (b) => (b.properties.scheduling = { maxRunDuration: { seconds: '60' }, terminationTime: '2030-01-01T00:00:00Z' }), 'resource.properties.scheduling.terminationTime', 'Only one of maxRunDuration and terminationTime'],
  ['duration seconds upper bound', (b) => (b.properties.scheduling = { maxRunDuration: { seconds: '315576000001' } }), 'resource.properties.scheduling.maxRunDuration.seconds', '315576000000'],
  ['duration seconds not negative', (b) => (b.properties.scheduling = { maxRunDuration: { seconds: '-1' } }), 'resource.properties.scheduling.maxRunDuration.seconds', "'-1'"],
  ['duration nanos bound', (b) => (b.properties.scheduling = { maxRunDuration: { seconds: '1', nanos: 1000000000 } }), 'resource.properties.scheduling.maxRunDuration.nanos', '999999999'],
  ['terminationTime RFC 3339', (b) => (b.properties.scheduling = { terminationTime: '2030-02-30T00:00:00Z' }), 'resource.properties.scheduling.terminationTime', 'RFC 3339'],
  ['instanceTerminationAction needs spot or a run limit', (b) => (b.properties.scheduling = { instanceTerminationAction: 'STOP' }), 'resource.properties.scheduling.instanceTerminationAction', 'Spot'],
  ['onInstanceStopAction only with STOP', (b) => (b.properties.scheduling = { provisioningModel: 'SPOT', instanceTerminationAction: 'DELETE', onInstanceStopAction: { discardLocalSsd: true } }), 'resource.properties.scheduling.onInstanceStopAction', 'STOP'],
  ['availabilityDomain >= 1', (b) => (b.properties.scheduling.availabilityDomain = 0), 'resource.properties.scheduling.availabilityDomain', 'at least 1'],
  ['node affinity operator', (b) => (b.properties.scheduling.nodeAffinities = [{ key: 'k', operator: 'OPERATOR_UNSPECIFIED', values: ['v'] }]), 'resource.properties.scheduling.nodeAffinities[0].operator', 'IN'],
  ['node affinity values', (b) => (b.properties.scheduling.nodeAffinities = [{ key: 'k', operator: 'NOT_IN' }]), 'resource.properties.scheduling.nodeAffinities[0].values', 'Required field'],
  ['node affinity key', (b) => (b.properties.scheduling.nodeAffinities = [{ operator: 'IN', values: ['v'] }]), 'resource.properties.scheduling.nodeAffinities[0].key', 'Required field'],
  // network interfaces
  ['network URL syntax', (b) => (b.properties.networkInterfaces[0].network = 'networks/default'), 'resource.properties.networkInterfaces[0].network', 'The URL is malformed.'],
  ['subnetwork URL syntax', (b) => (b.properties.networkInterfaces[1].subnetwork = 'subnetworks/sub-a'), 'resource.properties.networkInterfaces[1].subnetwork', 'The URL is malformed.'],
  ['subnetwork in the region', (b) => (b.properties.networkInterfaces[1].subnetwork = 'regions/europe-west1/subnetworks/s'), 'resource.properties.networkInterfaces[1].subnetwork', 'us-central1'],
  ['at most one access config', (b) => b.properties.networkInterfaces[0].accessConfigs.push({ type: 'ONE_TO_ONE_NAT' }), 'resource.properties.networkInterfaces[0].accessConfigs', 'At most one access config currently supported.'],
  ['access config type', (b) => (b.properties.networkInterfaces[0].accessConfigs[0].type = 'DIRECT_IPV6'), 'resource.properties.networkInterfaces[0].accessConfigs[0].type', 'ONE_TO_ONE_NAT'],
  ['natIP is IPv4', (b) => (b.properties.networkInterfaces[0].accessConfigs[0].natIP = '300.1.1.1'), 'resource.properties.networkInterfaces[0].accessConfigs[0].natIP', 'IPv4'],
  ['publicPtrDomainName needs setPublicPtr', (b) => (b.properties.networkInterfaces[0].accessConfigs[0].publicPtrDomainName = 'x.example.com.'), 'resource.properties.networkInterfaces[0].accessConfigs[0].publicPtrDomainName', 'setPublicPtr'],
  ['IPv6-only interfaces have no IPv4 access config', (b) => (b.properties.networkInterfaces[0].stackType = 'IPV6_ONLY'), 'resource.properties.networkInterfaces[0].accessConfigs', 'IPv6-only'],
  ['at most one IPv6 access config', (b) => b.properties.networkInterfaces[1].ipv6AccessConfigs.push({ type: 'DIRECT_IPV6' }), 'resource.properties.networkInterfaces[1].ipv6AccessConfigs', 'At most one IPv6 access config'],
  ['IPv6 access config type', (b) => (b.properties.networkInterfaces[1].ipv6AccessConfigs[0].type = 'ONE_TO_ONE_NAT'), 'resource.properties.networkInterfaces[1].ipv6AccessConfigs[0].type', 'DIRECT_IPV6'],
  ['IPv6 access config needs dual stack', (b) => (b.properties.networkInterfaces[1].stackType = 'IPV4_ONLY'), 'resource.properties.networkInterfaces[1].ipv6AccessConfigs', 'IPV4_IPV6'],
  ['ipv6AccessType only with IPv6', (b) => (b.properties.networkInterfaces[0].ipv6AccessType = 'EXTERNAL'), 'resource.properties.networkInterfaces[0].ipv6AccessType', 'IPV4_IPV6'],
  ['vlan 2..255', (b) => b.properties.networkInterfaces.push({ parentNicName: 'nic0', vlan: 256 }), 'resource.properties.networkInterfaces[2].vlan', 'between 2 and 255'],
  ['vlan not 1', (b) => b.properties.networkInterfaces.push({ parentNicName: 'nic0', vlan: 1 }), 'resource.properties.networkInterfaces[2].vlan', 'between 2 and 255'],
  ['vlan needs a parent', (b) => b.properties.networkInterfaces.push({ vlan: 5 }), 'resource.properties.networkInterfaces[2].parentNicName', 'Required field'],
  ['parent must exist', (b) => b.properties.networkInterfaces.push({ parentNicName: 'nic5', vlan: 5 }), 'resource.properties.networkInterfaces[2].parentNicName', 'does not exist'],
  ['interface names nic0..nic7', (b) => (b.properties.networkInterfaces[0].name = 'nic8'), 'resource.properties.networkInterfaces[0].name', 'nic0 to nic7'],
  ['interface names unique', (b) => { b.properties.networkInterfaces[0].name = 'nic1'; b.properties.networkInterfaces[1].name = 'nic1'; }, 'resource.properties.networkInterfaces[1].name', 'Duplicate'],
  ['at most 8 interfaces', (b) => (b.properties.networkInterfaces = Array.from({ length: 9 }, () => ({ network: 'default' }))), 'resource.properties.networkInterfaces', 'At most 8'],
  ['networkAttachment form', (b) => (b.properties.networkInterfaces[0].networkAttachment = 'regions/us-central1/networkAttachments/a'), 'resource.properties.networkInterfaces[0].networkAttachment', 'projects/{project_number}'],
  ['queueCount >= 1', (b) => (b.properties.networkInterfaces[0].queueCount = 0), 'resource.properties.networkInterfaces[0].queueCount', 'at least 1'],
  ['networkIP syntax', (b) => (b.properties.networkInterfaces[0].networkIP = '10.0.0.256'), 'resource.properties.networkInterfaces[0].networkIP', 'IPv4'],
  ['ipv6Address syntax', (b) => (b.properties.networkInterfaces[1].ipv6Address = '10.0.0.1'), 'resource.properties.networkInterfaces[1].ipv6Address', 'IPv6'],
  ['alias range syntax', (b) => (b.properties.networkInterfaces[1].aliasIpRanges[0].ipCidrRange = '10.0.0.0/33'), 'resource.properties.networkInterfaces[1].aliasIpRanges[0].ipCidrRange', 'CIDR'],
  ['alias range name', (b) => (b.properties.networkInterfaces[1].aliasIpRanges[0].subnetworkRangeName = 'Pods'), 'resource.properties.networkInterfaces[1].aliasIpRanges[0].subnetworkRangeName', 'regex'],
  // disks
  ['source and initializeParams exclusive', (b) => (b.properties.disks[1].source = 'disk-1'), 'resource.properties.disks[1]', 'Cannot specify both source and initializeParams.'],
  ['boot disk needs an image, snapshot or disk', (b) => delete b.properties.disks[0].initializeParams.sourceImage, 'resource.properties.disks[0].initializeParams', 'source image, a source snapshot or a source disk'],
  ['a boot disk is required', (b) => (b.properties.disks[0].boot = false), 'resource.properties.disks', 'Boot disk must be specified.'],
  ['disks are required', (b) => (b.properties.disks = []), 'resource.properties.disks', 'Boot disk must be specified.'],
  ['boot disk first', (b) => { b.properties.disks[0].boot = false; b.properties.disks[1] = { boot: true, source: 'd1' }; }, 'resource.properties.disks[1].boot', 'Boot disk must be the first disk attached to the instance.'],
  ['one boot disk', (b) => (b.properties.disks[1] = { boot: true, source: 'd1' }), 'resource.properties.disks[1].boot', 'Only one boot disk'],
  ['persistent disk needs a source', (b) => (b.properties.disks[1] = {}), 'resource.properties.disks[1]', 'One of source or initializeParams'],
  ['diskSizeGb >= 10', (b) => (b.properties.disks[0].initializeParams.diskSizeGb = '5'), 'resource.properties.disks[0].initializeParams.diskSizeGb', "Invalid value for field 'resource.properties.disks[0].initializeParams.diskSizeGb': '5'. Requested disk size cannot be smaller than 10 GB."],
  ['diskType is a name', (b) => (b.properties.disks[0].initializeParams.diskType = 'zones/us-central1-a/diskTypes/pd-ssd'), 'resource.properties.disks[0].initializeParams.diskType', "DiskType 'zones/us-central1-a/diskTypes/pd-ssd' must be a valid resource name (not an url)."],
  ['diskType known', (b) => (b.properties.disks[0].initializeParams.diskType = 'pd-gold'), 'resource.properties.disks[0].initializeParams.diskType', 'not supported'],
  ['provisionedIops >= 10000', (b) => (b.properties.disks[1].initializeParams.provisionedIops = '9999'), 'resource.properties.disks[1].initializeParams.provisionedIops', "'9999'"],
  ['provisionedIops <= 120000', (b) => (b.properties.disks[1].initializeParams.provisionedIops = 120001), 'resource.properties.disks[1].initializeParams.provisionedIops', "'120001'"],
  ['provisionedThroughput >= 1', (b) => (b.properties.disks[1].initializeParams.provisionedThroughput = '0'), 'resource.properties.disks[1].initializeParams.provisionedThroughput', 'at least 1'],
  ['replicaZones exactly two', (b) => (b.properties.disks[1].initializeParams.replicaZones = ['us-central1-a']), 'resource.properties.disks[1].initializeParams.replicaZones', 'Exactly two'],
  ['replicaZones distinct', (b) => (b.properties.disks[1].initializeParams.replicaZones = ['us-central1-a', 'zones/us-central1-a']), 'resource.properties.disks[1].initializeParams.replicaZones', 'different'],
  ['replicaZones in the region', (b) => (b.properties.disks[1].initializeParams.replicaZones = ['europe-west1-b', 'europe-west1-c']), 'resource.properties.disks[1].initializeParams.replicaZones', 'us-central1'],
  ['replicaZones syntax', (b) => (b.properties.disks[1].initializeParams.replicaZones = ['us-central1-a', 'regions/us-central1']), 'resource.properties.disks[1].initializeParams.replicaZones[1]', 'malformed'],
  ['rawKey XOR rsaEncryptedKey', (b) => (b.properties.disks[1].diskEncryptionKey = { rawKey: Buffer.alloc(32).toString('base64'), rsaEncryptedKey: Buffer.alloc(256).toString('base64') }), 'resource.properties.disks[1].diskEncryptionKey', 'Only one of rawKey'],
  ['rawKey 256-bit', (b) => (b.properties.disks[1].diskEncryptionKey = { rawKey: Buffer.alloc(16).toString('base64') }), 'resource.properties.disks[1].diskEncryptionKey.rawKey', '256-bit'],
  ['rawKey base64', (b) => (b.properties.disks[1].diskEncryptionKey = { rawKey: '!'.repeat(44) }), 'resource.properties.disks[1].diskEncryptionKey.rawKey', '256-bit'],
  ['rsaEncryptedKey 2048-bit', (b) => (b.properties.disks[1].diskEncryptionKey = { rsaEncryptedKey: Buffer.alloc(32).toString('base64') }), 'resource.properties.disks[1].diskEncryptionKey.rsaEncryptedKey', '2048-bit'],
  ['sourceImageEncryptionKey checked too', (b) => (b.properties.disks[0].initializeParams.sourceImageEncryptionKey = { rawKey: 'abc' }), 'resource.properties.disks[0].initializeParams.sourceImageEncryptionKey.rawKey', '256-bit'],
  ['kmsKeyName form', (b) => (b.properties.disks[1].diskEncryptionKey = { kmsKeyName: 'my-key' }), 'resource.properties.disks[1].diskEncryptionKey.kmsKeyName', 'projects/{project}'],
  ['forceAttach only for regional disks', (b) => (b.properties.disks[0] = { boot: true, source: 'zonal-disk', forceAttach: true }), 'resource.properties.disks[0].forceAttach', 'regional'],
  ['zonal disk by name only', (b) => (b.properties.disks[0] = { boot: true, source: 'projects/p-123456/zones/us-central1-a/disks/d' }), 'resource.properties.disks[0].source', 'by name'],
  ['disk source syntax', (b) => (b.properties.disks[0] = { boot: true, source: 'disks/x/y' }), 'resource.properties.disks[0].source', 'malformed'],
  ['sourceImage syntax', (b) => (b.properties.disks[0].initializeParams.sourceImage = 'images/x/y/z'), 'resource.properties.disks[0].initializeParams.sourceImage', 'malformed'],
  ['sourceImage XOR sourceSnapshot', (b) => (b.properties.disks[0].initializeParams.sourceSnapshot = 'global/snapshots/s'), 'resource.properties.disks[0].initializeParams', 'Only one of sourceImage and sourceSnapshot'],
  ['sourceSnapshot syntax', (b) => (b.properties.disks[1].initializeParams.sourceSnapshot = 'snapshots/s'), 'resource.properties.disks[1].initializeParams.sourceSnapshot', 'malformed'],
  ['deviceName regex', (b) => (b.properties.disks[1].deviceName = 'Data_1'), 'resource.properties.disks[1].deviceName', 'regex'],
  ['deviceName unique', (b) => (b.properties.disks[0].deviceName = 'data'), 'resource.properties.disks[1].deviceName', 'already used'],
  ['scratch disk not boot', (b) => (b.properties.disks[2].boot = true), 'resource.properties.disks[2].boot', 'scratch'],
  ['scratch disk without source', (b) => { b.properties.disks[2] = { type: 'SCRATCH', source: 'd' }; }, 'resource.properties.disks[2].source', 'scratch'],
  ['scratch disk type local-ssd', (b) => (b.properties.disks[2].initializeParams.diskType = 'pd-ssd'), 'resource.properties.disks[2].initializeParams.diskType', 'local-ssd'],
  ['scratch disk no image', (b) => (b.properties.disks[2].initializeParams.sourceImage = 'family/x'), 'resource.properties.disks[2].initializeParams', 'scratch'],
  ['disk labels', (b) => (b.properties.disks[1].initializeParams.labels = { K: 'v' }), 'resource.properties.disks[1].initializeParams.labels', 'Label key'],
  ['disk resource policies names', (b) => (b.properties.disks[1].initializeParams.resourcePolicies = ['regions/r/resourcePolicies/p']), 'resource.properties.disks[1].initializeParams.resourcePolicies[0]', 'not an url'],
  ['diskName regex', (b) => (b.properties.disks[1].initializeParams.diskName = 'Disk'), 'resource.properties.disks[1].initializeParams.diskName', 'regex'],
  ['storagePool syntax', (b) => (b.properties.disks[1].initializeParams.storagePool = 'pools/x/y'), 'resource.properties.disks[1].initializeParams.storagePool', 'malformed'],
];

/** Enum values outside the real enum: the transcoder's error, one per request. */
const enumRows: [string, (b: Body) => void, string][] = [
  ['diskConfigs instantiateFrom enum', (b) => { b.sourceInstance = 'zones/us-central1-a/instances/vm'; b.sourceInstanceParams = { diskConfigs: [{ deviceName: 'd', instantiateFrom: 'copy' }] }; }, `Invalid value at 'instance_template_resource.source_instance_params.disk_configs[0].instantiate_from' (type.googleapis.com/compute.DiskInstantiationConfig.InstantiateFrom), "copy"`],
  ['reservation type enum', (b) => (b.properties.reservationAffinity = { consumeReservationType: 'SOME' }), `Invalid value at 'instance_template_resource.properties.reservation_affinity.consume_reservation_type' (type.googleapis.com/compute.ReservationAffinity.ConsumeReservationType), "SOME"`],
  ['confidential type enum', (b) => (b.properties.confidentialInstanceConfig = { confidentialInstanceType: 'SGX' }), `Invalid value at 'instance_template_resource.properties.confidential_instance_config.confidential_instance_type' (type.googleapis.com/compute.ConfidentialInstanceConfig.ConfidentialInstanceType), "SGX"`],
  ['performanceMonitoringUnit enum', (b) => (b.properties.advancedMachineFeatures.performanceMonitoringUnit = 'FULL'), `Invalid value at 'instance_template_resource.properties.advanced_machine_features.performance_monitoring_unit' (type.googleapis.com/compute.AdvancedMachineFeatures.PerformanceMonitoringUnit), "FULL"`],
  ['privateIpv6GoogleAccess enum', (b) => (b.properties.privateIpv6GoogleAccess = 'YES'), `Invalid value at 'instance_template_resource.properties.private_ipv6_google_access' (type.googleapis.com/compute.InstanceProperties.PrivateIpv6GoogleAccess), "YES"`],
  ['keyRevocationActionType enum', (b) => (b.properties.keyRevocationActionType = 'DELETE'), `Invalid value at 'instance_template_resource.properties.key_revocation_action_type' (type.googleapis.com/compute.InstanceProperties.KeyRevocationActionType), "DELETE"`],
  ['totalEgressBandwidthTier enum', (b) => (b.properties.networkPerformanceConfig = { totalEgressBandwidthTier: 'TIER_9' }), `Invalid value at 'instance_template_resource.properties.network_performance_config.total_egress_bandwidth_tier' (type.googleapis.com/compute.NetworkPerformanceConfig.TotalEgressBandwidthTier), "TIER_9"`],
  ['onHostMaintenance enum', (b) => (b.properties.scheduling.onHostMaintenance = 'RESTART'), `Invalid value at 'instance_template_resource.properties.scheduling.on_host_maintenance' (type.googleapis.com/compute.Scheduling.OnHostMaintenance), "RESTART"`],
  ['provisioningModel enum', (b) => (b.properties.scheduling.provisioningModel = 'CHEAP'), `Invalid value at 'instance_template_resource.properties.scheduling.provisioning_model' (type.googleapis.com/compute.Scheduling.ProvisioningModel), "CHEAP"`],
  ['instanceTerminationAction enum', (b) => (b.properties.scheduling = { provisioningModel: 'SPOT', instanceTerminationAction: 'HALT' }), `Invalid value at 'instance_template_resource.properties.scheduling.instance_termination_action' (type.googleapis.com/compute.Scheduling.InstanceTerminationAction), "HALT"`],
  ['node affinity operator enum', (b) => (b.properties.scheduling.nodeAffinities = [{ key: 'k', operator: 'HAS', values: ['v'] }]), `Invalid value at 'instance_template_resource.properties.scheduling.node_affinities[0].operator' (type.googleapis.com/compute.SchedulingNodeAffinity.Operator), "HAS"`],
  ['networkTier enum', (b) => (b.properties.networkInterfaces[0].accessConfigs[0].networkTier = 'GOLD'), `Invalid value at 'instance_template_resource.properties.network_interfaces[0].access_configs[0].network_tier' (type.googleapis.com/compute.AccessConfig.NetworkTier), "GOLD"`],
  ['stackType enum', (b) => (b.properties.networkInterfaces[0].stackType = 'IPV6'), `Invalid value at 'instance_template_resource.properties.network_interfaces[0].stack_type' (type.googleapis.com/compute.NetworkInterface.StackType), "IPV6"`],
  ['nicType enum', (b) => (b.properties.networkInterfaces[0].nicType = 'gVNIC'), `Invalid value at 'instance_template_resource.properties.network_interfaces[0].nic_type' (type.googleapis.com/compute.NetworkInterface.NicType), "gVNIC"`],
  ['igmpQuery enum', (b) => (b.properties.networkInterfaces[0].igmpQuery = 'V3'), `Invalid value at 'instance_template_resource.properties.network_interfaces[0].igmp_query' (type.googleapis.com/compute.NetworkInterface.IgmpQuery), "V3"`],
  ['guestOsFeatures enum', (b) => (b.properties.disks[0].guestOsFeatures = [{ type: 'LINUX' }]), `Invalid value at 'instance_template_resource.properties.disks[0].guest_os_features[0].type' (type.googleapis.com/compute.GuestOsFeature.Type), "LINUX"`],
  ['disk type enum', (b) => (b.properties.disks[1].type = 'EPHEMERAL'), `Invalid value at 'instance_template_resource.properties.disks[1].type' (type.googleapis.com/compute.AttachedDisk.Type), "EPHEMERAL"`],
  ['disk mode enum', (b) => (b.properties.disks[1].mode = 'RW'), `Invalid value at 'instance_template_resource.properties.disks[1].mode' (type.googleapis.com/compute.AttachedDisk.Mode), "RW"`],
  ['disk interface enum', (b) => (b.properties.disks[1].interface = 'IDE'), `Invalid value at 'instance_template_resource.properties.disks[1].interface' (type.googleapis.com/compute.AttachedDisk.Interface), "IDE"`],
  ['initializeParams architecture enum', (b) => (b.properties.disks[1].initializeParams.architecture = 'x86_64'), `Invalid value at 'instance_template_resource.properties.disks[1].initialize_params.architecture' (type.googleapis.com/compute.AttachedDiskInitializeParams.Architecture), "x86_64"`],
  ['onUpdateAction enum', (b) => (b.properties.disks[1].initializeParams.onUpdateAction = 'KEEP'), `Invalid value at 'instance_template_resource.properties.disks[1].initialize_params.on_update_action' (type.googleapis.com/compute.AttachedDiskInitializeParams.OnUpdateAction), "KEEP"`],
];

describe('validateInsertBody: every enum holds its real values', () => {
  for (const [rule, mutate, message] of enumRows) {
    test(rule, () => assert.deepEqual(errorsOf(mutate).errors.map((e) => e.message), [message]));
  }
});

/** Rules about the template's region: a global template has none, so they do not apply to it. */
const REGION_RULES = new Set(['subnetwork in the region', 'replicaZones in the region']);

// One rules engine, the scope a parameter: every row runs for a regional template (us-central1) and a global one.
for (const region of ['us-central1', undefined]) {
  describe(`validateInsertBody: one row per rule (${region ? 'regional' : 'global'})`, () => {
    for (const [rule, mutate, location, fragment] of rows) {
      test(rule, () => {
        const { errors } = errorsOf(mutate, region);
        const hit = errors.find((e) => e.location === location && e.message.includes(fragment));
        if (!region && REGION_RULES.has(rule)) return assert.equal(hit, undefined, `a global template has no region: ${JSON.stringify(hit)}`);
        assert.ok(hit, `no error at ${location} with ${fragment}; got ${JSON.stringify(errors)}`);
        assert.equal(hit.reason, fragment.startsWith('Required field') ? 'required' : 'invalid');
      });
    }
  });
}

describe('validateInsertBody: transcoding and shapes', () => {
  test('empty body: resource required', () => {
    for (const b of [undefined, null, {}, '']) {
      assert.deepEqual(validateInsertBody(b).errors, [{ reason: 'required', message: "Required field 'resource' not specified", location: 'resource' }]);
    }
  });
  test('a body that is not an object', () => {
    for (const b of [[1], 'x', 5, true]) {
      const { errors } = validateInsertBody(b);
      assert.equal(errors.length, 1);
      assert.match(errors[0].message, /^Invalid value at 'instance_template_resource' \(type.googleapis.com\/compute.InstanceTemplate\)/);
    }
  });
  test('unknown field, at its message', () => {
    const r = errorsOf((b) => (b.properties.foo = 1));
    assert.deepEqual(r.errors, [{ reason: 'invalid', message: `Invalid JSON payload received. Unknown name "foo" at 'instance_template_resource.properties': Cannot find field.`, badRequestField: 'instance_template_resource.properties' }]);
    assert.equal(validateInsertBody({ name: 'a', foo: 1 }).errors[0].message, `Invalid JSON payload received. Unknown name "foo" at 'instance_template_resource': Cannot find field.`);
  });
  const types: [string, (b: Body) => void, string][] = [
    ['string as number', (b) => (b.name = 5), `Invalid value at 'instance_template_resource.name' (TYPE_STRING), 5`],
    ['bool as string', (b) => (b.properties.canIpForward = 'true'), `Invalid value at 'instance_template_resource.properties.can_ip_forward' (TYPE_BOOL), "true"`],
    ['int64 not an integer', (b) => (b.properties.disks[0].initializeParams.diskSizeGb = 'ten'), `Invalid value at 'instance_template_resource.properties.disks[0].initialize_params.disk_size_gb' (TYPE_INT64), "ten"`],
    ['int64 fraction', (b) => (b.properties.disks[0].initializeParams.diskSizeGb = 10.5), `(TYPE_INT64), 10.5`],
    ['int64 out of range', (b) => (b.properties.disks[0].initializeParams.diskSizeGb = '9223372036854775808'), `(TYPE_INT64), "9223372036854775808"`],
    ['int32 out of range', (b) => (b.properties.scheduling.hostErrorTimeoutSeconds = 2 ** 31), `(TYPE_INT32), 2147483648`],
    ['message as string', (b) => (b.properties.scheduling = 'x'), `Invalid value at 'instance_template_resource.properties.scheduling' (type.googleapis.com/compute.Scheduling), "x"`],
    ['repeated as object', (b) => (b.properties.disks = {}), `Invalid value at 'instance_template_resource.properties.disks' (type.googleapis.com/compute.AttachedDisk), {...}`],
    ['map value not a string', (b) => (b.properties.labels = { a: 1 }), `Invalid value at 'instance_template_resource.properties.labels["a"]' (TYPE_STRING), 1`],
    ['null in a list', (b) => (b.properties.tags.items = [null]), `(TYPE_STRING), null`],
    ['tags fingerprint not base64', (b) => (b.properties.tags.fingerprint = 'not base64!'), `Invalid value at 'instance_template_resource.properties.tags.fingerprint' (TYPE_BYTES), "not base64!"`],
    ['metadata fingerprint not base64', (b) => (b.properties.metadata.fingerprint = '%%%'), `Invalid value at 'instance_template_resource.properties.metadata.fingerprint' (TYPE_BYTES), "%%%"`],
    ['interface fingerprint not base64', (b) => (b.properties.networkInterfaces[0].fingerprint = 'A'), `(TYPE_BYTES), "A"`],
  ];
  for (const [name, mutate, message] of types) {
    test(name, () => {
      const { errors } = errorsOf(mutate);
      assert.equal(errors.length, 1, JSON.stringify(errors));
      assert.ok(errors[0].message.includes(message), errors[0].message);
    });
  }
  test('several bad fields give several entries, each with its path', () => {
    const { errors } = errorsOf((b) => {
      b.name = 'X';
      b.properties.disks[0].initializeParams.diskSizeGb = '5';
      b.properties.scheduling.hostErrorTimeoutSeconds = 7;
      b.properties.tags.items = ['UP'];
    });
    assert.deepEqual(errors.map((e) => e.location).sort(), [
      'resource.name',
      'resource.properties.disks[0].initializeParams.diskSizeGb',
      'resource.properties.scheduling.hostErrorTimeoutSeconds',
      'resource.properties.tags.items[0]',
    ]);
  });
  test('machineType as a URL is deferred: INTERNAL_ERROR when the operation runs', () => {
    const r = errorsOf((b) => (b.properties.machineType = 'zones/us-central1-a/machineTypes/e2-medium'));
    assert.deepEqual(r.errors, []);
    assert.equal(r.deferred.length, 1);
    assert.equal(r.deferred[0].code, 'INTERNAL_ERROR');
    assert.match(r.deferred[0].message, /^Internal error\. Please try again or contact Google Support\. \(Code: '-?\d+'\)$/);
    const full = errorsOf((b) => (b.properties.machineType = 'https://www.googleapis.com/compute/v1/projects/p/zones/us-central1-a/machineTypes/e2-medium'));
    assert.equal(full.deferred[0].code, 'INTERNAL_ERROR');
  });
  test('deferred errors are not reported with synchronous ones', () => {
    const r = errorsOf((b) => { b.properties.machineType = 'zones/z/machineTypes/m'; b.name = 'X'; });
    assert.equal(r.errors.length, 1);
    assert.deepEqual(r.deferred, []);
  });
  test('hostile map keys are own data, not prototypes', () => {
    const b = base();
    b.properties.labels = JSON.parse('{"__proto__": "x", "constructor": "y", "toString": "z"}');
    const { errors } = validateInsertBody(b);
    // __proto__ and toString are not valid label keys; constructor is, and stays a plain string.
    assert.deepEqual(errors.map((e) => e.message.match(/Label key '([^']+)'/)?.[1]), ['__proto__', 'toString']);
    assert.equal(Object.getPrototypeOf(b.properties.labels), Object.prototype);
    b.properties = JSON.parse('{"__proto__": {"machineType": "x"}}');
    assert.match(validateInsertBody(b).errors[0].message, /Unknown name "__proto__"/);
  });
});
