import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../platform/clock/clock.ts';
import type { Ids } from '../../platform/crypto/random.ts';
import type { AccessControl } from '../../platform/iam/accessControl.ts';
import type { IamService } from '../../platform/iam/iamService.ts';
import type { OperationEngine } from '../../platform/operations/engine.ts';
import type { Store } from '../../platform/store/store.ts';
import { registerComputeRoutes } from './plugin.ts';
import { ComputeRepository } from './repository.ts';
import { ComputeService } from './service.ts';
import { ComputeWorld } from './world.ts';
import { registerComputeWorldRoutes } from './worldPlugin.ts';
import { ComputeWorldReader } from './worldReader.ts';

/** How long `regionOperations.wait` blocks at most, as the real service (about 2 minutes). */
export const DEFAULT_WAIT_TIMEOUT_MS = 120_000;

export interface Compute {
  service: ComputeService;
  /** Forgets operation index rows whose operation the engine no longer keeps (a background task). */
  purgeForgottenOperations(): Promise<number>;
}

export function createCompute(
  app: FastifyInstance,
  d: { store: Store; clock: Clock; ids: Ids; iam: IamService; access: AccessControl; operations: OperationEngine; waitTimeoutMs?: number },
): Compute {
  const repo = new ComputeRepository();
  const world = new ComputeWorld(() => d.store.db);
  const service = new ComputeService({ ...d, repo, world, waitTimeoutMs: d.waitTimeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS });
  registerComputeRoutes(app, service);
  registerComputeWorldRoutes(app, new ComputeWorldReader({ iam: d.iam, access: d.access, world }));
  return { service, purgeForgottenOperations: () => repo.purgeOrphanOperations(d.store.db) };
}
