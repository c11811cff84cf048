/**
 * The Instance resource's rules, pure: a template's properties merged with an insert's body, the
 * machine type of the zone, the attached disks and the network interfaces as Compute fills them,
 * fingerprints, and how a stored instance is answered (its status on the twin's clock).
 */
import { CUSTOM_MACHINE_TYPE, MACHINE_TYPES } from '../catalogue.ts';
import { invalidField, requiredField, staleFingerprint } from '../errors.ts';
import { checkDescription, checkResourceName, withoutOutputFields } from '../fieldRules.ts';
import { LINK_BASE, defaultServiceAccount } from '../names.ts';
import { parseReference, refPath } from '../references.ts';
import { type Scope, scopeLink, scopePath } from '../scope.ts';
import { type StoredKind, presented } from '../store/reader.ts';
import type { StoredResource } from '../store/resources.ts';

type Obj = Record<string, any>;

/** The fingerprint Compute gives empty labels, metadata and tags. */
export const EMPTY_FINGERPRINT = '42WmSpB8rSM=';

/** Fields Compute sets on an instance: a body may carry them back, they are not the caller's. */
const OUTPUT = ['status', 'statusMessage', 'zone', 'cpuPlatform', 'labelFingerprint', 'fingerprint', 'lastStartTimestamp', 'lastStopTimestamp', 'lastSuspendedTimestamp', 'startRestricted', 'satisfiesPzi', 'satisfiesPzs', 'resourceStatus'];

export const instancePath = (project: string, zone: string, name: string) => `projects/${project}/zones/${zone}/instances/${name}`;

/**
 * An insert from a template: the template's properties, each top-level field the body sets
 * replacing the template's (Compute merges them field by field: `labels`, `metadata`, `disks`,
 * `networkInterfaces` each come whole from one side), and the body's name and description.
 */
export function mergeTemplate(properties: Obj, body: Obj): Obj {
  const merged: Obj = { ...properties };
  for (const [k, v] of Object.entries(body)) if (v !== undefined) merged[k] = v;
  return merged;
}

/** A machine type reference (`e2-medium`, `zones/Z/machineTypes/e2-medium`, a URL): its link in the zone, or the 400 Compute answers. */
export function machineTypeLink(value: unknown, projectId: string, zone: string): string {
  if (value === undefined || value === '') throw requiredField('resource.machineType');
  const ref = typeof value === 'string' ? parseReference(value, 'machineTypes', { project: projectId, scope: `zones/${zone}` }) : undefined;
  if (!ref || ref.collection !== 'machineTypes') throw invalidField('resource.machineType', value, 'The URL is malformed.');
  if (ref.scope !== `zones/${zone}`) throw invalidField('resource.machineType', value, `Machine type must be in zone '${zone}'.`);
  if (!MACHINE_TYPES.has(ref.name) && !CUSTOM_MACHINE_TYPE.test(ref.name)) {
    throw invalidField('resource.machineType', value, `Machine type with name '${ref.name}' does not exist in zone '${zone}'.`);
  }
  return `${LINK_BASE}projects/${projectId}/zones/${zone}/machineTypes/${ref.name}`;
}

/** A disk of the body that Compute creates with the instance (`initializeParams`), as the disk's own resource. */
export interface NewDisk {
  name: string;
  body: Obj;
}

/**
 * The body's disks: each either names an existing disk (`source`) or is made with the instance
 * (`initializeParams`; its name the instance's for the boot disk, `NAME-N` otherwise). Answers the
 * attached disks as the instance shows them and the disks to create. Exactly one boot disk.
 */
export function attachedDisks(body: Obj, ctx: { projectId: string; zone: string; instanceLink: string; now: string }): { attached: Obj[]; created: NewDisk[]; sources: string[] } {
  const disks = (body.disks ?? []) as Obj[];
  if (!disks.length) throw invalidField('resource.disks', '[]', 'At least one disk must be specified; the first disk is the boot disk.');
  const attached: Obj[] = [];
  const created: NewDisk[] = [];
  const sources: string[] = [];
  disks.forEach((d, i) => {
    const at = `resource.disks[${i}]`;
    const boot = d.boot === true || (i === 0 && d.boot === undefined);
    if (boot && i !== 0) throw invalidField(`${at}.boot`, true, 'The boot disk must be the first disk.');
    let source: string;
    let sizeGb: string;
    if (d.source !== undefined) {
      const ref = typeof d.source === 'string' ? parseReference(d.source, 'disks', { project: ctx.projectId, scope: `zones/${ctx.zone}` }) : undefined;
      if (!ref || ref.collection !== 'disks') throw invalidField(`${at}.source`, d.source, 'The URL is malformed.');
      if (ref.scope !== `zones/${ctx.zone}`) throw invalidField(`${at}.source`, d.source, `Disk must be in zone '${ctx.zone}'.`);
      source = LINK_BASE + refPath(ref);
      sources.push(refPath(ref));
      sizeGb = '';
    } else {
      const p = (d.initializeParams ?? {}) as Obj;
      const name = p.diskName ?? (boot ? String(body.name) : `${body.name}-${i}`);
      const type = diskTypeLink(p.diskType, ctx.projectId, ctx.zone, `${at}.initializeParams.diskType`);
      sizeGb = String(p.diskSizeGb ?? '10');
      if (!/^[1-9]\d*$/.test(sizeGb)) throw invalidField(`${at}.initializeParams.diskSizeGb`, p.diskSizeGb, 'Must be a positive whole number of GB.');
      source = `${LINK_BASE}projects/${ctx.projectId}/zones/${ctx.zone}/disks/${name}`;
      created.push({
        name,
        body: {
          name,
          sizeGb,
          type,
          ...(p.sourceImage !== undefined ? { sourceImage: imageLink(p.sourceImage, ctx.projectId) } : {}),
          ...(p.sourceSnapshot !== undefined ? { sourceSnapshot: p.sourceSnapshot } : {}),
          ...(p.labels !== undefined ? { labels: p.labels } : {}),
          ...(p.description !== undefined ? { description: p.description } : {}),
        },
      });
    }
    attached.push({
      kind: 'compute#attachedDisk',
      type: d.type ?? 'PERSISTENT',
      mode: d.mode ?? 'READ_WRITE',
      source,
      deviceName: d.deviceName ?? (d.initializeParams?.diskName ?? (d.source !== undefined ? source.slice(source.lastIndexOf('/') + 1) : `persistent-disk-${i}`)),
      index: i,
      boot,
      autoDelete: d.autoDelete ?? false,
      interface: d.interface ?? 'SCSI',
      ...(sizeGb ? { diskSizeGb: sizeGb } : {}),
      ...(d.guestOsFeatures ? { guestOsFeatures: d.guestOsFeatures } : {}),
    });
  });
  return { attached, created, sources };
}

function diskTypeLink(value: unknown, projectId: string, zone: string, field: string): string {
  if (value === undefined || value === '') return `${LINK_BASE}projects/${projectId}/zones/${zone}/diskTypes/pd-standard`;
  const ref = typeof value === 'string' ? parseReference(value, 'diskTypes', { project: projectId, scope: `zones/${zone}` }) : undefined;
  if (!ref || ref.collection !== 'diskTypes') throw invalidField(field, value, 'The URL is malformed.');
  return `${LINK_BASE}projects/${projectId}/zones/${zone}/diskTypes/${ref.name}`;
}

const imageLink = (v: unknown, projectId: string) => {
  const ref = typeof v === 'string' ? parseReference(v, 'images', { project: projectId, scope: 'global' }) : undefined;
  return ref ? LINK_BASE + refPath(ref) : v;
};

/** `serviceAccounts[]` with `default` read as the project's Compute Engine default account; the emails an insert must be allowed to act as. */
export function serviceAccountsOf(body: Obj, projectNumber: string): Obj[] {
  return ((body.serviceAccounts ?? []) as Obj[]).map((a, i) => {
    if (typeof a.email !== 'string' || a.email === '') throw requiredField(`resource.serviceAccounts[${i}].email`);
    return { email: a.email === 'default' ? defaultServiceAccount(projectNumber) : a.email, scopes: a.scopes ?? [] };
  });
}

/** The instance to store, before its disks' and interfaces' resolution (the service adds those). */
export function instanceToInsert(input: Obj, ctx: { projectId: string; projectNumber: string; zone: string; fingerprint: () => string }): Obj {
  const body = withoutOutputFields(input, OUTPUT) as Obj;
  const name = checkResourceName(body);
  checkDescription(body);
  const machineType = machineTypeLink(body.machineType, ctx.projectId, ctx.zone);
  const hasLabels = body.labels && Object.keys(body.labels).length > 0;
  return {
    ...body,
    kind: 'compute#instance',
    name,
    machineType,
    canIpForward: body.canIpForward ?? false,
    deletionProtection: body.deletionProtection ?? false,
    startRestricted: false,
    cpuPlatform: 'Intel Broadwell',
    scheduling: { onHostMaintenance: 'MIGRATE', automaticRestart: true, preemptible: false, provisioningModel: 'STANDARD', ...body.scheduling },
    tags: { ...(body.tags?.items?.length ? { items: body.tags.items } : {}), fingerprint: body.tags?.items?.length ? ctx.fingerprint() : EMPTY_FINGERPRINT },
    metadata: { kind: 'compute#metadata', ...(body.metadata?.items?.length ? { items: body.metadata.items } : {}), fingerprint: body.metadata?.items?.length ? ctx.fingerprint() : EMPTY_FINGERPRINT },
    labelFingerprint: hasLabels ? ctx.fingerprint() : EMPTY_FINGERPRINT,
    serviceAccounts: serviceAccountsOf(body, ctx.projectNumber),
    fingerprint: ctx.fingerprint(),
  };
}

/** `setLabels`, `setMetadata`, `setTags`: the fingerprint sent must be the current one (412 otherwise). */
export function checkFingerprint(current: unknown, sent: unknown, field: string): void {
  if (sent !== current) throw staleFingerprint(field);
}

export const INSTANCES_KIND = 'instance';

/**
 * Where an instance is in its life. Writes store the status they lead to and when they began
 * (`statusSinceMs`, kept out of answers by the schema); an operation's completion stores the end
 * status. Between, in delayed mode, an insert reads PROVISIONING for the first half of the delay
 * and STAGING for the second.
 */
export function statusAt(body: Obj, nowMs: number, delayMs: number): string {
  if (body.status === 'PROVISIONING' && typeof body.statusSinceMs === 'number' && nowMs >= body.statusSinceMs + delayMs / 2) return 'STAGING';
  return String(body.status ?? 'RUNNING');
}

/** An instance as Compute answers it. */
export function presentInstance(r: StoredResource, projectId: string, status: string): Obj {
  const zone = r.scope.type === 'zone' ? r.scope.name : '';
  return presented('Instance', r, { status: 'RUNNING', cpuPlatform: 'Intel Broadwell', canIpForward: false, deletionProtection: false, labelFingerprint: EMPTY_FINGERPRINT, startRestricted: false }, {
    status,
    zone: scopeLink(projectId, r.scope),
    machineType: typeof r.body.machineType === 'string' && !r.body.machineType.includes('/') ? `${LINK_BASE}projects/${projectId}/zones/${zone}/machineTypes/${r.body.machineType}` : r.body.machineType,
    selfLink: `${LINK_BASE}${scopePath(projectId, r.scope)}/instances/${r.name}`,
  });
}

/** The kind as the generic reader reads it (the service gives `present` its clock). */
export const instanceKind = (present: (r: StoredResource, projectId: string) => Obj): StoredKind => ({ kind: INSTANCES_KIND, collection: 'instances', schema: 'Instance', aggregatedScopes: ['zone'], present });

export const zoneOf = (s: Scope) => (s.type === 'zone' ? s.name : '');
