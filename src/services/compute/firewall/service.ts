import type { Store } from '../../../platform/store/store.ts';
import { resourceNotFound } from '../errors.ts';
import type { ComputeCall } from '../methods.ts';
import { LINK_BASE } from '../names.ts';
import { NETWORKS } from '../network/resource.ts';
import type { Networks } from '../network/service.ts';
import type { WireOperation } from '../operation/service.ts';
import { readResourceBody } from '../resourceBody.ts';
import { GLOBAL } from '../scope.ts';
import type { ResourceReader } from '../store/reader.ts';
import type { ResourceStore } from '../store/resources.ts';
import type { ResourceWrites, WritableKind } from '../store/writes.ts';
import { type ResourceUsage, refTarget } from '../usage.ts';
import { FIREWALLS, changedFirewall, firewallNetwork, firewallToInsert } from './resource.ts';

export interface FirewallDeps {
  store: Store;
  resources: ResourceStore;
  reader: ResourceReader;
  writes: ResourceWrites;
  usage: ResourceUsage;
  networks: Networks;
}

/** Firewall rules: insert (on an existing network of the project), get, list, patch, update, delete. */
export class Firewalls {
  readonly #d: FirewallDeps;
  readonly kind: WritableKind = FIREWALLS;

  constructor(deps: FirewallDeps) {
    this.#d = deps;
    deps.writes.register(this.kind);
    deps.usage.register({ kind: 'firewall', collection: 'firewalls', refs: (body, at) => [refTarget(body.network, 'networks', { projectId: at.projectId, scope: 'global' })].filter((x): x is string => !!x) });
  }

  async insert(call: ComputeCall): Promise<WireOperation> {
    const body = readResourceBody('Firewall', 'firewall_resource', call.body);
    await this.#d.networks.ensureDefault(call);
    const path = firewallNetwork(body, call.project.projectId);
    const [, project, , , name] = path.split('/');
    const own = project === call.project.projectId || project === call.project.projectNumber;
    if (!own || !(await this.#d.resources.get(this.#d.store.db, NETWORKS.kind, call.project.projectNumber, GLOBAL, name))) throw resourceNotFound(path);
    const firewall = firewallToInsert(body, `${LINK_BASE}projects/${call.project.projectId}/global/networks/${name}`);
    return this.#d.writes.insert(call, this.kind, String(firewall.name), firewall);
  }

  async get(call: ComputeCall): Promise<Record<string, unknown>> {
    await this.#d.networks.ensureDefault(call);
    return this.#d.reader.get(call, this.kind, 'firewall');
  }

  async list(call: ComputeCall): Promise<Record<string, unknown>> {
    await this.#d.networks.ensureDefault(call);
    return this.#d.reader.list(call, this.kind);
  }

  /** `patch` merges the given fields; `update` (PUT) replaces the rule whole. */
  async change(call: ComputeCall, replace: boolean): Promise<WireOperation> {
    const body = readResourceBody('Firewall', 'firewall_resource', call.body);
    await this.#d.networks.ensureDefault(call);
    const r = await this.#d.reader.find(call, this.kind, 'firewall');
    return this.#d.writes.update(call, this.kind, r, changedFirewall(r.body, body, replace), replace ? 'update' : 'patch');
  }

  async delete(call: ComputeCall): Promise<WireOperation> {
    await this.#d.networks.ensureDefault(call);
    const r = await this.#d.reader.find(call, this.kind, 'firewall');
    return this.#d.writes.delete(call, this.kind, r);
  }
}
