import type { FastifyInstance } from 'fastify';
import type { AccessTokens } from './accessTokens.ts';
import type { IamService } from '../iam/iamService.ts';
import { echoText } from '../http/secrets.ts';
import { normalizeScope } from './scopes.ts';
import { verifyServiceAccountJwt } from './serviceAccountJwt.ts';
import type { ServiceAccountKeys } from './serviceAccountKeys.ts';

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const TOKEN_TTL_S = 3600;

/**
 * The OAuth 2.0 token endpoint for the JWT-bearer grant (RFC 7523), as Google's answers it:
 * a service account signs an assertion with its key and receives an access token.
 */
export function registerTokenEndpoint(app: FastifyInstance, deps: { tokens: AccessTokens; keys: ServiceAccountKeys; iam: IamService }): void {
  app.post('/token', async (req, reply) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const fail = (error: string, description: string) => reply.code(400).send({ error, error_description: description });
    if (body.grant_type !== JWT_BEARER) return fail('unsupported_grant_type', `Invalid grant_type: ${echoText(String(body.grant_type ?? ''), 100)}`);
    if (typeof body.assertion !== 'string') return fail('invalid_request', 'Missing required parameter: assertion');
    const check = await verifyServiceAccountJwt(body.assertion, deps.keys);
    if (!check.ok) {
      if (check.problem === 'expired' || check.problem === 'claims') {
        return fail('invalid_grant', 'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.');
      }
      return fail('invalid_grant', 'Invalid JWT Signature.');
    }
    const aud = check.payload.aud;
    if (typeof aud !== 'string' || !aud.endsWith('/token')) return fail('invalid_grant', 'Invalid JWT: audience must be the token endpoint.');
    const sa = (await deps.iam.directory()).serviceAccount(check.email);
    if (!sa || sa.disabled) return fail('invalid_grant', 'Invalid grant: account not found');
    const scope = typeof check.payload.scope === 'string' ? check.payload.scope.split(/\s+/).filter(Boolean).map(normalizeScope) : [];
    if (scope.length === 0) return fail('invalid_scope', 'Invalid OAuth scope or ID token audience provided.');
    const minted = await deps.tokens.mint(`serviceAccount:${sa.email}`, scope, TOKEN_TTL_S, check.keyId);
    return { access_token: minted.access_token, expires_in: TOKEN_TTL_S - 1, token_type: 'Bearer' };
  });
}
