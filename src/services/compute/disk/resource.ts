/** The Disk and Snapshot resources: what an insert stores and how a stored one is answered. */
import { invalidField } from '../errors.ts';
import { checkDescription, checkResourceName, withoutOutputFields } from '../fieldRules.ts';
import { EMPTY_FINGERPRINT } from '../instance/rules.ts';
import { LINK_BASE } from '../names.ts';
import { parseReference, refPath } from '../references.ts';
import { scopeLink, scopePath } from '../scope.ts';
import { type StoredKind, presented } from '../store/reader.ts';
import type { StoredResource } from '../store/resources.ts';

type Obj = Record<string, any>;

const OUTPUT = ['status', 'zone', 'region', 'users', 'labelFingerprint', 'lastAttachTimestamp', 'lastDetachTimestamp', 'sourceImageId', 'sourceSnapshotId', 'sourceDiskId', 'satisfiesPzi', 'satisfiesPzs'];

export const diskPath = (project: string, zone: string, name: string) => `projects/${project}/zones/${zone}/disks/${name}`;

/** A size in GB as Compute writes it (an int64 string); `field` names it in the 400. */
export function sizeGbOf(v: unknown, field: string): string {
  const text = typeof v === 'number' ? String(v) : v;
  if (typeof text !== 'string' || !/^[1-9]\d{0,5}$/.test(text)) throw invalidField(field, v ?? '', 'Must be a whole number of GB from 1 to 65536.');
  return text;
}

/** An insert's disk (`sourceImage` may also come as the query parameter). */
export function diskToInsert(input: Obj, ctx: { projectId: string; zone: string; sourceImage?: string }): Obj {
  const body = withoutOutputFields(input, OUTPUT) as Obj;
  const name = checkResourceName(body);
  checkDescription(body);
  const image = ctx.sourceImage ?? body.sourceImage;
  const imageRef = typeof image === 'string' ? parseReference(image, 'images', { project: ctx.projectId, scope: 'global' }) : undefined;
  if (image !== undefined && !imageRef) throw invalidField('resource.sourceImage', image, 'The URL is malformed.');
  const typeRef = typeof body.type === 'string' ? parseReference(body.type, 'diskTypes', { project: ctx.projectId, scope: `zones/${ctx.zone}` }) : undefined;
  if (body.type !== undefined && (!typeRef || typeRef.collection !== 'diskTypes')) throw invalidField('resource.type', body.type, 'The URL is malformed.');
  return {
    ...body,
    kind: 'compute#disk',
    name,
    sizeGb: body.sizeGb === undefined ? '10' : sizeGbOf(body.sizeGb, 'resource.sizeGb'),
    type: `${LINK_BASE}projects/${ctx.projectId}/zones/${ctx.zone}/diskTypes/${typeRef?.name ?? 'pd-standard'}`,
    ...(imageRef ? { sourceImage: LINK_BASE + refPath(imageRef) } : {}),
    labelFingerprint: EMPTY_FINGERPRINT,
    physicalBlockSizeBytes: '4096',
  };
}

export function presentDisk(r: StoredResource, projectId: string): Obj {
  const zone = r.scope.type === 'zone' ? r.scope.name : '';
  return presented('Disk', r, { sizeGb: '10', status: 'READY', labelFingerprint: EMPTY_FINGERPRINT, physicalBlockSizeBytes: '4096' }, {
    zone: scopeLink(projectId, r.scope),
    type: typeof r.body.type === 'string' && r.body.type.includes('/') ? r.body.type : `${LINK_BASE}projects/${projectId}/zones/${zone}/diskTypes/${r.body.type ?? 'pd-standard'}`,
    selfLink: `${LINK_BASE}${scopePath(projectId, r.scope)}/disks/${r.name}`,
  });
}

export const DISKS: StoredKind = { kind: 'disk', collection: 'disks', schema: 'Disk', aggregatedScopes: ['zone'], present: presentDisk };

/** A snapshot of a disk, as `createSnapshot` stores it. */
export function snapshotOf(input: Obj, disk: StoredResource, projectId: string): Obj {
  const body = withoutOutputFields(input, ['status', 'sourceDisk', 'sourceDiskId', 'diskSizeGb', 'storageBytes', 'storageBytesStatus', 'labelFingerprint', 'licenses', 'snapshotType']) as Obj;
  const name = checkResourceName(body);
  checkDescription(body);
  const zone = disk.scope.type === 'zone' ? disk.scope.name : '';
  return {
    ...body,
    kind: 'compute#snapshot',
    name,
    status: 'READY',
    sourceDisk: LINK_BASE + diskPath(projectId, zone, disk.name),
    sourceDiskId: disk.id,
    diskSizeGb: String(disk.body.sizeGb ?? '10'),
    storageBytes: '0',
    storageBytesStatus: 'UP_TO_DATE',
    storageLocations: body.storageLocations ?? [zone.split('-')[0]],
    labelFingerprint: EMPTY_FINGERPRINT,
    snapshotType: 'STANDARD',
  };
}

export const SNAPSHOTS: StoredKind = {
  kind: 'snapshot', collection: 'snapshots', schema: 'Snapshot', aggregatedScopes: ['global'],
  present: (r, projectId) => presented('Snapshot', r, { status: 'READY', diskSizeGb: '10', storageBytes: '0', storageBytesStatus: 'UP_TO_DATE', labelFingerprint: EMPTY_FINGERPRINT }, { selfLink: `${LINK_BASE}${scopePath(projectId, r.scope)}/snapshots/${r.name}` }),
};
