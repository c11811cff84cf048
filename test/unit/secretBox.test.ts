import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Ids, seededRandom, systemRandom } from '../../src/platform/crypto/random.ts';
import { HASH_MEMO_MAX, SecretBox, constantTimeEqual } from '../../src/platform/crypto/secretBox.ts';

describe('SecretBox', () => {
  const box = new SecretBox(Buffer.alloc(32, 7), systemRandom);
  test('round-trips and never contains the plaintext', () => {
    const sealed = box.encrypt('AIzaSecretValue', 'uid-1');
    assert.ok(sealed.startsWith('v1.'));
    assert.ok(!sealed.includes('AIzaSecretValue'));
    assert.equal(box.decrypt(sealed, 'uid-1'), 'AIzaSecretValue');
  });
  test('the same plaintext seals differently each time (random IV)', () => {
    assert.notEqual(box.encrypt('x'), box.encrypt('x'));
  });
  test('a wrong context, a tampered ciphertext or another master key fail', () => {
    const sealed = box.encrypt('secret', 'uid-1');
    assert.throws(() => box.decrypt(sealed, 'uid-2'));
    const raw = Buffer.from(sealed.slice(3), 'base64url');
    raw[raw.length - 1] ^= 1;
    assert.throws(() => box.decrypt('v1.' + raw.toString('base64url'), 'uid-1'));
    assert.throws(() => new SecretBox(Buffer.alloc(32, 8), systemRandom).decrypt(sealed, 'uid-1'));
  });
  test('lookup hashes are deterministic per master key and differ across keys', () => {
    assert.equal(box.lookupHash('a'), box.lookupHash('a'));
    assert.notEqual(box.lookupHash('a'), box.lookupHash('b'));
    assert.notEqual(box.lookupHash('a'), new SecretBox(Buffer.alloc(32, 8), systemRandom).lookupHash('a'));
  });
  test('a flood of bogus key strings does not evict the lookup hashes of keys in use (bounded LRU memo)', () => {
    const box = new SecretBox(Buffer.alloc(32, 7), systemRandom);
    const real = ['AIzaReal-key-one', 'AIzaReal-key-two'];
    const expected = real.map((k) => box.lookupHash(k));
    for (let i = 0; i < 10 * HASH_MEMO_MAX; i++) {
      box.lookupHash(`AIzaBogus-${i}`);
      if (i % 100 === 0) real.forEach((k, j) => assert.equal(box.lookupHash(k), expected[j]));
    }
    for (const k of real) assert.equal(box.isHashMemoised(k), true, k);
    // Bounded: the oldest bogus strings were evicted, the latest kept.
    assert.equal(box.isHashMemoised('AIzaBogus-0'), false);
    assert.equal(box.isHashMemoised(`AIzaBogus-${10 * HASH_MEMO_MAX - 1}`), true);
    // A key not used during the flood is evicted like any other entry; its hash is the same when computed again.
    const idle = new SecretBox(Buffer.alloc(32, 7), systemRandom);
    const h = idle.lookupHash('AIzaIdle');
    for (let i = 0; i < HASH_MEMO_MAX; i++) idle.lookupHash(`AIzaBogus-${i}`);
    assert.equal(idle.isHashMemoised('AIzaIdle'), false);
    assert.equal(idle.lookupHash('AIzaIdle'), h);
  });
  test('rejects master keys that are not 32 bytes', () => {
    assert.throws(() => new SecretBox(Buffer.alloc(31), systemRandom));
  });
  test('constantTimeEqual', () => {
    assert.equal(constantTimeEqual('abc', 'abc'), true);
    assert.equal(constantTimeEqual('abc', 'abd'), false);
    assert.equal(constantTimeEqual('abc', 'abcd'), false);
  });
});

describe('Ids', () => {
  test('API key strings are AIza + 35 URL-safe characters', () => {
    const ids = new Ids();
    for (let i = 0; i < 200; i++) assert.match(ids.apiKeyString(), /^AIza[0-9A-Za-z_-]{35}$/);
  });
  test('UUIDs are version 4', () => {
    assert.match(new Ids().uuid(), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
  test('a seeded source repeats; different seeds differ', () => {
    assert.equal(new Ids(seededRandom('s')).apiKeyString(), new Ids(seededRandom('s')).apiKeyString());
    assert.notEqual(new Ids(seededRandom('s')).apiKeyString(), new Ids(seededRandom('t')).apiKeyString());
  });
  test('the system source hands out each drawn byte once, across pool refills and large draws', () => {
    const seen = new Set<string>();
    // 16-byte draws through several 4 KiB refills: no draw repeats (a reused pool slice would)
    for (let i = 0; i < 2000; i++) {
      const b = systemRandom.bytes(16);
      assert.equal(b.length, 16);
      seen.add(b.toString('hex'));
    }
    assert.equal(seen.size, 2000);
    const a = systemRandom.bytes(8);
    const copy = Buffer.from(a);
    systemRandom.bytes(4096 * 2);
    assert.deepEqual(a, copy, 'a handed-out buffer is its own (later draws do not change it)');
    assert.equal(systemRandom.bytes(5000).length, 5000);
  });
  test('decimal ids have the requested length and no leading zero', () => {
    const ids = new Ids();
    for (let i = 0; i < 50; i++) assert.match(ids.decimal(21), /^[1-9][0-9]{20}$/);
  });
});
