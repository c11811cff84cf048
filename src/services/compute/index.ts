import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../platform/clock/clock.ts';
import type { Ids } from '../../platform/crypto/random.ts';
import type { AccessControl } from '../../platform/iam/accessControl.ts';
import type { IamService } from '../../platform/iam/iamService.ts';
import type { OperationEngine } from '../../platform/operations/engine.ts';
import type { Store } from '../../platform/store/store.ts';
import { instanceTemplateMethods } from './instanceTemplate/methods.ts';
import { InstanceTemplates } from './instanceTemplate/service.ts';
import { type ComputeMethod, registerComputeMethods } from './methods.ts';
import { operationMethods } from './operation/methods.ts';
import { ComputeOperations } from './operation/service.ts';
import { OperationIndex } from './store/operationIndex.ts';
import { ResourceReader } from './store/reader.ts';
import { ResourceStore } from './store/resources.ts';
import { ComputeWorld } from './world.ts';
import { unofferedWorldMethods, worldMethods } from './worldMethods.ts';
import { ComputeWorldReader } from './worldReader.ts';

/** How long `regionOperations.wait` blocks at most, as the real service (about 2 minutes). */
export const DEFAULT_WAIT_TIMEOUT_MS = 120_000;

export interface Compute {
  operations: ComputeOperations;
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
  const world = new ComputeWorld(() => d.store.db, resources);
  const operations = new ComputeOperations({ store: d.store, clock: d.clock, ids: d.ids, operations: d.operations, index, waitTimeoutMs: d.waitTimeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS });
  const templates = new InstanceTemplates({ store: d.store, clock: d.clock, iam: d.iam, access: d.access, resources, reader, operations, world });
  const methods: ComputeMethod[] = [...instanceTemplateMethods(templates), ...operationMethods(operations), ...worldMethods(new ComputeWorldReader(world))];
  registerComputeMethods(app, methods, { iam: d.iam, access: d.access, earlierOperation: (p, requestId) => operations.earlierOperation(p, requestId) });
  unofferedWorldMethods(app, new Set(methods.map((m) => m.id)));
  return { operations, purgeForgottenOperations: () => index.purgeOrphans(d.store.db) };
}
