import { createHash } from 'node:crypto';
import type { Store } from '../store/store.ts';
import type { Ids } from '../crypto/random.ts';
import type { CredentialGeneration } from './credentialGeneration.ts';

export interface TokenGrant {
  principal: string;
  scopes: string[];
  /** Wall-clock expiry, epoch ms. */
  expiresAt: number;
  /** The service-account key the token was obtained with (token endpoint), if any. */
  keyId?: string;
}

export interface MintedToken {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
}

const hash = (token: string) => createHash('sha256').update(token).digest('base64url');

/**
 * Opaque bearer tokens (`ya29.ct-...`), stored by hash only so every process on the store
 * honours them. A small cache keeps the hot path free of queries; it is dropped whenever
 * credentials change anywhere (see CredentialGeneration), so a revoked token, or one obtained
 * with a key since deleted or disabled, stops working in every process.
 */
export class AccessTokens {
  readonly #store: Store;
  readonly #ids: Ids;
  readonly #generation: CredentialGeneration;
  readonly #cache = new Map<string, TokenGrant>();

  constructor(store: Store, ids: Ids, generation: CredentialGeneration) {
    this.#store = store;
    this.#ids = ids;
    this.#generation = generation;
    generation.onChange(() => this.#cache.clear());
  }

  async mint(principal: string, scopes: string[], ttlSeconds: number, keyId?: string): Promise<MintedToken> {
    const token = this.#ids.accessToken();
    const grant: TokenGrant = { principal, scopes, expiresAt: Date.now() + ttlSeconds * 1000, ...(keyId ? { keyId } : {}) };
    await this.#store.db
      .insertInto('access_tokens')
      .values({ token_hash: hash(token), principal, scopes: JSON.stringify(scopes), expires_at: grant.expiresAt, key_id: keyId ?? null })
      .execute();
    this.#remember(token, grant, this.#generation.epoch);
    return { access_token: token, token_type: 'Bearer', expires_in: ttlSeconds };
  }

  /** The grant of a token this process holds cached (no store read), or undefined. */
  cached(token: string): TokenGrant | undefined {
    return this.#cache.get(token);
  }

  /**
   * The grant behind a token, expired or not (the caller judges expiry), or undefined: also for a
   * token obtained with a service-account key that has since been deleted or disabled.
   */
  async resolve(token: string): Promise<TokenGrant | undefined> {
    const cached = this.#cache.get(token);
    if (cached) return cached;
    const epoch = this.#generation.epoch;
    const row = await this.#store.db
      .selectFrom('access_tokens as t')
      .leftJoin('service_account_keys as k', 'k.key_id', 't.key_id')
      .select(['t.principal', 't.scopes', 't.expires_at', 't.key_id', 'k.disabled as key_disabled'])
      .where('t.token_hash', '=', hash(token))
      .executeTakeFirst();
    if (!row) return undefined;
    if (row.key_id !== null && row.key_disabled !== 0) return undefined; // key deleted (null) or disabled (1)
    const grant: TokenGrant = { principal: row.principal, scopes: JSON.parse(row.scopes), expiresAt: row.expires_at, ...(row.key_id ? { keyId: row.key_id } : {}) };
    this.#remember(token, grant, epoch);
    return grant;
  }

  /**
   * Revokes a token: it stops working here at once and in every other process within
   * CREDENTIALS_REFRESH_MS. Returns false for a token that is unknown, already revoked or expired.
   */
  async revoke(token: string): Promise<boolean> {
    return this.#generation.revoke(async (trx) => {
      const gone = await trx.deleteFrom('access_tokens').where('token_hash', '=', hash(token)).where('expires_at', '>', Date.now()).executeTakeFirst();
      return Number(gone.numDeletedRows) > 0;
    }, (revoked) => revoked);
  }

  /** Drops expired tokens from the store (called by the background worker). */
  async sweep(): Promise<void> {
    const cutoff = Date.now() - 24 * 3600 * 1000;
    await this.#store.db.deleteFrom('access_tokens').where('expires_at', '<', cutoff).execute();
    for (const [t, g] of this.#cache) if (g.expiresAt < cutoff) this.#cache.delete(t);
  }

  #remember(token: string, grant: TokenGrant, epoch: number): void {
    if (epoch !== this.#generation.epoch) return; // credentials changed while the grant was read
    if (this.#cache.size >= 10_000) this.#cache.delete(this.#cache.keys().next().value!);
    this.#cache.set(token, grant);
  }
}
