import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../platform/clock/clock.ts';
import type { Ids } from '../../platform/crypto/random.ts';
import type { AccessControl } from '../../platform/iam/accessControl.ts';
import type { IamService } from '../../platform/iam/iamService.ts';
import type { OperationEngine } from '../../platform/operations/engine.ts';
import type { Store } from '../../platform/store/store.ts';
import { addressMethods } from './address/methods.ts';
import { Addresses } from './address/service.ts';
import { diskMethods } from './disk/methods.ts';
import { Disks } from './disk/service.ts';
import { instanceMethods } from './instance/methods.ts';
import { Instances } from './instance/service.ts';
import { autoscalerMethods } from './autoscaler/methods.ts';
import { instanceGroupManagerMethods } from './instanceGroupManager/methods.ts';
import { InstanceGroupManagers } from './instanceGroupManager/service.ts';
import { Autoscalers } from './autoscaler/service.ts';
import { firewallMethods } from './firewall/methods.ts';
import { Firewalls } from './firewall/service.ts';
import { DefaultNetwork } from './network/defaultNetwork.ts';
import { networkMethods } from './network/methods.ts';
import { Networks } from './network/service.ts';
import { subnetworkMethods } from './subnetwork/methods.ts';
import { Subnetworks } from './subnetwork/service.ts';
import { ResourceWrites } from './store/writes.ts';
import { ResourceUsage, networkInterfaceRefs } from './usage.ts';
import { instanceTemplateMethods } from './instanceTemplate/methods.ts';
import { InstanceTemplates } from './instanceTemplate/service.ts';
import { type ComputeMethod, registerComputeMethods } from './methods.ts';
import { operationMethods } from './operation/methods.ts';
import { ComputeOperations } from './operation/service.ts';
import { OperationIndex } from './store/operationIndex.ts';
import { ResourceReader } from './store/reader.ts';
import { ResourceStore } from './store/resources.ts';
import { ComputeWorld } from './world.ts';
import { unofferedMethods, worldMethods } from './worldMethods.ts';
import { ComputeWorldReader } from './worldReader.ts';

/** How long `regionOperations.wait` blocks at most, as the real service (about 2 minutes). */
export const DEFAULT_WAIT_TIMEOUT_MS = 120_000;

export interface Compute {
  operations: ComputeOperations;
  /** Instances, for the kinds that make them (managed instance groups): see instance/service.ts. */
  instances: Instances;
  /** Forgets operation index rows whose operation the engine no longer keeps (a background task). */
  purgeForgottenOperations(): Promise<number>;
}

/** What Compute is built from. */
export interface ComputeDeps {
  store: Store;
  clock: Clock;
  ids: Ids;
  iam: IamService;
  access: AccessControl;
  operations: OperationEngine;
  waitTimeoutMs?: number;
}

/**
 * Compute v1: every kind's method table, on one resource store and one operations module (see
 * methods.ts), registered on `app`. The server builds it at its first use (mount.ts).
 */
export function createCompute(app: FastifyInstance, d: ComputeDeps): Compute {
  const index = new OperationIndex();
  const resources = new ResourceStore();
  const reader = new ResourceReader(d.store, resources);
  const defaults = new DefaultNetwork(resources);
  const world = new ComputeWorld(() => d.store.db, resources, defaults, d.clock);
  const operations = new ComputeOperations({ store: d.store, clock: d.clock, ids: d.ids, operations: d.operations, index, waitTimeoutMs: d.waitTimeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS });
  const writes = new ResourceWrites({ store: d.store, clock: d.clock, resources, operations });
  const usage = new ResourceUsage(resources);
  // What uses networks and subnetworks beside subnetworks and firewalls (which say so themselves).
  usage.register({ kind: 'instanceTemplate', collection: 'instanceTemplates', refs: (body, at) => networkInterfaceRefs(body.properties?.networkInterfaces, at) });
  usage.register({ kind: 'instance', collection: 'instances', refs: (body, at) => networkInterfaceRefs(body.networkInterfaces, at) });
  const templates = new InstanceTemplates({ store: d.store, clock: d.clock, iam: d.iam, access: d.access, resources, reader, operations, world, usage });
  const networks = new Networks({ store: d.store, clock: d.clock, ids: d.ids, resources, reader, writes, usage, defaults });
  const subnetworks = new Subnetworks({ store: d.store, ids: d.ids, resources, reader, writes, usage, networks });
  const firewalls = new Firewalls({ store: d.store, resources, reader, writes, usage, networks });
  const addresses = new Addresses({ store: d.store, ids: d.ids, resources, reader, writes });
  const disks = new Disks({ store: d.store, clock: d.clock, resources, reader, writes, operations });
  const instances = new Instances({ store: d.store, clock: d.clock, ids: d.ids, access: d.access, engine: d.operations, resources, reader, writes, operations, addresses });
  const autoscalers = new Autoscalers({ store: d.store, resources, reader, writes, usage });
  const groups = new InstanceGroupManagers({ store: d.store, clock: d.clock, ids: d.ids, engine: d.operations, resources, reader, writes, operations, usage, instances });
  const methods: ComputeMethod[] = [
    ...instanceMethods(instances),
    ...diskMethods(disks),
    ...addressMethods(addresses),
    ...instanceTemplateMethods(templates),
    ...networkMethods(networks),
    ...subnetworkMethods(subnetworks),
    ...firewallMethods(firewalls),
    ...autoscalerMethods(autoscalers),
    ...instanceGroupManagerMethods(groups),
    ...operationMethods(operations),
    ...worldMethods(new ComputeWorldReader(world)),
  ];
  registerComputeMethods(app, methods, { iam: d.iam, access: d.access, earlierOperation: (p, requestId) => operations.earlierOperation(p, requestId) });
  unofferedMethods(app, new Set(methods.map((m) => m.id)));
  return { operations, instances, purgeForgottenOperations: () => index.purgeOrphans(d.store.db) };
}
