import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestTwin, startTestTwin } from '../support/twin.ts';
import { ALICE, BOB, DEMO, MALLORY } from '../support/world.ts';
import { DAY_S, ETAG, RFC3339, UUID4, advanceClock, assertError, createKey, errorInfo, keyNameOf, keyPath } from './helpers.ts';

describe('getKey', () => {
  let t: TestTwin;
  let created: Record<string, any>;
  before(async () => {
    t = await startTestTwin();
    created = await createKey(t, { keyId: 'get-me', body: { displayName: 'Get me', restrictions: { browserKeyRestrictions: { allowedReferrers: ['example.com/*'] } } } });
  });
  after(() => t.close());

  test('answers the key without its key string', async () => {
    const res = await t.call(ALICE, { method: 'GET', url: keyPath('get-me') });
    assert.equal(res.statusCode, 200);
    const k = res.json();
    assert.deepEqual(Object.keys(k), ['name', 'displayName', 'createTime', 'uid', 'updateTime', 'restrictions', 'etag']);
    assert.equal(k.name, keyNameOf('get-me'));
    assert.equal(k.displayName, 'Get me');
    assert.match(k.uid, UUID4);
    assert.equal(k.uid, created.uid);
    assert.match(k.createTime, RFC3339);
    assert.match(k.etag, ETAG);
    assert.equal(k.etag, created.etag);
    assert.deepEqual(k.restrictions, { browserKeyRestrictions: { allowedReferrers: ['example.com/*'] } });
    assert.equal(k.keyString, undefined);
  });

  test('by project number the answer is the same', async () => {
    const a = (await t.call(ALICE, { method: 'GET', url: keyPath('get-me') })).json();
    const b = (await t.call(ALICE, { method: 'GET', url: keyPath('get-me', DEMO.projectNumber) })).json();
    assert.deepEqual(b, a);
  });

  test('a viewer may get a key', async () => {
    assert.equal((await t.call(BOB, { method: 'GET', url: keyPath('get-me') })).statusCode, 200);
  });

  test('a stranger gets 403 naming the permission and the key', async () => {
    const err = assertError(
      await t.call(MALLORY, { method: 'GET', url: keyPath('get-me') }),
      403,
      'PERMISSION_DENIED',
      `Permission 'apikeys.keys.get' denied on resource '//apikeys.googleapis.com/projects/demo-project/locations/global/keys/get-me' (or it may not exist).`,
    );
    assert.deepEqual(errorInfo(err), {
      '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
      reason: 'IAM_PERMISSION_DENIED',
      domain: 'apikeys.googleapis.com',
      metadata: { permission: 'apikeys.keys.get', resource: 'projects/demo-project/locations/global/keys/get-me' },
    });
  });

  test('an unknown key is 404', async () => {
    assertError(await t.call(ALICE, { method: 'GET', url: keyPath('no-such-key') }), 404, 'NOT_FOUND', 'Requested entity was not found.');
  });

  test('a location other than global is 400', async () => {
    assertError(await t.call(ALICE, { method: 'GET', url: keyPath('get-me', DEMO.projectId, 'us-east1') }), 400, 'INVALID_ARGUMENT', /global/);
  });

  test('an unknown query parameter is 400', async () => {
    assertError(await t.call(ALICE, { method: 'GET', url: `${keyPath('get-me')}?view=FULL` }), 400, 'INVALID_ARGUMENT', /Unknown name "view": Cannot bind query parameter/);
  });

  test('a deleted key still answers, with deleteTime; a purged one is 404', async () => {
    await createKey(t, { keyId: 'soon-gone' });
    assert.equal((await t.call(ALICE, { method: 'DELETE', url: keyPath('soon-gone') })).statusCode, 200);
    const k = (await t.call(ALICE, { method: 'GET', url: keyPath('soon-gone') })).json();
    assert.match(k.deleteTime, RFC3339);
    assert.deepEqual(Object.keys(k), ['name', 'createTime', 'uid', 'updateTime', 'deleteTime', 'etag']);
    await advanceClock(t, 30 * DAY_S + 1);
    assertError(await t.call(ALICE, { method: 'GET', url: keyPath('soon-gone') }), 404, 'NOT_FOUND');
    // an active key is not affected by the clock
    assert.equal((await t.call(ALICE, { method: 'GET', url: keyPath('get-me') })).statusCode, 200);
  });
});
