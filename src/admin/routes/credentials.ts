import type { FastifyInstance } from 'fastify';
import { type Static, Type } from '@sinclair/typebox';
import { invalidArgument } from '../../platform/http/errors.ts';
import { CLOUD_PLATFORM, normalizeScope } from '../../platform/auth/scopes.ts';
import type { AdminContext } from '../context.ts';

const TokenRequest = Type.Object(
  {
    principal: Type.String({ minLength: 3, maxLength: 320, pattern: '^((user|serviceAccount):)?[^\\s:@]+@[^\\s:@]+$' }),
    scopes: Type.Optional(Type.Array(Type.String({ maxLength: 300 }), { maxItems: 50 })),
    ttlSeconds: Type.Optional(Type.Integer({ minimum: -86400, maximum: 31 * 86400 })),
  },
  { additionalProperties: false },
);

const KeyRequest = Type.Object(
  { serviceAccount: Type.String({ maxLength: 320 }), ttlSeconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 * 365 * 86400 })) },
  { additionalProperties: false },
);

/** POST /_twin/v1/tokens and POST /_twin/v1/serviceAccountKeys: credentials for tests. */
export function credentials(app: FastifyInstance, ctx: AdminContext): void {
  app.post<{ Body: Static<typeof TokenRequest> }>('/_twin/v1/tokens', { schema: { body: TokenRequest }, config: { bodyName: '' } }, async (req) => {
    const { principal, scopes, ttlSeconds } = req.body;
    return ctx.tokens.mint(principal, (scopes ?? [CLOUD_PLATFORM]).map(normalizeScope), ttlSeconds ?? 3600);
  });

  app.post<{ Body: Static<typeof KeyRequest> }>('/_twin/v1/serviceAccountKeys', { schema: { body: KeyRequest }, config: { bodyName: '' } }, async (req) => {
    const email = req.body.serviceAccount.replace(/^serviceAccount:/, '');
    const sa = (await ctx.iam.directory()).serviceAccount(email);
    if (!sa) throw invalidArgument(`serviceAccount: '${email}' is not a service account of the world; add it with world:apply first.`);
    const origin = `${req.protocol}://${req.host}`;
    return ctx.serviceAccountKeys.create(sa, `${origin}/token`, { ttlSeconds: req.body.ttlSeconds });
  });
}
