/**
 * Every reference an insert body makes to another resource, as written, with its field path: the
 * service resolves each against the world (existence, permissions such as compute.networks.get,
 * network modes, image sizes) and hands resolved URLs back through `ctx.resolvedLinks`.
 */
import { canonicalBody } from './schema/transcode.ts';
import { type Obj, listField, objField, strField } from './rules/common.ts';
import { RESERVATION_NAME_KEY } from './rules/properties.ts';
import type { ReferenceKind, TemplateReference } from './types.ts';

/** The references of bodies already walked (an insert asks at request time and again when its operation runs). */
const WALKED = new WeakMap<object, readonly TemplateReference[]>();

/** Every reference in the body, in body order. `body` should have passed `validateInsertBody`. */
export function templateReferences(body: Record<string, unknown>): readonly TemplateReference[] {
  const t = canonicalBody(body);
  let refs = WALKED.get(t);
  if (!refs) WALKED.set(t, (refs = walk(t)));
  return refs;
}

function walk(t: Record<string, unknown>): TemplateReference[] {
  const refs: TemplateReference[] = [];
  const add = (kind: ReferenceKind, value: unknown, location: string): void => {
    if (typeof value === 'string' && value !== '') refs.push({ kind, value, location });
  };

  add('instance', strField(t, 'sourceInstance'), 'resource.sourceInstance');
  listField(objField(t, 'sourceInstanceParams'), 'diskConfigs').forEach((c, i) => {
    add('image', strField(c as Obj, 'customImage'), `resource.sourceInstanceParams.diskConfigs[${i}].customImage`);
  });

  const p = objField(t, 'properties');
  if (!p) return refs;
  const at = 'resource.properties';
  add('machineType', strField(p, 'machineType'), `${at}.machineType`);

  listField(p, 'networkInterfaces').forEach((n, i) => {
    const nic = n as Obj;
    const base = `${at}.networkInterfaces[${i}]`;
    add('network', strField(nic, 'network'), `${base}.network`);
    add('subnetwork', strField(nic, 'subnetwork'), `${base}.subnetwork`);
    add('networkAttachment', strField(nic, 'networkAttachment'), `${base}.networkAttachment`);
    listField(nic, 'accessConfigs').forEach((a, j) => add('address', strField(a as Obj, 'natIP'), `${base}.accessConfigs[${j}].natIP`));
    listField(nic, 'ipv6AccessConfigs').forEach((a, j) => add('address', strField(a as Obj, 'externalIpv6'), `${base}.ipv6AccessConfigs[${j}].externalIpv6`));
  });

  listField(p, 'disks').forEach((d, i) => {
    const disk = d as Obj;
    const base = `${at}.disks[${i}]`;
    add('disk', strField(disk, 'source'), `${base}.source`);
    const init = objField(disk, 'initializeParams');
    add('image', strField(init, 'sourceImage'), `${base}.initializeParams.sourceImage`);
    add('snapshot', strField(init, 'sourceSnapshot'), `${base}.initializeParams.sourceSnapshot`);
    listField(init, 'resourcePolicies').forEach((r, j) => add('resourcePolicy', r, `${base}.initializeParams.resourcePolicies[${j}]`));
  });

  listField(p, 'guestAccelerators').forEach((a, i) => add('acceleratorType', strField(a as Obj, 'acceleratorType'), `${at}.guestAccelerators[${i}].acceleratorType`));
  listField(p, 'serviceAccounts').forEach((a, i) => add('serviceAccount', strField(a as Obj, 'email'), `${at}.serviceAccounts[${i}].email`));

  const ra = objField(p, 'reservationAffinity');
  if (strField(ra, 'consumeReservationType') === 'SPECIFIC_RESERVATION' && strField(ra, 'key') === RESERVATION_NAME_KEY) {
    listField(ra, 'values').forEach((v, i) => add('reservation', v, `${at}.reservationAffinity.values[${i}]`));
  }
  listField(p, 'resourcePolicies').forEach((r, i) => add('resourcePolicy', r, `${at}.resourcePolicies[${i}]`));
  return refs;
}
