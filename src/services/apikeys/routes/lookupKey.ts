import type { FastifyInstance } from 'fastify';
import { type Static, Type } from '@sinclair/typebox';
import { googlePath } from '../../../platform/http/routes.ts';
import type { ApiKeysService } from '../service.ts';
import { acceptProtoNames, apiKeysMethod } from './common.ts';

const Query = Type.Object({ keyString: Type.String({ maxLength: 1000 }) }, { additionalProperties: false });

/** GET /v2/keys:lookupKey?keyString= -> {parent, name} */
export function lookupKey(app: FastifyInstance, svc: ApiKeysService): void {
  app.get<{ Querystring: Static<typeof Query> }>(
    googlePath('/v2/keys:lookupKey'),
    { schema: { querystring: Query }, config: apiKeysMethod('LookupKey', 'read'), preValidation: acceptProtoNames },
    // Not async: a cached key is answered synchronously (no promise chain on the hot path).
    (req) => svc.lookupKey(req.principal, req.query.keyString),
  );
}
