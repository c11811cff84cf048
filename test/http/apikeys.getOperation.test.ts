import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type TestTwin, twinHooks } from '../support/twin.ts';
import { ALICE, BOB, CAROL, MALLORY } from '../support/world.ts';
import { CREATE_OP, KEY_STRING, KEY_TYPE, advanceClock, assertError, errorInfo, keyNameOf, keyPath, keysPath, setOperationsMode } from './helpers.ts';

describe('getOperation', () => {
  let t: TestTwin;
  let createOp: Record<string, any>;
  twinHooks(async (twin) => {
    t = twin;
    createOp = (await t.call(ALICE, { method: 'POST', url: `${keysPath()}?keyId=op-key`, payload: { displayName: 'Op' } })).json();
  });

  test('answers the finished create operation with the key and its key string', async () => {
    const res = await t.call(ALICE, { method: 'GET', url: `/v2/${createOp.name}` });
    assert.equal(res.statusCode, 200);
    const op = res.json();
    assert.deepEqual(op, createOp);
    assert.deepEqual(Object.keys(op), ['name', 'done', 'response']);
    assert.match(op.name, CREATE_OP);
    assert.equal(op.response['@type'], KEY_TYPE);
    assert.equal(op.response.name, keyNameOf('op-key'));
    assert.match(op.response.keyString, KEY_STRING);
  });

  test('update, delete and undelete operations are kept under their own prefixes', async () => {
    const ops = [
      (await t.call(ALICE, { method: 'PATCH', url: `${keyPath('op-key')}?updateMask=displayName`, payload: { displayName: 'Op2' } })).json(),
      (await t.call(ALICE, { method: 'DELETE', url: keyPath('op-key') })).json(),
      (await t.call(ALICE, { method: 'POST', url: `${keyPath('op-key')}:undelete`, payload: {} })).json(),
    ];
    for (const [i, prefix] of ['p10', 'p12', 'p13'].entries()) {
      assert.match(ops[i].name, new RegExp(`^operations/akmf\\.${prefix}-300000000001-[0-9a-f-]{36}$`));
      const again = (await t.call(ALICE, { method: 'GET', url: `/v2/${ops[i].name}` })).json();
      assert.deepEqual(again, ops[i]);
      // Create and delete operations carry the key string (as the real service answers them), update and undelete do not.
      assert.equal(again.response.keyString === undefined, prefix !== 'p12', prefix);
    }
  });

  test('an inherited owner may read it; an API Keys viewer (no serviceusage.operations.get) and a stranger get 403', async () => {
    const viewer = assertError(await t.call(BOB, { method: 'GET', url: `/v2/${createOp.name}` }), 403, 'PERMISSION_DENIED');
    assert.equal(errorInfo(viewer).metadata.permission, 'serviceusage.operations.get');
    assert.equal((await t.call(CAROL, { method: 'GET', url: `/v2/${createOp.name}` })).statusCode, 200);
    const err = assertError(await t.call(MALLORY, { method: 'GET', url: `/v2/${createOp.name}` }), 403, 'PERMISSION_DENIED');
    assert.equal(errorInfo(err).reason, 'IAM_PERMISSION_DENIED');
    assert.equal(errorInfo(err).metadata.resource, createOp.name, 'the operation as the caller named it');
  });

  test('a stranger gets the same 403 for an operation that does not exist (existenceLeaks.test.ts covers every route)', async () => {
    const fake = 'operations/akmf.p7-300000000001-00000000-0000-4000-8000-000000000000';
    const err = assertError(await t.call(MALLORY, { method: 'GET', url: `/v2/${fake}` }), 403, 'PERMISSION_DENIED');
    assert.equal(errorInfo(err).metadata.resource, fake);
  });

  test('an unknown operation is 404 to a caller who may read the project\'s operations; a name that gives no project is 404 to all', async () => {
    assertError(await t.call(MALLORY, { method: 'GET', url: '/v2/operations/garbage' }), 404, 'NOT_FOUND');
    assertError(await t.call(ALICE, { method: 'GET', url: '/v2/operations/akmf.p7-300000000001-00000000-0000-4000-8000-000000000000' }), 404, 'NOT_FOUND');
    assertError(await t.call(ALICE, { method: 'GET', url: '/v2/operations/garbage' }), 404, 'NOT_FOUND');
  });

  test('an unknown query parameter is 400', async () => {
    assertError(await t.call(ALICE, { method: 'GET', url: `/v2/${createOp.name}?wait=1` }), 400, 'INVALID_ARGUMENT', /Unknown name "wait"/);
  });

  test('needs credentials: 401 naming GetOperation', async () => {
    const err = assertError(await t.call(null, { method: 'GET', url: `/v2/${createOp.name}` }), 401, 'UNAUTHENTICATED');
    assert.deepEqual(errorInfo(err).metadata, { method: 'google.longrunning.Operations.GetOperation', service: 'apikeys.googleapis.com' });
  });

  test('a delayed operation answers {name} until it is due, then done', async () => {
    await setOperationsMode(t, 'delayed', 5_000);
    try {
      const first = (await t.call(ALICE, { method: 'POST', url: keysPath(), payload: {} })).json();
      assert.deepEqual((await t.call(ALICE, { method: 'GET', url: `/v2/${first.name}` })).json(), { name: first.name });
      await advanceClock(t, 6);
      const done = (await t.call(ALICE, { method: 'GET', url: `/v2/${first.name}` })).json();
      assert.equal(done.done, true);
      assert.match(done.response.keyString, KEY_STRING);
    } finally {
      await setOperationsMode(t, 'instant');
    }
  });
});

describe('getOperation: retention', () => {
  let t: TestTwin;
  twinHooks((twin) => {
    t = twin;
  });

  test('a finished operation stays readable for 30 days, then answers 404; its key stays', async () => {
    const op = (await t.call(ALICE, { method: 'POST', url: `${keysPath()}?keyId=old-op`, payload: {} })).json();
    await advanceClock(t, 29 * 86400);
    assert.equal((await t.call(ALICE, { method: 'GET', url: `/v2/${op.name}` })).statusCode, 200);
    await advanceClock(t, 2 * 86400);
    assertError(await t.call(ALICE, { method: 'GET', url: `/v2/${op.name}` }), 404, 'NOT_FOUND');
    assert.equal((await t.call(ALICE, { method: 'GET', url: keyPath('old-op') })).statusCode, 200);
  });
});
