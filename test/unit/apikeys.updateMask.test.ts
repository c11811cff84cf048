import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseUpdateMask } from '../../src/services/apikeys/updateMask.ts';
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
  test('unknown and sub-field paths are rejected', () => {
    for (const m of ['foo', 'restrictions.browser_key_restrictions']) {
      assert.throws(() => parseUpdateMask(m, body), (e: unknown) => e instanceof ApiError && e.status === 'INVALID_ARGUMENT' && !e.reason);
    }
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
