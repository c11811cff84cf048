import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { ComputeService, ListParams } from '../service.ts';
import { BASE_PATH } from '../names.ts';
import { AggregatedQuery, computeMethod } from './common.ts';

/** GET /compute/v1/projects/{project}/aggregated/instanceTemplates -> compute#instanceTemplateAggregatedList */
export function aggregatedListInstanceTemplates(app: FastifyInstance, svc: ComputeService): void {
  app.get<{ Params: { project: string }; Querystring: ListParams & { includeAllScopes?: boolean } }>(
    `${BASE_PATH}/projects/:project/aggregated/instanceTemplates`,
    { schema: { params: Type.Object({ project: Type.String({ maxLength: 500 }) }), querystring: AggregatedQuery }, config: computeMethod('instanceTemplates.aggregatedList', 'read') },
    async (req) => svc.aggregatedTemplates(req.principal, req.params.project, req.query),
  );
}
