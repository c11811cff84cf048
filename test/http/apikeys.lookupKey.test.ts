import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestTwin, startTestTwin } from '../support/twin.ts';
import { ALICE, BOB, CAROL, DEMO, LOOSE, MALLORY } from '../support/world.ts';
import { DAY_S, advanceClock, assertError, createKey, errorInfo, keyNameOf, keyPath } from './helpers.ts';

const lookup = (t: TestTwin, keyString: string, principal = ALICE, param = 'keyString') =>
  t.call(principal, { method: 'GET', url: `/v2/keys:lookupKey?${param}=${encodeURIComponent(keyString)}` });

describe('lookupKey', () => {
  let t: TestTwin;
  let k: Record<string, any>;
  before(async () => {
    t = await startTestTwin();
    k = await createKey(t, { keyId: 'find-me' });
  });
  after(() => t.close());

  test('answers {parent, name} with the project number and /locations/global', async () => {
    const res = await lookup(t, k.keyString);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { parent: `projects/${DEMO.projectNumber}/locations/global`, name: keyNameOf('find-me') });
    assert.deepEqual(Object.keys(res.json()), ['parent', 'name']);
  });

  test('snake_case key_string is accepted', async () => {
    assert.equal((await lookup(t, k.keyString, ALICE, 'key_string')).json().name, keyNameOf('find-me'));
  });

  test('an inherited owner may look keys up', async () => {
    assert.equal((await lookup(t, k.keyString, CAROL)).statusCode, 200);
  });

  test('an unknown key string is denied like a key the caller may not see (403, naming nothing), even to an admin', async () => {
    const err = assertError(await lookup(t, 'AIza' + 'x'.repeat(35)), 403, 'PERMISSION_DENIED', 'The caller does not have permission');
    assert.deepEqual(errorInfo(err).metadata, { permission: 'apikeys.keys.lookup' });
  });

  test('a missing keyString is 400', async () => {
    assertError(await t.call(ALICE, { method: 'GET', url: '/v2/keys:lookupKey' }), 400, 'INVALID_ARGUMENT');
  });

  test('an unknown query parameter is 400', async () => {
    assertError(await t.call(ALICE, { method: 'GET', url: `/v2/keys:lookupKey?keyString=${k.keyString}&x=1` }), 400, 'INVALID_ARGUMENT', /Unknown name "x"/);
  });

  test('an API Keys viewer may look keys up (roles/serviceusage.apiKeysViewer grants lookup)', async () => {
    assert.equal((await lookup(t, k.keyString, BOB)).statusCode, 200);
  });

  test('without the lookup permission on the key\'s project: 403', async () => {
    for (const who of [MALLORY]) {
      const err = assertError(await lookup(t, k.keyString, who), 403, 'PERMISSION_DENIED', 'The caller does not have permission');
      assert.deepEqual(errorInfo(err).metadata, { permission: 'apikeys.keys.lookup' }, 'the key\'s project is not named');
    }
  });

  test('a deleted key still resolves; once purged its name is empty and its id reusable', async () => {
    const gone = await createKey(t, { keyId: 'lookup-gone', project: LOOSE.projectId });
    assert.equal((await t.call(ALICE, { method: 'DELETE', url: keyPath('lookup-gone', LOOSE.projectId) })).statusCode, 200);
    assert.equal((await lookup(t, gone.keyString)).json().name, keyNameOf('lookup-gone', LOOSE.projectNumber));
    await advanceClock(t, 30 * DAY_S + 1);
    assert.deepEqual((await lookup(t, gone.keyString)).json(), { parent: `projects/${LOOSE.projectNumber}/locations/global`, name: '' });
    const again = await createKey(t, { keyId: 'lookup-gone', project: LOOSE.projectId });
    assert.notEqual(again.keyString, gone.keyString);
    assert.equal((await lookup(t, again.keyString)).json().name, keyNameOf('lookup-gone', LOOSE.projectNumber));
    assert.equal((await lookup(t, gone.keyString)).json().name, '');
  });
});
