import { existsSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import type { RandomSource } from './random.ts';

export const MASTER_KEY_ENV = 'CLOUDTWIN_MASTER_KEY';

/**
 * The master key: from `CLOUDTWIN_MASTER_KEY` (base64 of 32 bytes), else `master.key` in the data
 * directory (created with mode 0600 on first start), else (in-memory runs) a fresh random key.
 */
export function loadMasterKey(opts: { env: NodeJS.ProcessEnv; dataDir?: string; random: RandomSource }): Buffer {
  const fromEnv = opts.env[MASTER_KEY_ENV];
  if (fromEnv) {
    const key = Buffer.from(fromEnv, 'base64');
    if (key.length !== 32) throw new Error(`${MASTER_KEY_ENV} must be the base64 encoding of exactly 32 bytes`);
    return key;
  }
  if (!opts.dataDir) return opts.random.bytes(32);
  const file = join(opts.dataDir, 'master.key');
  if (existsSync(file)) {
    const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
    if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte base64 key`);
    return key;
  }
  const key = opts.random.bytes(32);
  writeFileSync(file, key.toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return key;
}
