import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { ComputeService } from '../service.ts';
import { GLOBAL_TEMPLATES_PATH, PolicyResourceParams, computeMethod } from './common.ts';

const Query = Type.Object({ optionsRequestedPolicyVersion: Type.Optional(Type.Integer({ protoType: 'TYPE_INT32' })) }, { additionalProperties: false });

/** GET /compute/v1/projects/{project}/global/instanceTemplates/{resource}/getIamPolicy -> Policy */
export function getInstanceTemplateIamPolicy(app: FastifyInstance, svc: ComputeService): void {
  app.get<{ Params: { project: string; resource: string }; Querystring: { optionsRequestedPolicyVersion?: number } }>(
    `${GLOBAL_TEMPLATES_PATH}/:resource/getIamPolicy`,
    { schema: { params: PolicyResourceParams, querystring: Query }, config: computeMethod('instanceTemplates.getIamPolicy', 'read') },
    async (req) => svc.getTemplateIamPolicy(req.principal, req.params.project, req.params.resource, req.query.optionsRequestedPolicyVersion),
  );
}
