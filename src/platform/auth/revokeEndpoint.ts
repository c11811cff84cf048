import type { FastifyInstance } from 'fastify';
import type { AccessTokens } from './accessTokens.ts';

/**
 * OAuth 2.0 token revocation as Google serves it (`POST https://oauth2.googleapis.com/revoke`):
 * the token in the query (`?token=`) or in a form body (`token=`). A revoked token stops working
 * at once here and within CREDENTIALS_REFRESH_MS in every other process on the store. Google
 * answers 200 `{}`; an unknown, expired or already revoked token is 400 `invalid_token`.
 */
export function registerRevokeEndpoint(app: FastifyInstance, deps: { tokens: AccessTokens }): void {
  app.post('/revoke', async (req, reply) => {
    const query = (req.query ?? {}) as Record<string, unknown>;
    const body = req.body && typeof req.body === 'object' ? (req.body as Record<string, unknown>) : {};
    const token = typeof query.token === 'string' && query.token ? query.token : typeof body.token === 'string' ? body.token : '';
    if (!token) return reply.code(400).send({ error: 'invalid_request', error_description: 'Missing required parameter: token' });
    if (token.length > 4096 || !(await deps.tokens.revoke(token))) {
      return reply.code(400).send({ error: 'invalid_token', error_description: 'Token expired or revoked' });
    }
    return {};
  });
}
