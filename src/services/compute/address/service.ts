import type { Kysely } from 'kysely';
import type { Ids } from '../../../platform/crypto/random.ts';
import type { Database } from '../../../platform/store/schema.ts';
import type { Store } from '../../../platform/store/store.ts';
import { ZONES } from '../catalogue.ts';
import { invalidField, notFoundEntry, operationFailure, resourceInUse, resourceNotFound } from '../errors.ts';
import { checkDescription, checkResourceName, withoutOutputFields } from '../fieldRules.ts';
import { firstFreeAddress, isIpv4, unusableAddress } from '../instance/ipAllocation.ts';
import { EMPTY_FINGERPRINT } from '../instance/rules.ts';
import type { ComputeCall } from '../methods.ts';
import { LINK_BASE } from '../names.ts';
import type { Completion, WireOperation } from '../operation/service.ts';
import { parseReference, refPath } from '../references.ts';
import { readResourceBody } from '../resourceBody.ts';
import { type Scope, allScopes, inRegion, inZone, scopeLink, scopePath } from '../scope.ts';
import { type StoredKind, presented } from '../store/reader.ts';
import type { ResourceStore, StoredResource } from '../store/resources.ts';
import type { ResourceWrites, WritableKind } from '../store/writes.ts';

type Obj = Record<string, any>;

const OUTPUT = ['status', 'users', 'region', 'labelFingerprint'];

export const ADDRESSES: StoredKind = {
  kind: 'address', collection: 'addresses', schema: 'Address', aggregatedScopes: ['region'],
  present: (r, projectId) => presented('Address', r, { status: 'RESERVED', addressType: 'EXTERNAL', ipVersion: 'IPV4', labelFingerprint: EMPTY_FINGERPRINT }, {
    ...(r.scope.type === 'region' ? { region: scopeLink(projectId, r.scope) } : {}),
    selfLink: `${LINK_BASE}${scopePath(projectId, r.scope)}/addresses/${r.name}`,
  }),
};

/**
 * What internal-address allocation serialises on (`Store.serialize`): an allocation takes it, then
 * reads the taken addresses, then stores its own in the same transaction, so concurrent inserts
 * (in this process or another on the same PostgreSQL database) never get the same address. One key
 * for every subnetwork: a transaction allocating in several never waits on another in a cycle.
 */
export const INTERNAL_ADDRESS_ALLOCATION = 'compute.internalAddressAllocation';

/**
 * The internal addresses of a subnetwork that are taken: its instances' interfaces' and its
 * reserved internal addresses'. `subnetworkLink`: the subnetwork's full link. To allocate one, read
 * them under INTERNAL_ADDRESS_ALLOCATION.
 */
export async function takenInternalAddresses(db: Kysely<Database>, resources: ResourceStore, projectNumber: string, region: string, subnetworkLink: string): Promise<Set<string>> {
  const zones = [...ZONES].filter(([, r]) => r === region).map(([z]) => inZone(z));
  const taken = new Set<string>();
  for (const i of await resources.all(db, 'instance', projectNumber, zones)) {
    for (const n of (i.body.networkInterfaces ?? []) as Obj[]) if (n.subnetwork === subnetworkLink && n.networkIP) taken.add(n.networkIP);
  }
  for (const a of await resources.all(db, 'address', projectNumber, [inRegion(region)])) {
    if (a.body.addressType === 'INTERNAL' && a.body.subnetwork === subnetworkLink && a.body.address) taken.add(a.body.address);
  }
  return taken;
}

/** An ephemeral or reserved external IPv4 address: 34.x.y.z from random bytes. */
export const externalAddress = (ids: Ids) => {
  const b = Buffer.from(ids.hex(3), 'hex');
  return `34.${b[0]}.${b[1]}.${Math.max(1, Math.min(254, b[2]))}`;
};

export interface AddressDeps {
  store: Store;
  ids: Ids;
  resources: ResourceStore;
  reader: { get(c: ComputeCall, k: StoredKind, p: string): Promise<Obj>; list(c: ComputeCall, k: StoredKind): Promise<Obj>; aggregatedList(c: ComputeCall, k: StoredKind): Promise<Obj>; find(c: ComputeCall, k: StoredKind, p: string): Promise<StoredResource> };
  writes: ResourceWrites;
}

/**
 * Addresses, regional (`addresses`) and global (`globalAddresses`): insert (EXTERNAL, or INTERNAL
 * from a subnetwork's range), get, list, aggregatedList, delete (refused while IN_USE). An
 * instance naming a reserved address (`natIP`, `networkIP`) makes it IN_USE with `users[]`.
 */
export class Addresses {
  readonly #d: AddressDeps;
  readonly kind: WritableKind;

  constructor(deps: AddressDeps) {
    this.#d = deps;
    this.kind = { ...ADDRESSES, beforeInsert: (trx, r) => this.#allocate(trx, r) };
    deps.writes.register(this.kind);
  }

  /**
   * An internal address's IP, settled in the inserting transaction under the allocation lock: the
   * one asked for if it is still free (the operation fails otherwise), else the first free one.
   */
  async #allocate(trx: Kysely<Database>, r: StoredResource): Promise<Completion> {
    if (r.body.addressType !== 'INTERNAL' || r.scope.type !== 'region') return undefined;
    const link = String(r.body.subnetwork);
    await this.#d.store.serialize(trx, INTERNAL_ADDRESS_ALLOCATION);
    const subnetwork = await this.#d.resources.get(trx, 'subnetwork', r.projectNumber, r.scope, link.split('/').pop()!);
    if (!subnetwork) return operationFailure([notFoundEntry(link.replace(LINK_BASE, ''))]);
    const range = String(subnetwork.body.ipCidrRange);
    const taken = await takenInternalAddresses(trx, this.#d.resources, r.projectNumber, r.scope.name, link);
    if (r.body.address !== undefined) {
      if (!taken.has(r.body.address)) return undefined;
      return operationFailure([{ code: 'IP_IN_USE_BY_ANOTHER_RESOURCE', message: `IP address '${r.body.address}' is already being used by another resource.` }]);
    }
    const address = firstFreeAddress(range, taken);
    if (!address) return operationFailure([{ code: 'IP_SPACE_EXHAUSTED', message: `IP space of '${link}' is exhausted.` }]);
    r.body = { ...r.body, address };
    return undefined;
  }

  async insert(call: ComputeCall): Promise<WireOperation> {
    const input = readResourceBody('Address', 'address_resource', call.body);
    const body = withoutOutputFields(input, OUTPUT) as Obj;
    const name = checkResourceName(body);
    checkDescription(body);
    const type = body.addressType ?? 'EXTERNAL';
    const out: Obj = { ...body, kind: 'compute#address', name, addressType: type, status: 'RESERVED', labelFingerprint: EMPTY_FINGERPRINT };
    if (call.scope.type === 'global') out.ipVersion = body.ipVersion ?? 'IPV4';
    else if (type === 'EXTERNAL') out.networkTier = body.networkTier ?? 'PREMIUM';
    if (body.address !== undefined && !isIpv4(body.address)) throw invalidField('resource.address', body.address, 'Must be a valid IPv4 address.');
    if (type === 'INTERNAL' && call.scope.type === 'region') {
      const region = call.scope.name;
      const ref = typeof body.subnetwork === 'string' ? parseReference(body.subnetwork, 'subnetworks', { project: call.project.projectId, scope: `regions/${region}` }) : undefined;
      const path = ref ? refPath(ref) : `projects/${call.project.projectId}/regions/${region}/subnetworks/default`;
      const subnetwork = await this.#d.resources.get(this.#d.store.db, 'subnetwork', call.project.projectNumber, inRegion(region), path.split('/').pop()!);
      if (!subnetwork || ref?.scope !== undefined && ref.scope !== `regions/${region}`) throw resourceNotFound(path);
      const link = LINK_BASE + path;
      const taken = await takenInternalAddresses(this.#d.store.db, this.#d.resources, call.project.projectNumber, region, link);
      if (body.address !== undefined) {
        const why = unusableAddress(String(subnetwork.body.ipCidrRange), body.address) ?? (taken.has(body.address) ? `IP address '${body.address}' is already being used by another resource.` : undefined);
        if (why) throw invalidField('resource.address', body.address, why);
      }
      // The first free address is taken when the insert runs (#allocate).
      if (body.address !== undefined) out.address = body.address;
      out.subnetwork = link;
      out.purpose = body.purpose ?? 'GCE_ENDPOINT';
    } else {
      out.address = body.address ?? externalAddress(this.#d.ids);
    }
    return this.#d.writes.insert(call, this.kind, name, out);
  }

  get = (call: ComputeCall) => this.#d.reader.get(call, this.kind, 'address');
  list = (call: ComputeCall) => this.#d.reader.list(call, this.kind);
  aggregatedList = (call: ComputeCall) => this.#d.reader.aggregatedList(call, this.kind);

  async delete(call: ComputeCall): Promise<WireOperation> {
    const r = await this.#d.reader.find(call, this.kind, 'address');
    const users = (r.body.users ?? []) as string[];
    if (r.body.status === 'IN_USE' && users.length) throw resourceInUse('address', `${scopePath(call.project.projectId, r.scope)}/addresses/${r.name}`, users[0].replace(LINK_BASE, ''));
    return this.#d.writes.delete(call, this.kind, r);
  }

  /** The reserved address an instance names in `scopes` (by name, path, link, or its IP), if any. */
  async reserved(db: Kysely<Database>, projectId: string, projectNumber: string, scopes: readonly Scope[], value: string): Promise<StoredResource | undefined> {
    const all = await this.#d.resources.all(db, 'address', projectNumber, scopes);
    if (isIpv4(value)) return all.find((a) => a.body.address === value);
    const ref = parseReference(value, 'addresses', { project: projectId, scope: 'global' });
    return ref ? all.find((a) => a.name === ref.name) : undefined;
  }
}

