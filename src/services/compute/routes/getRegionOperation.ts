import type { FastifyInstance } from 'fastify';
import { type ComputeService, regionScope } from '../service.ts';
import { NoQuery, OPERATIONS_PATH, OperationParams, computeMethod } from './common.ts';

/** GET /compute/v1/projects/{project}/regions/{region}/operations/{operation} (name or id) */
export function getRegionOperation(app: FastifyInstance, svc: ComputeService): void {
  app.get<{ Params: { project: string; region: string; operation: string } }>(
    `${OPERATIONS_PATH}/:operation`,
    { schema: { params: OperationParams, querystring: NoQuery }, config: computeMethod('regionOperations.get', 'read') },
    async (req) => svc.getOperation(req.principal, req.params.project, regionScope(req.params.project, req.params.region), req.params.operation),
  );
}
