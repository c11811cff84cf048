import type { FastifyInstance } from 'fastify';
import type { ComputeService } from '../service.ts';
import { GLOBAL } from '../names.ts';
import { GLOBAL_OPERATIONS_PATH, GlobalOperationParams, NoQuery, computeMethod, waitSignal } from './common.ts';

/** POST /compute/v1/projects/{project}/global/operations/{operation}/wait: blocks until DONE or the wait deadline passes. */
export function waitGlobalOperation(app: FastifyInstance, svc: ComputeService): void {
  app.post<{ Params: { project: string; operation: string } }>(
    `${GLOBAL_OPERATIONS_PATH}/:operation/wait`,
    { schema: { params: GlobalOperationParams, querystring: NoQuery }, config: computeMethod('globalOperations.wait', 'read') },
    async (req, reply) => svc.waitOperation(req.principal, req.params.project, GLOBAL, req.params.operation, waitSignal(req, reply)),
  );
}
