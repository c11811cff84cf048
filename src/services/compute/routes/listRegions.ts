import type { FastifyInstance } from 'fastify';
import type { ComputeService, ListParams } from '../service.ts';
import { BASE_PATH } from '../names.ts';
import { ListQuery, computeMethod } from './common.ts';
import { Type } from '@sinclair/typebox';

const ProjectParams = Type.Object({ project: Type.String({ maxLength: 500 }) });

/** GET /compute/v1/projects/{project}/regions -> compute#regionList */
export function listRegions(app: FastifyInstance, svc: ComputeService): void {
  app.get<{ Params: { project: string }; Querystring: ListParams }>(
    `${BASE_PATH}/projects/:project/regions`,
    { schema: { params: ProjectParams, querystring: ListQuery }, config: computeMethod('regions.list', 'read') },
    async (req) => svc.listRegions(req.principal, req.params.project, req.query),
  );
}
