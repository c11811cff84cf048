/**
 * The world as Compute serves it, read only: one table of the kinds of resources (their
 * collection, scope, permissions, schema and where their entries come from) that the generic
 * get / list / aggregatedList routes read. Entries are the world's `compute` sections and the
 * built-in catalogue (regions, zones, public images, machine and accelerator types), each
 * rendered as the real GET shape (kind, id, creationTimestamp, selfLink, ... and only fields of
 * the resource's schema).
 */
import {
  ACCELERATOR_TYPES,
  MACHINE_TYPES,
  PUBLIC_IMAGES,
  REGIONS,
  ZONES,
  acceleratorTypeResource,
  machineTypeResource,
  regionResource,
  stableId,
  zoneResource,
} from './catalogue.ts';
import { COMPUTE_SCHEMAS } from './discovery/schema.ts';
import { LINK_BASE } from './names.ts';
import type { ComputeWorld, WorldKind } from './world.ts';

/**
 * `project`: `projects/P/zones` (zones, regions); `global`: `projects/P/global/C`;
 * `regional`: `projects/P/regions/R/C`; `zonal`: `projects/P/zones/Z/C`.
 */
export type ResourceScope = 'project' | 'global' | 'regional' | 'zonal';

/** What a source is asked: the project, and the locations to read (undefined: all of the scope's). */
export interface SourceQuery {
  projectId: string;
  projectNumber: string;
  locations?: readonly string[];
}

/** A rendered resource and where it lives (`global`, a region or a zone name). */
export interface Located {
  location: string;
  resource: Record<string, unknown>;
}

export interface ResourceKind {
  /** The discovery resource: `networks`, `regionDisks`, `globalAddresses`, ... (method ids are `compute.<resource>.<method>`). */
  resource: string;
  /** The path segment of the collection: `networks`, `disks`, `addresses`, ... */
  collection: string;
  scope: ResourceScope;
  /** The path parameter naming one resource, as the discovery document calls it (`network`, `disk`, ...). */
  param: string;
  /** The response schema of get; the list's is `<schema>List`, the aggregated list's `<schema>AggregatedList`. */
  schema: string;
  /** `compute.networks` -> `compute.networks.get` / `compute.networks.list`. */
  permissions: string;
  /** Whether `aggregated/<collection>` lists it (discovery: the resource has `aggregatedList`). */
  aggregated: boolean;
  /** Images: readable by everyone in the public image projects, and `getFromFamily`. */
  images?: true;
  /** Every resource of the kind in the project, in the asked locations. */
  entries(world: ComputeWorld, q: SourceQuery): Promise<Located[]>;
}

// ---- rendering the world's entries ------------------------------------------------------------

/** The creation time of world entries that give none. */
const WORLD_EPOCH = '2024-01-01T00:00:00.000-08:00';
const projectLink = (project: string) => `${LINK_BASE}projects/${project}`;
const isUrl = (v: string) => /^https?:\/\//.test(v);
/** A reference as a full URL: kept when it is one, else `projects/P/<path>` (a bare name goes below `defaultPath`). */
function linkOf(value: unknown, project: string, defaultPath: string): string | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  if (isUrl(value)) return value;
  if (value.startsWith('projects/')) return LINK_BASE + value;
  if (value.includes('/')) return `${projectLink(project)}/${value}`;
  return `${projectLink(project)}/${defaultPath}/${value}`;
}

type Entry = Record<string, any> & { location: string; name: string };

/** The fields every world resource gets, the kind's defaults, the entry's own fields, then the links. */
function worldResource(kind: string, schema: string, e: Entry, q: SourceQuery, defaults: Record<string, unknown>, links: Record<string, unknown>): Record<string, unknown> {
  const { location, project: _project, zone: _zone, region: _region, ...own } = e;
  return COMPUTE_SCHEMAS.prune(schema, {
    kind: `compute#${kind}`,
    id: stableId(`${kind}/${q.projectNumber}/${location}/${e.name}`),
    creationTimestamp: WORLD_EPOCH,
    ...defaults,
    ...own,
    ...links,
  });
}

const zonal = (collection: string) => (e: Entry, q: SourceQuery) => ({
  zone: `${projectLink(q.projectId)}/zones/${e.location}`,
  selfLink: `${projectLink(q.projectId)}/zones/${e.location}/${collection}/${e.name}`,
});
const regional = (collection: string) => (e: Entry, q: SourceQuery) => ({
  region: `${projectLink(q.projectId)}/regions/${e.location}`,
  selfLink: `${projectLink(q.projectId)}/regions/${e.location}/${collection}/${e.name}`,
});
const global = (collection: string) => (e: Entry, q: SourceQuery) => ({ selfLink: `${projectLink(q.projectId)}/global/${collection}/${e.name}` });

/** Locations of a scope when a query names none. */
function allLocations(scope: ResourceScope): readonly string[] {
  return scope === 'zonal' ? [...ZONES.keys()] : scope === 'regional' ? [...REGIONS.keys()] : ['global'];
}

/** A kind whose entries are the world's `kind` rows in the scope's locations, rendered by `render`. */
function fromWorld(worldKind: WorldKind, scope: ResourceScope, render: (e: Entry, q: SourceQuery) => Record<string, unknown>, extra?: (q: SourceQuery, found: Located[]) => Located[]) {
  return async (world: ComputeWorld, q: SourceQuery): Promise<Located[]> => {
    const locations = q.locations ?? allLocations(scope);
    const rows = await world.all(worldKind, q.projectNumber, locations);
    const found = rows.map((e) => ({ location: e.location, resource: render(e as Entry, q) }));
    return extra ? extra(q, found) : found;
  };
}

const image = (e: Entry, q: SourceQuery) =>
  worldResource('image', 'Image', e, q, { status: 'READY', sourceType: 'RAW', diskSizeGb: '10', architecture: 'X86_64', labelFingerprint: '42WmSpB8rSM=' }, global('images')(e, q));

const diskDefaults = { sizeGb: '10', status: 'READY', labelFingerprint: '42WmSpB8rSM=' };
const regionalDisk = (e: Entry, q: SourceQuery) =>
  worldResource('disk', 'Disk', e, q, diskDefaults, { ...regional('disks')(e, q), type: linkOf(e.type ?? 'pd-standard', q.projectId, `regions/${e.location}/diskTypes`) });

const reservation = (e: Entry, q: SourceQuery) =>
  worldResource('reservation', 'Reservation', e, q, { status: 'READY', specificReservationRequired: false }, zonal('reservations')(e, q));

const worldMachineType = (e: Entry, q: SourceQuery) =>
  worldResource('machineType', 'MachineType', e, q, { guestCpus: 2, memoryMb: 4096, imageSpaceGb: 0, maximumPersistentDisks: 128, maximumPersistentDisksSizeGb: '263168', isSharedCpu: false }, {
    zone: e.location,
    selfLink: `${projectLink(q.projectId)}/zones/${e.location}/machineTypes/${e.name}`,
  });
const worldAcceleratorType = (e: Entry, q: SourceQuery) => worldResource('acceleratorType', 'AcceleratorType', e, q, { maximumCardsPerInstance: 4 }, zonal('acceleratorTypes')(e, q));

/** The catalogue's entries in every asked zone, then the world's. */
function catalogueAndWorld(worldKind: WorldKind, catalogue: (zone: string, q: SourceQuery) => Record<string, unknown>[], render: (e: Entry, q: SourceQuery) => Record<string, unknown>) {
  const world = fromWorld(worldKind, 'zonal', render);
  // Every zone's catalogue of a project (an aggregated list's, 20,000 machine types) is the same on every page: made once.
  const everyZone = new Map<string, Located[]>();
  return async (w: ComputeWorld, q: SourceQuery): Promise<Located[]> => {
    const zones = (q.locations ?? allLocations('zonal')).filter((z) => ZONES.has(z));
    let built = q.locations ? undefined : everyZone.get(q.projectId);
    if (!built) {
      built = zones.flatMap((zone) => catalogue(zone, q).map((resource) => ({ location: zone, resource })));
      if (!q.locations) {
        if (everyZone.size >= 8) everyZone.clear();
        everyZone.set(q.projectId, built);
      }
    }
    const declared = await world(w, q);
    const taken = new Set(declared.map((d) => `${d.location}/${d.resource.name}`));
    return [...(taken.size ? built.filter((b) => !taken.has(`${b.location}/${b.resource.name}`)) : built), ...declared];
  };
}

const MACHINE_TYPE_LIST = [...MACHINE_TYPES.values()];

/** The resources of the world that only the world document writes, as Compute serves them (networks, subnetworks and firewalls have kinds of their own). */
export const RESOURCE_KINDS: readonly ResourceKind[] = [
  {
    resource: 'regions', collection: 'regions', scope: 'project', param: 'region', schema: 'Region', permissions: 'compute.regions', aggregated: false,
    entries: async (_w, q) => [...REGIONS.keys()].filter((r) => !q.locations || q.locations.includes(r)).map((r) => ({ location: 'global', resource: regionResource(r, q.projectId) })),
  },
  {
    resource: 'zones', collection: 'zones', scope: 'project', param: 'zone', schema: 'Zone', permissions: 'compute.zones', aggregated: false,
    entries: async (_w, q) => [...ZONES.keys()].map((z) => ({ location: 'global', resource: zoneResource(z, q.projectId) })),
  },
  {
    resource: 'images', collection: 'images', scope: 'global', param: 'image', schema: 'Image', permissions: 'compute.images', aggregated: false, images: true,
    entries: async (w, q) => {
      const pub = PUBLIC_IMAGES.get(q.projectId);
      return pub ? pub.map((resource) => ({ location: 'global', resource: { ...resource } })) : fromWorld('image', 'global', image)(w, q);
    },
  },
  { resource: 'regionDisks', collection: 'disks', scope: 'regional', param: 'disk', schema: 'Disk', permissions: 'compute.disks', aggregated: false, entries: fromWorld('disk', 'regional', regionalDisk) },
  { resource: 'reservations', collection: 'reservations', scope: 'zonal', param: 'reservation', schema: 'Reservation', permissions: 'compute.reservations', aggregated: true, entries: fromWorld('reservation', 'zonal', reservation) },
  {
    resource: 'machineTypes', collection: 'machineTypes', scope: 'zonal', param: 'machineType', schema: 'MachineType', permissions: 'compute.machineTypes', aggregated: true,
    entries: catalogueAndWorld('machineType', (zone, q) => MACHINE_TYPE_LIST.map((t) => machineTypeResource(t, zone, q.projectId)), worldMachineType),
  },
  {
    resource: 'acceleratorTypes', collection: 'acceleratorTypes', scope: 'zonal', param: 'acceleratorType', schema: 'AcceleratorType', permissions: 'compute.acceleratorTypes', aggregated: true,
    entries: catalogueAndWorld('acceleratorType', (zone, q) => [...ACCELERATOR_TYPES].map(([name, d]) => acceleratorTypeResource(name, d, zone, q.projectId)), worldAcceleratorType),
  },
];

