import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { ComputeService } from '../service.ts';
import { BASE_PATH } from '../names.ts';
import { NoQuery, computeMethod } from './common.ts';

const Params = Type.Object({ project: Type.String({ maxLength: 500 }), image: Type.String({ maxLength: 500 }) });

/** GET /compute/v1/projects/{project}/global/images/{image} and .../images/family/{family} -> compute#image */
export function getImage(app: FastifyInstance, svc: ComputeService): void {
  app.get<{ Params: { project: string; image: string } }>(
    `${BASE_PATH}/projects/:project/global/images/:image`,
    { schema: { params: Params, querystring: NoQuery }, config: computeMethod('images.get', 'read') },
    async (req) => svc.getImage(req.principal, req.params.project, req.params.image, false),
  );
  app.get<{ Params: { project: string; image: string } }>(
    `${BASE_PATH}/projects/:project/global/images/family/:image`,
    { schema: { params: Params, querystring: NoQuery }, config: computeMethod('images.getFromFamily', 'read') },
    async (req) => svc.getImage(req.principal, req.params.project, req.params.image, true),
  );
}
