import type { Kysely } from 'kysely';
import type { Clock } from '../../../platform/clock/clock.ts';
import type { Ids } from '../../../platform/crypto/random.ts';
import type { Database } from '../../../platform/store/schema.ts';
import type { Store } from '../../../platform/store/store.ts';
import { invalidField, resourceInUse } from '../errors.ts';
import type { ComputeCall } from '../methods.ts';
import { LINK_BASE } from '../names.ts';
import type { WireOperation } from '../operation/service.ts';
import { readResourceBody } from '../resourceBody.ts';
import { scopePath } from '../scope.ts';
import type { ResourceReader } from '../store/reader.ts';
import type { ResourceStore, StoredResource } from '../store/resources.ts';
import type { ResourceWrites, WritableKind } from '../store/writes.ts';
import { type ResourceUsage, refTarget } from '../usage.ts';
import { scopeKey } from '../scope.ts';
import { AUTO_MODE_RANGES } from './autoMode.ts';
import { type DefaultNetwork, autoSubnetworks } from './defaultNetwork.ts';
import { NETWORKS, isAutoMode, networkPath, networkToInsert, patchedNetwork, presentNetwork } from './resource.ts';
import { stableId } from '../../../platform/crypto/stableId.ts';

export interface NetworkDeps {
  store: Store;
  clock: Clock;
  ids: Ids;
  resources: ResourceStore;
  reader: ResourceReader;
  writes: ResourceWrites;
  usage: ResourceUsage;
  defaults: DefaultNetwork;
}

/** The network a subnetwork row belongs to, as a path (`projects/P/global/networks/n`). */
export const subnetworkNetwork = (r: StoredResource, projectId: string) => refTarget(r.body.network, 'networks', { projectId, scope: 'global' });

/** Whether a subnetwork row is one an auto-mode network made (its name and its region's auto range). */
const isAutoSubnetworkOf = (network: StoredResource, projectId: string) => (r: StoredResource) =>
  r.kind === 'subnetwork' &&
  r.name === network.name &&
  r.scope.type === 'region' &&
  r.body.ipCidrRange === AUTO_MODE_RANGES.get(r.scope.name) &&
  subnetworkNetwork(r, projectId) === networkPath(projectId, network.name);

/**
 * Networks: insert (auto mode with its subnetworks, custom mode, legacy), get, list, patch,
 * switchToCustomMode, and delete (refused while a subnetwork, firewall, instance or template uses
 * the network; an auto-mode network's own subnetworks go with it).
 */
export class Networks {
  readonly #d: NetworkDeps;
  readonly kind: WritableKind;

  constructor(deps: NetworkDeps) {
    this.#d = deps;
    this.kind = {
      ...NETWORKS,
      presentAll: (db, rows, p) => this.#presentAll(db, rows, p),
      afterInsert: (trx, r) => this.#makeAutoSubnetworks(trx, r),
      afterDelete: async (trx, r, p) => {
        for (const s of await deps.resources.mentioning(trx, ['subnetwork'], r.projectNumber, r.name)) {
          if (isAutoSubnetworkOf(r, p.projectId)(s)) await deps.resources.delete(trx, 'subnetwork', s.projectNumber, s.scope, s.id);
        }
      },
    };
    deps.writes.register(this.kind);
  }

  /** The project's networking as a new project has it (see defaultNetwork.ts). */
  ensureDefault(call: ComputeCall): Promise<void> {
    return this.#d.defaults.ensure(this.#d.store.db, call.project.projectNumber, this.#d.clock.nowMs());
  }

  async insert(call: ComputeCall): Promise<WireOperation> {
    const body = readResourceBody('Network', 'network_resource', call.body);
    await this.ensureDefault(call);
    const network = networkToInsert(body, { projectId: call.project.projectId, randomHex: () => this.#d.ids.hex(4) });
    return this.#d.writes.insert(call, this.kind, String(network.name), network);
  }

  async get(call: ComputeCall): Promise<Record<string, unknown>> {
    await this.ensureDefault(call);
    return this.#d.reader.get(call, this.kind, 'network');
  }

  async list(call: ComputeCall): Promise<Record<string, unknown>> {
    await this.ensureDefault(call);
    return this.#d.reader.list(call, this.kind);
  }

  async patch(call: ComputeCall): Promise<WireOperation> {
    const body = readResourceBody('Network', 'network_resource', call.body);
    await this.ensureDefault(call);
    const r = await this.#d.reader.find(call, this.kind, 'network');
    return this.#d.writes.update(call, this.kind, r, patchedNetwork(r.body, body, () => this.#d.ids.hex(4)), 'patch');
  }

  async switchToCustomMode(call: ComputeCall): Promise<WireOperation> {
    await this.ensureDefault(call);
    const r = await this.#d.reader.find(call, this.kind, 'network');
    if (!isAutoMode(r.body)) throw invalidField('network', r.name, 'The network is not in auto subnet mode.');
    return this.#d.writes.update(call, this.kind, r, { ...r.body, autoCreateSubnetworks: false }, 'switchToCustomMode');
  }

  async delete(call: ComputeCall): Promise<WireOperation> {
    await this.ensureDefault(call);
    const r = await this.#d.reader.find(call, this.kind, 'network');
    const path = networkPath(call.project.projectId, r.name);
    const own = isAutoMode(r.body) ? isAutoSubnetworkOf(r, call.project.projectId) : () => false;
    const user = await this.#d.usage.userOf(this.#d.store.db, call.project, path, own);
    if (user) throw resourceInUse('network', path, user);
    // An auto-mode network's own subnetworks go with it, unless something uses one of them.
    if (isAutoMode(r.body)) {
      for (const s of await this.#d.resources.mentioning(this.#d.store.db, ['subnetwork'], r.projectNumber, r.name)) {
        if (!own(s)) continue;
        const subnetworkPath = `${scopePath(call.project.projectId, s.scope)}/subnetworks/${s.name}`;
        const subnetworkUser = await this.#d.usage.userOf(this.#d.store.db, call.project, subnetworkPath);
        if (subnetworkUser) throw resourceInUse('network', path, subnetworkUser);
      }
    }
    return this.#d.writes.delete(call, this.kind, r);
  }

  /** An auto-mode network's subnetworks, one per region, made with it. */
  async #makeAutoSubnetworks(trx: Kysely<Database>, r: StoredResource): Promise<void> {
    if (!isAutoMode(r.body)) return;
    await this.#d.resources.insertManyIfAbsent(
      trx,
      autoSubnetworks(r.name).map((s) => ({
        kind: 'subnetwork',
        projectNumber: r.projectNumber,
        scope: s.scope,
        name: r.name,
        id: stableId(`subnetwork/${r.id}/${scopeKey(s.scope)}`),
        creationMs: r.creationMs,
        body: s.body,
      })),
    );
  }

  /** Networks as answered, each with the links of its subnetworks (one read of the project's subnetworks). */
  async #presentAll(db: Kysely<Database>, rows: readonly StoredResource[], p: { projectId: string; projectNumber: string }): Promise<Record<string, unknown>[]> {
    const byNetwork = new Map<string, string[]>();
    for (const s of await this.#d.resources.all(db, 'subnetwork', p.projectNumber)) {
      const network = subnetworkNetwork(s, p.projectId);
      if (!network) continue;
      if (!byNetwork.has(network)) byNetwork.set(network, []);
      byNetwork.get(network)!.push(`${LINK_BASE}${scopePath(p.projectId, s.scope)}/subnetworks/${s.name}`);
    }
    return rows.map((r) => presentNetwork(r, p.projectId, byNetwork.get(networkPath(p.projectId, r.name)) ?? []));
  }
}
