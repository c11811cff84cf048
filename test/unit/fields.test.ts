import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { applyFieldSelection, parseFieldSelection } from '../../src/platform/http/fields.ts';
import { ApiError } from '../../src/platform/http/errors.ts';

const list = { keys: [{ name: 'a', uid: '1', etag: 'x', restrictions: { apiTargets: [{ service: 's' }] } }, { name: 'b', uid: '2' }], nextPageToken: 't' };

describe('fields (partial response)', () => {
  test('selects top-level fields', () => {
    assert.deepEqual(applyFieldSelection(list, parseFieldSelection('nextPageToken')), { nextPageToken: 't' });
  });
  test('sub-selections apply to every element of a list', () => {
    assert.deepEqual(applyFieldSelection(list, parseFieldSelection('keys(name,uid)')), { keys: [{ name: 'a', uid: '1' }, { name: 'b', uid: '2' }] });
  });
  test('paths with / select nested fields', () => {
    const op = { name: 'operations/x', done: true, response: { keyString: 'AIza', uid: 'u' } };
    assert.deepEqual(applyFieldSelection(op, parseFieldSelection('response/keyString,done')), { done: true, response: { keyString: 'AIza' } });
  });
  test('nested parentheses and * wildcard', () => {
    assert.deepEqual(applyFieldSelection(list, parseFieldSelection('keys(restrictions(apiTargets(service)))')), {
      keys: [{ restrictions: { apiTargets: [{ service: 's' }] } }, {}],
    });
    assert.deepEqual(applyFieldSelection({ a: 1, b: { c: 2 } }, parseFieldSelection('*')), { a: 1, b: { c: 2 } });
  });
  test('the same field named twice merges its selections', () => {
    assert.deepEqual(applyFieldSelection(list, parseFieldSelection('keys(name),keys(uid)')), { keys: [{ name: 'a', uid: '1' }, { name: 'b', uid: '2' }] });
  });
  for (const bad of ['keys(name', 'keys)', ',', 'a,,b', 'keys()', 'a b']) {
    test(`rejects malformed selection ${JSON.stringify(bad)}`, () => {
      assert.throws(() => parseFieldSelection(bad), (e: unknown) => e instanceof ApiError && e.status === 'INVALID_ARGUMENT');
    });
  }
});
