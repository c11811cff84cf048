import type { FastifyInstance } from 'fastify';
import { type LazyMount, mountLazily } from '../../platform/http/lazyApp.ts';
import { batchCompute } from './batchRoute.ts';
import type { Compute, ComputeDeps } from './index.ts';
import { BASE_PATH } from './names.ts';

/** Compute as the server holds it: built at its first use. */
export interface ComputeMount {
  /** Compute's app (its routes and services): built now if nothing has built it yet. */
  surface: LazyMount;
  /** Forgets operation index rows whose operation the engine no longer keeps (a background task; nothing to do while Compute is not built). */
  purgeForgottenOperations(): Promise<number>;
}

/**
 * Compute v1 on `app`, built at the first request below `/compute/v1/` (or the first due Compute
 * operation): its method tables, services, the world's kinds and their few hundred routes cost
 * a start nothing until Compute is used (docs/operations.md, "Start-up and lazy loading").
 * `surfaceApp` makes the app Compute's routes are registered on: a new app with the platform's
 * hooks (authentication, the journal and fault rules, CORS), as the main app has them. The batch
 * endpoint (`/batch/compute/v1`) stays on the main app; its parts go through the main app as
 * requests do.
 */
export function mountCompute(app: FastifyInstance, d: ComputeDeps & { surfaceApp: () => FastifyInstance }): ComputeMount {
  let compute: Compute | undefined;
  const surface = mountLazily(app, {
    prefix: `${BASE_PATH}/`,
    build: async () => {
      const made = d.surfaceApp();
      const built = (await import('./index.ts')).createCompute(made, d);
      await made.ready();
      compute = built;
      return made;
    },
  });
  // A due Compute operation (delayed mode, or one a restart left) completes without a request.
  d.operations.registerLoader('compute.', surface.app);
  batchCompute(app);
  return {
    surface,
    purgeForgottenOperations: async () => (compute ? compute.purgeForgottenOperations() : 0),
  };
}
