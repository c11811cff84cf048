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

/** An output key order: its keys and their positions. */
interface KeyOrder {
  readonly keys: readonly string[];
  readonly index: ReadonlyMap<string, number>;
}

const keyOrder = (keys: readonly string[]): KeyOrder => ({ keys, index: new Map(keys.map((k, i) => [k, i])) });

const PROPERTIES = keyOrder(PROPERTIES_ORDER);
const NIC = keyOrder(NIC_ORDER);
const ACCESS = keyOrder(ACCESS_ORDER);
const DISK = keyOrder(DISK_ORDER);
const INIT = keyOrder(INIT_ORDER);
const SCHEDULING = keyOrder(SCHEDULING_ORDER);
const METADATA_ITEM = keyOrder(['key', 'value']);
const DISK_CONFIG = keyOrder(['deviceName', 'instantiateFrom', 'autoDelete', 'customImage']);

/**
 * `{ ...given, ...set }` with its keys in `order` first, the rest after in their own order, and
 * undefined values left out (a key `set` sets to undefined is removed). One copy, made directly:
 * the stored template is built on every insert, and a spread copy then reordered into a second
 * copy was a fifth of its cost.
 */
function ordered(given: Obj, order: KeyOrder, set?: Obj): Obj {
  // Only the keys present are visited: placed by position in `slots`, the others written at once after.
  const { keys, index } = order;
  const slots: unknown[] = new Array(keys.length);
  let rest: string[] | undefined;
  for (const k of Object.keys(given)) {
    const i = index.get(k);
    if (i !== undefined) slots[i] = given[k];
    else (rest ??= []).push(k);
  }
  let extra: string[] | undefined;
  if (set !== undefined) {
    for (const k of Object.keys(set)) {
      const i = index.get(k);
      if (i !== undefined) slots[i] = set[k];
      else if (!Object.hasOwn(given, k)) (extra ??= []).push(k);
    }
  }
  const out: Obj = {};
  for (let i = 0; i < keys.length; i++) {
    const v = slots[i];
    if (v !== undefined) out[keys[i]] = v; // the API's field names: never `__proto__`
  }
  if (rest !== undefined) {
    for (const k of rest) {
      const v = set !== undefined && Object.hasOwn(set, k) ? set[k] : given[k];
      if (v !== undefined) setOwn(out, k, v);
    }
  }
  if (extra !== undefined) for (const k of extra) if (set![k] !== undefined) setOwn(out, k, set![k]);
  return out;
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/**
 * Base64 of 8 bytes, deterministic from the content (as Compute's fingerprints look): the first 8
 * bytes of the content's SHA-256. Taken from the digest's own base64 (no Buffers): its first 10
 * characters are those 60 bits; the 11th holds the last 4 bits and 2 of the next byte, cleared.
 */
export function fingerprint(content: unknown): string {
  const digest = hash('sha256', JSON.stringify(content) ?? '', 'base64');
  return digest.slice(0, 10) + BASE64[BASE64.indexOf(digest[10]) & 0b111100] + '=';
}

function link(ctx: StoredTemplateContext, path: string, given: string | undefined): string | undefined {
  return ctx.resolvedLinks.get(path) ?? given;
}

/**
 * The link paths of list entries, made once per position (`resource.properties.disks[1].source`):
 * looked up on every insert, a path built anew was a new string to hash each time.
 */
function pathsAt<T>(made: T[], i: number, make: (i: number) => T): T {
  if (i >= 64) return make(i);
  return (made[i] ??= make(i));
}

const NIC_PATHS: { network: string; subnetwork: string; networkAttachment: string }[] = [];
const nicPaths = (i: number) => {
  const at = `resource.properties.networkInterfaces[${i}]`;
  return { network: `${at}.network`, subnetwork: `${at}.subnetwork`, networkAttachment: `${at}.networkAttachment` };
};
const DISK_PATHS: { source: string; sourceImage: string; sourceSnapshot: string }[] = [];
const diskPaths = (i: number) => {
  const at = `resource.properties.disks[${i}]`;
  return { source: `${at}.source`, sourceImage: `${at}.initializeParams.sourceImage`, sourceSnapshot: `${at}.initializeParams.sourceSnapshot` };
};
const ACCOUNT_PATHS: string[] = [];
const accountPath = (i: number) => `resource.properties.serviceAccounts[${i}].email`;

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
  return ordered(ac, ACCESS, {
    // The body's own `kind`, when it has one, is kept.
    kind: Object.hasOwn(ac, 'kind') ? ac.kind : 'compute#accessConfig',
    type: strField(ac, 'type') ?? (ipv6 ? 'DIRECT_IPV6' : 'ONE_TO_ONE_NAT'),
    name: strField(ac, 'name') ?? (ipv6 ? 'External IPv6' : 'External NAT'),
    networkTier: strField(ac, 'networkTier') ?? 'PREMIUM',
  });
}

function networkInterface(nic: Obj, i: number, ctx: StoredTemplateContext): Obj {
  const paths = pathsAt(NIC_PATHS, i, nicPaths);
  const set: Obj = {
    kind: 'compute#networkInterface',
    network: link(ctx, paths.network, strField(nic, 'network')),
    subnetwork: link(ctx, paths.subnetwork, strField(nic, 'subnetwork')),
    networkAttachment: link(ctx, paths.networkAttachment, strField(nic, 'networkAttachment')),
    name: strField(nic, 'name') ?? `nic${i}`,
    stackType: strField(nic, 'stackType') ?? 'IPV4_ONLY',
    fingerprint: undefined, // ignored on insert
  };
  if (Object.hasOwn(nic, 'accessConfigs')) set.accessConfigs = listField(nic, 'accessConfigs').map((a) => accessConfig(a as Obj, false));
  if (Object.hasOwn(nic, 'ipv6AccessConfigs')) set.ipv6AccessConfigs = listField(nic, 'ipv6AccessConfigs').map((a) => accessConfig(a as Obj, true));
  return ordered(nic, NIC, set);
}

function attachedDisk(disk: Obj, i: number, ctx: StoredTemplateContext): Obj {
  const paths = pathsAt(DISK_PATHS, i, diskPaths);
  const scratch = strField(disk, 'type') === 'SCRATCH';
  const set: Obj = {
    kind: 'compute#attachedDisk',
    type: strField(disk, 'type') ?? 'PERSISTENT',
    mode: strField(disk, 'mode') ?? 'READ_WRITE',
    source: link(ctx, paths.source, strField(disk, 'source')),
    index: i,
    boot: boolField(disk, 'boot') ?? false,
    autoDelete: boolField(disk, 'autoDelete') ?? (scratch ? true : false),
    interface: strField(disk, 'interface') ?? 'SCSI',
    diskEncryptionKey: storedKey(objField(disk, 'diskEncryptionKey')),
    // input only
    forceAttach: undefined,
    savedState: undefined,
    licenses: undefined,
    shieldedInstanceInitialState: undefined,
    diskSizeGb: undefined,
  };
  if (!scratch) set.deviceName = strField(disk, 'deviceName') ?? `persistent-disk-${i}`;
  const init = objField(disk, 'initializeParams');
  if (init) {
    const sourceImage = link(ctx, paths.sourceImage, strField(init, 'sourceImage'));
    const sourceSnapshot = link(ctx, paths.sourceSnapshot, strField(init, 'sourceSnapshot'));
    const p: Obj = {
      sourceImage,
      sourceSnapshot,
      sourceImageEncryptionKey: storedKey(objField(init, 'sourceImageEncryptionKey')),
      sourceSnapshotEncryptionKey: storedKey(objField(init, 'sourceSnapshotEncryptionKey')),
    };
    if (init.diskSizeGb === undefined && !scratch && !sourceImage && !sourceSnapshot) p.diskSizeGb = DEFAULT_DISK_SIZE_GB;
    set.initializeParams = ordered(init, INIT, p);
  }
  return ordered(disk, DISK, set);
}

function scheduling(s: Obj | undefined): Obj {
  const given = s ?? {};
  const spot = strField(given, 'provisioningModel') === 'SPOT';
  const preemptible = boolField(given, 'preemptible') ?? spot;
  const set: Obj = {
    onHostMaintenance: strField(given, 'onHostMaintenance') ?? (preemptible ? 'TERMINATE' : 'MIGRATE'),
    automaticRestart: boolField(given, 'automaticRestart') ?? !preemptible,
    preemptible,
    provisioningModel: strField(given, 'provisioningModel') ?? 'STANDARD',
  };
  if (spot && given.instanceTerminationAction === undefined) set.instanceTerminationAction = 'STOP';
  return ordered(given, SCHEDULING, set);
}

function properties(p: Obj, ctx: StoredTemplateContext): Obj {
  const set: Obj = {};
  const tags = objField(p, 'tags');
  if (tags) {
    const items = listField(tags, 'items');
    set.tags = items.length ? { items, fingerprint: fingerprint(items) } : { fingerprint: fingerprint(items) };
  }
  set.networkInterfaces = Object.hasOwn(p, 'networkInterfaces')
    ? listField(p, 'networkInterfaces').map((n, i) => networkInterface(n as Obj, i, ctx))
    : undefined;
  set.disks = Object.hasOwn(p, 'disks') ? listField(p, 'disks').map((d, i) => attachedDisk(d as Obj, i, ctx)) : undefined;
  const metadata = objField(p, 'metadata');
  const items = listField(metadata, 'items').map((it) => ordered(it as Obj, METADATA_ITEM));
  set.metadata = items.length ? { kind: 'compute#metadata', fingerprint: fingerprint(items), items } : { kind: 'compute#metadata', fingerprint: fingerprint(items) };
  if (Object.hasOwn(p, 'serviceAccounts')) {
    set.serviceAccounts = listField(p, 'serviceAccounts').map((a, i) => {
      const email = strField(a as Obj, 'email');
      const resolved = link(ctx, pathsAt(ACCOUNT_PATHS, i, accountPath), email === 'default' ? ctx.defaultServiceAccount : email);
      return { email: resolved, scopes: listField(a as Obj, 'scopes') };
    });
  }
  set.scheduling = scheduling(objField(p, 'scheduling'));
  return ordered(p, PROPERTIES, set);
}

/** The stored template a real GET returns. `body` must have passed `validateInsertBody`. */
export function buildStoredTemplate(body: Record<string, unknown>, ctx: StoredTemplateContext): Record<string, unknown> {
  const t = canonicalBody(body);
  const p = objField(t, 'properties');
  const source = strField(t, 'sourceInstance');
  const params = objField(t, 'sourceInstanceParams');
  // Every key is the server's, written in the order the real API writes them: kind, id,
  // creationTimestamp, name, description, properties, selfLink, sourceInstance, sourceInstanceParams, region.
  const out: Obj = { kind: 'compute#instanceTemplate', id: ctx.id, creationTimestamp: ctx.creationTimestamp };
  const name = strField(t, 'name');
  if (name !== undefined) out.name = name;
  const description = strField(t, 'description');
  if (description !== undefined) out.description = description;
  if (p) out.properties = properties(p, ctx);
  out.selfLink = ctx.selfLink;
  if (source) {
    const linked = link(ctx, 'resource.sourceInstance', source);
    if (linked !== undefined) out.sourceInstance = linked;
  }
  if (params) {
    out.sourceInstanceParams = {
      diskConfigs: listField(params, 'diskConfigs').map((c) => {
        const cfg = c as Obj;
        const set = typeof cfg.instantiateFrom === 'string' ? { instantiateFrom: canonicalInstantiateFrom(cfg.instantiateFrom) } : undefined;
        return ordered(cfg, DISK_CONFIG, set);
      }),
    };
  }
  if (ctx.region !== undefined) out.region = ctx.region;
  return out;
}
