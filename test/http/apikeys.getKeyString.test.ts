import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestTwin, startTestTwin } from '../support/twin.ts';
import { ALICE, BOB, DEMO, MALLORY } from '../support/world.ts';
import { KEY_STRING, assertError, createKey, errorInfo, keyPath } from './helpers.ts';

const keyStringUrl = (id: string, project: string = DEMO.projectId) => `${keyPath(id, project)}/keyString`;

describe('getKeyString', () => {
  let t: TestTwin;
  let created: Record<string, any>;
  before(async () => {
    t = await startTestTwin();
    created = await createKey(t, { keyId: 'secret' });
  });
  after(() => t.close());

  test('answers {keyString} equal to the one the create operation returned', async () => {
    const res = await t.call(ALICE, { method: 'GET', url: keyStringUrl('secret') });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.deepEqual(Object.keys(body), ['keyString']);
    assert.match(body.keyString, KEY_STRING);
    assert.equal(body.keyString, created.keyString);
  });

  test('by project number too', async () => {
    assert.equal((await t.call(ALICE, { method: 'GET', url: keyStringUrl('secret', DEMO.projectNumber) })).json().keyString, created.keyString);
  });

  test('an API Keys viewer may read it (roles/serviceusage.apiKeysViewer grants getKeyString)', async () => {
    assert.equal((await t.call(BOB, { method: 'GET', url: keyStringUrl('secret') })).json().keyString, created.keyString);
  });

  test('without the permission: 403 naming it', async () => {
    const err = assertError(await t.call(MALLORY, { method: 'GET', url: keyStringUrl('secret') }), 403, 'PERMISSION_DENIED', /^Permission 'apikeys\.keys\.getKeyString' denied on resource/);
    assert.equal(errorInfo(err).metadata.permission, 'apikeys.keys.getKeyString');
  });

  test('a stranger gets 403', async () => {
    assertError(await t.call(MALLORY, { method: 'GET', url: keyStringUrl('secret') }), 403, 'PERMISSION_DENIED');
  });

  test('an unknown key is 404', async () => {
    assertError(await t.call(ALICE, { method: 'GET', url: keyStringUrl('nope') }), 404, 'NOT_FOUND');
  });

  test('a location other than global is 400', async () => {
    assertError(await t.call(ALICE, { method: 'GET', url: `/v2/projects/demo-project/locations/asia/keys/secret/keyString` }), 400, 'INVALID_ARGUMENT');
  });

  test('an update does not change the key string', async () => {
    const res = await t.call(ALICE, { method: 'PATCH', url: `${keyPath('secret')}?updateMask=displayName`, payload: { displayName: 'renamed' } });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().response.keyString, undefined, 'an update operation carries no key string (create and delete ones do)');
    assert.equal((await t.call(ALICE, { method: 'GET', url: keyStringUrl('secret') })).json().keyString, created.keyString);
  });
});
