/**
 * Rules of `properties.disks[]`: boot disk, source vs initializeParams, sizes, disk types,
 * IOPS / throughput, replica zones, device names, scratch disks, force attach, encryption keys.
 * Whether the image, snapshot or disk exists (and an image's size) is the service's (world) rule.
 */
import { isImageRef, checkResourceManagerTags } from './properties.ts';
import {
  type Findings,
  type Obj,
  MALFORMED_URL,
  NAME,
  PROJECT,
  ZONE_NAME,
  base64Bytes,
  boolField,
  checkBareName,
  checkLabels,
  checkName,
  int64Field,
  listField,
  mapEntries,
  objField,
  parseRef,
  strField,
  zoneRegion,
} from './common.ts';

export const MIN_DISK_SIZE_GB = 10n;
/** Size of a new disk with no source image. */
export const DEFAULT_DISK_SIZE_GB = '500';
export const PROVISIONED_IOPS = { min: 10000n, max: 120000n };
export const MIN_PROVISIONED_THROUGHPUT = 1n;
/** Disk types a template may name (zonal and regional). */
export const DISK_TYPES = new Set([
  'pd-standard',
  'pd-balanced',
  'pd-ssd',
  'pd-extreme',
  'local-ssd',
  'hyperdisk-balanced',
  'hyperdisk-balanced-high-availability',
  'hyperdisk-extreme',
  'hyperdisk-ml',
  'hyperdisk-throughput',
]);

const KMS_KEY = /^projects\/[^/\s]+\/locations\/[^/\s]+\/keyRings\/[^/\s]+\/cryptoKeys\/[^/\s]+(?:\/cryptoKeyVersions\/[0-9]+)?$/;

/** A disk `source`: a zonal disk by name, or a regional disk by URL. */
export function diskSourceKind(v: string): 'zonal' | 'regional' | 'zonal-url' | undefined {
  if (NAME.test(v)) return 'zonal';
  if (parseRef(v, 'regions', 'disks')) return 'regional';
  if (parseRef(v, 'zones', 'disks')) return 'zonal-url';
  return undefined;
}

function isSnapshotRef(v: string): boolean {
  return NAME.test(v) || parseRef(v, 'global', 'snapshots') !== undefined;
}

function isStoragePoolRef(v: string): boolean {
  return NAME.test(v) || parseRef(v, 'zones', 'storagePools') !== undefined;
}

const ZONE_REF = new RegExp(`^(?:https?://(?:www|compute)\\.googleapis\\.com/compute/(?:v1|beta|alpha)/projects/${PROJECT}/|projects/${PROJECT}/)?zones/([a-z]+-[a-z]+[0-9]+-[a-z])$`);

/** A zone by name, `zones/Z`, `projects/P/zones/Z` or full URL; its name. */
export function zoneOf(v: string): string | undefined {
  if (ZONE_NAME.test(v)) return v;
  return ZONE_REF.exec(v)?.[1];
}

function checkKey(f: Findings, at: string, key: Obj | undefined): void {
  if (!key) return;
  const raw = strField(key, 'rawKey');
  const rsa = strField(key, 'rsaEncryptedKey');
  const kms = strField(key, 'kmsKeyName');
  const given = [raw, rsa, kms].filter((v) => v !== undefined && v !== '').length;
  if (given > 1) f.invalid(at, '', 'Only one of rawKey, rsaEncryptedKey and kmsKeyName may be specified.');
  if (raw !== undefined && raw !== '' && base64Bytes(raw) !== 32) {
    f.invalid(`${at}.rawKey`, '', 'The raw key must be a 256-bit key in RFC 4648 base64 encoding.');
  }
  if (rsa !== undefined && rsa !== '' && base64Bytes(rsa) !== 256) {
    f.invalid(`${at}.rsaEncryptedKey`, '', 'The RSA-wrapped key must be a 2048-bit RSA-wrapped key in RFC 4648 base64 encoding.');
  }
  if (kms !== undefined && kms !== '' && !KMS_KEY.test(kms)) {
    f.invalid(`${at}.kmsKeyName`, kms, 'Must be of the form projects/{project}/locations/{location}/keyRings/{ring}/cryptoKeys/{key}.');
  }
}

export function checkDisks(f: Findings, disks: unknown[], required: boolean): void {
  const base = 'resource.properties.disks';
  const bootIndexes = disks.flatMap((d, i) => (boolField(d as Obj, 'boot') === true ? [i] : []));
  if (required && disks.length === 0) f.invalid(base, '', 'Boot disk must be specified.');
  else if (disks.length > 0 && bootIndexes.length === 0) f.invalid(base, '', 'Boot disk must be specified.');
  if (bootIndexes.length > 1) f.invalid(`${base}[${bootIndexes[1]}].boot`, true, 'Only one boot disk may be specified.');
  if (bootIndexes.length >= 1 && bootIndexes[0] !== 0) {
    f.invalid(`${base}[${bootIndexes[0]}].boot`, true, 'Boot disk must be the first disk attached to the instance.');
  }
  const devices = new Set<string>();
  disks.forEach((d, i) => {
    const disk = d as Obj;
    const at = `${base}[${i}]`;
    const boot = boolField(disk, 'boot') === true;
    const scratch = strField(disk, 'type') === 'SCRATCH';
    const source = strField(disk, 'source');
    const init = objField(disk, 'initializeParams');
    const image = strField(init, 'sourceImage');
    const snapshot = strField(init, 'sourceSnapshot');

    if (source && init) f.invalid(at, '', 'Cannot specify both source and initializeParams.');
    if (source) {
      const kind = diskSourceKind(source);
      if (kind === undefined) f.invalid(`${at}.source`, source, MALFORMED_URL);
      else if (kind === 'zonal-url') f.invalid(`${at}.source`, source, 'A zonal disk must be given by name in an instance template.');
      if (boolField(disk, 'forceAttach') === true && kind !== 'regional') {
        f.invalid(`${at}.forceAttach`, true, 'Force attach is only supported for regional disks.');
      }
    } else if (boolField(disk, 'forceAttach') === true) {
      f.invalid(`${at}.forceAttach`, true, 'Force attach is only supported for regional disks.');
    }
    if (!source && !init && !scratch) f.invalid(at, '', 'One of source or initializeParams must be specified.');
    if (boot && !scratch && !source && !image && !snapshot) {
      f.invalid(`${at}.initializeParams`, '', 'A boot disk needs a source image, a source snapshot or a source disk.');
    }
    if (image && snapshot) f.invalid(`${at}.initializeParams`, '', 'Only one of sourceImage and sourceSnapshot may be specified.');
    if (image && !isImageRef(image)) f.invalid(`${at}.initializeParams.sourceImage`, image, MALFORMED_URL);
    if (snapshot && !isSnapshotRef(snapshot)) f.invalid(`${at}.initializeParams.sourceSnapshot`, snapshot, MALFORMED_URL);

    if (scratch) {
      if (boot) f.invalid(`${at}.boot`, true, 'A scratch disk cannot be a boot disk.');
      if (source) f.invalid(`${at}.source`, source, 'A scratch disk cannot have a source.');
      if (image || snapshot) f.invalid(`${at}.initializeParams`, '', 'A scratch disk cannot be created from an image or a snapshot.');
      const type = strField(init, 'diskType');
      if (type !== undefined && type !== 'local-ssd') f.invalid(`${at}.initializeParams.diskType`, type, "A scratch disk's type must be local-ssd.");
      if (strField(disk, 'mode') === 'READ_ONLY') f.invalid(`${at}.mode`, 'READ_ONLY', 'A scratch disk must be READ_WRITE.');
      if (boolField(disk, 'autoDelete') === false) f.invalid(`${at}.autoDelete`, false, 'A scratch disk is always deleted with the instance.');
    }

    const device = strField(disk, 'deviceName');
    if (device !== undefined && device !== '') {
      checkName(f, `${at}.deviceName`, device);
      if (devices.has(device)) f.invalid(`${at}.deviceName`, device, `Device name '${device}' is already used by another disk.`);
      devices.add(device);
    }
    checkKey(f, `${at}.diskEncryptionKey`, objField(disk, 'diskEncryptionKey'));
    if (init) checkInitializeParams(f, `${at}.initializeParams`, init, scratch);
  });
}

function checkInitializeParams(f: Findings, at: string, init: Obj, scratch: boolean): void {
  const name = strField(init, 'diskName');
  if (name !== undefined && name !== '') checkName(f, `${at}.diskName`, name);
  const size = int64Field(init, 'diskSizeGb');
  if (size !== undefined && size < MIN_DISK_SIZE_GB && !(scratch && size === 0n)) {
    f.invalid(`${at}.diskSizeGb`, size.toString(), `Requested disk size cannot be smaller than ${MIN_DISK_SIZE_GB} GB.`);
  }
  const type = strField(init, 'diskType');
  if (type !== undefined && type !== '' && checkBareName(f, `${at}.diskType`, type, 'DiskType') && !DISK_TYPES.has(type)) {
    f.invalid(`${at}.diskType`, type, `Disk type '${type}' is not supported.`);
  }
  const iops = int64Field(init, 'provisionedIops');
  if (iops !== undefined && (iops < PROVISIONED_IOPS.min || iops > PROVISIONED_IOPS.max)) {
    f.invalid(`${at}.provisionedIops`, iops.toString(), `Provisioned IOPS must be between ${PROVISIONED_IOPS.min} and ${PROVISIONED_IOPS.max}.`);
  }
  const throughput = int64Field(init, 'provisionedThroughput');
  if (throughput !== undefined && throughput < MIN_PROVISIONED_THROUGHPUT) {
    f.invalid(`${at}.provisionedThroughput`, throughput.toString(), 'Provisioned throughput must be at least 1 MB per second.');
  }
  const zones = listField(init, 'replicaZones');
  if (zones.length > 0) {
    const parsed = zones.map((z) => (typeof z === 'string' ? zoneOf(z) : undefined));
    if (zones.length !== 2) f.invalid(`${at}.replicaZones`, '', `Exactly two replica zones must be specified; ${zones.length} were given.`);
    parsed.forEach((z, j) => {
      if (z === undefined) f.invalid(`${at}.replicaZones[${j}]`, zones[j], MALFORMED_URL);
    });
    const [a, b] = parsed;
    if (zones.length === 2 && a !== undefined && b !== undefined) {
      if (a === b) f.invalid(`${at}.replicaZones`, '', 'The two replica zones must be different.');
      else if (zoneRegion(a) !== zoneRegion(b)) f.invalid(`${at}.replicaZones`, '', 'The two replica zones must be in the same region.');
      else if (f.region !== undefined && zoneRegion(a) !== f.region) {
        f.invalid(`${at}.replicaZones`, '', `The replica zones must be in region '${f.region}', the region of the template.`);
      }
    }
  }
  checkLabels(f, `${at}.labels`, mapEntries(init, 'labels'));
  checkResourceManagerTags(f, `${at}.resourceManagerTags`, mapEntries(init, 'resourceManagerTags'));
  listField(init, 'resourcePolicies').forEach((p, j) => checkBareName(f, `${at}.resourcePolicies[${j}]`, p as string, 'Resource policy'));
  const pool = strField(init, 'storagePool');
  if (pool !== undefined && pool !== '' && !isStoragePoolRef(pool)) f.invalid(`${at}.storagePool`, pool, MALFORMED_URL);
  checkKey(f, `${at}.sourceImageEncryptionKey`, objField(init, 'sourceImageEncryptionKey'));
  checkKey(f, `${at}.sourceSnapshotEncryptionKey`, objField(init, 'sourceSnapshotEncryptionKey'));
}
