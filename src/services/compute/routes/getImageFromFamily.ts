import type { FastifyInstance } from 'fastify';
import { BASE_PATH } from '../names.ts';
import type { ComputeWorldReader } from '../worldReader.ts';
import { RESOURCE_KINDS } from '../worldResources.ts';
import { NoQuery, computeMethod } from './common.ts';
import { paramsOf } from './worldPaths.ts';

const ROUTE = `${BASE_PATH}/projects/:project/global/images/family/:family`;

/** GET /compute/v1/projects/{project}/global/images/family/{family} -> the newest non-deprecated compute#image of the family */
export function getImageFromFamily(app: FastifyInstance, reader: ComputeWorldReader): void {
  const images = RESOURCE_KINDS.find((k) => k.images)!;
  app.get<{ Params: { project: string; family: string } }>(ROUTE, { schema: { params: paramsOf(ROUTE), querystring: NoQuery }, config: computeMethod('images.getFromFamily', 'read') }, async (req) =>
    reader.imageFromFamily(req.principal, images, req.params.project, req.params.family),
  );
}
