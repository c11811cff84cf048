/**
 * Rules of the InstanceTemplate resource itself (name, sourceInstance, sourceInstanceParams) and
 * of the general fields of `properties` (tags, labels, machineType, accelerators, service
 * accounts, reservation affinity, shielded / confidential / advanced machine settings, policies).
 * Network interfaces, disks, scheduling and metadata have their own files.
 */
import { createHash } from 'node:crypto';
import {
  type Findings,
  type Obj,
  MALFORMED_URL,
  NAME,
  NAME_REGEX_TEXT,
  PROJECT,
  boolField,
  checkBareName,
  checkLabels,
  checkName,
  listField,
  mapEntries,
  numField,
  objField,
  parseRef,
  strField,
} from './common.ts';

export const MAX_TAGS = 64;
export const MAX_SERVICE_ACCOUNTS = 1;
export const RESERVATION_NAME_KEY = 'compute.googleapis.com/reservation-name';

const EMAIL = /^[^@\s/]{1,64}@[^@\s/]{1,255}\.[^@\s/]+$/;
const SCOPE_URL = /^https:\/\/www\.googleapis\.com\/auth\/[A-Za-z0-9._-]+$/;

/** The signed decimal code Compute's internal errors quote, deterministic from what failed. */
function internalErrorCode(what: string): string {
  return createHash('sha256').update(what).digest().readBigInt64BE(0).toString();
}

/** `resource.name`, `resource.sourceInstance`, `resource.sourceInstanceParams`. */
export function checkTemplate(f: Findings, t: Obj): void {
  const name = strField(t, 'name');
  if (name === undefined || name === '') f.required('resource.name');
  else checkName(f, 'resource.name', name);

  const source = strField(t, 'sourceInstance');
  if (source !== undefined && source !== '' && !parseRef(source, 'zones', 'instances')) {
    f.invalid('resource.sourceInstance', source, MALFORMED_URL);
  }
  const params = objField(t, 'sourceInstanceParams');
  if (params && !source) {
    f.invalid('resource.sourceInstanceParams', '', 'sourceInstanceParams can only be specified together with sourceInstance.');
  }
  checkDiskConfigs(f, listField(params, 'diskConfigs'));
  if (objField(t, 'properties') === undefined && !source) f.required('resource.properties');
}

/** `instantiateFrom` spellings: the API's (`SOURCE_IMAGE`) and gcloud's (`source-image`). */
export function canonicalInstantiateFrom(v: string): string {
  return /^[a-z]+(?:-[a-z]+)*$/.test(v) ? v.toUpperCase().replace(/-/g, '_') : v;
}

function checkDiskConfigs(f: Findings, configs: unknown[]): void {
  const devices = new Set<string>();
  configs.forEach((c, i) => {
    const at = `resource.sourceInstanceParams.diskConfigs[${i}]`;
    const cfg = c as Obj;
    const device = strField(cfg, 'deviceName');
    if (device === undefined || device === '') f.required(`${at}.deviceName`);
    else if (devices.has(device)) f.invalid(`${at}.deviceName`, device, `Duplicate disk config for device '${device}'.`);
    else devices.add(device);
    const from = strField(cfg, 'instantiateFrom');
    const custom = strField(cfg, 'customImage');
    const canonical = from === undefined ? undefined : canonicalInstantiateFrom(from);
    if (canonical === 'CUSTOM_IMAGE') {
      if (!custom) f.invalid(`${at}.customImage`, '', 'customImage must be specified when instantiateFrom is custom-image.');
      else if (!isImageRef(custom)) f.invalid(`${at}.customImage`, custom, MALFORMED_URL);
    } else if (custom) {
      f.invalid(`${at}.customImage`, custom, 'customImage can only be specified when instantiateFrom is custom-image.');
    }
  });
}

/** Image references: full or partial URL, by name or `family/F`, or a bare name. */
export function isImageRef(v: string): boolean {
  if (NAME.test(v)) return true;
  if (/^family\/[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?$/.test(v)) return true;
  if (parseRef(v, 'global', 'images')) return true;
  const fam = v.match(/^((?:.*\/)?global\/images)\/family\/([a-z](?:[-a-z0-9]{0,61}[a-z0-9])?)$/);
  return fam !== null && parseRef(`${fam[1]}/${fam[2]}`, 'global', 'images') !== undefined;
}

/** The general fields of `properties`. */
export function checkProperties(f: Findings, p: Obj, sourceInstance: boolean): void {
  const at = 'resource.properties';
  const machineType = strField(p, 'machineType');
  if (machineType === undefined || machineType === '') {
    if (!sourceInstance) f.required(`${at}.machineType`);
  } else if (machineType.includes('/')) {
    // The real service accepts the request and fails the operation (spec, Errors 1).
    f.defer({
      code: 'INTERNAL_ERROR',
      message: `Internal error. Please try again or contact Google Support. (Code: '${internalErrorCode(machineType)}')`,
    });
  } else if (!/^[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?$/.test(machineType)) {
    f.invalid(`${at}.machineType`, machineType, `Must be a match of regex '${NAME_REGEX_TEXT}'`);
  }

  const tags = objField(p, 'tags');
  const items = listField(tags, 'items');
  if (items.length > MAX_TAGS) f.invalid(`${at}.tags.items`, '', `A resource can have at most ${MAX_TAGS} tags; ${items.length} were given.`);
  items.forEach((tag, i) => checkName(f, `${at}.tags.items[${i}]`, tag as string));

  checkLabels(f, `${at}.labels`, mapEntries(p, 'labels'));
  checkResourceManagerTags(f, `${at}.resourceManagerTags`, mapEntries(p, 'resourceManagerTags'));

  listField(p, 'resourcePolicies').forEach((policy, i) => checkBareName(f, `${at}.resourcePolicies[${i}]`, policy as string, 'Resource policy'));

  listField(p, 'guestAccelerators').forEach((a, i) => {
    const acc = a as Obj;
    const type = strField(acc, 'acceleratorType');
    if (type === undefined || type === '') f.required(`${at}.guestAccelerators[${i}].acceleratorType`);
    else checkBareName(f, `${at}.guestAccelerators[${i}].acceleratorType`, type, 'Accelerator type');
    const count = numField(acc, 'acceleratorCount');
    if (count === undefined) f.required(`${at}.guestAccelerators[${i}].acceleratorCount`);
    else if (count < 1) f.invalid(`${at}.guestAccelerators[${i}].acceleratorCount`, count, 'Accelerator count must be greater than 0.');
  });

  checkServiceAccounts(f, listField(p, 'serviceAccounts'));
  checkReservationAffinity(f, objField(p, 'reservationAffinity'));

  const shielded = objField(p, 'shieldedInstanceConfig');
  if (boolField(shielded, 'enableIntegrityMonitoring') === true && boolField(shielded, 'enableVtpm') === false) {
    f.invalid(`${at}.shieldedInstanceConfig.enableIntegrityMonitoring`, true, 'Integrity monitoring cannot be enabled when vTPM is disabled.');
  }

  const confidential = objField(p, 'confidentialInstanceConfig');
  const ctype = strField(confidential, 'confidentialInstanceType');
  if (boolField(confidential, 'enableConfidentialCompute') === true && ctype !== undefined && ctype !== 'SEV' && ctype !== 'CONFIDENTIAL_INSTANCE_TYPE_UNSPECIFIED') {
    f.invalid(`${at}.confidentialInstanceConfig.enableConfidentialCompute`, true, `enableConfidentialCompute cannot be combined with confidentialInstanceType '${ctype}'; set only confidentialInstanceType.`);
  }

  const amf = objField(p, 'advancedMachineFeatures');
  const threads = numField(amf, 'threadsPerCore');
  if (threads !== undefined && (threads < 1 || threads > 2)) {
    f.invalid(`${at}.advancedMachineFeatures.threadsPerCore`, threads, 'Threads per core must be 1 or 2.');
  }
  const visible = numField(amf, 'visibleCoreCount');
  if (visible !== undefined && visible < 1) {
    f.invalid(`${at}.advancedMachineFeatures.visibleCoreCount`, visible, 'Visible core count must be at least 1.');
  }
  const turbo = strField(amf, 'turboMode');
  if (turbo !== undefined && turbo !== '' && turbo !== 'ALL_CORE_MAX') {
    f.invalid(`${at}.advancedMachineFeatures.turboMode`, turbo, "Turbo mode must be 'ALL_CORE_MAX' or unset.");
  }
}

/** `tagKeys/123` -> `tagValues/456` (also the namespaced `ORG_OR_PROJECT/key` / `.../value` forms). */
export function checkResourceManagerTags(f: Findings, location: string, entries: [string, unknown][]): void {
  for (const [key, value] of entries) {
    if (!/^tagKeys\/[0-9]{1,30}$/.test(key) && !/^[a-z0-9][-a-z0-9.:]{0,61}\/[^/\s]{1,63}$/.test(key)) {
      f.invalid(location, '', `Resource manager tag key '${key}' must be of the form tagKeys/{tag_key_id}.`);
    }
    if (typeof value === 'string' && !/^tagValues\/[0-9]{1,30}$/.test(value) && !/^[a-z0-9][-a-z0-9.:]{0,61}\/[^/\s]{1,63}\/[^/\s]{1,63}$/.test(value)) {
      f.invalid(location, '', `Resource manager tag value '${value}' must be of the form tagValues/{tag_value_id}.`);
    }
  }
}

function checkServiceAccounts(f: Findings, accounts: unknown[]): void {
  const at = 'resource.properties.serviceAccounts';
  if (accounts.length > MAX_SERVICE_ACCOUNTS) {
    f.invalid(at, '', `At most ${MAX_SERVICE_ACCOUNTS} service account may be specified.`);
  }
  accounts.forEach((a, i) => {
    const acct = a as Obj;
    const email = strField(acct, 'email');
    if (email === undefined || email === '') f.required(`${at}[${i}].email`);
    else if (email !== 'default' && !EMAIL.test(email)) f.invalid(`${at}[${i}].email`, email, 'Service account email is malformed.');
    listField(acct, 'scopes').forEach((s, j) => {
      if (!SCOPE_URL.test(s as string)) f.invalid(`${at}[${i}].scopes[${j}]`, s, 'Scopes must be full https://www.googleapis.com/auth/... URLs.');
    });
  });
}

const RESERVATION_VALUE = new RegExp(`^(?:(?:projects/${PROJECT}/)?(?:zones/[a-z][-a-z0-9]{0,62}/)?reservations/)?[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?(?:/reservationBlocks/[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?)?$`);

function checkReservationAffinity(f: Findings, ra: Obj | undefined): void {
  if (!ra) return;
  const at = 'resource.properties.reservationAffinity';
  const type = strField(ra, 'consumeReservationType') ?? 'ANY_RESERVATION';
  const key = strField(ra, 'key');
  const values = listField(ra, 'values');
  if (type === 'SPECIFIC_RESERVATION') {
    if (key === undefined || key === '') f.required(`${at}.key`);
    else if (key !== RESERVATION_NAME_KEY) {
      f.invalid(`${at}.key`, key, `The key must be '${RESERVATION_NAME_KEY}' to consume a specific reservation.`);
    }
    if (values.length === 0) f.required(`${at}.values`);
    values.forEach((v, i) => {
      if (!RESERVATION_VALUE.test(v as string)) f.invalid(`${at}.values[${i}]`, v, 'Must be a reservation name or projects/{project}/reservations/{reservation}.');
    });
  } else if ((key !== undefined && key !== '') || values.length > 0) {
    f.invalid(`${at}.consumeReservationType`, type, `Reservation key and values may only be specified with consumeReservationType SPECIFIC_RESERVATION.`);
  }
}

