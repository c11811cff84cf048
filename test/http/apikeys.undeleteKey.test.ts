import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startTestTwin, type TestTwin, twinHooks } from '../support/twin.ts';
import { ALICE, BOB, DEMO } from '../support/world.ts';
import { DAY_S, KEY_TYPE, advanceClock, assertError, createKey, errorInfo, getOperation, keyNameOf, keyPath, listAll, setOperationsMode } from './helpers.ts';

const UNDELETE_OP = /^operations\/akmf\.p13-300000000001-[0-9a-f-]{36}$/;
const undelete = (t: TestTwin, id: string, payload: unknown = {}, principal = ALICE) =>
  t.call(principal, { method: 'POST', url: `${keyPath(id)}:undelete`, payload: payload as any });
const del = async (t: TestTwin, id: string) => assert.equal((await t.call(ALICE, { method: 'DELETE', url: keyPath(id) })).statusCode, 200);
const lookup = async (t: TestTwin, keyString: string) => (await t.call(ALICE, { method: 'GET', url: `/v2/keys:lookupKey?keyString=${keyString}` })).json();

describe('undeleteKey', () => {
  let t: TestTwin;
  twinHooks((twin) => {
    t = twin;
  });

  test('within 30 days the key comes back with its key string', async () => {
    const k = await createKey(t, { keyId: 'undel-1', body: { displayName: 'Back' } });
    await del(t, 'undel-1');
    await advanceClock(t, 29 * DAY_S);
    const res = await undelete(t, 'undel-1');
    assert.equal(res.statusCode, 200, res.body);
    const op = res.json();
    assert.deepEqual(Object.keys(op), ['name', 'done', 'response']);
    assert.match(op.name, UNDELETE_OP);
    assert.equal(op.response['@type'], KEY_TYPE);
    assert.equal(op.response.name, keyNameOf('undel-1'));
    assert.equal(op.response.deleteTime, undefined);
    assert.equal(op.response.uid, k.uid);
    assert.equal(op.response.displayName, 'Back');
    assert.ok((await listAll(t)).some((x) => x.name === keyNameOf('undel-1')));
    const ks = (await t.call(ALICE, { method: 'GET', url: `${keyPath('undel-1')}/keyString` })).json().keyString;
    assert.equal(ks, k.keyString);
    const origin = { service: 'youtube.googleapis.com', method: 'List' };
    assert.equal((await t.twin.apikeys.checkKey(k.keyString, origin)).keyName, keyNameOf('undel-1'));
  });

  test('without a body it works too', async () => {
    await createKey(t, { keyId: 'undel-nobody' });
    await del(t, 'undel-nobody');
    const res = await t.call(ALICE, { method: 'POST', url: `${keyPath('undel-nobody')}:undelete` });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().response.deleteTime, undefined);
  });

  test('an active key is 400 FAILED_PRECONDITION', async () => {
    await createKey(t, { keyId: 'undel-active' });
    assertError(await undelete(t, 'undel-active'), 400, 'FAILED_PRECONDITION', /not deleted/);
  });

  test('an unknown key is 404', async () => {
    assertError(await undelete(t, 'undel-unknown'), 404, 'NOT_FOUND');
  });

  test('an unknown body field is 400', async () => {
    await createKey(t, { keyId: 'undel-body' });
    await del(t, 'undel-body');
    assertError(await undelete(t, 'undel-body', { force: true }), 400, 'INVALID_ARGUMENT', /Unknown name "force"/);
  });

  test('a viewer may not undelete: 403 naming apikeys.keys.undelete', async () => {
    await createKey(t, { keyId: 'undel-perm' });
    await del(t, 'undel-perm');
    const err = assertError(await undelete(t, 'undel-perm', {}, BOB), 403, 'PERMISSION_DENIED', /^Permission 'apikeys\.keys\.undelete' denied/);
    assert.equal(errorInfo(err).metadata.permission, 'apikeys.keys.undelete');
  });

  test('a location other than global is 400', async () => {
    assertError(await t.call(ALICE, { method: 'POST', url: `/v2/projects/${DEMO.projectId}/locations/eu/keys/undel-perm:undelete`, payload: {} }), 400, 'INVALID_ARGUMENT');
  });
});

describe('undeleteKey after 30 days', () => {
  test('is 404, the key stays deleted, lookupKey answers an empty name and the id is free again', async () => {
    const t = await startTestTwin();
    try {
      const k = await createKey(t, { keyId: 'too-late' });
      await del(t, 'too-late');
      await advanceClock(t, 30 * DAY_S + 60);
      assertError(await undelete(t, 'too-late'), 404, 'NOT_FOUND');
      assertError(await t.call(ALICE, { method: 'GET', url: keyPath('too-late') }), 404, 'NOT_FOUND');
      assert.deepEqual(await listAll(t, { showDeleted: true }), []);
      assert.deepEqual(await lookup(t, k.keyString), { parent: `projects/${DEMO.projectNumber}/locations/global`, name: '' });
      await assert.rejects(t.twin.apikeys.checkKey(k.keyString, { service: 'youtube.googleapis.com', method: 'List' }), (e: any) => e.reason === 'API_KEY_INVALID');
      const again = await createKey(t, { keyId: 'too-late' });
      assert.notEqual(again.uid, k.uid);
      assert.notEqual(again.keyString, k.keyString);
      assert.equal((await lookup(t, k.keyString)).name, '', 'the old string stays dead');
    } finally {
      await t.close();
    }
  });
});

describe('undeleteKey in delayed mode', () => {
  test('the key appears in the list (without showDeleted) only when the operation is done', async () => {
    const t = await startTestTwin();
    try {
      await createKey(t, { keyId: 'slow-back' });
      await del(t, 'slow-back');
      await setOperationsMode(t, 'delayed', 60_000);
      const first = (await undelete(t, 'slow-back')).json();
      assert.deepEqual(Object.keys(first), ['name']);
      assert.match(first.name, UNDELETE_OP);
      assert.deepEqual(await listAll(t), []);
      assert.ok((await t.call(ALICE, { method: 'GET', url: keyPath('slow-back') })).json().deleteTime);
      await advanceClock(t, 30);
      assert.deepEqual(await getOperation(t, first.name), { name: first.name });
      assert.deepEqual(await listAll(t), []);
      await advanceClock(t, 31);
      const done = await getOperation(t, first.name);
      assert.equal(done.done, true);
      assert.equal(done.response.deleteTime, undefined);
      assert.deepEqual((await listAll(t)).map((k) => k.name), [keyNameOf('slow-back')]);
    } finally {
      await t.close();
    }
  });
});
