import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestTwin, startTestTwin } from '../support/twin.ts';
import { ALICE, BOB, BOUND_OK, BOUND_SA, DEMO } from '../support/world.ts';
import { ETAG, KEY_TYPE, advanceClock, assertError, createKey, errorInfo, fieldViolations, getOperation, keyNameOf, keyPath, setOperationsMode } from './helpers.ts';

const UPDATE_OP = /^operations\/akmf\.p10-300000000001-[0-9a-f-]{36}$/;
const patch = (t: TestTwin, id: string, mask: string | undefined, payload: unknown, principal = ALICE) =>
  t.call(principal, { method: 'PATCH', url: keyPath(id) + (mask !== undefined ? `?updateMask=${encodeURIComponent(mask)}` : ''), payload: payload as any });
const get = async (t: TestTwin, id: string) => (await t.call(ALICE, { method: 'GET', url: keyPath(id) })).json();

const REFERRERS = { browserKeyRestrictions: { allowedReferrers: ['a.example.com/*', 'b.example.com/*'] } };

describe('updateKey', () => {
  let t: TestTwin;
  let seq = 0;
  /** A fresh key with a display name, restrictions and annotations. */
  const fresh = async () => {
    const id = `upd-${++seq}`;
    await createKey(t, { keyId: id, body: { displayName: 'Original', restrictions: REFERRERS, annotations: { team: 'a' } } });
    return id;
  };
  before(async () => {
    t = await startTestTwin();
  });
  after(() => t.close());

  test('updateMask=displayName: an operation with the changed key; new updateTime and etag', async () => {
    const id = await fresh();
    const before = await get(t, id);
    await advanceClock(t, 2);
    const res = await patch(t, id, 'displayName', { displayName: 'Renamed' });
    assert.equal(res.statusCode, 200, res.body);
    const op = res.json();
    assert.deepEqual(Object.keys(op), ['name', 'done', 'response']);
    assert.match(op.name, UPDATE_OP);
    const k = op.response;
    assert.equal(k['@type'], KEY_TYPE);
    assert.equal(k.name, keyNameOf(id));
    assert.equal(k.displayName, 'Renamed');
    assert.equal(k.uid, before.uid);
    assert.equal(k.createTime, before.createTime);
    assert.ok(Date.parse(k.updateTime) > Date.parse(before.updateTime));
    assert.match(k.etag, ETAG);
    assert.notEqual(k.etag, before.etag);
    assert.deepEqual(k.restrictions, REFERRERS, 'fields outside the mask are kept');
    assert.deepEqual(k.annotations, { team: 'a' });
    assert.equal(k.keyString, undefined);
    assert.deepEqual(await get(t, id), Object.fromEntries(Object.entries(k).filter(([f]) => f !== '@type')));
  });

  test('updateMask=display_name (snake case) and a snake_case body work', async () => {
    const id = await fresh();
    const k = (await patch(t, id, 'display_name', { display_name: 'Snake' })).json().response;
    assert.equal(k.displayName, 'Snake');
  });

  test('a masked field missing from the body is cleared', async () => {
    const id = await fresh();
    const k = (await patch(t, id, 'displayName', {})).json().response;
    assert.equal(k.displayName, undefined);
    assert.deepEqual(k.restrictions, REFERRERS);
  });

  test('updateMask=restrictions replaces each restriction list whole', async () => {
    const id = await fresh();
    let k = (await patch(t, id, 'restrictions', { displayName: 'ignored', restrictions: { browserKeyRestrictions: { allowedReferrers: ['c.example.com/*'] } } })).json().response;
    assert.deepEqual(k.restrictions, { browserKeyRestrictions: { allowedReferrers: ['c.example.com/*'] } });
    assert.equal(k.displayName, 'Original', 'a field outside the mask is not changed');
    k = (await patch(t, id, 'restrictions', { restrictions: { serverKeyRestrictions: { allowedIps: ['10.0.0.0/8'] }, apiTargets: [{ service: 'youtube.googleapis.com' }] } })).json().response;
    assert.deepEqual(k.restrictions, { serverKeyRestrictions: { allowedIps: ['10.0.0.0/8'] }, apiTargets: [{ service: 'youtube.googleapis.com' }] });
    k = (await patch(t, id, 'restrictions', {})).json().response;
    assert.equal(k.restrictions, undefined, 'empty restrictions: unrestricted');
  });

  test('updateMask=* sets every mutable field from the body', async () => {
    const id = await fresh();
    const k = (await patch(t, id, '*', { displayName: 'Star' })).json().response;
    assert.equal(k.displayName, 'Star');
    assert.equal(k.restrictions, undefined);
    assert.equal(k.annotations, undefined);
  });

  test('without updateMask the fields present in the body are updated', async () => {
    const id = await fresh();
    let k = (await patch(t, id, undefined, { displayName: 'No mask' })).json().response;
    assert.equal(k.displayName, 'No mask');
    assert.deepEqual(k.restrictions, REFERRERS);
    k = (await patch(t, id, undefined, { restrictions: { iosKeyRestrictions: { allowedBundleIds: ['com.example.ios'] } } })).json().response;
    assert.equal(k.displayName, 'No mask');
    assert.deepEqual(k.restrictions, { iosKeyRestrictions: { allowedBundleIds: ['com.example.ios'] } });
  });

  test('a body carrying the whole key (output fields included) with a mask is fine', async () => {
    const id = await fresh();
    const whole = await get(t, id);
    const k = (await patch(t, id, 'displayName', { ...whole, displayName: 'Whole' })).json().response;
    assert.equal(k.displayName, 'Whole');
  });

  for (const path of ['uid', 'name', 'key_string', 'createTime', 'etag', 'serviceAccountEmail', 'display_name,uid']) {
    test(`an immutable field in the mask (${path}) is 400 APIKEYS_UPDATE_MASK_CONTAINS_IMMUTABLE_FIELDS`, async () => {
      const id = await fresh();
      const err = assertError(await patch(t, id, path, { displayName: 'x' }), 400, 'INVALID_ARGUMENT', /immutable/);
      const info = errorInfo(err);
      assert.equal(info.reason, 'APIKEYS_UPDATE_MASK_CONTAINS_IMMUTABLE_FIELDS');
      assert.equal(info.domain, 'apikeys.googleapis.com');
      assert.equal((await get(t, id)).displayName, 'Original', 'nothing changed');
    });
  }

  test('an unknown mask path is 400', async () => {
    const id = await fresh();
    assertError(await patch(t, id, 'restrictions.browserKeyRestrictions', {}), 400, 'INVALID_ARGUMENT');
    assertError(await patch(t, id, 'colour', {}), 400, 'INVALID_ARGUMENT');
  });

  test('invalid values are 400 and change nothing', async () => {
    const id = await fresh();
    const err = assertError(await patch(t, id, 'displayName', { displayName: 'x'.repeat(64) }), 400, 'INVALID_ARGUMENT');
    assert.equal(fieldViolations(err)[0].field, 'key.display_name');
    assertError(
      await patch(t, id, 'restrictions', { restrictions: { browserKeyRestrictions: { allowedReferrers: ['a.com'] }, iosKeyRestrictions: { allowedBundleIds: ['b'] } } }),
      400,
      'INVALID_ARGUMENT',
    );
    assertError(await patch(t, id, 'restrictions', { restrictions: { browserKeyRestrictions: { allowedReferrers: ['ex*ample.com'] } } }), 400, 'INVALID_ARGUMENT');
    assertError(await patch(t, id, 'displayName', { displayName: false }), 400, 'INVALID_ARGUMENT', `Invalid value at 'key.display_name' (TYPE_STRING), false`);
    assertError(await patch(t, id, 'displayName', { nickname: 'x' }), 400, 'INVALID_ARGUMENT', `Invalid JSON payload received. Unknown name "nickname" at 'key': Cannot find field.`);
    assertError(await t.call(ALICE, { method: 'PATCH', url: `${keyPath(id)}?update_mask=displayName&force=true`, payload: {} }), 400, 'INVALID_ARGUMENT', /Unknown name "force"/);
    const k = await get(t, id);
    assert.equal(k.displayName, 'Original');
    assert.deepEqual(k.restrictions, REFERRERS);
  });

  test('a bound key keeps to serverKeyRestrictions on update', async () => {
    await createKey(t, { project: BOUND_OK.projectId, keyId: 'bound-upd', body: { serviceAccountEmail: BOUND_SA } });
    const url = `${keyPath('bound-upd', BOUND_OK.projectId)}?updateMask=restrictions`;
    assertError(await t.call(ALICE, { method: 'PATCH', url, payload: { restrictions: { browserKeyRestrictions: { allowedReferrers: ['a.com/*'] } } } }), 400, 'INVALID_ARGUMENT');
    const ok = await t.call(ALICE, { method: 'PATCH', url, payload: { restrictions: { serverKeyRestrictions: { allowedIps: ['192.0.2.1'] } } } });
    assert.equal(ok.statusCode, 200, ok.body);
    assert.equal(ok.json().response.serviceAccountEmail, BOUND_SA);
  });

  test('an unknown key is 404; a deleted key is 400 FAILED_PRECONDITION', async () => {
    assertError(await patch(t, 'never-was', 'displayName', { displayName: 'x' }), 404, 'NOT_FOUND');
    const id = await fresh();
    assert.equal((await t.call(ALICE, { method: 'DELETE', url: keyPath(id) })).statusCode, 200);
    assertError(await patch(t, id, 'displayName', { displayName: 'x' }), 400, 'FAILED_PRECONDITION');
  });

  test('a viewer may not update: 403 naming apikeys.keys.update', async () => {
    const id = await fresh();
    const err = assertError(await patch(t, id, 'displayName', { displayName: 'x' }, BOB), 403, 'PERMISSION_DENIED', /^Permission 'apikeys\.keys\.update' denied/);
    assert.equal(errorInfo(err).reason, 'IAM_PERMISSION_DENIED');
  });

  test('in delayed mode the change shows once the operation is done', async () => {
    const id = await fresh();
    await setOperationsMode(t, 'delayed', 60_000);
    try {
      const first = (await patch(t, id, 'displayName', { displayName: 'Later' })).json();
      assert.deepEqual(Object.keys(first), ['name']);
      assert.match(first.name, UPDATE_OP);
      assert.equal((await get(t, id)).displayName, 'Original');
      await advanceClock(t, 61);
      assert.equal((await getOperation(t, first.name)).response.displayName, 'Later');
      assert.equal((await get(t, id)).displayName, 'Later');
    } finally {
      await setOperationsMode(t, 'instant');
    }
  });

  test('the project by number works and the response names it by number', async () => {
    const id = await fresh();
    const res = await t.call(ALICE, { method: 'PATCH', url: `${keyPath(id, DEMO.projectNumber)}?updateMask=displayName`, payload: { displayName: 'n' } });
    assert.equal(res.json().response.name, keyNameOf(id));
  });
});
