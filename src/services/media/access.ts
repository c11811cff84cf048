/**
 * Who a media call is made by, and which project pays for it: an API key (checked through the
 * API Keys service's `checkKey`, every restriction kind), an OAuth token (authenticated by the
 * platform), or both (then the key must belong to the token's project).
 */
import { ApiError } from '../../platform/http/errors.ts';
import type { Principal } from '../../platform/auth/principal.ts';
import type { IamService } from '../../platform/iam/iamService.ts';
import type { KeyCheckRequest, KeyIdentity } from '../apikeys/index.ts';
import { mediaError, withErrors } from './errors.ts';
import { type MediaMethod, RPC } from './names.ts';

/** Where the call comes from, as key restrictions see it. */
export type CallOrigin = Omit<KeyCheckRequest, 'service' | 'method'>;

export interface MediaCredentials {
  apiKey?: string;
  /** Set when the call carried an OAuth token (already authenticated, scopes checked by the platform). */
  principal?: Principal;
  origin: CallOrigin;
  /** Filled in once the caller is known: the checked key's name and the project the call counts for (the request journal's). */
  checkedKeyName?: string;
  callerProject?: string;
}

export interface MediaCaller {
  /** The quota consumer: `projects/<number>`, or the principal itself for a user token sent without a key. */
  consumer: string;
  /** The caller's project (the key's, or a service account's own); forDeveloper filters by it. */
  projectNumber?: string;
  principal?: Principal;
}

export type CheckKey = (keyString: string, request: KeyCheckRequest) => Promise<KeyIdentity>;

/** The request is missing a valid API key: 403, as the real key-accepting methods answer a call with no credential. */
export function missingApiKey(): ApiError {
  return mediaError({ status: 'PERMISSION_DENIED', message: 'The request is missing a valid API key.', domain: 'global', reason: 'forbidden' });
}

/** A rejected key keeps its ErrorInfo (reason API_KEY_*, domain googleapis.com) and gets the legacy `errors[]` entry. */
function asLegacy(err: unknown): unknown {
  if (!(err instanceof ApiError) || err.errors) return err;
  return withErrors(err, [{ message: err.message, domain: 'global', reason: err.httpCode === 400 ? 'badRequest' : 'forbidden' }]);
}

export class MediaAccess {
  readonly #checkKey: CheckKey;
  readonly #iam: IamService;
  readonly #serviceName: string;

  constructor(d: { checkKey: CheckKey; iam: IamService; serviceName: string }) {
    this.#checkKey = d.checkKey;
    this.#iam = d.iam;
    this.#serviceName = d.serviceName;
  }

  get serviceName(): string {
    return this.#serviceName;
  }

  async caller(method: MediaMethod, creds: MediaCredentials): Promise<MediaCaller> {
    const key = creds.apiKey ? await this.#key(method, creds) : undefined;
    creds.checkedKeyName = key?.keyName;
    creds.callerProject = key?.projectNumber;
    const principal = creds.principal;
    if (!principal) {
      if (!key) throw missingApiKey();
      return { consumer: `projects/${key.projectNumber}`, projectNumber: key.projectNumber };
    }
    const tokenProject = await this.#projectOf(principal);
    if (key && tokenProject !== undefined && key.projectNumber !== tokenProject) {
      throw mediaError({ message: 'The API Key and the authentication credential are from different projects.', domain: 'global', reason: 'badRequest' });
    }
    const projectNumber = key?.projectNumber ?? tokenProject;
    creds.callerProject = projectNumber;
    return { consumer: projectNumber ? `projects/${projectNumber}` : principal.member, projectNumber, principal };
  }

  async #key(method: MediaMethod, creds: MediaCredentials): Promise<KeyIdentity> {
    let identity: KeyIdentity;
    try {
      identity = await this.#checkKey(creds.apiKey!, { ...creds.origin, service: this.#serviceName, method: RPC[method] });
    } catch (err) {
      throw asLegacy(err);
    }
    if (identity.principal) {
      const message = `API keys bound to a service account cannot be used with ${this.#serviceName}: use a standard (unbound) API key, or the service account's OAuth credentials.`;
      throw new ApiError({
        status: 'PERMISSION_DENIED',
        message,
        reason: 'API_KEY_SERVICE_BLOCKED',
        domain: 'googleapis.com',
        metadata: { service: this.#serviceName, consumer: `projects/${identity.projectNumber}` },
        errors: [{ message, domain: 'global', reason: 'forbidden' }],
      });
    }
    return identity;
  }

  /** A service account's token belongs to the account's project; a user's token to none (see docs/differences.md). */
  async #projectOf(principal: Principal): Promise<string | undefined> {
    if (!principal.member.startsWith('serviceAccount:')) return undefined;
    const dir = await this.#iam.directory();
    const sa = dir.serviceAccount(principal.member.slice('serviceAccount:'.length));
    return sa ? dir.project(sa.projectId)?.projectNumber : undefined;
  }
}
