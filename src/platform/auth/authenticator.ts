import { ApiError } from '../http/errors.ts';
import type { IamService } from '../iam/iamService.ts';
import type { AccessTokens, TokenGrant } from './accessTokens.ts';
import { type Principal, hasAnyScope, memberFor } from './principal.ts';
import { normalizeScope } from './scopes.ts';
import { looksLikeJwt, verifyServiceAccountJwt } from './serviceAccountJwt.ts';
import type { ServiceAccountKeys } from './serviceAccountKeys.ts';

export type AuthMode = 'enforce' | 'permissive';

/** The API method being called, as Google names it in error metadata. */
export interface ApiMethod {
  service: string;
  method: string;
  /** Any one of these OAuth scopes lets the call through. */
  scopes: readonly string[];
}

export interface Credentials {
  bearer?: string;
  apiKey?: string;
}

const SEE = 'See https://developers.google.com/identity/sign-in/web/devconsole-project.';
const EXPECTED = 'Expected OAuth 2 access token, login cookie or other valid authentication credential.';

function unauthenticated(message: string, reason: string, api: ApiMethod): ApiError {
  return new ApiError({ status: 'UNAUTHENTICATED', message, reason, domain: 'googleapis.com', metadata: { method: api.method, service: api.service } });
}

/**
 * Credentials -> principal. Accepts opaque access tokens minted by the twin (admin API or the
 * OAuth token endpoint) and service-account JWTs self-signed as the official clients send them.
 * In permissive mode any bearer token is the one configured principal, owner everywhere.
 */
export class Authenticator {
  readonly #mode: AuthMode;
  readonly #permissivePrincipal: string;
  readonly #tokens: AccessTokens;
  readonly #keys: ServiceAccountKeys;
  readonly #iam: IamService;
  readonly #jwtCache = new Map<string, { principal: Principal; exp: number }>();
  /** Principals of the token grants `AccessTokens` keeps cached: built once, not per request. */
  readonly #grantPrincipals = new WeakMap<TokenGrant, Principal>();

  constructor(opts: { mode: AuthMode; permissivePrincipal: string; tokens: AccessTokens; keys: ServiceAccountKeys; iam: IamService }) {
    this.#mode = opts.mode;
    this.#permissivePrincipal = memberFor(opts.permissivePrincipal);
    this.#tokens = opts.tokens;
    this.#keys = opts.keys;
    this.#iam = opts.iam;
  }

  get mode(): AuthMode {
    return this.#mode;
  }

  /** Authenticates the caller and checks the method's OAuth scopes. */
  async authenticate(creds: Credentials, api: ApiMethod): Promise<Principal> {
    const token = creds.bearer;
    if (!token) {
      if (creds.apiKey) {
        throw unauthenticated(
          'API keys are not supported by this API. Expected OAuth2 access token or other authentication credentials that assert a principal. See https://cloud.google.com/docs/authentication',
          'CREDENTIALS_MISSING',
          api,
        );
      }
      throw unauthenticated(`Request is missing required authentication credential. ${EXPECTED} ${SEE}`, 'CREDENTIALS_MISSING', api);
    }
    const principal = this.#mode === 'permissive' ? { member: this.#permissivePrincipal, scopes: 'all' as const, superuser: true } : await this.#resolve(token, api);
    if (!hasAnyScope(principal, api.scopes)) {
      throw new ApiError({
        status: 'PERMISSION_DENIED',
        message: 'Request had insufficient authentication scopes.',
        reason: 'ACCESS_TOKEN_SCOPE_INSUFFICIENT',
        domain: 'googleapis.com',
        metadata: { method: api.method, service: api.service },
      });
    }
    return principal;
  }

  async #resolve(token: string, api: ApiMethod): Promise<Principal> {
    const invalid = (reason: string) => unauthenticated(`Request had invalid authentication credentials. ${EXPECTED} ${SEE}`, reason, api);
    if (looksLikeJwt(token)) {
      const cached = this.#jwtCache.get(token);
      if (cached && cached.exp * 1000 > Date.now()) return this.#stillEnabled(cached.principal, invalid);
      const check = await verifyServiceAccountJwt(token, this.#keys);
      if (!check.ok) throw invalid(check.problem === 'expired' ? 'ACCESS_TOKEN_EXPIRED' : 'ACCESS_TOKEN_TYPE_UNSUPPORTED');
      const sa = (await this.#iam.directory()).serviceAccount(check.email);
      if (!sa || sa.disabled) throw invalid('ACCESS_TOKEN_TYPE_UNSUPPORTED');
      const scopeClaim = check.payload.scope;
      // A JWT with `scope` carries those scopes; one with only an API audience carries that API's full access.
      const scopes = typeof scopeClaim === 'string' ? new Set(scopeClaim.split(/\s+/).filter(Boolean).map(normalizeScope)) : ('all' as const);
      if (scopes === 'all' && !check.payload.aud) throw invalid('ACCESS_TOKEN_TYPE_UNSUPPORTED');
      const principal: Principal = { member: `serviceAccount:${sa.email}`, scopes, superuser: false };
      if (this.#jwtCache.size >= 10_000) this.#jwtCache.clear();
      this.#jwtCache.set(token, { principal, exp: check.payload.exp! });
      return principal;
    }
    const grant = await this.#tokens.resolve(token);
    if (!grant) throw invalid('ACCESS_TOKEN_TYPE_UNSUPPORTED');
    if (grant.expiresAt <= Date.now()) throw invalid('ACCESS_TOKEN_EXPIRED');
    let principal = this.#grantPrincipals.get(grant);
    if (!principal) {
      principal = { member: memberFor(grant.principal), scopes: new Set(grant.scopes.map(normalizeScope)), superuser: false };
      this.#grantPrincipals.set(grant, principal);
    }
    return this.#stillEnabled(principal, invalid);
  }

  /** A credential of a service account that has since been disabled stops working at once. */
  async #stillEnabled(principal: Principal, invalid: (reason: string) => ApiError): Promise<Principal> {
    if (principal.member.startsWith('serviceAccount:')) {
      const sa = (await this.#iam.directory()).serviceAccount(principal.member.slice('serviceAccount:'.length));
      if (sa?.disabled) throw invalid('ACCESS_TOKEN_TYPE_UNSUPPORTED');
    }
    return principal;
  }
}
