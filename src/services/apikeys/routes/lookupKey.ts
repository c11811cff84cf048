import type { FastifyInstance } from 'fastify';
import type { Static } from '@sinclair/typebox';
import { googlePath } from '../../../platform/http/routes.ts';
import type { ApiKeysService } from '../service.ts';
import { LookupKeyQuery } from '../schemas.ts';
import { acceptProtoNames, apiKeysMethod } from './common.ts';

/** GET /v2/keys:lookupKey?keyString= -> {parent, name} */
export function lookupKey(app: FastifyInstance, svc: ApiKeysService): void {
  app.get<{ Querystring: Static<typeof LookupKeyQuery> }>(
    googlePath('/v2/keys:lookupKey'),
    { schema: { querystring: LookupKeyQuery }, config: apiKeysMethod('LookupKey', 'read'), preValidation: acceptProtoNames },
    // Not async: a cached key is answered synchronously (no promise chain on the hot path).
    (req) => svc.lookupKey(req.principal, req.query.keyString),
  );
}
