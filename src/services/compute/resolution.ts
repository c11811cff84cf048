import ipaddr from 'ipaddr.js';
import type { Kysely } from 'kysely';
import { HotQuery } from '../../platform/store/hotQuery.ts';
import type { Database } from '../../platform/store/schema.ts';
import { ACCELERATOR_TYPES, CUSTOM_MACHINE_TYPE, MACHINE_TYPES, PUBLIC_IMAGES, REGIONS } from './catalogue.ts';
import { invalidFieldEntry, notFoundEntry } from './errors.ts';
import type { OperationErrorEntry, TemplateReference } from './instanceTemplate/types.ts';
import { LINK_BASE } from './names.ts';
import { type Scope, isGlobal, scopeKey } from './scope.ts';
import { type ParsedRef, parseReference, refPath } from './references.ts';
import type { SourceInstance } from './sourceInstance.ts';
import type { ComputeWorld, WorldKind } from './world.ts';

/** Collections of the references that name world resources, and the permission each implies. */
export const REFERENCE_COLLECTION: Partial<Record<TemplateReference['kind'], { collection: string; scope: 'global' | 'region' | 'zone'; permission: string }>> = {
  network: { collection: 'networks', scope: 'global', permission: 'compute.networks.get' },
  subnetwork: { collection: 'subnetworks', scope: 'region', permission: 'compute.subnetworks.get' },
  image: { collection: 'images', scope: 'global', permission: 'compute.images.get' },
  snapshot: { collection: 'snapshots', scope: 'global', permission: 'compute.snapshots.get' },
  disk: { collection: 'disks', scope: 'zone', permission: 'compute.disks.get' },
  instance: { collection: 'instances', scope: 'zone', permission: 'compute.instances.get' },
  reservation: { collection: 'reservations', scope: 'zone', permission: 'compute.reservations.get' },
};

export interface TemplateScope {
  projectId: string;
  projectNumber: string;
  /** The template's region, or global. */
  scope: Scope;
}

const ALL_ZONES: readonly string[] = [...REGIONS.values()].flat().sort();
const ALL_REGIONS: readonly string[] = [...REGIONS.keys()].sort();

/** The zones a template's zonal references may name: its region's, or every zone for a global template. */
export const zonesOf = (scope: Scope): readonly string[] => (isGlobal(scope) ? ALL_ZONES : (REGIONS.get(scope.name) ?? []));
/** The regions a template's regional references may name: its own, or every region for a global template. */
const regionsOf = (scope: Scope): readonly string[] => (isGlobal(scope) ? ALL_REGIONS : [scope.name]);
/** `in region 'R'` or, for a global template, `in any region`. */
const whereIn = (scope: Scope) => (isGlobal(scope) ? 'in any region' : `in region '${scope.name}'`);

export interface Resolution {
  errors: OperationErrorEntry[];
  /** Full links of the references, keyed by field path. */
  links: Map<string, string>;
}

const FULL_URL = /^(?:https?:)?\/\//;
const isPublicImageProject = (project: string) => PUBLIC_IMAGES.has(project);

/** Parses a reference with the template's project and region as defaults. */
export function parseTemplateRef(ref: TemplateReference, scope: TemplateScope): ParsedRef | undefined {
  const spec = REFERENCE_COLLECTION[ref.kind];
  if (!spec) return undefined;
  // A global template has no region to default to: a regional reference must name its region.
  const def = spec.scope === 'global' || (spec.scope === 'region' && isGlobal(scope.scope)) ? 'global' : spec.scope === 'region' ? scopeKey(scope.scope) : `zones/*`;
  return parseReference(ref.value, spec.collection, { project: scope.projectId, scope: def });
}

/** Whether a reference's target lives in a public image project (readable by everybody). */
export function isPublicReference(ref: ParsedRef): boolean {
  return ref.collection === 'images' && isPublicImageProject(ref.project);
}

/** The newest usable image of a family (deprecated and obsolete images are skipped). */
export function newestOfFamily(images: readonly Record<string, any>[], family: string): Record<string, any> | undefined {
  let best: Record<string, any> | undefined;
  for (const img of images) {
    if (img.family !== family) continue;
    const state = img.deprecated?.state;
    if (state === 'DEPRECATED' || state === 'OBSOLETE' || state === 'DELETED') continue;
    if (!best || String(img.creationTimestamp ?? '') > String(best.creationTimestamp ?? '')) best = img;
  }
  return best;
}

/** Resolves images (world or public catalogue), by name or by family. */
/** Who is who, as operation completion may ask it: inside the completing transaction (never through a second connection). */
export interface Lookup {
  project(idOrNumber: string): Promise<{ projectNumber: string; projectId: string } | undefined>;
  serviceAccount(email: string): Promise<boolean>;
}

const PROJECT_BY_ID = new HotQuery((db: Kysely<Database>, id: string) => db.selectFrom('projects').select(['project_number', 'project_id']).where('project_id', '=', id));
const PROJECT_BY_NUMBER = new HotQuery((db: Kysely<Database>, n: string) => db.selectFrom('projects').select(['project_number', 'project_id']).where('project_number', '=', n));

/** A Lookup that reads through `db` (the completing transaction), remembering its answers. */
export function lookupIn(db: Kysely<Database>): Lookup {
  const projects = new Map<string, Promise<{ projectNumber: string; projectId: string } | undefined>>();
  return {
    project(idOrNumber) {
      let p = projects.get(idOrNumber);
      if (!p) {
        p = (/^[0-9]+$/.test(idOrNumber) ? PROJECT_BY_NUMBER : PROJECT_BY_ID)
          .rows(db, idOrNumber)
          .then(([r]) => (r ? { projectNumber: r.project_number, projectId: r.project_id } : undefined));
        projects.set(idOrNumber, p);
      }
      return p;
    },
    async serviceAccount(email) {
      const r = await db.selectFrom('service_accounts').select('email').where('email', '=', email.toLowerCase()).executeTakeFirst();
      return r !== undefined;
    },
  };
}

export async function findImage(world: ComputeWorld, dir: Lookup, project: string, name: string, family: boolean, db?: Kysely<Database>): Promise<Record<string, any> | undefined> {
  const pub = PUBLIC_IMAGES.get(project);
  // The public image projects are the built-in catalogue's alone (no store lookups on the insert path).
  const p = pub ? undefined : await dir.project(project);
  const worldImages = p ? await world.all('image', p.projectNumber, ['global'], db) : [];
  const all = [...(pub ?? []), ...worldImages.map(({ location: _l, ...img }) => worldImage(project, img))];
  if (!pub && !p) return undefined;
  return family ? newestOfFamily(all, name) : all.find((i) => i.name === name);
}

/** A world image as `images.get` answers it. */
export function worldImage(project: string, img: Record<string, any>): Record<string, any> {
  return {
    kind: 'compute#image',
    status: 'READY',
    sourceType: 'RAW',
    diskSizeGb: '10',
    architecture: 'X86_64',
    ...img,
    selfLink: `${LINK_BASE}projects/${project}/global/images/${img.name}`,
  };
}

/** The architecture of a catalogue machine type (Arm: the t2a family); undefined when unknown (custom, world, URL). */
function machineArchitecture(machineType: unknown): 'X86_64' | 'ARM64' | undefined {
  if (typeof machineType !== 'string' || !MACHINE_TYPES.has(machineType)) return undefined;
  return machineType.startsWith('t2a-') ? 'ARM64' : 'X86_64';
}

/** Parsed ranges of the world's subnetworks (the same few on every insert), bounded. */
const CIDRS = new Map<string, readonly [ipaddr.IPv4 | ipaddr.IPv6, number] | undefined>();

function cidrOf(text: string): readonly [ipaddr.IPv4 | ipaddr.IPv6, number] | undefined {
  if (CIDRS.has(text)) return CIDRS.get(text);
  let parsed: [ipaddr.IPv4 | ipaddr.IPv6, number] | undefined;
  try {
    // ipaddr.parseCIDR tries IPv6 first and throws for every IPv4 range: ask the right family.
    parsed = text.includes(':') ? ipaddr.IPv6.parseCIDR(text) : ipaddr.IPv4.parseCIDR(text);
  } catch {
    parsed = undefined;
  }
  if (CIDRS.size >= 1000) CIDRS.clear();
  CIDRS.set(text, parsed);
  return parsed;
}

/** Whether an alias range (`/24`, `10.0.0.5`, `10.0.0.0/24`) lies inside `range`. */
function aliasInside(alias: string, range: string): boolean {
  const r = cidrOf(range);
  if (!r) return false;
  if (/^\/\d+$/.test(alias)) return Number(alias.slice(1)) >= r[1];
  const a = alias.includes('/') ? cidrOf(alias) : ipaddr.isValid(alias) ? ([ipaddr.parse(alias), alias.includes(':') ? 128 : 32] as [ipaddr.IPv4 | ipaddr.IPv6, number]) : undefined;
  if (!a || a[0].kind() !== r[0].kind() || a[1] < r[1]) return false;
  return (a[0] as ipaddr.IPv4).match(r as [ipaddr.IPv4, number]);
}

/**
 * `dir`, answering for the template's own project without a lookup: the resolver already reads the
 * world under `scope.projectNumber` (addresses, machine types), and references name their own project
 * most of the time (a store query saved per insert).
 */
function withOwnProject(dir: Lookup, scope: TemplateScope): Lookup {
  const own = Promise.resolve({ projectNumber: scope.projectNumber, projectId: scope.projectId });
  return {
    project: (idOrNumber) => (idOrNumber === scope.projectId || idOrNumber === scope.projectNumber ? own : dir.project(idOrNumber)),
    serviceAccount: (email) => dir.serviceAccount(email),
  };
}

/**
 * Resolves a template's references against the world when its insert operation runs: networks
 * and subnetworks (with inference and the per-mode rules), images, snapshots, disks, instances,
 * reservations, static addresses, machine and accelerator types.
 */
export class TemplateResolver {
  readonly #world: ComputeWorld;
  readonly #db: Kysely<Database>;
  readonly #dir: Lookup;
  readonly #scope: TemplateScope;
  readonly errors: OperationErrorEntry[] = [];
  readonly links = new Map<string, string>();
  /** The instance `sourceInstance` names, once found. */
  sourceInstance: SourceInstance | undefined;
  #body: Record<string, any> = {};

  constructor(world: ComputeWorld, db: Kysely<Database>, dir: Lookup, scope: TemplateScope) {
    this.#world = world;
    this.#db = db;
    this.#dir = withOwnProject(dir, scope);
    this.#scope = scope;
  }

  get #zones(): readonly string[] {
    return zonesOf(this.#scope.scope);
  }

  async resolve(body: Record<string, any>, refs: readonly TemplateReference[]): Promise<Resolution> {
    this.#body = body;
    const nics: any[] = Array.isArray(body.properties?.networkInterfaces) ? body.properties.networkInterfaces : [];
    for (let i = 0; i < nics.length; i++) await this.#networkInterface(nics[i] ?? {}, `resource.properties.networkInterfaces[${i}]`);
    for (const ref of refs) {
      if (ref.kind === 'network' || ref.kind === 'subnetwork' || ref.kind === 'address') continue;
      const lookup = this.#reference(ref);
      if (lookup) await lookup;
    }
    return { errors: this.errors, links: this.links };
  }

  async #projectNumber(project: string): Promise<string | undefined> {
    return (await this.#dir.project(project))?.projectNumber;
  }

  async #network(project: string, name: string): Promise<Record<string, any> | undefined> {
    const pn = await this.#projectNumber(project);
    if (!pn) return undefined;
    const found = await this.#world.get('network', pn, 'global', name, this.#db);
    if (found || name !== 'default') return found;
    // A project comes into being with its `default` network (network/defaultNetwork.ts).
    await this.#world.ensureDefaultNetwork(pn, this.#db);
    return this.#world.get('network', pn, 'global', name, this.#db);
  }

  async #networkInterface(nic: Record<string, any>, loc: string): Promise<void> {
    const s = this.#scope;
    let subnet: Record<string, any> | undefined;
    let subnetRef: ParsedRef | undefined;
    if (typeof nic.subnetwork === 'string' && nic.subnetwork) {
      subnetRef = parseReference(nic.subnetwork, 'subnetworks', { project: s.projectId, scope: scopeKey(s.scope) });
      if (!subnetRef || !subnetRef.scope.startsWith('regions/')) return void this.errors.push(invalidFieldEntry(`${loc}.subnetwork`, nic.subnetwork, 'The URL is malformed.'));
      const pn = await this.#projectNumber(subnetRef.project);
      const region = subnetRef.scope.slice('regions/'.length);
      subnet = pn ? await this.#world.get('subnetwork', pn, region, subnetRef.name, this.#db) : undefined;
      if (pn && !subnet && subnetRef.name === 'default') {
        await this.#world.ensureDefaultNetwork(pn, this.#db);
        subnet = await this.#world.get('subnetwork', pn, region, subnetRef.name, this.#db);
      }
      if (!subnet) return void this.errors.push(notFoundEntry(refPath(subnetRef), `${loc}.subnetwork`));
      if (!isGlobal(s.scope) && subnetRef.scope !== scopeKey(s.scope)) {
        return void this.errors.push(invalidFieldEntry(`${loc}.subnetwork`, nic.subnetwork, `The subnetwork must be in the region of the instance template ('${s.scope.name}').`));
      }
      this.links.set(`${loc}.subnetwork`, LINK_BASE + refPath(subnetRef));
    }
    let netRef: ParsedRef | undefined;
    if (typeof nic.network === 'string' && nic.network) {
      netRef = parseReference(nic.network, 'networks', { project: s.projectId, scope: 'global' });
      if (!netRef || netRef.scope !== 'global') return void this.errors.push(invalidFieldEntry(`${loc}.network`, nic.network, 'The URL is malformed.'));
    } else if (subnet && subnetRef) {
      netRef = parseReference(String(subnet.network), 'networks', { project: subnetRef.project, scope: 'global' });
    } else {
      netRef = { project: s.projectId, scope: 'global', collection: 'networks', name: 'default' };
    }
    if (!netRef) return void this.errors.push(invalidFieldEntry(`${loc}.subnetwork`, String(nic.subnetwork), 'The network of the subnetwork is malformed.'));
    const network = await this.#network(netRef.project, netRef.name);
    if (!network) return void this.errors.push(notFoundEntry(refPath(netRef), `${loc}.network`));
    this.links.set(`${loc}.network`, LINK_BASE + refPath(netRef));
    const legacy = typeof network.IPv4Range === 'string';
    const custom = !legacy && network.autoCreateSubnetworks !== true;
    const netValue = String(nic.network ?? refPath(netRef));
    if (legacy && subnet) return void this.errors.push(invalidFieldEntry(`${loc}.subnetwork`, String(nic.subnetwork), 'Subnetworks are not supported for legacy networks.'));
    if (custom && !subnet) return void this.errors.push(invalidFieldEntry(`${loc}.network`, netValue, 'Subnetwork should be specified for custom subnetmode network'));
    if (subnet && subnetRef) {
      const owner = parseReference(String(subnet.network), 'networks', { project: subnetRef.project, scope: 'global' });
      if (!owner || owner.name !== netRef.name || owner.project !== netRef.project) {
        return void this.errors.push(invalidFieldEntry(`${loc}.subnetwork`, String(nic.subnetwork), `The subnetwork does not belong to the network '${refPath(netRef)}'.`));
      }
      if (nic.stackType === 'IPV4_IPV6' && !(subnet.stackType === 'IPV4_IPV6' || subnet.ipv6CidrRange || subnet.externalIpv6Prefix)) {
        this.errors.push(invalidFieldEntry(`${loc}.stackType`, 'IPV4_IPV6', 'The subnetwork has no IPv6 range.'));
      }
    }
    const aliases: any[] = Array.isArray(nic.aliasIpRanges) ? nic.aliasIpRanges : [];
    for (let j = 0; j < aliases.length; j++) {
      const a = aliases[j] ?? {};
      const at = `${loc}.aliasIpRanges[${j}]`;
      if (legacy) {
        this.errors.push(invalidFieldEntry(`${at}.ipCidrRange`, String(a.ipCidrRange), 'Alias IP ranges are not supported for legacy networks.'));
        continue;
      }
      if (!subnet) continue;
      let range = String(subnet.ipCidrRange);
      if (a.subnetworkRangeName) {
        const secondary = ((subnet.secondaryIpRanges ?? []) as { rangeName: string; ipCidrRange: string }[]).find((r) => r.rangeName === a.subnetworkRangeName);
        if (!secondary) {
          this.errors.push(invalidFieldEntry(`${at}.subnetworkRangeName`, String(a.subnetworkRangeName), `The subnetwork has no secondary range named '${a.subnetworkRangeName}'.`));
          continue;
        }
        range = secondary.ipCidrRange;
      }
      if (typeof a.ipCidrRange === 'string' && !aliasInside(a.ipCidrRange, range)) {
        this.errors.push(invalidFieldEntry(`${at}.ipCidrRange`, a.ipCidrRange, `The alias IP range must be within the subnetwork range '${range}'.`));
      }
    }
    const configs: any[] = Array.isArray(nic.accessConfigs) ? nic.accessConfigs : [];
    for (let j = 0; j < configs.length; j++) await this.#natIp(configs[j] ?? {}, `${loc}.accessConfigs[${j}]`);
  }

  async #natIp(config: Record<string, any>, at: string): Promise<void> {
    if (typeof config.natIP !== 'string' || !config.natIP) return;
    const s = this.#scope;
    const addresses = await this.#world.all('address', s.projectNumber, regionsOf(s.scope), this.#db);
    const address = addresses.find((a) => a.address === config.natIP);
    if (!address) {
      return void this.errors.push(invalidFieldEntry(`${at}.natIP`, config.natIP, `The specified external IP address '${config.natIP}' was not found ${whereIn(s.scope)}.`));
    }
    const tier = address.networkTier ?? 'PREMIUM';
    if ((config.networkTier ?? 'PREMIUM') !== tier) {
      this.errors.push(invalidFieldEntry(`${at}.networkTier`, String(config.networkTier ?? 'PREMIUM'), `The network tier must match the tier of the external IP address '${config.natIP}' (${tier}).`));
    }
  }

  /**
   * Checks one reference: at once when it needs no lookup (a catalogue machine type, the default
   * service account, ...: most of an insert's), else the promise of the check with its lookup.
   */
  #reference(ref: TemplateReference): Promise<void> | undefined {
    if (ref.kind === 'machineType') {
      if (/\//.test(ref.value)) return; // a URL: the validator's deferred INTERNAL_ERROR covers it
      if (MACHINE_TYPES.has(ref.value) || CUSTOM_MACHINE_TYPE.test(ref.value)) return;
      return this.#worldType(ref, 'machineType', 'Machine type');
    }
    if (ref.kind === 'acceleratorType') {
      if (ACCELERATOR_TYPES.has(ref.value)) return;
      return this.#worldType(ref, 'acceleratorType', 'Accelerator type');
    }
    if (ref.kind === 'serviceAccount') {
      if (ref.value === 'default') return;
      return this.#serviceAccount(ref);
    }
    const spec = REFERENCE_COLLECTION[ref.kind];
    if (!spec) return;
    const parsed = parseTemplateRef(ref, this.#scope);
    if (!parsed) return void this.errors.push(invalidFieldEntry(ref.location, ref.value, 'The URL is malformed.'));
    return this.#resource(ref, parsed);
  }

  /** A machine or accelerator type the catalogue does not have: the world's, in the region's zones. */
  async #worldType(ref: TemplateReference, kind: 'machineType' | 'acceleratorType', what: string): Promise<void> {
    const s = this.#scope;
    if ((await this.#world.all(kind, s.projectNumber, this.#zones, this.#db)).some((m) => m.name === ref.value)) return;
    this.errors.push(invalidFieldEntry(ref.location, ref.value, `${what} with name '${ref.value}' does not exist ${whereIn(s.scope)}.`));
  }

  async #serviceAccount(ref: TemplateReference): Promise<void> {
    const m = /^([0-9]+)-compute@developer\.gserviceaccount\.com$/.exec(ref.value);
    if (m ? await this.#dir.project(m[1]) : await this.#dir.serviceAccount(ref.value)) return;
    this.errors.push(notFoundEntry(`projects/${this.#scope.projectId}/serviceAccounts/${ref.value}`, ref.location));
  }

  /** A world (or public image) resource: it must exist; a full URL is stored as the canonical link. */
  async #resource(ref: TemplateReference, parsed: ParsedRef): Promise<void> {
    const found = await this.#find(ref.kind, parsed);
    if (!found) return void this.errors.push(notFoundEntry(refPath(parsed.scope === 'zones/*' ? { ...parsed, scope: `zones/${this.#zones[0]}` } : parsed), ref.location));
    if (ref.kind === 'image') this.#checkImageFit(ref.location, found);
    if (ref.location === 'resource.sourceInstance') {
      // Answered as a full URL whatever the request wrote (a bare name is found in the template's zones).
      const { location, ...instance } = found;
      const zone = parsed.scope === 'zones/*' ? String(location) : parsed.scope.slice('zones/'.length);
      const owner = (await this.#dir.project(parsed.project))!;
      this.sourceInstance = { instance, zone, projectId: owner.projectId, projectNumber: owner.projectNumber };
      return void this.links.set(ref.location, LINK_BASE + refPath({ ...parsed, project: owner.projectId, scope: `zones/${zone}` }));
    }
    if (FULL_URL.test(ref.value) && parsed.scope !== 'zones/*') this.links.set(ref.location, LINK_BASE + refPath(parsed));
  }

  /**
   * A disk made from an image: its size may not be below the image's, and a boot disk's image
   * architecture must be the machine type's (ARM64 for t2a, X86_64 for the catalogue's others).
   */
  #checkImageFit(location: string, image: Record<string, any>): void {
    const m = /^resource\.properties\.disks\[(\d+)\]\.initializeParams\.sourceImage$/.exec(location);
    if (!m) return;
    const disk = this.#body.properties?.disks?.[Number(m[1])];
    const at = `resource.properties.disks[${m[1]}].initializeParams`;
    const size = disk?.initializeParams?.diskSizeGb;
    const imageSize = Number(image.diskSizeGb ?? 0);
    if (size !== undefined && /^[0-9]+$/.test(String(size)) && Number(size) < imageSize) {
      this.errors.push(invalidFieldEntry(`${at}.diskSizeGb`, String(size), `Requested disk size cannot be smaller than the image size (${imageSize} GB)`));
    }
    const machineType = this.#body.properties?.machineType;
    const imageArch = image.architecture ?? 'X86_64';
    const machineArch = machineArchitecture(machineType);
    if (disk?.boot === true && machineArch && imageArch !== machineArch) {
      this.errors.push(
        invalidFieldEntry(
          `${at}.sourceImage`,
          String(disk.initializeParams.sourceImage),
          `The architecture of the image (${imageArch}) does not match the architecture of machine type '${machineType}' (${machineArch}).`,
        ),
      );
    }
  }

  async #find(kind: TemplateReference['kind'], r: ParsedRef): Promise<Record<string, any> | undefined> {
    if (kind === 'image') return findImage(this.#world, this.#dir, r.project, r.name, r.family === true, this.#db);
    const pn = await this.#projectNumber(r.project);
    if (!pn) return undefined;
    const worldKind = kind as WorldKind;
    if (r.scope === 'global') return this.#world.get(worldKind, pn, 'global', r.name, this.#db);
    if (r.scope === 'zones/*') {
      const all = await this.#world.all(worldKind, pn, kind === 'disk' ? [...this.#zones, ...regionsOf(this.#scope.scope)] : this.#zones, this.#db);
      return all.find((x) => x.name === r.name);
    }
    return this.#world.get(worldKind, pn, r.scope.split('/')[1], r.name, this.#db);
  }
}
