import type { FastifyInstance } from 'fastify';
import { type Static, Type } from '@sinclair/typebox';
import { rfc3339 } from '../../platform/clock/clock.ts';
import { notFound } from '../../platform/http/errors.ts';
import type { ServiceAccountKeyInfo } from '../../platform/auth/serviceAccountKeys.ts';
import type { AdminContext } from '../context.ts';

const EMAIL = '^[a-z][a-z0-9-]{4,29}@[a-z][a-z0-9-]{4,28}[a-z0-9]\\.iam\\.gserviceaccount\\.com$';
const AccountParams = Type.Object({ email: Type.String({ pattern: EMAIL }) });
const KeyParams = Type.Object({ email: Type.String({ pattern: EMAIL }), keyId: Type.String({ pattern: '^[0-9a-f]{40}$' }) });
const RevokeRequest = Type.Object({ token: Type.String({ minLength: 1, maxLength: 4096 }) }, { additionalProperties: false });

/** Keys that never expire show Google's `validBeforeTime` for user-managed keys. */
const NEVER = '9999-12-31T23:59:59Z';

/** A key as IAM's `ServiceAccountKey` shows it (no key material). */
function wireKey(k: ServiceAccountKeyInfo) {
  const project = k.email.split('@')[1].split('.')[0];
  return {
    name: `projects/${project}/serviceAccounts/${k.email}/keys/${k.keyId}`,
    keyId: k.keyId,
    validAfterTime: rfc3339(k.createdAt),
    validBeforeTime: k.expiresAt === null ? NEVER : rfc3339(k.expiresAt),
    keyType: 'USER_MANAGED',
    disabled: k.disabled,
  };
}

const noKey = (p: Static<typeof KeyParams>) => notFound(`Service account ${p.email} has no key ${p.keyId}.`);

/**
 * Taking credentials back: a service account's keys listed, disabled, enabled or deleted, and an
 * access token revoked. Each takes effect at once in this process and within
 * CREDENTIALS_REFRESH_MS in every other process on the store, cached verifications included.
 * (Router patterns: a key id ends before the custom verb's colon.)
 */
export function serviceAccountKeys(app: FastifyInstance, ctx: AdminContext): void {
  app.get<{ Params: Static<typeof AccountParams> }>('/_twin/v1/serviceAccounts/:email/keys', { schema: { params: AccountParams } }, async (req) => {
    const sa = (await ctx.iam.directory()).serviceAccount(req.params.email);
    if (!sa) throw notFound(`Service account ${req.params.email} does not exist.`);
    return { keys: (await ctx.serviceAccountKeys.list(sa.email)).map(wireKey) };
  });

  app.delete<{ Params: Static<typeof KeyParams> }>('/_twin/v1/serviceAccounts/:email/keys/:keyId', { schema: { params: KeyParams } }, async (req) => {
    if (!(await ctx.serviceAccountKeys.delete(req.params.email, req.params.keyId))) throw noKey(req.params);
    return {};
  });

  for (const verb of ['disable', 'enable'] as const) {
    app.post<{ Params: Static<typeof KeyParams> }>(
      `/_twin/v1/serviceAccounts/:email/keys/:keyId([^:]+)::${verb}`,
      { schema: { params: KeyParams }, config: { bodyName: '' } },
      async (req) => {
        const key = await ctx.serviceAccountKeys.setDisabled(req.params.email, req.params.keyId, verb === 'disable');
        if (!key) throw noKey(req.params);
        return wireKey(key);
      },
    );
  }

  app.post<{ Body: Static<typeof RevokeRequest> }>('/_twin/v1/tokens::revoke', { schema: { body: RevokeRequest }, config: { bodyName: '' } }, async (req) => {
    if (!(await ctx.tokens.revoke(req.body.token))) throw notFound('The access token is unknown, expired or already revoked.');
    return {};
  });
}
