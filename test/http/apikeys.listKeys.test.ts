import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestTwin, startTestTwin } from '../support/twin.ts';
import { ALICE, BOUND_OK, DEMO, LOOSE } from '../support/world.ts';
import { DAY_S, advanceClock, assertError, createKey, keyNameOf, keyPath, keysPath, listAll, setOperationsMode } from './helpers.ts';

const list = (t: TestTwin, query = '', project: string = LOOSE.projectId) => t.call(ALICE, { method: 'GET', url: `${keysPath(project)}${query}` });

describe('listKeys', () => {
  let t: TestTwin;
  const ids = ['l1', 'l2', 'l3', 'l4', 'l5'];
  before(async () => {
    t = await startTestTwin();
    for (const id of ids) {
      await createKey(t, { project: LOOSE.projectId, keyId: id, body: { displayName: `key ${id}` } });
      await advanceClock(t, 1); // distinct create times
    }
  });
  after(() => t.close());

  test('an empty project answers {}', async () => {
    const res = await list(t, '', BOUND_OK.projectId);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), {});
  });

  test('lists keys newest first, named by project number, without key strings', async () => {
    const res = await list(t);
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.deepEqual(Object.keys(body), ['keys']);
    assert.deepEqual(
      body.keys.map((k: any) => k.name),
      [...ids].reverse().map((id) => keyNameOf(id, LOOSE.projectNumber)),
    );
    for (const k of body.keys) {
      assert.deepEqual(Object.keys(k), ['name', 'displayName', 'createTime', 'uid', 'updateTime', 'etag']);
      assert.equal(k.keyString, undefined);
    }
    const times = body.keys.map((k: any) => Date.parse(k.createTime));
    assert.deepEqual(times, [...times].sort((a, b) => b - a));
  });

  test('the project may be named by number', async () => {
    const res = await list(t, '', LOOSE.projectNumber);
    assert.equal(res.json().keys.length, ids.length);
  });

  test('pages with pageSize and nextPageToken', async () => {
    const seen: string[] = [];
    let token = '';
    const sizes: number[] = [];
    do {
      const res = await list(t, `?pageSize=2${token ? `&pageToken=${encodeURIComponent(token)}` : ''}`);
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      sizes.push(body.keys.length);
      seen.push(...body.keys.map((k: any) => k.name));
      token = body.nextPageToken ?? '';
    } while (token);
    assert.deepEqual(sizes, [2, 2, 1]);
    assert.deepEqual(seen, [...ids].reverse().map((id) => keyNameOf(id, LOOSE.projectNumber)));
  });

  test('a page that holds the rest has no nextPageToken', async () => {
    const body = (await list(t, '?pageSize=5')).json();
    assert.equal(body.keys.length, 5);
    assert.equal(body.nextPageToken, undefined);
  });

  test('pageSize 0 means the default; a huge pageSize is capped, not an error', async () => {
    assert.equal((await list(t, '?pageSize=0')).json().keys.length, 5);
    assert.equal((await list(t, '?pageSize=100000')).json().keys.length, 5);
  });

  test('snake_case query names are accepted', async () => {
    const body = (await list(t, '?page_size=1&show_deleted=false')).json();
    assert.equal(body.keys.length, 1);
    assert.ok(body.nextPageToken);
  });

  test('a negative pageSize is 400', async () => {
    assertError(await list(t, '?pageSize=-1'), 400, 'INVALID_ARGUMENT');
  });

  test('a non-numeric pageSize is 400', async () => {
    assertError(await list(t, '?pageSize=ten'), 400, 'INVALID_ARGUMENT', `Invalid value at 'page_size' (TYPE_INT32), "ten"`);
  });

  test('a malformed page token is 400', async () => {
    assertError(await list(t, '?pageToken=not-a-token'), 400, 'INVALID_ARGUMENT', /page token/i);
  });

  test('a page token from another query is 400', async () => {
    const token = (await list(t, '?pageSize=1')).json().nextPageToken;
    assertError(await list(t, `?pageSize=1&showDeleted=true&pageToken=${encodeURIComponent(token)}`), 400, 'INVALID_ARGUMENT', /page token/i);
    assertError(await list(t, `?pageSize=1&pageToken=${encodeURIComponent(token)}`, DEMO.projectId), 400, 'INVALID_ARGUMENT', /page token/i);
  });

  test('an unknown query parameter is 400', async () => {
    assertError(await list(t, '?filter=x'), 400, 'INVALID_ARGUMENT', /Unknown name "filter": Cannot bind query parameter/);
  });

  test('a location other than global is 400', async () => {
    assertError(await t.call(ALICE, { method: 'GET', url: keysPath(LOOSE.projectId, 'europe-west1') }), 400, 'INVALID_ARGUMENT', /global/);
  });
});

describe('listKeys: deleted and purged keys', () => {
  test('showDeleted lists deleted keys with deleteTime; purged keys are gone', async () => {
    const t = await startTestTwin();
    try {
      await createKey(t, { keyId: 'keep' });
      await createKey(t, { keyId: 'gone' });
      assert.equal((await t.call(ALICE, { method: 'DELETE', url: keyPath('gone') })).statusCode, 200);

      assert.deepEqual((await listAll(t)).map((k) => k.name), [keyNameOf('keep')]);
      const withDeleted = await listAll(t, { showDeleted: true });
      assert.deepEqual(withDeleted.map((k) => k.name), [keyNameOf('gone'), keyNameOf('keep')]);
      assert.ok(withDeleted[0].deleteTime);
      assert.equal(withDeleted[1].deleteTime, undefined);

      await advanceClock(t, 29 * DAY_S);
      assert.equal((await listAll(t, { showDeleted: true })).length, 2);
      await advanceClock(t, DAY_S + 1);
      assert.deepEqual((await listAll(t, { showDeleted: true })).map((k) => k.name), [keyNameOf('keep')]);
    } finally {
      await t.close();
    }
  });

  test('in delayed mode a key shows only once its create operation is done', async () => {
    const t = await startTestTwin();
    try {
      await setOperationsMode(t, 'delayed', 60_000);
      await t.call(ALICE, { method: 'POST', url: keysPath(), payload: {} });
      assert.deepEqual(await listAll(t, { showDeleted: true }), []);
      await advanceClock(t, 61);
      assert.equal((await listAll(t)).length, 1);
    } finally {
      await t.close();
    }
  });
});
