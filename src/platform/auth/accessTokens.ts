import { createHash } from 'node:crypto';
import type { Store } from '../store/store.ts';
import type { Ids } from '../crypto/random.ts';

export interface TokenGrant {
  principal: string;
  scopes: string[];
  /** Wall-clock expiry, epoch ms. */
  expiresAt: number;
}

export interface MintedToken {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
}

const hash = (token: string) => createHash('sha256').update(token).digest('base64url');

/**
 * Opaque bearer tokens (`ya29.ct-...`), stored by hash only so every process on the store
 * honours them. A small cache keeps the hot path free of queries.
 */
export class AccessTokens {
  readonly #store: Store;
  readonly #ids: Ids;
  readonly #cache = new Map<string, TokenGrant>();

  constructor(store: Store, ids: Ids) {
    this.#store = store;
    this.#ids = ids;
  }

  async mint(principal: string, scopes: string[], ttlSeconds: number): Promise<MintedToken> {
    const token = this.#ids.accessToken();
    const grant: TokenGrant = { principal, scopes, expiresAt: Date.now() + ttlSeconds * 1000 };
    await this.#store.db
      .insertInto('access_tokens')
      .values({ token_hash: hash(token), principal, scopes: JSON.stringify(scopes), expires_at: grant.expiresAt })
      .execute();
    this.#remember(token, grant);
    return { access_token: token, token_type: 'Bearer', expires_in: ttlSeconds };
  }

  /** The grant behind a token, expired or not (the caller judges expiry), or undefined. */
  async resolve(token: string): Promise<TokenGrant | undefined> {
    const cached = this.#cache.get(token);
    if (cached) return cached;
    const row = await this.#store.db.selectFrom('access_tokens').selectAll().where('token_hash', '=', hash(token)).executeTakeFirst();
    if (!row) return undefined;
    const grant: TokenGrant = { principal: row.principal, scopes: JSON.parse(row.scopes), expiresAt: row.expires_at };
    this.#remember(token, grant);
    return grant;
  }

  /** Drops expired tokens from the store (called by the background worker). */
  async sweep(): Promise<void> {
    const cutoff = Date.now() - 24 * 3600 * 1000;
    await this.#store.db.deleteFrom('access_tokens').where('expires_at', '<', cutoff).execute();
    for (const [t, g] of this.#cache) if (g.expiresAt < cutoff) this.#cache.delete(t);
  }

  forgetAll(): void {
    this.#cache.clear();
  }

  #remember(token: string, grant: TokenGrant): void {
    if (this.#cache.size >= 10_000) this.#cache.delete(this.#cache.keys().next().value!);
    this.#cache.set(token, grant);
  }
}
