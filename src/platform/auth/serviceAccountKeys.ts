import { createPublicKey, type KeyObject } from 'node:crypto';
import type { Kysely } from 'kysely';
import { generateSigningKeyPair } from '../crypto/signingKeys.ts';
import type { Database } from '../store/schema.ts';
import type { Store } from '../store/store.ts';
import type { Ids } from '../crypto/random.ts';
import type { Clock } from '../clock/clock.ts';
import type { CredentialGeneration } from './credentialGeneration.ts';

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
  /** Wall-clock expiry of the key, epoch ms; null when it does not expire. */
  expiresAt?: number | null;
}

/** What the admin API shows of a key: never the private key (which is not kept) nor the public one. */
export interface ServiceAccountKeyInfo {
  keyId: string;
  email: string;
  /** Creation time, epoch ms. */
  createdAt: number;
  /** Wall-clock expiry, epoch ms; null for a key that does not expire. */
  expiresAt: number | null;
  disabled: boolean;
}

type KeyRow = Database['service_account_keys'];

const info = (r: KeyRow): ServiceAccountKeyInfo => ({ keyId: r.key_id, email: r.email, createdAt: r.created_at, expiresAt: r.expires_at, disabled: r.disabled === 1 });

/** A key signs for its account only while it exists, is enabled and has not expired (wall clock). */
const usable = (r: KeyRow) => r.disabled === 0 && (r.expires_at === null || r.expires_at > Date.now());

/**
 * Service-account keys in Google's JSON format. Only the public half is stored; the private key
 * is handed to the caller once, so clients that self-sign JWTs with it are verified for real.
 */
export class ServiceAccountKeys {
  readonly #store: Store;
  readonly #ids: Ids;
  readonly #clock: Clock;
  readonly #generation: CredentialGeneration;
  /** Usable keys by id; dropped whenever credentials change anywhere (see CredentialGeneration). */
  readonly #cache = new Map<string, PublicSigningKey>();

  constructor(store: Store, ids: Ids, clock: Clock, generation: CredentialGeneration) {
    this.#store = store;
    this.#ids = ids;
    this.#clock = clock;
    this.#generation = generation;
    generation.onChange(() => this.#cache.clear());
  }

  async create(sa: { email: string; projectId: string; uniqueId: string }, tokenUri: string, opts: { ttlSeconds?: number } = {}): Promise<ServiceAccountKeyFile> {
    const { privateKeyPem, publicKeyPem } = generateSigningKeyPair();
    const keyId = this.#ids.hex(20);
    const expiresAt = opts.ttlSeconds === undefined ? null : Date.now() + opts.ttlSeconds * 1000;
    await this.#store.db
      .insertInto('service_account_keys')
      .values({ key_id: keyId, email: sa.email, public_key_pem: publicKeyPem, created_at: this.#clock.nowMs(), expires_at: expiresAt, disabled: 0 })
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

  /** A usable key (existing, enabled, not expired) by id. */
  async byKeyId(keyId: string): Promise<PublicSigningKey | undefined> {
    const cached = this.#cache.get(keyId);
    if (cached) {
      if (cached.expiresAt == null || cached.expiresAt > Date.now()) return cached;
      this.#cache.delete(keyId);
      return undefined;
    }
    const epoch = this.#generation.epoch;
    const row = await this.#store.db.selectFrom('service_account_keys').selectAll().where('key_id', '=', keyId).executeTakeFirst();
    if (!row || !usable(row)) return undefined;
    const key = { keyId, email: row.email, publicKey: createPublicKey(row.public_key_pem), expiresAt: row.expires_at };
    if (epoch === this.#generation.epoch) {
      if (this.#cache.size >= 10_000) this.#cache.delete(this.#cache.keys().next().value!);
      this.#cache.set(keyId, key);
    }
    return key;
  }

  /** The usable keys of an account (a JWT without `kid` may be signed by any of them). */
  async byEmail(email: string): Promise<PublicSigningKey[]> {
    const rows = await this.#store.db.selectFrom('service_account_keys').selectAll().where('email', '=', email).orderBy('key_id').limit(100).execute();
    return rows.filter(usable).map((r) => ({ keyId: r.key_id, email: r.email, publicKey: createPublicKey(r.public_key_pem), expiresAt: r.expires_at }));
  }

  /** Every key of an account, disabled and expired ones included, oldest first. */
  async list(email: string): Promise<ServiceAccountKeyInfo[]> {
    const rows = await this.#store.db.selectFrom('service_account_keys').selectAll().where('email', '=', email).orderBy('created_at').orderBy('key_id').execute();
    return rows.map(info);
  }

  /**
   * Disables or enables a key. While disabled, no JWT signed with it and no token obtained with
   * it is accepted, here at once and in every other process within CREDENTIALS_REFRESH_MS.
   * Returns the key as it now is, or undefined when the account has no such key.
   */
  async setDisabled(email: string, keyId: string, disabled: boolean): Promise<ServiceAccountKeyInfo | undefined> {
    return this.#generation.revoke(async (trx) => {
      await trx.updateTable('service_account_keys').set({ disabled: disabled ? 1 : 0 }).where('key_id', '=', keyId).where('email', '=', email).execute();
      const row = await trx.selectFrom('service_account_keys').selectAll().where('key_id', '=', keyId).where('email', '=', email).executeTakeFirst();
      return row ? info(row) : undefined;
    }, (key) => key !== undefined);
  }

  /** Deletes a key and every access token obtained with it. Returns whether the account had it. */
  async delete(email: string, keyId: string): Promise<boolean> {
    return this.#generation.revoke(async (trx) => {
      const gone = await trx.deleteFrom('service_account_keys').where('key_id', '=', keyId).where('email', '=', email).executeTakeFirst();
      if (Number(gone.numDeletedRows) === 0) return false;
      await trx.deleteFrom('access_tokens').where('key_id', '=', keyId).execute();
      return true;
    }, (deleted) => deleted);
  }

  /**
   * A world document's key entry (inside the world's transaction; the caller bumps the credential
   * generation there): sets `disabled` on an existing key of the account, or adds a key from the
   * given public key (an uploaded key). Returns a problem, or undefined.
   */
  static async applyWorldEntry(
    trx: Kysely<Database>,
    e: { serviceAccount: string; keyId: string; disabled?: boolean; publicKeyPem?: string },
    createdAt: number,
  ): Promise<string | undefined> {
    const existing = await trx.selectFrom('service_account_keys').select(['email']).where('key_id', '=', e.keyId).executeTakeFirst();
    if (existing && existing.email !== e.serviceAccount) return `key '${e.keyId}' belongs to another service account`;
    if (!existing) {
      if (!e.publicKeyPem) return `key '${e.keyId}' does not exist; give publicKeyPem to add it`;
      let pem: string;
      try {
        const key = createPublicKey(e.publicKeyPem);
        if (key.asymmetricKeyType !== 'rsa') return 'publicKeyPem must be an RSA public key';
        pem = key.export({ type: 'spki', format: 'pem' }).toString();
      } catch {
        return 'publicKeyPem is not a PEM public key';
      }
      await trx.insertInto('service_account_keys').values({ key_id: e.keyId, email: e.serviceAccount, public_key_pem: pem, created_at: createdAt, expires_at: null, disabled: e.disabled ? 1 : 0 }).execute();
      return undefined;
    }
    if (e.disabled !== undefined) await trx.updateTable('service_account_keys').set({ disabled: e.disabled ? 1 : 0 }).where('key_id', '=', e.keyId).execute();
    return undefined;
  }
}
