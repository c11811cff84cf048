import type { FastifyInstance } from 'fastify';
import type { ComputeService } from '../service.ts';
import { GLOBAL } from '../names.ts';
import { GLOBAL_OPERATIONS_PATH, GlobalOperationParams, NoQuery, computeMethod } from './common.ts';

/** GET /compute/v1/projects/{project}/global/operations/{operation} (name or id) */
export function getGlobalOperation(app: FastifyInstance, svc: ComputeService): void {
  app.get<{ Params: { project: string; operation: string } }>(
    `${GLOBAL_OPERATIONS_PATH}/:operation`,
    { schema: { params: GlobalOperationParams, querystring: NoQuery }, config: computeMethod('globalOperations.get', 'read') },
    async (req) => svc.getOperation(req.principal, req.params.project, GLOBAL, req.params.operation),
  );
}
