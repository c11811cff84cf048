/**
 * Templates made from an instance (`sourceInstance` + `sourceInstanceParams.diskConfigs`): the
 * `properties` Compute builds from the world's instance. Disks follow `instantiateFrom`:
 * - default: boot and read-write persistent disks from their source image, read-only disks
 *   attached read-only, local SSDs blank;
 * - `SOURCE_IMAGE` / `SOURCE_IMAGE_FAMILY`: a new disk from the disk's image (or its family);
 * - `CUSTOM_IMAGE`: a new disk from `customImage`;
 * - `ATTACH_READ_ONLY`: the disk itself, read-only; `BLANK`: an empty disk of its type and size;
 * - `DO_NOT_INCLUDE`: left out (never the boot disk).
 * Everything else the instance carries (machine type as a bare name, network interfaces without
 * their addresses, metadata, tags, labels, scheduling, service accounts, accelerators, ...) is copied.
 */
import { invalidFieldEntry } from './errors.ts';
import type { OperationErrorEntry } from './instanceTemplate/types.ts';
import { canonicalInstantiateFrom } from './instanceTemplate/rules/properties.ts';
import { LINK_BASE } from './names.ts';
import { parseReference, refPath } from './references.ts';

type Obj = Record<string, any>;

/** The instance a template is made from, as the world holds it. */
export interface SourceInstance {
  instance: Obj;
  projectId: string;
  projectNumber: string;
  zone: string;
}

/** What building the properties needs to read: the instance's disks and their images. */
export interface SourceLookups {
  disk(projectNumber: string, zone: string, name: string): Promise<Obj | undefined>;
  image(project: string, name: string): Promise<Obj | undefined>;
}

const lastSegment = (v: unknown) => (typeof v === 'string' ? v.slice(v.lastIndexOf('/') + 1) : undefined);
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Instance fields copied into the template's properties as they are (output-only parts dropped below). */
const COPIED = [
  'description', 'canIpForward', 'labels', 'scheduling', 'minCpuPlatform', 'reservationAffinity', 'shieldedInstanceConfig',
  'confidentialInstanceConfig', 'privateIpv6GoogleAccess', 'advancedMachineFeatures', 'networkPerformanceConfig',
  'keyRevocationActionType', 'resourceManagerTags',
] as const;

/** Drops the output-only and per-instance parts of an object copied from the instance (`kind`, fingerprints, ...). */
function withoutOutput(o: Obj, drop: readonly string[] = []): Obj {
  const out: Obj = {};
  for (const [k, v] of Object.entries(o)) if (k !== 'kind' && k !== 'fingerprint' && !drop.includes(k) && v !== undefined) out[k] = v;
  return out;
}

function networkInterface(nic: Obj): Obj {
  // The instance's own addresses (internal IP, ephemeral NAT IP, IPv6 address) are not the template's.
  const out = withoutOutput(nic, ['networkIP', 'ipv6Address', 'internalIpv6PrefixLength', 'ipv6AccessType']);
  if (Array.isArray(nic.accessConfigs)) out.accessConfigs = nic.accessConfigs.filter(isObj).map((a) => withoutOutput(a, ['natIP', 'externalIpv6', 'externalIpv6PrefixLength', 'publicPtrDomainName']));
  if (Array.isArray(nic.ipv6AccessConfigs)) out.ipv6AccessConfigs = nic.ipv6AccessConfigs.filter(isObj).map((a) => withoutOutput(a, ['externalIpv6', 'externalIpv6PrefixLength']));
  return out;
}

/**
 * The properties of a template made from `source`: the request's own `properties` fields, when
 * given, replace the instance's (field by field at the top level). Errors name the field of the
 * request they come from.
 */
export async function propertiesFromInstance(
  source: SourceInstance,
  diskConfigs: readonly Obj[],
  given: Obj | undefined,
  customImageLink: (i: number) => string | undefined,
  lookups: SourceLookups,
): Promise<{ properties?: Obj; errors: OperationErrorEntry[] }> {
  const vm = source.instance;
  const errors: OperationErrorEntry[] = [];
  const p: Obj = {};
  for (const k of COPIED) if (vm[k] !== undefined) p[k] = k === 'scheduling' && isObj(vm[k]) ? withoutOutput(vm[k]) : vm[k];
  const machineType = lastSegment(vm.machineType);
  if (machineType) p.machineType = machineType;
  if (isObj(vm.tags) && Array.isArray(vm.tags.items)) p.tags = { items: vm.tags.items };
  if (isObj(vm.metadata)) p.metadata = { items: Array.isArray(vm.metadata.items) ? vm.metadata.items.filter(isObj).map((it: Obj) => ({ key: it.key, value: it.value })) : [] };
  if (Array.isArray(vm.networkInterfaces)) p.networkInterfaces = vm.networkInterfaces.filter(isObj).map(networkInterface);
  if (Array.isArray(vm.serviceAccounts)) p.serviceAccounts = vm.serviceAccounts.filter(isObj).map((a: Obj) => ({ email: a.email, scopes: Array.isArray(a.scopes) ? a.scopes : [] }));
  if (Array.isArray(vm.guestAccelerators)) {
    p.guestAccelerators = vm.guestAccelerators.filter(isObj).map((g: Obj) => ({ acceleratorType: lastSegment(g.acceleratorType), acceleratorCount: g.acceleratorCount }));
  }
  if (Array.isArray(vm.resourcePolicies)) p.resourcePolicies = vm.resourcePolicies.map(lastSegment);

  const configs = new Map<string, { cfg: Obj; i: number }>();
  diskConfigs.forEach((cfg, i) => configs.set(String(cfg.deviceName), { cfg, i }));
  const disks: Obj[] = Array.isArray(vm.disks) ? vm.disks.filter(isObj) : [];
  const devices = new Set(disks.map((d, i) => String(d.deviceName ?? `persistent-disk-${i}`)));
  for (const [device, { i }] of configs) {
    if (!devices.has(device)) {
      errors.push(invalidFieldEntry(`resource.sourceInstanceParams.diskConfigs[${i}].deviceName`, device, `The source instance has no disk with device name '${device}'.`));
    }
  }
  const out: Obj[] = [];
  for (const [n, d] of disks.entries()) {
    const device = String(d.deviceName ?? `persistent-disk-${n}`);
    const config = configs.get(device);
    const scratch = d.type === 'SCRATCH';
    const readOnly = d.mode === 'READ_ONLY';
    const asked = config?.cfg.instantiateFrom ? canonicalInstantiateFrom(String(config.cfg.instantiateFrom)) : 'DEFAULT';
    const byDefault = asked === 'DEFAULT';
    const from = byDefault ? (scratch ? 'BLANK' : readOnly ? 'ATTACH_READ_ONLY' : 'SOURCE_IMAGE') : asked;
    const at = config ? `resource.sourceInstanceParams.diskConfigs[${config.i}].instantiateFrom` : 'resource.sourceInstance';
    const base: Obj = { type: scratch ? 'SCRATCH' : 'PERSISTENT', boot: d.boot === true, autoDelete: typeof config?.cfg.autoDelete === 'boolean' ? config.cfg.autoDelete : d.autoDelete === true };
    if (!scratch) base.deviceName = device;
    if (typeof d.interface === 'string') base.interface = d.interface;
    if (from === 'DO_NOT_INCLUDE') {
      if (d.boot === true) errors.push(invalidFieldEntry(at, 'DO_NOT_INCLUDE', `The boot disk '${device}' cannot be left out of the template.`));
      continue;
    }
    if (scratch && from !== 'BLANK') {
      errors.push(invalidFieldEntry(at, from, `The local SSD '${device}' can only be created blank.`));
      continue;
    }
    // The disk resource itself (zonal, in the instance's zone): its image, type and size.
    const diskName = lastSegment(d.source);
    const disk = diskName && !scratch ? await lookups.disk(source.projectNumber, source.zone, diskName) : undefined;
    const init: Obj = {};
    const diskType = lastSegment(disk?.type);
    if (diskType) init.diskType = diskType;
    const size = disk?.sizeGb ?? d.diskSizeGb;
    if (size !== undefined) init.diskSizeGb = String(size);
    if (from === 'ATTACH_READ_ONLY') {
      if (!diskName) {
        errors.push(invalidFieldEntry(at, from, `The disk '${device}' cannot be attached: it has no source disk.`));
        continue;
      }
      out.push({ ...base, mode: 'READ_ONLY', source: diskName, autoDelete: false });
      continue;
    }
    const imageRef = typeof disk?.sourceImage === 'string' ? parseReference(disk.sourceImage, 'images', { project: source.projectId, scope: 'global' }) : undefined;
    // By default a read-write data disk made from no image is made blank again.
    if (from === 'BLANK' || (byDefault && !imageRef && d.boot !== true)) {
      out.push({ ...base, mode: 'READ_WRITE', initializeParams: scratch ? { diskType: 'local-ssd', ...(d.diskSizeGb !== undefined ? { diskSizeGb: String(d.diskSizeGb) } : {}) } : init });
      continue;
    }
    let image: string | undefined;
    if (from === 'CUSTOM_IMAGE') image = customImageLink(config!.i);
    else {
      if (!imageRef) {
        errors.push(invalidFieldEntry(at, from, `The disk '${device}' of the source instance has no source image.`));
        continue;
      }
      if (from === 'SOURCE_IMAGE') image = LINK_BASE + refPath(imageRef);
      else {
        const found = await lookups.image(imageRef.project, imageRef.name);
        if (typeof found?.family !== 'string') {
          errors.push(invalidFieldEntry(at, from, `The source image of the disk '${device}' belongs to no image family.`));
          continue;
        }
        image = `${LINK_BASE}projects/${imageRef.project}/global/images/family/${found.family}`;
      }
    }
    out.push({ ...base, mode: 'READ_WRITE', initializeParams: { ...init, sourceImage: image } });
  }
  if (disks.length) p.disks = out;
  if (errors.length) return { errors };
  return { properties: { ...p, ...(given ?? {}) }, errors };
}
