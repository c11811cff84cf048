import type { FastifyInstance } from 'fastify';
import type { ApiKeysService } from '../service.ts';
import { NoQuery, OperationParams } from '../schemas.ts';
import { apiKeysMethod } from './common.ts';

/** GET /v2/operations/{operation} -> Operation */
export function getOperation(app: FastifyInstance, svc: ApiKeysService): void {
  app.get<{ Params: { operation: string } }>(
    '/v2/operations/:operation',
    { schema: { params: OperationParams, querystring: NoQuery }, config: apiKeysMethod('google.longrunning.Operations.GetOperation', 'read') },
    async (req) => svc.getOperation(req.principal, `operations/${req.params.operation}`),
  );
}
