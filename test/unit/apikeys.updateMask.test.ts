import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { applyChanges, parseUpdateMask } from '../../src/services/apikeys/updateMask.ts';
import { ApiError } from '../../src/platform/http/errors.ts';
import { decodePageToken, encodePageToken } from '../../src/services/apikeys/pageToken.ts';

const body = { displayName: 'n', restrictions: { apiTargets: [{ service: 'a.googleapis.com' }] } };

describe('updateMask', () => {
  test('no mask: every mutable field present in the body', () => {
    assert.deepEqual(parseUpdateMask(undefined, body), body);
    assert.deepEqual(parseUpdateMask('', { displayName: 'x' }), { displayName: 'x' });
  });
  test('snake and camel spellings', () => {
    assert.deepEqual(parseUpdateMask('display_name', body), { displayName: 'n' });
    assert.deepEqual(parseUpdateMask('displayName', body), { displayName: 'n' });
  });
  test('a masked field missing from the body is cleared', () => {
    assert.deepEqual(parseUpdateMask('annotations,restrictions', { displayName: 'n' }), { annotations: {}, restrictions: {} });
  });
  test('* means every mutable field', () => {
    assert.deepEqual(parseUpdateMask('*', {}), { displayName: '', restrictions: {}, annotations: {} });
  });
  test('immutable fields are rejected with APIKEYS_UPDATE_MASK_CONTAINS_IMMUTABLE_FIELDS', () => {
    assert.throws(
      () => parseUpdateMask('displayName,service_account_email', body),
      (e: unknown) => e instanceof ApiError && e.reason === 'APIKEYS_UPDATE_MASK_CONTAINS_IMMUTABLE_FIELDS' && e.httpCode === 400,
    );
  });
  test('a path naming no field is 400 INVALID_ARGUMENT naming it', () => {
    const bad = ['foo', 'restrictions.foo', 'restrictions.api_targets.service', 'annotations.team', 'display_name.x', 'restrictions.', '.restrictions', 'Restrictions', 'restrictions..api_targets'];
    for (const m of bad) {
      assert.throws(
        () => parseUpdateMask(`displayName,${m}`, body),
        (e: unknown) => e instanceof ApiError && e.status === 'INVALID_ARGUMENT' && e.httpCode === 400 && !e.reason && e.message.includes(`'${m}'`),
        m,
      );
    }
  });
  test('names on Object.prototype are not fields (issue 10)', () => {
    for (const m of [...Object.getOwnPropertyNames(Object.prototype), 'restrictions.__proto__', 'restrictions.constructor', 'restrictions.toString']) {
      assert.throws(
        () => parseUpdateMask(m, { annotations: { x: 'y' } }),
        (e: unknown) => e instanceof ApiError && e.status === 'INVALID_ARGUMENT' && e.message.includes(`'${m}'`),
        m,
      );
    }
  });
  test('property: any mask is either 400 INVALID_ARGUMENT or names only known fields; never another error', () => {
    const known = ['display_name', 'displayName', 'restrictions', 'annotations', 'restrictions.api_targets', 'restrictions.browserKeyRestrictions', '*', 'uid', 'toString', '__proto__'];
    const segment = fc.oneof(fc.constantFrom(...known, ...Object.getOwnPropertyNames(Object.prototype)), fc.string({ maxLength: 12 }), fc.string({ unit: 'grapheme', maxLength: 6 }));
    const mask = fc.array(fc.array(segment, { minLength: 1, maxLength: 3 }).map((p) => p.join('.')), { maxLength: 4 }).map((ps) => ps.join(','));
    fc.assert(
      fc.property(mask, fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 })), (m, b) => {
        try {
          const changes = parseUpdateMask(m, b);
          for (const k of Object.keys(changes)) assert.ok(['displayName', 'restrictions', 'annotations', 'restrictionParts'].includes(k), k);
          const key = { displayName: 'k', restrictions: {}, annotations: {} };
          assert.deepEqual(Object.keys(applyChanges(key, changes)).sort(), ['annotations', 'displayName', 'restrictions']);
        } catch (e) {
          assert.ok(e instanceof ApiError && e.status === 'INVALID_ARGUMENT' && e.httpCode === 400, String(e));
        }
      }),
      { numRuns: 2000 },
    );
  });
  test('restrictions sub-paths in snake_case and lowerCamelCase; several joined by commas', () => {
    const r = { browserKeyRestrictions: { allowedReferrers: ['a.com'] }, apiTargets: [{ service: 's.googleapis.com' }] };
    for (const m of ['restrictions.browser_key_restrictions,restrictions.api_targets', 'restrictions.browserKeyRestrictions, restrictions.apiTargets']) {
      assert.deepEqual(parseUpdateMask(m, { restrictions: r }), {
        restrictionParts: [
          ['browserKeyRestrictions', r.browserKeyRestrictions],
          ['apiTargets', r.apiTargets],
        ],
      });
    }
    assert.deepEqual(parseUpdateMask('restrictions.server_key_restrictions', { restrictions: r }), { restrictionParts: [['serverKeyRestrictions', null]] }, 'absent: cleared');
  });
  test('the whole of restrictions subsumes its sub-paths', () => {
    assert.deepEqual(parseUpdateMask('restrictions.api_targets,restrictions', { restrictions: {} }), { restrictions: {} });
  });
  test('a body setting two application restriction kinds is refused when a sub-path is masked', () => {
    const r = { browserKeyRestrictions: { allowedReferrers: ['a.com'] }, serverKeyRestrictions: { allowedIps: ['10.0.0.1'] } };
    assert.throws(() => parseUpdateMask('restrictions.browser_key_restrictions', { restrictions: r }), (e: unknown) => e instanceof ApiError && /Only one application restriction/.test(e.message));
  });
});

describe('applyChanges: FieldMask merge', () => {
  const key = {
    displayName: 'k',
    annotations: { a: 'b' },
    restrictions: { serverKeyRestrictions: { allowedIps: ['10.0.0.1'] }, apiTargets: [{ service: 'a.googleapis.com' }] },
  };
  const merge = (mask: string, b: Record<string, unknown>) => applyChanges(key, parseUpdateMask(mask, b));
  test('a sub-path replaces only that field of restrictions', () => {
    const m = merge('restrictions.api_targets', { restrictions: { apiTargets: [{ service: 'b.googleapis.com' }], serverKeyRestrictions: { allowedIps: ['ignored'] } } });
    assert.deepEqual(m, { ...key, restrictions: { serverKeyRestrictions: { allowedIps: ['10.0.0.1'] }, apiTargets: [{ service: 'b.googleapis.com' }] } });
  });
  test('setting one application restriction kind clears the other (one oneof)', () => {
    const m = merge('restrictions.browser_key_restrictions', { restrictions: { browserKeyRestrictions: { allowedReferrers: ['x.com/*'] } } });
    assert.deepEqual(m.restrictions, { apiTargets: [{ service: 'a.googleapis.com' }], browserKeyRestrictions: { allowedReferrers: ['x.com/*'] } });
  });
  test('a masked kind absent from the body is cleared; the other fields stay', () => {
    assert.deepEqual(merge('restrictions.server_key_restrictions', {}).restrictions, { apiTargets: [{ service: 'a.googleapis.com' }] });
    assert.deepEqual(merge('restrictions.api_targets', { restrictions: {} }).restrictions, { serverKeyRestrictions: { allowedIps: ['10.0.0.1'] } });
    assert.deepEqual(merge('restrictions.browser_key_restrictions', {}).restrictions, key.restrictions, 'clearing a kind the key has not changes nothing');
  });
  test('two kinds named, the body sets one: that one is set, the other cleared, in any order', () => {
    const b = { restrictions: { iosKeyRestrictions: { allowedBundleIds: ['com.x'] } } };
    for (const mask of ['restrictions.ios_key_restrictions,restrictions.server_key_restrictions', 'restrictions.server_key_restrictions,restrictions.ios_key_restrictions']) {
      assert.deepEqual(merge(mask, b).restrictions, { apiTargets: [{ service: 'a.googleapis.com' }], iosKeyRestrictions: { allowedBundleIds: ['com.x'] } }, mask);
    }
  });
  test('a path into a kind (allowed_referrers) sets that kind', () => {
    assert.deepEqual(merge('restrictions.browser_key_restrictions.allowed_referrers', {}).restrictions, { apiTargets: [{ service: 'a.googleapis.com' }], browserKeyRestrictions: {} });
  });
  test('the key passed in is not modified', () => {
    const before = JSON.stringify(key);
    merge('restrictions.browser_key_restrictions,display_name,annotations', { restrictions: { browserKeyRestrictions: { allowedReferrers: ['x'] } } });
    assert.equal(JSON.stringify(key), before);
  });
});

describe('list page tokens', () => {
  const state = { projectNumber: '1', showDeleted: false, createTime: 5, uid: '0b3a2c1e-5f4d-4a6b-8c7d-9e0f1a2b3c4d' };
  test('round trip', () => {
    assert.deepEqual(decodePageToken(encodePageToken(state), { projectNumber: '1', showDeleted: false }), { createTime: 5, uid: state.uid });
  });
  test('a token from another query or garbage is rejected', () => {
    const t = encodePageToken(state);
    assert.throws(() => decodePageToken(t, { projectNumber: '2', showDeleted: false }), ApiError);
    assert.throws(() => decodePageToken(t, { projectNumber: '1', showDeleted: true }), ApiError);
    assert.throws(() => decodePageToken('garbage!', { projectNumber: '1', showDeleted: false }), ApiError);
  });
});
