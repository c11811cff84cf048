import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { KeyCache } from '../../src/services/apikeys/keyCache.ts';
import type { ApiKeyRecord } from '../../src/services/apikeys/model.ts';

function record(hash: string): ApiKeyRecord {
  return {
    uid: hash,
    projectNumber: '123456789012',
    keyId: hash,
    displayName: '',
    keyCipher: 'sealed',
    keyHash: hash,
    restrictions: {},
    annotations: {},
    serviceAccountEmail: null,
    etag: 'W/"x"',
    createTime: 0,
    updateTime: 0,
    deleteTime: null,
  };
}

/** A store of `real` keys that counts its loads. */
function store(real: string[]) {
  const known = new Set(real);
  const loads = { real: 0, bogus: 0 };
  const load = async (h: string) => {
    if (known.has(h)) {
      loads.real++;
      return record(h);
    }
    loads.bogus++;
    return undefined;
  };
  return { load, loads };
}

const hashes = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

/** Fetches every real key once per round; the hit rate of those fetches. */
async function hitRate(cache: KeyCache, real: string[], s: ReturnType<typeof store>, rounds: number): Promise<number> {
  const before = s.loads.real;
  for (let r = 0; r < rounds; r++) for (const h of real) assert.equal((await cache.fetch(h, s.load)).record?.keyHash, h);
  return 1 - (s.loads.real - before) / (rounds * real.length);
}

describe('KeyCache', () => {
  test('a flood of 100,000 bogus key strings leaves the hit rate of the keys in use unchanged', async () => {
    const real = hashes(2000, 'real-');
    const s = store(real);
    const cache = new KeyCache({ ttlMs: 3_600_000 });
    await hitRate(cache, real, s, 1); // warm
    const before = await hitRate(cache, real, s, 1);
    assert.equal(before, 1);
    // The flood, interleaved with traffic on the real keys.
    for (let i = 0; i < 100_000; i++) {
      const bogus = (await cache.fetch(randomBytes(16).toString('hex'), s.load)).record;
      assert.equal(bogus, undefined);
      if (i % 50 === 0) await cache.fetch(real[(i / 50) % real.length], s.load);
    }
    assert.equal(s.loads.bogus, 100_000, 'every bogus string was looked up (none is a hit)');
    assert.equal(await hitRate(cache, real, s, 1), before, 'no real key was evicted by the misses');
    const { keys, misses } = cache.sizes;
    assert.equal(keys, real.length);
    assert.ok(misses <= 10_000, `misses are bounded: ${misses}`);
  });

  test('a cached miss is still served from the cache (no store query per repeated bogus key)', async () => {
    const s = store([]);
    const cache = new KeyCache({ ttlMs: 3_600_000 });
    for (let i = 0; i < 10; i++) assert.equal((await cache.fetch('nope', s.load)).record, undefined);
    assert.equal(s.loads.bogus, 1);
  });

  test('keys are bounded, the least recently used goes first', async () => {
    const s = store(hashes(10, 'k'));
    const cache = new KeyCache({ ttlMs: 3_600_000, maxKeys: 3 });
    for (const h of ['k0', 'k1', 'k2']) await cache.fetch(h, s.load);
    await cache.fetch('k0', s.load); // k0 is now the most recent: k1 is the least
    await cache.fetch('k3', s.load); // evicts k1
    assert.equal(cache.sizes.keys, 3);
    assert.ok(cache.get('k0') && cache.get('k2') && cache.get('k3'));
    assert.equal(cache.get('k1'), undefined);
  });

  test('entries expire after the TTL; forget and clear drop them at once', async () => {
    let now = 1_000;
    const s = store(['a', 'b']);
    const cache = new KeyCache({ ttlMs: 1000, now: () => now });
    await cache.fetch('a', s.load);
    await cache.fetch('x', s.load);
    now += 999;
    assert.ok(cache.get('a'));
    assert.ok(cache.get('x'));
    now += 1;
    assert.equal(cache.get('a'), undefined);
    assert.equal(cache.get('x'), undefined);
    await cache.fetch('a', s.load);
    await cache.fetch('b', s.load);
    cache.forget('a');
    assert.equal(cache.get('a'), undefined);
    assert.ok(cache.get('b'));
    cache.clear();
    assert.deepEqual(cache.sizes, { keys: 0, misses: 0 });
  });

  test('a key string that starts to exist leaves the misses; one that stops existing leaves the keys', () => {
    const cache = new KeyCache({ ttlMs: 3_600_000 });
    cache.put('h', undefined);
    assert.deepEqual(cache.sizes, { keys: 0, misses: 1 });
    cache.put('h', record('h'));
    assert.deepEqual(cache.sizes, { keys: 1, misses: 0 });
    assert.equal(cache.get('h')?.record?.keyHash, 'h');
    cache.put('h', undefined);
    assert.deepEqual(cache.sizes, { keys: 0, misses: 1 });
    assert.equal(cache.get('h')?.record, undefined);
  });
});
