import type { JWTPayload } from 'jose';
import { lazy } from '../lazy.ts';
import type { PublicSigningKey, ServiceAccountKeys } from './serviceAccountKeys.ts';

export type JwtCheck =
  | { ok: true; email: string; keyId: string; payload: JWTPayload; /** The signing key's wall-clock expiry, epoch ms, if it expires. */ keyExpiresAt: number | null }
  | { ok: false; problem: 'malformed' | 'unknown-key' | 'bad-signature' | 'expired' | 'claims' };

/** jose is loaded with the first JWT to verify (a start-up cost otherwise). */
const jose = lazy(() => import('jose'));

/** Longest lifetime Google accepts for a service-account JWT (one hour), plus clock skew. */
const MAX_LIFETIME_S = 3600 + 300;

export function looksLikeJwt(token: string): boolean {
  if (!token.startsWith('eyJ')) return false;
  const first = token.indexOf('.');
  const second = token.indexOf('.', first + 1);
  return first > 0 && second > first && token.indexOf('.', second + 1) === -1;
}

/**
 * Verifies an RS256 JWT signed with a service-account key: the signature against the stored
 * public key named by `kid` (or any key of `iss` when `kid` is absent), `iss == sub`, expiry
 * (wall clock), and a lifetime of at most one hour. Only usable keys count (existing, enabled,
 * not expired). Scope or audience are the caller's to judge.
 */
export async function verifyServiceAccountJwt(token: string, keys: ServiceAccountKeys, audience?: string): Promise<JwtCheck> {
  const { decodeProtectedHeader, errors: joseErrors, jwtVerify } = await jose();
  let kid: string | undefined;
  let iss: string | undefined;
  try {
    kid = decodeProtectedHeader(token).kid;
    iss = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')).iss;
  } catch {
    return { ok: false, problem: 'malformed' };
  }
  let candidates: PublicSigningKey[] = [];
  if (kid) {
    const k = await keys.byKeyId(kid);
    if (k) candidates = [k];
  } else if (typeof iss === 'string') {
    candidates = await keys.byEmail(iss);
  }
  if (candidates.length === 0) return { ok: false, problem: 'unknown-key' };
  for (const key of candidates) {
    try {
      const { payload } = await jwtVerify(token, key.publicKey, { algorithms: ['RS256'], clockTolerance: 60, ...(audience ? { audience } : {}) });
      if (payload.iss !== key.email || (payload.sub !== undefined && payload.sub !== key.email)) return { ok: false, problem: 'claims' };
      if (typeof payload.exp !== 'number' || typeof payload.iat !== 'number' || payload.exp - payload.iat > MAX_LIFETIME_S) {
        return { ok: false, problem: 'claims' };
      }
      return { ok: true, email: key.email, keyId: key.keyId, payload, keyExpiresAt: key.expiresAt ?? null };
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired) return { ok: false, problem: 'expired' };
      if (err instanceof joseErrors.JWTClaimValidationFailed) return { ok: false, problem: 'claims' };
      if (err instanceof joseErrors.JWSSignatureVerificationFailed) continue;
      return { ok: false, problem: 'malformed' };
    }
  }
  return { ok: false, problem: 'bad-signature' };
}
