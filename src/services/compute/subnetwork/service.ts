import type { Kysely } from 'kysely';
import type { Ids } from '../../../platform/crypto/random.ts';
import type { Database } from '../../../platform/store/schema.ts';
import type { Store } from '../../../platform/store/store.ts';
import { type OperationFailure, computeError, invalidField, operationFailure, resourceInUse, resourceNotFound, staleFingerprint } from '../errors.ts';
import type { ComputeCall } from '../methods.ts';
import { LINK_BASE } from '../names.ts';
import type { Networks } from '../network/service.ts';
import { AUTO_MODE_RANGES } from '../network/autoMode.ts';
import { NETWORKS, isAutoMode } from '../network/resource.ts';
import type { OperationPayload, WireOperation } from '../operation/service.ts';
import { readResourceBody } from '../resourceBody.ts';
import { GLOBAL } from '../scope.ts';
import type { ResourceReader } from '../store/reader.ts';
import type { ResourceStore, StoredResource } from '../store/resources.ts';
import type { ResourceWrites, WritableKind, WriteData } from '../store/writes.ts';
import { type ResourceUsage, refTarget } from '../usage.ts';
import { SUBNETWORKS, expandedRange, networkOfBody, patchedSubnetwork, presentSubnetwork, rangeConflict, subnetworkPath, subnetworkToInsert } from './resource.ts';

export interface SubnetworkDeps {
  store: Store;
  ids: Ids;
  resources: ResourceStore;
  reader: ResourceReader;
  writes: ResourceWrites;
  usage: ResourceUsage;
  networks: Networks;
}

const networkPathOf = (r: StoredResource, projectId: string) => refTarget(r.body.network, 'networks', { projectId, scope: 'global' });

/**
 * Subnetworks: insert (a valid IPv4 range overlapping no other range of its network, in an
 * existing region, on a custom- or auto-mode network), get, list, aggregatedList, patch (with its
 * fingerprint), expandIpCidrRange, setPrivateIpGoogleAccess, delete (refused while an instance or
 * template uses it, and for an auto-mode network's own subnetworks).
 */
export class Subnetworks {
  readonly #d: SubnetworkDeps;
  readonly kind: WritableKind;

  constructor(deps: SubnetworkDeps) {
    this.#d = deps;
    this.kind = { ...SUBNETWORKS, beforeInsert: (trx, r, p) => this.#stillFree(trx, r, p) };
    deps.writes.register(this.kind);
    deps.usage.register({ kind: 'subnetwork', collection: 'subnetworks', refs: (body, at) => [refTarget(body.network, 'networks', { projectId: at.projectId, scope: 'global' })].filter((x): x is string => !!x) });
  }

  /** The network a subnetwork body names (404 naming it when there is none) and its other subnetworks, every region's. */
  async #network(db: Kysely<Database>, call: ComputeCall, path: string): Promise<{ network: StoredResource; others: StoredResource[] } | undefined> {
    const [, project, , , name] = path.split('/');
    if (project !== call.project.projectId && project !== call.project.projectNumber) return undefined;
    const network = await this.#d.resources.get(db, NETWORKS.kind, call.project.projectNumber, GLOBAL, name);
    if (!network) return undefined;
    const others = (await this.#d.resources.mentioning(db, [SUBNETWORKS.kind], call.project.projectNumber, name)).filter((s) => networkPathOf(s, call.project.projectId) === `projects/${call.project.projectId}/global/networks/${name}`);
    return { network, others };
  }

  async insert(call: ComputeCall): Promise<WireOperation> {
    const body = readResourceBody('Subnetwork', 'subnetwork_resource', call.body);
    await this.#d.networks.ensureDefault(call);
    const path = networkOfBody(body, call.project.projectId);
    const found = await this.#network(this.#d.store.db, call, path);
    if (!found) throw resourceNotFound(path);
    const subnetwork = subnetworkToInsert(body, found.network, { networkLink: LINK_BASE + `projects/${call.project.projectId}/global/networks/${found.network.name}`, fingerprint: this.#fingerprint() });
    const conflict = rangeConflict(subnetwork, found.network, found.others);
    if (conflict) throw invalidField(conflict.field, conflict.value, conflict.message);
    return this.#d.writes.insert(call, this.kind, String(subnetwork.name), subnetwork);
  }

  /** The insert's ranges, checked again inside its transaction (another insert may have taken them meanwhile). */
  async #stillFree(trx: Kysely<Database>, r: StoredResource, p: OperationPayload<WriteData>): Promise<OperationFailure | undefined> {
    const name = String(networkPathOf(r, p.projectId)).split('/').pop()!;
    const network = await this.#d.resources.get(trx, NETWORKS.kind, p.projectNumber, GLOBAL, name);
    if (!network) return operationFailure([{ code: 'RESOURCE_NOT_FOUND', message: `The resource 'projects/${p.projectId}/global/networks/${name}' was not found` }]);
    const others = (await this.#d.resources.mentioning(trx, [SUBNETWORKS.kind], p.projectNumber, name)).filter((s) => networkPathOf(s, p.projectId) === networkPathOf(r, p.projectId));
    const conflict = rangeConflict(r.body, network, others);
    return conflict ? operationFailure([{ code: 'INVALID_FIELD_VALUE', location: conflict.field, message: conflict.message }]) : undefined;
  }

  async get(call: ComputeCall): Promise<Record<string, unknown>> {
    await this.#d.networks.ensureDefault(call);
    return this.#d.reader.get(call, this.kind, 'subnetwork');
  }

  async list(call: ComputeCall): Promise<Record<string, unknown>> {
    await this.#d.networks.ensureDefault(call);
    return this.#d.reader.list(call, this.kind);
  }

  async aggregatedList(call: ComputeCall): Promise<Record<string, unknown>> {
    await this.#d.networks.ensureDefault(call);
    return this.#d.reader.aggregatedList(call, this.kind);
  }

  /** The subnetwork a write names, with its fingerprint as answered. */
  async #current(call: ComputeCall): Promise<{ r: StoredResource; fingerprint: string }> {
    await this.#d.networks.ensureDefault(call);
    const r = await this.#d.reader.find(call, this.kind, 'subnetwork');
    return { r, fingerprint: String(presentSubnetwork(r, call.project.projectId).fingerprint) };
  }

  async patch(call: ComputeCall): Promise<WireOperation> {
    const body = readResourceBody('Subnetwork', 'subnetwork_resource', call.body);
    const { r, fingerprint } = await this.#current(call);
    if (body.fingerprint !== fingerprint) throw staleFingerprint();
    const next = patchedSubnetwork(r.body, body, this.#fingerprint());
    const found = await this.#network(this.#d.store.db, call, String(networkPathOf(r, call.project.projectId)));
    const conflict = found && rangeConflict(next, found.network, found.others.filter((s) => s.id !== r.id));
    if (conflict) throw invalidField(conflict.field, conflict.value, conflict.message);
    return this.#d.writes.update(call, this.kind, r, next, 'patch');
  }

  async expandIpCidrRange(call: ComputeCall): Promise<WireOperation> {
    const { r } = await this.#current(call);
    const asked = (call.body ?? {}) as Record<string, unknown>;
    const ipCidrRange = expandedRange(r.body, asked.ipCidrRange);
    const next = { ...r.body, ipCidrRange, fingerprint: this.#fingerprint() };
    const found = await this.#network(this.#d.store.db, call, String(networkPathOf(r, call.project.projectId)));
    const conflict = found && rangeConflict(next, found.network, found.others.filter((s) => s.id !== r.id));
    if (conflict) throw invalidField('ipCidrRange', conflict.value, conflict.message);
    return this.#d.writes.update(call, this.kind, r, next, 'expandIpCidrRange');
  }

  async setPrivateIpGoogleAccess(call: ComputeCall): Promise<WireOperation> {
    const { r } = await this.#current(call);
    const asked = (call.body ?? {}) as Record<string, unknown>;
    if (typeof asked.privateIpGoogleAccess !== 'boolean') throw invalidField('privateIpGoogleAccess', asked.privateIpGoogleAccess ?? '', 'Must be true or false.');
    return this.#d.writes.update(call, this.kind, r, { ...r.body, privateIpGoogleAccess: asked.privateIpGoogleAccess, fingerprint: this.#fingerprint() }, 'setPrivateIpGoogleAccess');
  }

  async delete(call: ComputeCall): Promise<WireOperation> {
    const { r } = await this.#current(call);
    const region = r.scope.type === 'region' ? r.scope.name : '';
    const path = subnetworkPath(call.project.projectId, region, r.name);
    const network = await this.#network(this.#d.store.db, call, String(networkPathOf(r, call.project.projectId)));
    if (network && isAutoMode(network.network.body) && r.name === network.network.name && r.body.ipCidrRange === AUTO_MODE_RANGES.get(region)) {
      throw computeError('INVALID_ARGUMENT', 'invalid', `Cannot delete auto subnetwork '${path}' from an auto subnet mode network.`);
    }
    const user = await this.#d.usage.userOf(this.#d.store.db, call.project, path);
    if (user) throw resourceInUse('subnetwork', path, user);
    return this.#d.writes.delete(call, this.kind, r);
  }

  /** A new fingerprint (8 random bytes, base64), as every change of a subnetwork gets. */
  #fingerprint(): string {
    return Buffer.from(this.#d.ids.hex(8), 'hex').toString('base64');
  }
}
