import type { FastifyInstance } from 'fastify';
import type { Static } from '@sinclair/typebox';
import type { ApiKeysService } from '../service.ts';
import { type KeyBody, KeyParams, KeySchema, UpdateKeyQuery } from '../schemas.ts';
import { KEY_PATH, acceptProtoNames, apiKeysMethod } from './common.ts';

/** PATCH /v2/projects/{project}/locations/{location}/keys/{key}?updateMask= -> Operation */
export function updateKey(app: FastifyInstance, svc: ApiKeysService): void {
  app.patch<{ Params: KeyParams; Querystring: Static<typeof UpdateKeyQuery>; Body: KeyBody | undefined }>(
    KEY_PATH,
    { schema: { params: KeyParams, querystring: UpdateKeyQuery, body: KeySchema }, config: apiKeysMethod('UpdateKey', 'write'), preValidation: acceptProtoNames },
    async (req) => svc.updateKey(req.principal, req.params.project, req.params.location, req.params.key, req.query.updateMask, req.body ?? {}),
  );
}
