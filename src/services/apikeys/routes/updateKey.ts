import type { FastifyInstance } from 'fastify';
import { type Static, Type } from '@sinclair/typebox';
import type { ApiKeysService } from '../service.ts';
import { type KeyBody, KeyParams, KeySchema } from '../schemas.ts';
import { KEY_PATH, acceptProtoNames, apiKeysMethod } from './common.ts';

const Query = Type.Object({ updateMask: Type.Optional(Type.String({ maxLength: 1000 })) }, { additionalProperties: false });

/** PATCH /v2/projects/{project}/locations/{location}/keys/{key}?updateMask= -> Operation */
export function updateKey(app: FastifyInstance, svc: ApiKeysService): void {
  app.patch<{ Params: KeyParams; Querystring: Static<typeof Query>; Body: KeyBody | undefined }>(
    KEY_PATH,
    { schema: { params: KeyParams, querystring: Query, body: KeySchema }, config: apiKeysMethod('UpdateKey', 'write'), preValidation: acceptProtoNames },
    async (req) => svc.updateKey(req.principal, req.params.project, req.params.location, req.params.key, req.query.updateMask, req.body ?? {}),
  );
}
