import { ApiError } from '../http/errors.ts';
import type { IamService } from '../iam/iamService.ts';
import type { AccessTokens, TokenGrant } from './accessTokens.ts';
import type { CredentialGeneration } from './credentialGeneration.ts';
import { type Credentials, hasOAuthCredential } from './credentials.ts';
import { type Principal, hasAnyScope, memberFor } from './principal.ts';
import { normalizeScope } from './scopes.ts';
import { looksLikeJwt, verifyServiceAccountJwt } from './serviceAccountJwt.ts';
import type { ServiceAccountKeys } from './serviceAccountKeys.ts';

export type AuthMode = 'enforce' | 'permissive';

/** The API method being called, as Google names it in error metadata. */
export interface ApiMethod {
  service: string;
  /** The method's full RPC name (error metadata, API-key method restrictions). */
  method: string;
  /**
   * The method's id in the service's discovery document (`apikeys.projects.locations.keys.create`,
   * `compute.regionInstanceTemplates.insert`, `youtube.search.list`): what fault rules match and
   * the request journal records, whatever the transport.
   */
  id: string;
  /** Any one of these OAuth scopes lets the call through. */
  scopes: readonly string[];
  /**
   * A key-accepting method (the Data API's reads): a call with an API key and no token passes
   * authentication with no principal, and the service checks the key; a token is still authenticated.
   */
  acceptsApiKey?: boolean;
}

const SEE = 'See https://developers.google.com/identity/sign-in/web/devconsole-project.';
const EXPECTED = 'Expected OAuth 2 access token, login cookie or other valid authentication credential.';

/**
 * The API a self-signed JWT without `scope` is bound to: `https://<service>/` (or without the
 * trailing slash) names `<service>`. Anything else names no API.
 */
export function audienceService(aud: unknown): string | undefined {
  if (typeof aud !== 'string') return undefined;
  return /^https:\/\/([a-z0-9-]+(?:\.[a-z0-9-]+)+)\/?$/.exec(aud)?.[1];
}

interface VerifiedJwt {
  principal: Principal;
  /** Until when (epoch ms) the verification holds: the JWT's `exp`, or its key's expiry if sooner. */
  validUntil: number;
  /** For a JWT without `scope`: the only API it is valid for. */
  audience?: string;
}

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
  readonly #generation: CredentialGeneration;
  /** Verified JWTs; dropped whenever credentials change anywhere (see CredentialGeneration). */
  readonly #jwtCache = new Map<string, VerifiedJwt>();
  /** Principals of the token grants `AccessTokens` keeps cached: built once, not per request. */
  readonly #grantPrincipals = new WeakMap<TokenGrant, Principal>();

  constructor(opts: { mode: AuthMode; permissivePrincipal: string; tokens: AccessTokens; keys: ServiceAccountKeys; iam: IamService; generation: CredentialGeneration }) {
    this.#mode = opts.mode;
    this.#permissivePrincipal = memberFor(opts.permissivePrincipal);
    this.#tokens = opts.tokens;
    this.#keys = opts.keys;
    this.#iam = opts.iam;
    this.#generation = opts.generation;
    opts.generation.onChange(() => this.#jwtCache.clear());
  }

  get mode(): AuthMode {
    return this.#mode;
  }

  /**
   * The principal of a call that carries no credential at all: the permissive principal in
   * permissive mode (the emulator idiom of gRPC clients: an insecure channel, no auth), none in
   * enforce mode. REST keeps asking for a bearer token in both modes.
   */
  anonymousPrincipal(): Principal | undefined {
    return this.#mode === 'permissive' ? { member: this.#permissivePrincipal, scopes: 'all', superuser: true } : undefined;
  }

  /** Authenticates the caller and checks the method's OAuth scopes. */
  async authenticate(creds: Credentials, api: ApiMethod): Promise<Principal> {
    if (!hasOAuthCredential(creds)) {
      if (creds.apiKey) {
        throw unauthenticated(
          'API keys are not supported by this API. Expected OAuth2 access token or other authentication credentials that assert a principal. See https://cloud.google.com/docs/authentication',
          'CREDENTIALS_MISSING',
          api,
        );
      }
      throw unauthenticated(`Request is missing required authentication credential. ${EXPECTED} ${SEE}`, 'CREDENTIALS_MISSING', api);
    }
    const principal = this.#mode === 'permissive' ? { member: this.#permissivePrincipal, scopes: 'all' as const, superuser: true } : await this.#resolve(creds, api);
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

  /**
   * The hot path's synchronous answer: the principal when the credential is already verified
   * and cached here and nothing needs the store (no refresh due, no directory reload), with the
   * method's scopes checked; otherwise undefined, and `authenticate` decides (errors included).
   * Never accepts what `authenticate` would refuse.
   */
  cachedPrincipal(creds: Credentials, api: ApiMethod): Principal | undefined {
    if (!hasOAuthCredential(creds)) return undefined;
    let principal: Principal | undefined;
    if (this.#mode === 'permissive') principal = { member: this.#permissivePrincipal, scopes: 'all', superuser: true };
    else {
      const token = creds.bearer;
      if (!token) return undefined;
      if (this.#generation.stale || looksLikeJwt(token)) return undefined;
      const grant = this.#tokens.cached(token);
      if (!grant || grant.expiresAt <= Date.now()) return undefined;
      principal = this.#grantPrincipals.get(grant);
      if (!principal) return undefined;
      if (principal.member.startsWith('serviceAccount:')) {
        const dir = this.#iam.freshDirectory();
        const sa = dir?.serviceAccount(principal.member.slice('serviceAccount:'.length));
        if (!dir || sa?.disabled) return undefined;
      }
    }
    return hasAnyScope(principal, api.scopes) ? principal : undefined;
  }

  async #resolve(creds: Credentials, api: ApiMethod): Promise<Principal> {
    const invalid = (reason: string) => unauthenticated(`Request had invalid authentication credentials. ${EXPECTED} ${SEE}`, reason, api);
    const token = creds.bearer;
    // An `Authorization` header that is not a bearer token is no credential this server knows.
    if (!token) throw invalid('ACCESS_TOKEN_TYPE_UNSUPPORTED');
    // A cached credential is trusted only while no credential was taken back anywhere (bounded staleness).
    if (this.#generation.stale) await this.#generation.refresh();
    if (looksLikeJwt(token)) {
      let verified = this.#jwtCache.get(token);
      if (!verified || verified.validUntil <= Date.now()) verified = await this.#verifyJwt(token, invalid);
      // Without `scope`, a JWT is valid only for the API its audience names.
      if (verified.audience !== undefined && verified.audience !== api.service) throw invalid('ACCESS_TOKEN_TYPE_UNSUPPORTED');
      return this.#stillEnabled(verified.principal, invalid);
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

  async #verifyJwt(token: string, invalid: (reason: string) => ApiError): Promise<VerifiedJwt> {
    const epoch = this.#generation.epoch;
    const check = await verifyServiceAccountJwt(token, this.#keys);
    if (!check.ok) throw invalid(check.problem === 'expired' ? 'ACCESS_TOKEN_EXPIRED' : 'ACCESS_TOKEN_TYPE_UNSUPPORTED');
    const sa = (await this.#iam.directory()).serviceAccount(check.email);
    if (!sa || sa.disabled) throw invalid('ACCESS_TOKEN_TYPE_UNSUPPORTED');
    const scopeClaim = check.payload.scope;
    const validUntil = Math.min(check.payload.exp! * 1000, check.keyExpiresAt ?? Infinity);
    let verified: VerifiedJwt;
    if (typeof scopeClaim === 'string') {
      // A JWT with `scope` carries those scopes, whatever its audience.
      const scopes = new Set(scopeClaim.split(/\s+/).filter(Boolean).map(normalizeScope));
      verified = { principal: { member: `serviceAccount:${sa.email}`, scopes, superuser: false }, validUntil };
    } else {
      // One with only an audience carries full access to the one API the audience names.
      const audience = audienceService(check.payload.aud);
      if (!audience) throw invalid('ACCESS_TOKEN_TYPE_UNSUPPORTED');
      verified = { principal: { member: `serviceAccount:${sa.email}`, scopes: 'all', superuser: false }, validUntil, audience };
    }
    if (epoch === this.#generation.epoch) {
      if (this.#jwtCache.size >= 10_000) this.#jwtCache.clear();
      this.#jwtCache.set(token, verified);
    }
    return verified;
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
