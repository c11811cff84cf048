import type { Static } from '@sinclair/typebox';
import ipaddr from 'ipaddr.js';
import type { Kysely } from 'kysely';
import { stableId } from '../../platform/crypto/stableId.ts';
import { WORLD_EPOCH_MS } from '../../platform/store/computeResourcesUpgrade.ts';
import type { Database } from '../../platform/store/schema.ts';
import { REGIONS } from './catalogue.ts';
import { COMPUTE_SCHEMAS } from './discovery/schema.ts';
import { locationOf as locationOfScope, scopeAt } from './scope.ts';
import type { Clock } from '../../platform/clock/clock.ts';
import { type DefaultNetwork, autoSubnetworks } from './network/defaultNetwork.ts';
import { ResourceStore } from './store/resources.ts';
import type { ComputeWorldSchema } from './worldSchema.ts';

export type ComputeWorldDoc = Static<typeof ComputeWorldSchema>;

/** The kinds of world resources, by the section that declares them. */
const SECTIONS = {
  networks: 'network',
  subnetworks: 'subnetwork',
  images: 'image',
  snapshots: 'snapshot',
  disks: 'disk',
  instances: 'instance',
  reservations: 'reservation',
  addresses: 'address',
  machineTypes: 'machineType',
  acceleratorTypes: 'acceleratorType',
} as const;
export type WorldKind = (typeof SECTIONS)[keyof typeof SECTIONS];

/** The discovery schema of each kind's entries. */
const SCHEMA_OF: Record<WorldKind, string> = {
  network: 'Network',
  subnetwork: 'Subnetwork',
  image: 'Image',
  snapshot: 'Snapshot',
  disk: 'Disk',
  instance: 'Instance',
  reservation: 'Reservation',
  address: 'Address',
  machineType: 'MachineType',
  acceleratorType: 'AcceleratorType',
};

/** Fields of an entry that are the world's, not the resource's (`region` / `zone` as names). */
const WORLD_FIELDS: ReadonlySet<string> = new Set(['project', 'region', 'zone']);

type Entry = Record<string, unknown> & { name: string; project: string; region?: string; zone?: string };

/** Where a resource lives: `global`, a region or a zone. */
function locationOf(kind: WorldKind, e: Entry): string {
  if (kind === 'network' || kind === 'image' || kind === 'snapshot') return 'global';
  if (kind === 'subnetwork') return e.region!;
  if (kind === 'address') return e.region ?? 'global';
  if (kind === 'disk') return e.zone ?? e.region ?? '';
  return e.zone!;
}

const regionOfZone = (zone: string) => zone.replace(/-[a-z]$/, '');
const lastSegment = (url: string) => url.slice(url.lastIndexOf('/') + 1);

function validCidr(text: unknown): boolean {
  if (typeof text !== 'string') return false;
  try {
    ipaddr.parseCIDR(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Checks the section (beyond its schema) against the projects the document and the store know;
 * returns problems as `compute.subnetworks[0].region: ...`. Each entry is first read as proto JSON
 * reads the resource (platform/discovery/schemas.ts): numbers and int64 strings coerced to the canonical
 * form (in place: what is written is the normalized entry); unknown fields, values of the wrong
 * type, enum values outside the schema and timestamps that are not RFC 3339 are problems.
 */
export async function checkComputeSection(trx: Kysely<Database>, doc: ComputeWorldDoc, projectNumberOf: (id: string) => string | undefined): Promise<string[]> {
  const problems: string[] = [];
  const networks = new Set<string>();
  for (const n of doc.networks ?? []) {
    const p = projectNumberOf(n.project);
    if (p) networks.add(`${p}/${n.name}`);
  }
  for (const [section, kind] of Object.entries(SECTIONS) as [keyof ComputeWorldDoc, WorldKind][]) {
    const entries = (doc[section] ?? []) as Entry[];
    for (let i = 0; i < entries.length; i++) {
      const at = `compute.${section}[${i}]`;
      const normalized = COMPUTE_SCHEMAS.normalize(SCHEMA_OF[kind], entries[i], at, WORLD_FIELDS);
      problems.push(...normalized.problems);
      const e = (entries[i] = normalized.value as Entry);
      const projectNumber = projectNumberOf(e.project);
      if (!projectNumber) problems.push(`${at}.project: project '${e.project}' does not exist`);
      if (e.region !== undefined && !REGIONS.has(e.region)) problems.push(`${at}.region: unknown region '${e.region}'`);
      if (e.zone !== undefined && !REGIONS.get(regionOfZone(e.zone))?.includes(e.zone)) problems.push(`${at}.zone: unknown zone '${e.zone}'`);
      if (kind === 'disk' && (e.zone === undefined) === (e.region === undefined)) problems.push(`${at}: a disk needs exactly one of zone or region`);
      if (kind === 'network' && e.IPv4Range !== undefined && !validCidr(e.IPv4Range)) problems.push(`${at}.IPv4Range: must be a CIDR range`);
      if (kind === 'address' && !ipaddr.isValid(String(e.address))) problems.push(`${at}.address: must be an IP address`);
      if (kind === 'subnetwork') {
        if (!validCidr(e.ipCidrRange)) problems.push(`${at}.ipCidrRange: must be a CIDR range`);
        for (const [j, r] of ((e.secondaryIpRanges ?? []) as { ipCidrRange: string }[]).entries()) {
          if (!validCidr(r.ipCidrRange)) problems.push(`${at}.secondaryIpRanges[${j}].ipCidrRange: must be a CIDR range`);
        }
        if (projectNumber && !networks.has(`${projectNumber}/${lastSegment(String(e.network))}`)) {
          const stored = await trx
            .selectFrom('compute_resources')
            .select('name')
            .where('kind', '=', 'network')
            .where('project_number', '=', projectNumber)
            .where('location', '=', 'global')
            .where('name', '=', lastSegment(String(e.network)))
            .executeTakeFirst();
          if (!stored) problems.push(`${at}.network: network '${e.network}' is not declared for project '${e.project}'`);
        }
      }
    }
  }
  return problems;
}

/** Upserts every entry (keyed by kind, project, location and name) as an ordinary resource: applying twice is applying once. */
export async function writeComputeSection(trx: Kysely<Database>, doc: ComputeWorldDoc, projectNumberOf: (id: string) => string | undefined): Promise<void> {
  const store = new ResourceStore();
  for (const [section, kind] of Object.entries(SECTIONS) as [keyof ComputeWorldDoc, WorldKind][]) {
    for (const e of (doc[section] ?? []) as Entry[]) {
      const { project, ...body } = e;
      const projectNumber = projectNumberOf(project)!;
      const location = locationOf(kind, e);
      const created = Date.parse(String(body.creationTimestamp ?? ''));
      const creationMs = Number.isFinite(created) ? created : WORLD_EPOCH_MS;
      await store.upsert(trx, { kind, projectNumber, scope: scopeAt(location), name: e.name, id: stableId(`${kind}/${projectNumber}/${location}/${e.name}`), creationMs, body });
      // An auto-mode network has its subnetworks, one per region (those the document declares itself stay as declared).
      if (kind === 'network' && body.autoCreateSubnetworks === true) {
        const subnetworks = autoSubnetworks(e.name).map((sub) => ({
          kind: 'subnetwork',
          projectNumber,
          scope: sub.scope,
          name: e.name,
          id: stableId(`subnetwork/${projectNumber}/${locationOfScope(sub.scope)}/${e.name}`),
          creationMs,
          body: sub.body,
        }));
        await store.insertManyIfAbsent(trx, subnetworks);
      }
    }
  }
}

/**
 * The world's kinds as the template resolver reads them (by kind, project, location and name),
 * over the one resource store: what the world declared and what the API wrote alike.
 */
export class ComputeWorld {
  readonly #db: () => Kysely<Database>;
  readonly #store: ResourceStore;
  readonly #defaults: DefaultNetwork;
  readonly #clock: Clock;

  constructor(db: () => Kysely<Database>, store: ResourceStore, defaults: DefaultNetwork, clock: Clock) {
    this.#db = db;
    this.#store = store;
    this.#defaults = defaults;
    this.#clock = clock;
  }

  /** The project's `default` network as a new project has it, unless it has networks (network/defaultNetwork.ts). */
  ensureDefaultNetwork(projectNumber: string, db = this.#db()): Promise<void> {
    return this.#defaults.ensure(db, projectNumber, this.#clock.nowMs());
  }

  async get(kind: WorldKind, projectNumber: string, location: string, name: string, db = this.#db()): Promise<Record<string, any> | undefined> {
    return (await this.#store.get(db, kind, projectNumber, scopeAt(location), name))?.body;
  }

  /** Every resource of a kind in a project (optionally in some locations). */
  async all(kind: WorldKind, projectNumber: string, locations?: readonly string[], db = this.#db()): Promise<(Record<string, any> & { location: string })[]> {
    const rows = await this.#store.all(db, kind, projectNumber, locations?.map(scopeAt));
    return rows.map((r) => ({ ...r.body, location: locationOfScope(r.scope) }));
  }

}
