import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type TestTwin, twinHooks } from '../support/twin.ts';
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
  twinHooks((twin) => {
    t = twin;
  });

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

  test('a mask path naming no field is 400 naming it; nothing is written', async () => {
    const id = await fresh();
    const before = await get(t, id);
    for (const path of ['colour', 'restrictions.browserKeyRestrictions.colour', 'restrictions.api_targets.service', 'annotations.team']) {
      const err = assertError(await patch(t, id, path, { annotations: { x: 'y' } }), 400, 'INVALID_ARGUMENT');
      assert.ok(err.message.includes(`'${path}'`), err.message);
      assert.deepEqual(fieldViolations(err).map((v) => v.field), ['update_mask']);
    }
    assert.deepEqual(await get(t, id), before);
  });

  for (const path of ['toString', 'constructor', '__proto__', 'valueOf', 'hasOwnProperty', 'restrictions.__proto__', 'displayName,toString']) {
    test(`updateMask=${path} (a name on Object.prototype) is 400 naming it; etag and updateTime unchanged`, async () => {
      const id = await fresh();
      const before = await get(t, id);
      await advanceClock(t, 1);
      const err = assertError(await patch(t, id, path, { displayName: 'x', annotations: { x: 'y' } }), 400, 'INVALID_ARGUMENT');
      const named = path.split(',').pop()!;
      assert.ok(err.message.includes(`'${named}'`), err.message);
      assert.deepEqual(await get(t, id), before);
    });
  }

  const SUB_PATHS: [string, string, Record<string, unknown>][] = [
    ['restrictions.browser_key_restrictions', 'restrictions.browserKeyRestrictions', { browserKeyRestrictions: { allowedReferrers: ['c.example.com/*'] } }],
    ['restrictions.server_key_restrictions', 'restrictions.serverKeyRestrictions', { serverKeyRestrictions: { allowedIps: ['192.0.2.0/24', '2001:db8::1'] } }],
    ['restrictions.ios_key_restrictions', 'restrictions.iosKeyRestrictions', { iosKeyRestrictions: { allowedBundleIds: ['com.example.ios'] } }],
    [
      'restrictions.android_key_restrictions',
      'restrictions.androidKeyRestrictions',
      { androidKeyRestrictions: { allowedApplications: [{ sha1Fingerprint: 'DA:39:A3:EE:5E:6B:4B:0D:32:55:BF:EF:95:60:18:90:AF:D8:07:09', packageName: 'com.example.app' }] } },
    ],
  ];
  const NORMALIZED_ANDROID = { allowedApplications: [{ sha1Fingerprint: 'DA39A3EE5E6B4B0D3255BFEF95601890AFD80709', packageName: 'com.example.app' }] };
  const TARGETS = { apiTargets: [{ service: 'translate.googleapis.com', methods: ['Get*'] }] };

  for (const [snake, camel, value] of SUB_PATHS) {
    test(`updateMask=${snake} (and ${camel}) replaces that kind only; api targets, display name and annotations are kept`, async () => {
      for (const mask of [snake, camel]) {
        const id = await fresh();
        await patch(t, id, 'restrictions.api_targets', { restrictions: TARGETS });
        const res = await patch(t, id, mask, { name: keyNameOf(id), restrictions: value });
        assert.equal(res.statusCode, 200, res.body);
        const k = res.json().response;
        const expected = value.androidKeyRestrictions ? { androidKeyRestrictions: NORMALIZED_ANDROID } : value;
        assert.deepEqual(k.restrictions, { ...expected, ...TARGETS }, 'the key\'s browser restriction is replaced (one oneof), its api targets kept');
        assert.equal(k.displayName, 'Original');
        assert.deepEqual(k.annotations, { team: 'a' });
        assert.deepEqual((await get(t, id)).restrictions, k.restrictions);
      }
    });
  }

  test('sub-paths with a snake_case body (proto names), as the transcoder accepts them', async () => {
    const id = await fresh();
    const res = await patch(t, id, 'restrictions.server_key_restrictions,restrictions.api_targets', {
      restrictions: { server_key_restrictions: { allowed_ips: ['10.0.0.0/8'] }, api_targets: [{ service: 'translate.googleapis.com', methods: ['Get*'] }] },
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json().response.restrictions, { serverKeyRestrictions: { allowedIps: ['10.0.0.0/8'] }, ...TARGETS });
  });

  test('updateMask=restrictions.api_targets replaces the targets and keeps the application restriction', async () => {
    const id = await fresh();
    let k = (await patch(t, id, 'restrictions.apiTargets', { restrictions: { ...TARGETS, serverKeyRestrictions: { allowedIps: ['10.0.0.1'] } } })).json().response;
    assert.deepEqual(k.restrictions, { ...REFERRERS, ...TARGETS }, 'the unmasked server restriction in the body is ignored');
    k = (await patch(t, id, 'restrictions.api_targets', { restrictions: {} })).json().response;
    assert.deepEqual(k.restrictions, REFERRERS, 'masked and absent: cleared');
  });

  test('several sub-paths joined by commas, as gcloud sends them', async () => {
    const id = await fresh();
    const res = await patch(t, id, 'display_name,restrictions.server_key_restrictions,restrictions.api_targets', {
      displayName: 'Both',
      restrictions: { serverKeyRestrictions: { allowedIps: ['10.0.0.0/8'] }, ...TARGETS },
    });
    assert.equal(res.statusCode, 200, res.body);
    const k = res.json().response;
    assert.equal(k.displayName, 'Both');
    assert.deepEqual(k.restrictions, { serverKeyRestrictions: { allowedIps: ['10.0.0.0/8'] }, ...TARGETS });
  });

  test('a masked kind absent from the body is cleared, the rest of restrictions kept', async () => {
    const id = await fresh();
    await patch(t, id, 'restrictions.api_targets', { restrictions: TARGETS });
    const k = (await patch(t, id, 'restrictions.browser_key_restrictions', { restrictions: {} })).json().response;
    assert.deepEqual(k.restrictions, TARGETS);
  });

  test('the rules are checked on the merged key: invalid values, limits and two kinds in one body are 400 naming the field; nothing written', async () => {
    const id = await fresh();
    const before = await get(t, id);
    let err = assertError(await patch(t, id, 'restrictions.server_key_restrictions', { restrictions: { serverKeyRestrictions: { allowedIps: ['300.1.1.1'] } } }), 400, 'INVALID_ARGUMENT');
    assert.equal(fieldViolations(err)[0].field, 'key.restrictions.server_key_restrictions.allowed_ips[0]');
    const many = Array.from({ length: 1201 }, (_, i) => `s${i}.example.com/*`);
    err = assertError(await patch(t, id, 'restrictions.browser_key_restrictions', { restrictions: { browserKeyRestrictions: { allowedReferrers: many } } }), 400, 'INVALID_ARGUMENT', /At most 1200/);
    assert.equal(fieldViolations(err)[0].field, 'key.restrictions.browser_key_restrictions.allowed_referrers');
    err = assertError(
      await patch(t, id, 'restrictions.browser_key_restrictions', { restrictions: { ...REFERRERS, iosKeyRestrictions: { allowedBundleIds: ['com.x'] } } }),
      400,
      'INVALID_ARGUMENT',
      /Only one application restriction/,
    );
    assertError(await patch(t, id, 'restrictions.api_targets', { restrictions: { apiTargets: [{ service: 'Not a service' }] } }), 400, 'INVALID_ARGUMENT');
    assert.deepEqual(await get(t, id), before);
  });

  test('a bound key: a sub-path setting another kind than server restrictions is 400; server restrictions and targets merge', async () => {
    await createKey(t, { project: BOUND_OK.projectId, keyId: 'bound-sub', body: { serviceAccountEmail: BOUND_SA, restrictions: TARGETS } });
    const url = (mask: string) => `${keyPath('bound-sub', BOUND_OK.projectId)}?updateMask=${mask}`;
    const err = assertError(
      await t.call(ALICE, { method: 'PATCH', url: url('restrictions.browser_key_restrictions'), payload: { restrictions: REFERRERS } }),
      400,
      'INVALID_ARGUMENT',
      /bound to a service account/,
    );
    assert.equal(fieldViolations(err)[0].field, 'key.restrictions.browser_key_restrictions');
    const ok = await t.call(ALICE, { method: 'PATCH', url: url('restrictions.server_key_restrictions'), payload: { restrictions: { serverKeyRestrictions: { allowedIps: ['192.0.2.1'] } } } });
    assert.equal(ok.statusCode, 200, ok.body);
    assert.deepEqual(ok.json().response.restrictions, { serverKeyRestrictions: { allowedIps: ['192.0.2.1'] }, ...TARGETS });
    assert.equal(ok.json().response.serviceAccountEmail, BOUND_SA);
  });

  test('delayed mode: sub-paths merge into the key as it is when the operation completes', async () => {
    const id = await fresh();
    await setOperationsMode(t, 'delayed', 60_000);
    try {
      const a = (await patch(t, id, 'restrictions.api_targets', { restrictions: TARGETS })).json();
      await advanceClock(t, 1);
      const b = (await patch(t, id, 'restrictions.server_key_restrictions', { restrictions: { serverKeyRestrictions: { allowedIps: ['10.0.0.1'] } } })).json();
      const c = (await patch(t, id, 'annotations', { annotations: { stage: 'c' } })).json();
      assert.deepEqual((await get(t, id)).restrictions, REFERRERS, 'nothing applied yet');
      await advanceClock(t, 61);
      for (const op of [a, b, c]) assert.equal((await getOperation(t, op.name)).done, true);
      const k = await get(t, id);
      assert.deepEqual(k.restrictions, { serverKeyRestrictions: { allowedIps: ['10.0.0.1'] }, ...TARGETS }, 'each change merged into the then-current key');
      assert.deepEqual(k.annotations, { stage: 'c' });
    } finally {
      await setOperationsMode(t, 'instant');
    }
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

  test('one timestamp format everywhere: createTime, updateTime and deleteTime keep milliseconds, in every answer and mode', async () => {
    const MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
    const stamps = (k: Record<string, any>) => ['createTime', 'updateTime', 'deleteTime'].filter((f) => k[f] !== undefined).map((f) => [f, k[f]] as const);
    const check = (k: Record<string, any>, where: string) => {
      for (const [f, v] of stamps(k)) {
        assert.match(v, MS, `${where}: ${f}`);
        assert.equal(new Date(Date.parse(v)).toISOString(), v, `${where}: ${f} is exact`);
      }
    };
    for (const mode of ['instant', 'delayed'] as const) {
      const id = await fresh();
      if (mode === 'delayed') await setOperationsMode(t, 'delayed', 1_500);
      try {
        const finish = async (res: { json(): any }) => {
          let op = res.json();
          if (!op.done) {
            await advanceClock(t, 2.345);
            op = await getOperation(t, op.name);
          }
          return op.response;
        };
        await advanceClock(t, 1.001);
        const updated = await finish(await patch(t, id, 'restrictions.api_targets', { restrictions: { apiTargets: [{ service: 'a.googleapis.com' }] } }));
        check(updated, `${mode} update`);
        await advanceClock(t, 1.234);
        const deleted = await finish(await t.call(ALICE, { method: 'DELETE', url: keyPath(id) }));
        check(deleted, `${mode} delete`);
        assert.equal(deleted.deleteTime, deleted.updateTime, 'deleteTime is the delete\'s updateTime, to the millisecond');
        assert.ok(Date.parse(deleted.deleteTime) - Date.parse(updated.updateTime) >= 1234);
        check(await get(t, id), `${mode} get of a deleted key`);
        const listed = (await t.call(ALICE, { method: 'GET', url: `${keyPath('').slice(0, -1)}?showDeleted=true` })).json().keys.find((k: any) => k.name === keyNameOf(id));
        check(listed, `${mode} list`);
        assert.equal(listed.deleteTime, deleted.deleteTime);
        check(await finish(await t.call(ALICE, { method: 'POST', url: `${keyPath(id)}:undelete`, payload: {} })), `${mode} undelete`);
      } finally {
        await setOperationsMode(t, 'instant');
      }
    }
    const clock = (await t.admin('GET', '/_twin/v1/clock')).json();
    assert.match(clock.now, MS, 'the admin clock too');
  });

  test('the project by number works and the response names it by number', async () => {
    const id = await fresh();
    const res = await t.call(ALICE, { method: 'PATCH', url: `${keyPath(id, DEMO.projectNumber)}?updateMask=displayName`, payload: { displayName: 'n' } });
    assert.equal(res.json().response.name, keyNameOf(id));
  });
});
