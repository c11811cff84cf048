/**
 * Every reference an insert body makes to another resource, as written, with its field path: the
 * service resolves each against the world (existence, permissions such as compute.networks.get,
 * network modes, image sizes) and hands resolved URLs back through `ctx.resolvedLinks`.
 */
import { canonicalBody } from './schema/transcode.ts';
import { type Obj, listField, objField, strField } from './rules/common.ts';
import { RESERVATION_NAME_KEY } from './rules/properties.ts';
import type { TemplateReference } from './types.ts';

/** The references of bodies already walked (an insert asks at request time and again when its operation runs). */
const WALKED = new WeakMap<object, readonly TemplateReference[]>();

/** Every reference in the body, in body order. `body` should have passed `validateInsertBody`. */
export function templateReferences(body: Record<string, unknown>): readonly TemplateReference[] {
  const t = canonicalBody(body);
  let refs = WALKED.get(t);
  if (!refs) WALKED.set(t, (refs = walk(t)));
  return refs;
}

/** A non-empty string, else undefined. */
function nonEmpty(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/**
 * One pass over the fields that reference something, in body order; a location is built only for
 * a reference present (the walk runs on every insert).
 */
function walk(t: Record<string, unknown>): TemplateReference[] {
  const refs: TemplateReference[] = [];
  let v: string | undefined;

  if ((v = nonEmpty(strField(t, 'sourceInstance')))) refs.push({ kind: 'instance', value: v, location: 'resource.sourceInstance' });
  const configs = listField(objField(t, 'sourceInstanceParams'), 'diskConfigs');
  for (let i = 0; i < configs.length; i++) {
    if ((v = nonEmpty(strField(configs[i] as Obj, 'customImage')))) refs.push({ kind: 'image', value: v, location: `resource.sourceInstanceParams.diskConfigs[${i}].customImage` });
  }

  const p = objField(t, 'properties');
  if (!p) return refs;
  const at = 'resource.properties';
  if ((v = nonEmpty(strField(p, 'machineType')))) refs.push({ kind: 'machineType', value: v, location: `${at}.machineType` });

  const nics = listField(p, 'networkInterfaces');
  for (let i = 0; i < nics.length; i++) {
    const nic = nics[i] as Obj;
    const base = `${at}.networkInterfaces[${i}]`;
    if ((v = nonEmpty(strField(nic, 'network')))) refs.push({ kind: 'network', value: v, location: `${base}.network` });
    if ((v = nonEmpty(strField(nic, 'subnetwork')))) refs.push({ kind: 'subnetwork', value: v, location: `${base}.subnetwork` });
    if ((v = nonEmpty(strField(nic, 'networkAttachment')))) refs.push({ kind: 'networkAttachment', value: v, location: `${base}.networkAttachment` });
    const access = listField(nic, 'accessConfigs');
    for (let j = 0; j < access.length; j++) {
      if ((v = nonEmpty(strField(access[j] as Obj, 'natIP')))) refs.push({ kind: 'address', value: v, location: `${base}.accessConfigs[${j}].natIP` });
    }
    const access6 = listField(nic, 'ipv6AccessConfigs');
    for (let j = 0; j < access6.length; j++) {
      if ((v = nonEmpty(strField(access6[j] as Obj, 'externalIpv6')))) refs.push({ kind: 'address', value: v, location: `${base}.ipv6AccessConfigs[${j}].externalIpv6` });
    }
  }

  const disks = listField(p, 'disks');
  for (let i = 0; i < disks.length; i++) {
    const disk = disks[i] as Obj;
    const base = `${at}.disks[${i}]`;
    if ((v = nonEmpty(strField(disk, 'source')))) refs.push({ kind: 'disk', value: v, location: `${base}.source` });
    const init = objField(disk, 'initializeParams');
    if ((v = nonEmpty(strField(init, 'sourceImage')))) refs.push({ kind: 'image', value: v, location: `${base}.initializeParams.sourceImage` });
    if ((v = nonEmpty(strField(init, 'sourceSnapshot')))) refs.push({ kind: 'snapshot', value: v, location: `${base}.initializeParams.sourceSnapshot` });
    const policies = listField(init, 'resourcePolicies');
    for (let j = 0; j < policies.length; j++) {
      if ((v = nonEmpty(policies[j]))) refs.push({ kind: 'resourcePolicy', value: v, location: `${base}.initializeParams.resourcePolicies[${j}]` });
    }
  }

  const accelerators = listField(p, 'guestAccelerators');
  for (let i = 0; i < accelerators.length; i++) {
    if ((v = nonEmpty(strField(accelerators[i] as Obj, 'acceleratorType')))) refs.push({ kind: 'acceleratorType', value: v, location: `${at}.guestAccelerators[${i}].acceleratorType` });
  }
  const accounts = listField(p, 'serviceAccounts');
  for (let i = 0; i < accounts.length; i++) {
    if ((v = nonEmpty(strField(accounts[i] as Obj, 'email')))) refs.push({ kind: 'serviceAccount', value: v, location: `${at}.serviceAccounts[${i}].email` });
  }

  const ra = objField(p, 'reservationAffinity');
  if (strField(ra, 'consumeReservationType') === 'SPECIFIC_RESERVATION' && strField(ra, 'key') === RESERVATION_NAME_KEY) {
    const values = listField(ra, 'values');
    for (let i = 0; i < values.length; i++) {
      if ((v = nonEmpty(values[i]))) refs.push({ kind: 'reservation', value: v, location: `${at}.reservationAffinity.values[${i}]` });
    }
  }
  const policies = listField(p, 'resourcePolicies');
  for (let i = 0; i < policies.length; i++) {
    if ((v = nonEmpty(policies[i]))) refs.push({ kind: 'resourcePolicy', value: v, location: `${at}.resourcePolicies[${i}]` });
  }
  return refs;
}
