/**
 * The stored template: what a real GET returns for a valid insert body. Server fields (kind, id,
 * creationTimestamp, selfLink, region), the defaults Compute writes (interface names and stack
 * type, access config type / name / tier, disk type / mode / index / device name / interface,
 * metadata and tags fingerprints, scheduling), resolved links, `default` service account
 * resolved, customer-supplied raw keys dropped (templates do not store them), keys in the order
 * the real API writes them.
 */
import { hash } from 'node:crypto';
import { canonicalBody, setOwn } from './schema/transcode.ts';
import { type Obj, boolField, listField, objField, strField } from './rules/common.ts';
import { DEFAULT_DISK_SIZE_GB } from './rules/disks.ts';
import { canonicalInstantiateFrom } from './rules/properties.ts';
import type { StoredTemplateContext } from './types.ts';

const TEMPLATE_ORDER = ['kind', 'id', 'creationTimestamp', 'name', 'description', 'properties', 'selfLink', 'sourceInstance', 'sourceInstanceParams', 'region'];
const PROPERTIES_ORDER = [
  'description', 'tags', 'resourceManagerTags', 'machineType', 'canIpForward', 'networkInterfaces', 'disks', 'metadata',
  'serviceAccounts', 'scheduling', 'labels', 'guestAccelerators', 'minCpuPlatform', 'reservationAffinity',
  'shieldedInstanceConfig', 'resourcePolicies', 'confidentialInstanceConfig', 'privateIpv6GoogleAccess',
  'advancedMachineFeatures', 'networkPerformanceConfig', 'keyRevocationActionType',
];
const NIC_ORDER = [
  'kind', 'network', 'subnetwork', 'networkIP', 'ipv6Address', 'internalIpv6PrefixLength', 'name', 'accessConfigs',
  'ipv6AccessConfigs', 'aliasIpRanges', 'fingerprint', 'stackType', 'ipv6AccessType', 'queueCount', 'nicType',
  'networkAttachment', 'parentNicName', 'vlan', 'igmpQuery',
];
const ACCESS_ORDER = ['kind', 'type', 'name', 'natIP', 'externalIpv6', 'externalIpv6PrefixLength', 'setPublicPtr', 'publicPtrDomainName', 'networkTier', 'securityPolicy'];
const DISK_ORDER = [
  'kind', 'type', 'mode', 'savedState', 'source', 'deviceName', 'index', 'boot', 'initializeParams', 'autoDelete', 'licenses',
  'interface', 'guestOsFeatures', 'diskEncryptionKey', 'diskSizeGb', 'shieldedInstanceInitialState', 'forceAttach', 'architecture',
];
const INIT_ORDER = [
  'diskName', 'sourceImage', 'diskSizeGb', 'diskType', 'sourceImageEncryptionKey', 'labels', 'sourceSnapshot',
  'sourceSnapshotEncryptionKey', 'description', 'replicaZones', 'resourcePolicies', 'onUpdateAction', 'provisionedIops',
  'licenses', 'architecture', 'resourceManagerTags', 'provisionedThroughput', 'enableConfidentialCompute', 'storagePool',
];
const SCHEDULING_ORDER = [
  'onHostMaintenance', 'automaticRestart', 'preemptible', 'nodeAffinities', 'minNodeCpus', 'locationHint', 'availabilityDomain',
  'provisioningModel', 'instanceTerminationAction', 'hostErrorTimeoutSeconds', 'localSsdRecoveryTimeout', 'onInstanceStopAction',
  'maxRunDuration', 'terminationTime', 'skipGuestOsShutdown',
];

/** A copy of `o` with keys in `order` first, the rest after in their own order. */
function ordered(o: Obj, order: readonly string[]): Obj {
  const out: Obj = {};
  for (const k of order) if (Object.hasOwn(o, k) && o[k] !== undefined) setOwn(out, k, o[k]);
  for (const k of Object.keys(o)) if (!Object.hasOwn(out, k) && o[k] !== undefined) setOwn(out, k, o[k]);
  return out;
}

/** Base64 of 8 bytes, deterministic from the content (as Compute's fingerprints look). */
export function fingerprint(content: unknown): string {
  return hash('sha256', JSON.stringify(content) ?? '', 'buffer').subarray(0, 8).toString('base64');
}

function link(ctx: StoredTemplateContext, path: string, given: string | undefined): string | undefined {
  return ctx.resolvedLinks.get(path) ?? given;
}

/** Drops customer-supplied key material (templates do not store it); keeps KMS keys. */
function storedKey(key: Obj | undefined): Obj | undefined {
  if (!key) return undefined;
  const out: Obj = { ...key };
  delete out.rawKey;
  delete out.rsaEncryptedKey;
  delete out.sha256;
  return Object.keys(out).length ? out : undefined;
}

function accessConfig(ac: Obj, ipv6: boolean): Obj {
  return ordered(
    {
      kind: 'compute#accessConfig',
      ...ac,
      type: strField(ac, 'type') ?? (ipv6 ? 'DIRECT_IPV6' : 'ONE_TO_ONE_NAT'),
      name: strField(ac, 'name') ?? (ipv6 ? 'External IPv6' : 'External NAT'),
      networkTier: strField(ac, 'networkTier') ?? 'PREMIUM',
    },
    ACCESS_ORDER,
  );
}

function networkInterface(nic: Obj, i: number, ctx: StoredTemplateContext): Obj {
  const at = `resource.properties.networkInterfaces[${i}]`;
  const out: Obj = { ...nic, kind: 'compute#networkInterface' };
  out.network = link(ctx, `${at}.network`, strField(nic, 'network'));
  out.subnetwork = link(ctx, `${at}.subnetwork`, strField(nic, 'subnetwork'));
  out.networkAttachment = link(ctx, `${at}.networkAttachment`, strField(nic, 'networkAttachment'));
  out.name = strField(nic, 'name') ?? `nic${i}`;
  out.stackType = strField(nic, 'stackType') ?? 'IPV4_ONLY';
  if (Object.hasOwn(nic, 'accessConfigs')) out.accessConfigs = listField(nic, 'accessConfigs').map((a) => accessConfig(a as Obj, false));
  if (Object.hasOwn(nic, 'ipv6AccessConfigs')) out.ipv6AccessConfigs = listField(nic, 'ipv6AccessConfigs').map((a) => accessConfig(a as Obj, true));
  delete out.fingerprint; // ignored on insert
  return ordered(out, NIC_ORDER);
}

function attachedDisk(disk: Obj, i: number, ctx: StoredTemplateContext): Obj {
  const at = `resource.properties.disks[${i}]`;
  const scratch = strField(disk, 'type') === 'SCRATCH';
  const out: Obj = { ...disk, kind: 'compute#attachedDisk' };
  out.type = strField(disk, 'type') ?? 'PERSISTENT';
  out.mode = strField(disk, 'mode') ?? 'READ_WRITE';
  out.source = link(ctx, `${at}.source`, strField(disk, 'source'));
  if (!scratch) out.deviceName = strField(disk, 'deviceName') ?? `persistent-disk-${i}`;
  out.index = i;
  out.boot = boolField(disk, 'boot') ?? false;
  out.autoDelete = boolField(disk, 'autoDelete') ?? (scratch ? true : false);
  out.interface = strField(disk, 'interface') ?? 'SCSI';
  out.diskEncryptionKey = storedKey(objField(disk, 'diskEncryptionKey'));
  delete out.forceAttach; // input only
  delete out.savedState;
  delete out.licenses;
  delete out.shieldedInstanceInitialState;
  delete out.diskSizeGb;
  const init = objField(disk, 'initializeParams');
  if (init) {
    const p: Obj = { ...init };
    p.sourceImage = link(ctx, `${at}.initializeParams.sourceImage`, strField(init, 'sourceImage'));
    p.sourceSnapshot = link(ctx, `${at}.initializeParams.sourceSnapshot`, strField(init, 'sourceSnapshot'));
    if (p.diskSizeGb === undefined && !scratch && !p.sourceImage && !p.sourceSnapshot) p.diskSizeGb = DEFAULT_DISK_SIZE_GB;
    p.sourceImageEncryptionKey = storedKey(objField(init, 'sourceImageEncryptionKey'));
    p.sourceSnapshotEncryptionKey = storedKey(objField(init, 'sourceSnapshotEncryptionKey'));
    out.initializeParams = ordered(p, INIT_ORDER);
  }
  return ordered(out, DISK_ORDER);
}

function scheduling(s: Obj | undefined): Obj {
  const given = s ?? {};
  const spot = strField(given, 'provisioningModel') === 'SPOT';
  const preemptible = boolField(given, 'preemptible') ?? spot;
  const out: Obj = { ...given };
  out.onHostMaintenance = strField(given, 'onHostMaintenance') ?? (preemptible ? 'TERMINATE' : 'MIGRATE');
  out.automaticRestart = boolField(given, 'automaticRestart') ?? !preemptible;
  out.preemptible = preemptible;
  out.provisioningModel = strField(given, 'provisioningModel') ?? 'STANDARD';
  if (spot && out.instanceTerminationAction === undefined) out.instanceTerminationAction = 'STOP';
  return ordered(out, SCHEDULING_ORDER);
}

function properties(p: Obj, ctx: StoredTemplateContext): Obj {
  const out: Obj = { ...p };
  const tags = objField(p, 'tags');
  if (tags) {
    const items = listField(tags, 'items');
    out.tags = { ...(items.length ? { items } : {}), fingerprint: fingerprint(items) };
  }
  out.networkInterfaces = Object.hasOwn(p, 'networkInterfaces')
    ? listField(p, 'networkInterfaces').map((n, i) => networkInterface(n as Obj, i, ctx))
    : undefined;
  out.disks = Object.hasOwn(p, 'disks') ? listField(p, 'disks').map((d, i) => attachedDisk(d as Obj, i, ctx)) : undefined;
  const metadata = objField(p, 'metadata');
  const items = listField(metadata, 'items').map((it) => ordered(it as Obj, ['key', 'value']));
  out.metadata = { kind: 'compute#metadata', fingerprint: fingerprint(items), ...(items.length ? { items } : {}) };
  if (Object.hasOwn(p, 'serviceAccounts')) {
    out.serviceAccounts = listField(p, 'serviceAccounts').map((a, i) => {
      const email = strField(a as Obj, 'email');
      const resolved = link(ctx, `resource.properties.serviceAccounts[${i}].email`, email === 'default' ? ctx.defaultServiceAccount : email);
      return { email: resolved, scopes: listField(a as Obj, 'scopes') };
    });
  }
  out.scheduling = scheduling(objField(p, 'scheduling'));
  return ordered(out, PROPERTIES_ORDER);
}

/** The stored template a real GET returns. `body` must have passed `validateInsertBody`. */
export function buildStoredTemplate(body: Record<string, unknown>, ctx: StoredTemplateContext): Record<string, unknown> {
  const t = canonicalBody(body);
  const out: Obj = {
    kind: 'compute#instanceTemplate',
    id: ctx.id,
    creationTimestamp: ctx.creationTimestamp,
    name: strField(t, 'name'),
    description: strField(t, 'description'),
  };
  const p = objField(t, 'properties');
  if (p) out.properties = properties(p, ctx);
  out.selfLink = ctx.selfLink;
  const source = strField(t, 'sourceInstance');
  if (source) out.sourceInstance = link(ctx, 'resource.sourceInstance', source);
  const params = objField(t, 'sourceInstanceParams');
  if (params) {
    out.sourceInstanceParams = {
      diskConfigs: listField(params, 'diskConfigs').map((c) => {
        const cfg = { ...(c as Obj) };
        if (typeof cfg.instantiateFrom === 'string') cfg.instantiateFrom = canonicalInstantiateFrom(cfg.instantiateFrom);
        return ordered(cfg, ['deviceName', 'instantiateFrom', 'autoDelete', 'customImage']);
      }),
    };
  }
  out.region = ctx.region;
  return ordered(out, TEMPLATE_ORDER);
}

