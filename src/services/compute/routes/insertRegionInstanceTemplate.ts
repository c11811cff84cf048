import type { FastifyInstance } from 'fastify';
import type { ApiError } from '../../../platform/http/errors.ts';
import { sendError } from '../../../platform/http/envelope.ts';
import { transcodingErrorStyle } from '../errors.ts';
import type { ComputeService } from '../service.ts';
import { RegionParams, type RegionParamsT, RequestIdQuery, TEMPLATES_PATH, computeMethod } from './common.ts';

/** POST /compute/v1/projects/{project}/regions/{region}/instanceTemplates?requestId= -> Operation */
export function insertRegionInstanceTemplate(app: FastifyInstance, svc: ComputeService): void {
  app.post<{ Params: RegionParamsT; Querystring: { requestId?: string } }>(
    TEMPLATES_PATH,
    { schema: { params: RegionParams, querystring: RequestIdQuery }, config: computeMethod('regionInstanceTemplates.insert', 'write') },
    async (req, reply) => {
      try {
        return await svc.insertTemplate(req.principal, req.params.project, req.params.region, req.query.requestId, req.body);
      } catch (err) {
        // JSON-transcoding errors are the front end's: status and a BadRequest detail beside errors[].
        const style = transcodingErrorStyle(err);
        if (!style) throw err;
        sendError(reply, err as ApiError, style);
        return reply;
      }
    },
  );
}
