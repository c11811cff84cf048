import { createPublicKey, type KeyObject } from 'node:crypto';
import { generateSigningKeyPair } from '../crypto/signingKeys.ts';
import type { Store } from '../store/store.ts';
import type { Ids } from '../crypto/random.ts';
import type { Clock } from '../clock/clock.ts';

export interface ServiceAccountKeyFile {
  type: 'service_account';
  project_id: string;
  private_key_id: string;
  private_key: string;
  client_email: string;
  client_id: string;
  auth_uri: string;
  token_uri: string;
  auth_provider_x509_cert_url: string;
  client_x509_cert_url: string;
  universe_domain: string;
}

export interface PublicSigningKey {
  keyId: string;
  email: string;
  publicKey: KeyObject;
}

/**
 * Service-account keys in Google's JSON format. Only the public half is stored; the private key
 * is handed to the caller once, so clients that self-sign JWTs with it are verified for real.
 */
export class ServiceAccountKeys {
  readonly #store: Store;
  readonly #ids: Ids;
  readonly #clock: Clock;
  readonly #cache = new Map<string, PublicSigningKey | null>();

  constructor(store: Store, ids: Ids, clock: Clock) {
    this.#store = store;
    this.#ids = ids;
    this.#clock = clock;
  }

  async create(sa: { email: string; projectId: string; uniqueId: string }, tokenUri: string): Promise<ServiceAccountKeyFile> {
    const { privateKeyPem, publicKeyPem } = generateSigningKeyPair();
    const keyId = this.#ids.hex(20);
    await this.#store.db
      .insertInto('service_account_keys')
      .values({ key_id: keyId, email: sa.email, public_key_pem: publicKeyPem, created_at: this.#clock.nowMs() })
      .execute();
    return {
      type: 'service_account',
      project_id: sa.projectId,
      private_key_id: keyId,
      private_key: privateKeyPem,
      client_email: sa.email,
      client_id: sa.uniqueId,
      auth_uri: 'https://accounts.google.com/o/oauth2/auth',
      token_uri: tokenUri,
      auth_provider_x509_cert_url: 'https://www.googleapis.com/oauth2/v1/certs',
      client_x509_cert_url: `https://www.googleapis.com/robot/v1/metadata/x509/${encodeURIComponent(sa.email)}`,
      universe_domain: 'googleapis.com',
    };
  }

  async byKeyId(keyId: string): Promise<PublicSigningKey | undefined> {
    const cached = this.#cache.get(keyId);
    if (cached !== undefined) return cached ?? undefined;
    const row = await this.#store.db.selectFrom('service_account_keys').selectAll().where('key_id', '=', keyId).executeTakeFirst();
    const key = row ? { keyId, email: row.email, publicKey: createPublicKey(row.public_key_pem) } : null;
    if (key) this.#cache.set(keyId, key);
    return key ?? undefined;
  }

  async byEmail(email: string): Promise<PublicSigningKey[]> {
    const rows = await this.#store.db.selectFrom('service_account_keys').selectAll().where('email', '=', email).execute();
    return rows.map((r) => ({ keyId: r.key_id, email: r.email, publicKey: createPublicKey(r.public_key_pem) }));
  }

  forgetAll(): void {
    this.#cache.clear();
  }
}
