import { createHmac, randomBytes as systemRandomBytes, randomFillSync } from 'node:crypto';

/**
 * Every id and secret comes from here. In production it is the system CSPRNG; tests may seed it
 * for determinism (an HMAC-SHA256 counter DRBG: the same seed gives the same stream).
 */
export interface RandomSource {
  bytes(n: number): Buffer;
}

/**
 * The system CSPRNG, drawn 4 KiB at a time (as `crypto.randomUUID` does): one `randomBytes`
 * call costs a few microseconds whatever its size, and a Compute insert or an API key needs
 * several small draws. Every byte is handed out once, copied into a buffer of its own.
 */
function pooledSystemRandom(): RandomSource {
  const POOL = 4096;
  const pool = Buffer.allocUnsafe(POOL);
  let at = POOL;
  return {
    bytes(n: number): Buffer {
      if (n > POOL / 4) return systemRandomBytes(n);
      if (at + n > POOL) {
        randomFillSync(pool);
        at = 0;
      }
      const out = Buffer.from(pool.subarray(at, at + n));
      at += n;
      return out;
    },
  };
}

export const systemRandom: RandomSource = pooledSystemRandom();

export function seededRandom(seed: string): RandomSource {
  let counter = 0n;
  let pool = Buffer.alloc(0);
  return {
    bytes(n: number): Buffer {
      while (pool.length < n) {
        const block = createHmac('sha256', seed).update(String(counter++)).digest();
        pool = Buffer.concat([pool, block]);
      }
      const out = pool.subarray(0, n);
      pool = pool.subarray(n);
      return Buffer.from(out);
    },
  };
}

const KEY_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

export class Ids {
  readonly random: RandomSource;

  constructor(random: RandomSource = systemRandom) {
    this.random = random;
  }

  /** An RFC 4122 version-4 UUID. */
  uuid(): string {
    const b = this.random.bytes(16);
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    const h = b.toString('hex');
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }

  /** `AIza` + 35 characters of `[A-Za-z0-9_-]`: 39 in all, like Google API key strings. */
  apiKeyString(): string {
    // 64 symbols divide 256 evenly, so taking 6 low bits of each byte is unbiased.
    const b = this.random.bytes(35);
    let s = 'AIza';
    for (let i = 0; i < 35; i++) s += KEY_ALPHABET[b[i] & 63];
    return s;
  }

  /** An opaque bearer token in the style of Google access tokens. */
  accessToken(): string {
    return 'ya29.ct-' + this.random.bytes(32).toString('base64url');
  }

  /** A decimal id of the given number of digits whose first digit is not zero. */
  decimal(digits: number): string {
    const b = this.random.bytes(digits);
    let s = String(1 + (b[0] % 9));
    for (let i = 1; i < digits; i++) s += String(b[i] % 10);
    return s;
  }

  hex(bytes: number): string {
    return this.random.bytes(bytes).toString('hex');
  }

  base64url(bytes: number): string {
    return this.random.bytes(bytes).toString('base64url');
  }
}
