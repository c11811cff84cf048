import type { FastifyInstance } from 'fastify';
import { type Static, Type } from '@sinclair/typebox';
import type { ApiKeysService } from '../service.ts';
import { ParentParams } from '../schemas.ts';
import { KEYS_PATH, acceptProtoNames, apiKeysMethod } from './common.ts';

const Query = Type.Object(
  { pageSize: Type.Optional(Type.Integer()), pageToken: Type.Optional(Type.String({ maxLength: 2000 })), showDeleted: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);

/** GET /v2/projects/{project}/locations/{location}/keys -> {keys, nextPageToken} */
export function listKeys(app: FastifyInstance, svc: ApiKeysService): void {
  app.get<{ Params: ParentParams; Querystring: Static<typeof Query> }>(
    KEYS_PATH,
    { schema: { params: ParentParams, querystring: Query }, config: apiKeysMethod('ListKeys', 'read'), preValidation: acceptProtoNames },
    async (req) => svc.listKeys(req.principal, req.params.project, req.params.location, req.query),
  );
}
