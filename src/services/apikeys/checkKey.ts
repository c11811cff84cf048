import type { Clock } from '../../platform/clock/clock.ts';
import type { SecretBox } from '../../platform/crypto/secretBox.ts';
import { ApiError } from '../../platform/http/errors.ts';
import type { IamService } from '../../platform/iam/iamService.ts';
import type { Store } from '../../platform/store/store.ts';
import type { KeyCache } from './keyCache.ts';
import { isPurged } from './model.ts';
import { keyName } from './names.ts';
import type { ApiKeysRepository } from './repository.ts';
import type { RequestOrigin, RestrictionFailure } from './restrictions/enforce.ts';

/** Where a call made with an API key comes from; `service`/`method` name the API being called. */
export type KeyCheckRequest = RequestOrigin;

/** Who a valid key stands for. */
export interface KeyIdentity {
  projectNumber: string;
  projectId: string | undefined;
  keyName: string;
  /** A bound key acts as its service account (`serviceAccount:...`); a standard key has no principal. */
  principal: string | undefined;
}

function blocked(reason: RestrictionFailure['reason'], message: string, service: string, projectNumber: string): ApiError {
  return new ApiError({ status: 'PERMISSION_DENIED', message, reason, domain: 'googleapis.com', metadata: { service, consumer: `projects/${projectNumber}` } });
}

function blockedMessage(f: RestrictionFailure, r: KeyCheckRequest): string {
  switch (f.reason) {
    case 'API_KEY_SERVICE_BLOCKED':
      return `Requests to this API ${r.service} method ${r.method} are blocked.`;
    case 'API_KEY_HTTP_REFERRER_BLOCKED':
      return `Requests from referer ${r.referer || '<empty>'} are blocked.`;
    case 'API_KEY_IP_ADDRESS_BLOCKED':
      return `The provided API key has an IP address restriction. The originating IP address of the call (${r.ip ?? ''}) violates this restriction.`;
    case 'API_KEY_ANDROID_APP_BLOCKED':
      return `Requests from this Android client application ${r.androidPackage || '<empty>'} are blocked.`;
    case 'API_KEY_IOS_APP_BLOCKED':
      return `Requests from this iOS client application ${r.iosBundleId || '<empty>'} are blocked.`;
  }
}

/**
 * API-key enforcement, the library other services call on every request: the key must exist,
 * not be deleted, and its application and API restrictions must admit the request.
 */
export class KeyChecker {
  readonly #store: Store;
  readonly #repo: ApiKeysRepository;
  readonly #secrets: SecretBox;
  readonly #clock: Clock;
  readonly #cache: KeyCache;
  readonly #iam: IamService;

  constructor(d: { store: Store; repo: ApiKeysRepository; secrets: SecretBox; clock: Clock; cache: KeyCache; iam: IamService }) {
    this.#store = d.store;
    this.#repo = d.repo;
    this.#secrets = d.secrets;
    this.#clock = d.clock;
    this.#cache = d.cache;
    this.#iam = d.iam;
  }

  /** The id and project of the key a string belongs to (no restriction checked); undefined for no key. */
  async identify(keyString: string): Promise<{ keyId: string; projectNumber: string } | undefined> {
    const hash = this.#secrets.lookupHash(keyString);
    const k = (this.#cache.get(hash) ?? (await this.#cache.fetch(hash, (h) => this.#repo.byHash(this.#store.db, h)))).record;
    return k?.keyId ? { keyId: k.keyId, projectNumber: k.projectNumber } : undefined;
  }

  async checkKey(keyString: string, req: KeyCheckRequest): Promise<KeyIdentity> {
    const hash = this.#secrets.lookupHash(keyString);
    // A cached key is taken synchronously (no promise on the hot path); a miss loads it.
    const entry = this.#cache.get(hash) ?? (await this.#cache.fetch(hash, (h) => this.#repo.byHash(this.#store.db, h)));
    const k = entry.record;
    if (!k || k.deleteTime !== null || isPurged(k, this.#clock.nowMs())) {
      throw new ApiError({
        status: 'INVALID_ARGUMENT',
        message: 'API key not valid. Please pass a valid API key.',
        reason: 'API_KEY_INVALID',
        domain: 'googleapis.com',
        metadata: { service: req.service },
      });
    }
    const failure = entry.restrictions!.check(req);
    if (failure) throw blocked(failure.reason, blockedMessage(failure, req), req.service, k.projectNumber);
    const project = (await this.#iam.directory()).project(k.projectNumber);
    return {
      projectNumber: k.projectNumber,
      projectId: project?.projectId,
      keyName: keyName(k.projectNumber, k.keyId!),
      principal: k.serviceAccountEmail ? `serviceAccount:${k.serviceAccountEmail}` : undefined,
    };
  }
}
