import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type TestTwin, twinHooks } from '../support/twin.ts';
import { ALICE, BOB, DEMO } from '../support/world.ts';
import { KEY_TYPE, RFC3339, advanceClock, assertError, createKey, errorInfo, getOperation, keyNameOf, keyPath, listAll, setOperationsMode } from './helpers.ts';

const DELETE_OP = /^operations\/akmf\.p12-300000000001-[0-9a-f-]{36}$/;
const del = (t: TestTwin, id: string, query = '', principal = ALICE) => t.call(principal, { method: 'DELETE', url: keyPath(id) + query });

describe('deleteKey', () => {
  let t: TestTwin;
  twinHooks((twin) => {
    t = twin;
  });

  test('soft-deletes: the operation carries the key with deleteTime; get still answers', async () => {
    const created = await createKey(t, { keyId: 'del-1', body: { displayName: 'Doomed' } });
    await advanceClock(t, 1);
    const res = await del(t, 'del-1');
    assert.equal(res.statusCode, 200, res.body);
    const op = res.json();
    assert.deepEqual(Object.keys(op), ['name', 'done', 'response']);
    assert.match(op.name, DELETE_OP);
    const k = op.response;
    assert.equal(k['@type'], KEY_TYPE);
    assert.equal(k.name, keyNameOf('del-1'));
    assert.match(k.deleteTime, RFC3339);
    assert.ok(Date.parse(k.deleteTime) > Date.parse(created.createTime));
    assert.equal(k.updateTime, k.deleteTime);
    assert.equal(k.etag, created.etag, 'delete keeps the etag');
    assert.equal(k.keyString, created.keyString, 'the deleted key with its string, as the real service answers');
    const got = (await t.call(ALICE, { method: 'GET', url: keyPath('del-1') })).json();
    assert.equal(got.deleteTime, k.deleteTime);
    assert.equal(got.displayName, 'Doomed');
    assert.deepEqual((await listAll(t)).filter((x) => x.name === keyNameOf('del-1')), []);
  });

  test('a deleted key no longer passes key checks', async () => {
    const k = await createKey(t, { keyId: 'del-check' });
    const origin = { service: 'youtube.googleapis.com', method: 'youtube.api.v3.V3DataSearchService.List' };
    assert.equal((await t.twin.apikeys.checkKey(k.keyString, origin)).keyName, keyNameOf('del-check'));
    await del(t, 'del-check');
    await assert.rejects(t.twin.apikeys.checkKey(k.keyString, origin), (e: any) => e.reason === 'API_KEY_INVALID');
  });

  test('with the current etag the delete goes through', async () => {
    const k = await createKey(t, { keyId: 'del-etag' });
    const res = await del(t, 'del-etag', `?etag=${encodeURIComponent(k.etag)}`);
    assert.equal(res.statusCode, 200, res.body);
    assert.ok(res.json().response.deleteTime);
  });

  test('a stale etag is 409 ABORTED and the key stays', async () => {
    const k = await createKey(t, { keyId: 'del-stale' });
    assert.equal((await t.call(ALICE, { method: 'PATCH', url: `${keyPath('del-stale')}?updateMask=displayName`, payload: { displayName: 'changed' } })).statusCode, 200);
    assertError(await del(t, 'del-stale', `?etag=${encodeURIComponent(k.etag)}`), 409, 'ABORTED', /etag/);
    assert.equal((await t.call(ALICE, { method: 'GET', url: keyPath('del-stale') })).json().deleteTime, undefined);
  });

  test('deleting twice is 400 FAILED_PRECONDITION', async () => {
    await createKey(t, { keyId: 'del-twice' });
    assert.equal((await del(t, 'del-twice')).statusCode, 200);
    assertError(await del(t, 'del-twice'), 400, 'FAILED_PRECONDITION', /already deleted/);
  });

  test('an unknown key is 404', async () => {
    assertError(await del(t, 'not-there'), 404, 'NOT_FOUND');
  });

  test('an unknown query parameter is 400; a location other than global is 400', async () => {
    await createKey(t, { keyId: 'del-q' });
    assertError(await del(t, 'del-q', '?force=true'), 400, 'INVALID_ARGUMENT', /Unknown name "force"/);
    assertError(await t.call(ALICE, { method: 'DELETE', url: keyPath('del-q', DEMO.projectId, 'us') }), 400, 'INVALID_ARGUMENT');
    assert.equal((await t.call(ALICE, { method: 'GET', url: keyPath('del-q') })).json().deleteTime, undefined);
  });

  test('a viewer may not delete: 403 naming apikeys.keys.delete', async () => {
    await createKey(t, { keyId: 'del-perm' });
    const err = assertError(await del(t, 'del-perm', '', BOB), 403, 'PERMISSION_DENIED', /^Permission 'apikeys\.keys\.delete' denied/);
    assert.equal(errorInfo(err).metadata.permission, 'apikeys.keys.delete');
  });

  test('in delayed mode the key is deleted once the operation is done', async () => {
    await createKey(t, { keyId: 'del-slow' });
    await setOperationsMode(t, 'delayed', 60_000);
    try {
      const first = (await del(t, 'del-slow')).json();
      assert.deepEqual(Object.keys(first), ['name']);
      assert.match(first.name, DELETE_OP);
      assert.equal((await t.call(ALICE, { method: 'GET', url: keyPath('del-slow') })).json().deleteTime, undefined);
      await advanceClock(t, 61);
      assert.ok((await getOperation(t, first.name)).response.deleteTime);
      assert.ok((await t.call(ALICE, { method: 'GET', url: keyPath('del-slow') })).json().deleteTime);
    } finally {
      await setOperationsMode(t, 'instant');
    }
  });
});
