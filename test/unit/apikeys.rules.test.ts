import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import {
  isUuidLike,
  MAX_ANNOTATIONS,
  validateAnnotations,
  validateDisplayName,
  validateKeyId,
} from '../../src/services/apikeys/rules.ts';

describe('isUuidLike', () => {
  test('8-4-4-4-12 hex of any version and case is UUID-like', () => {
    for (const s of [
      randomUUID(),
      randomUUID().toUpperCase(),
      '00000000-0000-0000-0000-000000000000',
      'abcdefab-cdef-1bcd-8bcd-abcdefabcdef', // v1
      'abcdefab-cdef-7bcd-8bcd-abcdefabcdef', // v7
      'ABCDEFAB-cdef-0bcd-zbcd-abcdefabcdef'.replace('z', 'f'), // no version rules
    ]) {
      assert.equal(isUuidLike(s), true, s);
    }
  });
  test('other strings are not', () => {
    for (const s of [
      '', 'my-key', 'abcdefabcdefabcdefabcdefabcdefab', // no hyphens
      'abcdefab-cdef-abcd-abcd-abcdefabcdeg', // non-hex
      'abcdefab-cdef-abcd-abcd-abcdefabcde', // 11 in last group
      'abcdefab-cdef-abcd-abcd-abcdefabcdef0',
      '{abcdefab-cdef-abcd-abcd-abcdefabcdef}',
      ' abcdefab-cdef-abcd-abcd-abcdefabcdef',
      'abcdefabc-def-abcd-abcd-abcdefabcdef',
    ]) {
      assert.equal(isUuidLike(s), false, s);
    }
  });
  test('property: every randomUUID is UUID-like', () => {
    fc.assert(fc.property(fc.uuid(), (u) => isUuidLike(u) && isUuidLike(u.toUpperCase())), { numRuns: 200 });
  });
});

describe('validateKeyId', () => {
  test('valid ids', () => {
    for (const id of ['a', 'z', 'ab', 'a1', 'a-b', 'my-key-1', 'a--b', 'a' + 'b'.repeat(62), 'k' + '0'.repeat(61) + '9']) {
      assert.equal(validateKeyId(id), null, id);
    }
  });
  test('63 characters accepted, 64 rejected', () => {
    assert.equal(validateKeyId('a'.repeat(63)), null);
    const v = validateKeyId('a'.repeat(64));
    assert.notEqual(v, null);
    assert.equal(v![0].field, 'key_id');
  });
  test('invalid ids', () => {
    for (const id of ['', '1abc', '-abc', 'abc-', 'Abc', 'aBc', 'a_b', 'a.b', 'a b', ' a', 'a ', 'é', 'a/b']) {
      const v = validateKeyId(id);
      assert.notEqual(v, null, id);
      assert.equal(v!.length, 1);
      assert.equal(v![0].field, 'key_id');
      assert.match(v![0].description, /1 to 63 characters/);
    }
  });
  test('UUID-like ids are rejected even though they match the id pattern', () => {
    const id = 'abcdefab-cdef-4bcd-abcd-abcdefabcdef';
    assert.match(id, /^[a-z]([a-z0-9-]{0,61}[a-z0-9])?$/);
    const v = validateKeyId(id);
    assert.notEqual(v, null);
    assert.match(v![0].description, /UUID/);
    assert.equal(validateKeyId('abcdefab-cdef-4bcd-abcd-abcdefabcdef-x'), null);
  });
  test('property: generated UUIDs that start with a letter are always rejected', () => {
    fc.assert(fc.property(fc.uuid(), fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'), (u, c) => {
      const id = c + u.slice(1);
      return validateKeyId(id) !== null;
    }), { numRuns: 200 });
  });
  test('non-strings are rejected', () => {
    for (const v of [undefined, null, 1, {}]) assert.notEqual(validateKeyId(v), null);
  });
});

describe('validateDisplayName', () => {
  test('0..63 characters are valid', () => {
    assert.equal(validateDisplayName(''), null);
    assert.equal(validateDisplayName('My key'), null);
    assert.equal(validateDisplayName('x'.repeat(63)), null);
  });
  test('64 characters are rejected', () => {
    const v = validateDisplayName('x'.repeat(64));
    assert.deepEqual(v?.map((x) => x.field), ['display_name']);
    assert.match(v![0].description, /at most 63/);
  });
  test('length counts Unicode code points, not UTF-16 units', () => {
    const emoji = '\u{1F511}'; // 2 UTF-16 units, 1 code point
    assert.equal(validateDisplayName(emoji.repeat(63)), null);
    assert.notEqual(validateDisplayName(emoji.repeat(64)), null);
    assert.equal(validateDisplayName('é'.repeat(63)), null);
    assert.notEqual(validateDisplayName('é'.repeat(64)), null);
  });
  test('non-strings are rejected; absent is valid', () => {
    assert.notEqual(validateDisplayName(5), null);
    assert.notEqual(validateDisplayName({}), null);
    assert.equal(validateDisplayName(undefined), null);
    assert.equal(validateDisplayName(null), null);
  });
});

describe('validateAnnotations', () => {
  test('valid maps', () => {
    assert.equal(validateAnnotations({}), null);
    assert.equal(validateAnnotations({ team: 'payments', 'app.kubernetes.io/name': 'web', 'cost-center': '', a: 'x'.repeat(1024) }), null);
    assert.equal(validateAnnotations({ ['k'.repeat(63)]: 'v' }), null);
  });
  test(`${MAX_ANNOTATIONS} entries accepted, ${MAX_ANNOTATIONS + 1} rejected`, () => {
    const map = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v']));
    assert.equal(validateAnnotations(map(64)), null);
    const v = validateAnnotations(map(65));
    assert.deepEqual(v?.map((x) => x.field), ['annotations']);
  });
  test('key length: 63 accepted, 64 rejected', () => {
    assert.equal(validateAnnotations({ ['k'.repeat(63)]: 'v' }), null);
    assert.notEqual(validateAnnotations({ ['k'.repeat(64)]: 'v' }), null);
  });
  test('value length: 1024 accepted, 1025 rejected', () => {
    assert.equal(validateAnnotations({ k: 'v'.repeat(1024) }), null);
    const v = validateAnnotations({ k: 'v'.repeat(1025) });
    assert.deepEqual(v?.map((x) => x.field), ['annotations["k"]']);
  });
  test('invalid keys', () => {
    for (const k of ['', '-a', 'a-', '.a', 'a.', '/a', 'a/', 'a b', 'a:b', 'é', 'a*']) {
      const v = validateAnnotations({ [k]: 'v' });
      assert.notEqual(v, null, k);
      assert.match(v![0].description, /Invalid annotation key/);
    }
  });
  test('non-string values are rejected; all problems are reported', () => {
    const v = validateAnnotations({ a: 1, b: null, c: 'ok', 'bad key': {} });
    assert.deepEqual(v?.map((x) => x.field), ['annotations["a"]', 'annotations["b"]', 'annotations["bad key"]', 'annotations["bad key"]']);
  });
  test('non-map input is rejected; absent is valid', () => {
    for (const m of ['x', 1, ['a'], true]) {
      assert.deepEqual(validateAnnotations(m)?.map((x) => x.field), ['annotations']);
    }
    assert.equal(validateAnnotations(undefined), null);
    assert.equal(validateAnnotations(null), null);
  });
});
