import type { FastifyInstance } from 'fastify';
import { type ComputeService, regionScope } from '../service.ts';
import { NoQuery, OPERATIONS_PATH, OperationParams, computeMethod, waitSignal } from './common.ts';

/**
 * POST /compute/v1/projects/{project}/regions/{region}/operations/{operation}/wait: blocks until
 * the operation is DONE or the wait deadline passes. The body is empty or the JSON string `""`.
 */
export function waitRegionOperation(app: FastifyInstance, svc: ComputeService): void {
  app.post<{ Params: { project: string; region: string; operation: string } }>(
    `${OPERATIONS_PATH}/:operation/wait`,
    { schema: { params: OperationParams, querystring: NoQuery }, config: computeMethod('regionOperations.wait', 'read') },
    async (req, reply) => svc.waitOperation(req.principal, req.params.project, regionScope(req.params.project, req.params.region), req.params.operation, waitSignal(req, reply)),
  );
}
