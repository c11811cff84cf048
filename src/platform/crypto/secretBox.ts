import { type KeyObject, createCipheriv, createDecipheriv, createHmac, createSecretKey, hkdfSync, timingSafeEqual } from 'node:crypto';
import type { RandomSource } from './random.ts';

/**
 * Envelope protection for secrets at rest. One 32-byte master key derives two sub-keys (HKDF):
 * one encrypts (AES-256-GCM), one computes the keyed lookup hash (HMAC-SHA256), so a secret can
 * be found by its hash without ever being stored in clear.
 *
 * The sub-keys are held as KeyObjects: given a raw Buffer, every createHmac/createCipheriv call
 * re-imports the key (prepareSecretKey), which made lookupHash ~7x slower; it runs on every
 * key check (bench:checkkey, bench:lookup).
 */
export class SecretBox {
  readonly #encryptionKey: KeyObject;
  readonly #lookupKey: KeyObject;
  readonly #random: RandomSource;

  constructor(masterKey: Buffer, random: RandomSource) {
    if (masterKey.length !== 32) throw new Error('the master key must be 32 bytes');
    this.#encryptionKey = createSecretKey(Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), 'cloudtwin/encrypt/v1', 32)));
    this.#lookupKey = createSecretKey(Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), 'cloudtwin/lookup/v1', 32)));
    this.#random = random;
  }

  /** `v1.` + base64url(iv || tag || ciphertext). `context` is bound as associated data. */
  encrypt(plaintext: string, context = ''): string {
    const iv = this.#random.bytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#encryptionKey, iv);
    cipher.setAAD(Buffer.from(context));
    const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return 'v1.' + Buffer.concat([iv, cipher.getAuthTag(), ct]).toString('base64url');
  }

  decrypt(sealed: string, context = ''): string {
    if (!sealed.startsWith('v1.')) throw new Error('unknown secret format');
    const raw = Buffer.from(sealed.slice(3), 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', this.#encryptionKey, raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }

  /**
   * Recent lookup hashes by secret: the HMAC was most of a key check's cost (bench:checkkey,
   * bench:lookup). Holding secrets in memory adds no exposure: this object holds the master key.
   * A bounded least-recently-used map (a Map keeps insertion order; a hit moves the entry to the
   * end once the map is half full): a flood of bogus key strings evicts only the least recently
   * used entries, never the keys in use.
   */
  readonly #hashMemo = new Map<string, string>();

  /** Keyed hash for lookups: equal secrets give equal hashes; the hash reveals nothing without the key. */
  lookupHash(secret: string): string {
    const memo = this.#hashMemo;
    let h = memo.get(secret);
    if (h !== undefined) {
      if (memo.size * 2 >= HASH_MEMO_MAX) {
        memo.delete(secret);
        memo.set(secret, h);
      }
      return h;
    }
    h = createHmac('sha256', this.#lookupKey).update(secret).digest('base64url');
    if (secret.length <= 256) {
      if (memo.size >= HASH_MEMO_MAX) memo.delete(memo.keys().next().value!);
      memo.set(secret, h);
    }
    return h;
  }

  /** Whether `secret`'s lookup hash is memoised (diagnostics and tests; does not touch recency). */
  isHashMemoised(secret: string): boolean {
    return this.#hashMemo.has(secret);
  }
}

/** Most lookup hashes `SecretBox` keeps memoised. */
export const HASH_MEMO_MAX = 10_000;

export function constantTimeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}
