import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startTestTwin, type TestTwin, twinHooks } from '../support/twin.ts';
import { ALICE, BOUND_OK, BOUND_SA, CI_SA, DEMO, LOOSE } from '../support/world.ts';
import {
  CREATE_OP,
  DAY_S,
  ETAG,
  KEY_STRING,
  KEY_TYPE,
  RFC3339,
  UUID4,
  advanceClock,
  assertError,
  createKey,
  fieldViolations,
  getOperation,
  keyNameOf,
  keyPath,
  keysPath,
  listAll,
  setOperationsMode,
} from './helpers.ts';

const post = (t: TestTwin, url: string, payload: unknown = {}, principal = ALICE) => t.call(principal, { method: 'POST', url, payload: payload as any });

describe('createKey', () => {
  let t: TestTwin;
  twinHooks((twin) => {
    t = twin;
  });

  test('answers an operation carrying the new key, named by project number', async () => {
    const res = await post(t, keysPath(DEMO.projectId) + '?keyId=shape-key', { displayName: 'Shape key' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    const op = res.json();
    assert.deepEqual(Object.keys(op), ['name', 'done', 'response']);
    assert.match(op.name, CREATE_OP);
    assert.equal(op.done, true);
    const k = op.response;
    assert.deepEqual(Object.keys(k), ['@type', 'name', 'displayName', 'keyString', 'createTime', 'uid', 'updateTime', 'etag']);
    assert.equal(k['@type'], KEY_TYPE);
    assert.equal(k.name, keyNameOf('shape-key'));
    assert.equal(k.displayName, 'Shape key');
    assert.match(k.keyString, KEY_STRING);
    assert.match(k.uid, UUID4);
    assert.match(k.createTime, RFC3339);
    assert.equal(k.updateTime, k.createTime);
    assert.match(k.etag, ETAG);
  });

  test('accepts the project by number too', async () => {
    const k = await createKey(t, { project: DEMO.projectNumber, keyId: 'by-number' });
    assert.equal(k.name, keyNameOf('by-number'));
  });

  test('without keyId the key id is the uid', async () => {
    const k = await createKey(t);
    assert.match(k.uid, UUID4);
    assert.equal(k.name, keyNameOf(k.uid));
    assert.equal('displayName' in k, false, 'an empty display name is omitted');
    assert.equal('restrictions' in k, false, 'no restrictions are omitted');
  });

  test('with keyId the uid is still a fresh UUID', async () => {
    const k = await createKey(t, { keyId: 'has-own-id' });
    assert.equal(k.name, keyNameOf('has-own-id'));
    assert.match(k.uid, UUID4);
  });

  test('key strings and uids are unique', async () => {
    const a = await createKey(t);
    const b = await createKey(t);
    assert.notEqual(a.keyString, b.keyString);
    assert.notEqual(a.uid, b.uid);
  });

  test('a key id of 63 characters is accepted', async () => {
    const id = 'a' + 'b'.repeat(61) + 'c';
    const k = await createKey(t, { keyId: id });
    assert.equal(k.name, keyNameOf(id));
  });

  for (const [label, id] of [
    ['uppercase', 'Bad-Key'],
    ['leading digit', '1abc'],
    ['trailing hyphen', 'abc-'],
    ['underscore', 'ab_c'],
    ['64 characters', 'a'.repeat(64)],
  ] as const) {
    test(`rejects a bad key id (${label}) with 400`, async () => {
      const err = assertError(await post(t, `${keysPath()}?keyId=${id}`), 400, 'INVALID_ARGUMENT', /^Invalid key id/);
      assert.deepEqual(fieldViolations(err).map((v) => v.field), ['key_id']);
    });
  }

  test('rejects a UUID-like key id', async () => {
    const err = assertError(await post(t, `${keysPath()}?keyId=abcdefab-cdef-4bcd-8bcd-abcdefabcdef`), 400, 'INVALID_ARGUMENT', /must not look like a UUID/);
    assert.equal(fieldViolations(err)[0].field, 'key_id');
  });

  test('a duplicate key id ends the operation with code 6 and no details (HTTP 200)', async () => {
    await createKey(t, { keyId: 'dup-key' });
    const res = await post(t, `${keysPath()}?keyId=dup-key`);
    assert.equal(res.statusCode, 200);
    const op = res.json();
    assert.deepEqual(Object.keys(op), ['name', 'done', 'error']);
    assert.match(op.name, CREATE_OP);
    assert.equal(op.done, true);
    assert.deepEqual(op.error, { code: 6, message: 'A key with this id already exists.' });
    // the failure is kept on the operation
    assert.deepEqual(await getOperation(t, op.name), op);
  });

  test('a deleted key still holds its id', async () => {
    await createKey(t, { keyId: 'held-id' });
    assert.equal((await t.call(ALICE, { method: 'DELETE', url: keyPath('held-id') })).statusCode, 200);
    const op = (await post(t, `${keysPath()}?keyId=held-id`)).json();
    assert.equal(op.error.code, 6);
  });

  test('displayName of 63 characters is fine, 64 is 400', async () => {
    const k = await createKey(t, { body: { displayName: 'd'.repeat(63) } });
    assert.equal(k.displayName, 'd'.repeat(63));
    const err = assertError(await post(t, keysPath(), { displayName: 'd'.repeat(64) }), 400, 'INVALID_ARGUMENT', /at most 63 characters/);
    assert.deepEqual(fieldViolations(err).map((v) => v.field), ['key.display_name']);
  });

  test('restrictions are stored and echoed (Android fingerprints normalised)', async () => {
    const restrictions = {
      androidKeyRestrictions: { allowedApplications: [{ packageName: 'com.example.app', sha1Fingerprint: 'da:39:a3:ee:5e:6b:4b:0d:32:55:bf:ef:95:60:18:90:af:d8:07:09' }] },
      apiTargets: [{ service: 'youtube.googleapis.com', methods: ['Search*'] }],
    };
    const k = await createKey(t, { body: { restrictions } });
    assert.deepEqual(k.restrictions, {
      androidKeyRestrictions: { allowedApplications: [{ packageName: 'com.example.app', sha1Fingerprint: 'DA39A3EE5E6B4B0D3255BFEF95601890AFD80709' }] },
      apiTargets: [{ service: 'youtube.googleapis.com', methods: ['Search*'] }],
    });
  });

  test('two application restriction kinds are 400', async () => {
    const err = assertError(
      await post(t, keysPath(), { restrictions: { browserKeyRestrictions: { allowedReferrers: ['example.com/*'] }, serverKeyRestrictions: { allowedIps: ['10.0.0.1'] } } }),
      400,
      'INVALID_ARGUMENT',
      /Only one application restriction/,
    );
    assert.equal(fieldViolations(err)[0].field, 'key.restrictions');
  });

  test('a referrer with a wildcard inside a host label is 400', async () => {
    const err = assertError(
      await post(t, keysPath(), { restrictions: { browserKeyRestrictions: { allowedReferrers: ['example.com/*', 'exa*mple.com'] } } }),
      400,
      'INVALID_ARGUMENT',
      /exa\*mple\.com/,
    );
    assert.equal(fieldViolations(err)[0].field, 'key.restrictions.browser_key_restrictions.allowed_referrers[1]');
  });

  test('1200 application restriction entries are fine, 1201 are 400', async () => {
    const ips = (n: number) => Array.from({ length: n }, (_, i) => `10.1.${i >> 8}.${i & 255}`);
    const k = await createKey(t, { body: { restrictions: { serverKeyRestrictions: { allowedIps: ips(1200) } } } });
    assert.equal(k.restrictions.serverKeyRestrictions.allowedIps.length, 1200);
    assertError(await post(t, keysPath(), { restrictions: { serverKeyRestrictions: { allowedIps: ips(1201) } } }), 400, 'INVALID_ARGUMENT', /At most 1200/);
  });

  test('a bad IP is 400', async () => {
    assertError(await post(t, keysPath(), { restrictions: { serverKeyRestrictions: { allowedIps: ['localhost'] } } }), 400, 'INVALID_ARGUMENT');
  });

  test('an unknown body field is 400 with the transcoder message', async () => {
    const msg = `Invalid JSON payload received. Unknown name "foo" at 'key': Cannot find field.`;
    const err = assertError(await post(t, keysPath(), { displayName: 'x', foo: 1 }), 400, 'INVALID_ARGUMENT', msg);
    assert.deepEqual(fieldViolations(err), [{ field: 'key', description: msg }]);
  });

  test('an unknown nested field names its path', async () => {
    assertError(
      await post(t, keysPath(), { restrictions: { browserKeyRestrictions: { referrers: [] } } }),
      400,
      'INVALID_ARGUMENT',
      `Invalid JSON payload received. Unknown name "referrers" at 'key.restrictions.browser_key_restrictions': Cannot find field.`,
    );
  });

  test('an unknown query parameter is 400', async () => {
    assertError(
      await post(t, `${keysPath()}?foo=1`),
      400,
      'INVALID_ARGUMENT',
      `Invalid JSON payload received. Unknown name "foo": Cannot bind query parameter. Field 'foo' could not be found in request message.`,
    );
  });

  test('a value of the wrong type is 400 with the proto type', async () => {
    const err = assertError(await post(t, keysPath(), { displayName: 123 }), 400, 'INVALID_ARGUMENT', `Invalid value at 'key.display_name' (TYPE_STRING), 123`);
    assert.equal(fieldViolations(err)[0].field, 'key.display_name');
  });

  test('snake_case body and query names are accepted', async () => {
    const res = await post(t, `${keysPath()}?key_id=snake-key`, { display_name: 'Snake', restrictions: { server_key_restrictions: { allowed_ips: ['10.0.0.0/8'] } } });
    assert.equal(res.statusCode, 200, res.body);
    const k = res.json().response;
    assert.equal(k.name, keyNameOf('snake-key'));
    assert.equal(k.displayName, 'Snake');
    assert.deepEqual(k.restrictions, { serverKeyRestrictions: { allowedIps: ['10.0.0.0/8'] } });
  });

  test('output-only fields in the body are ignored', async () => {
    const k = await createKey(t, { keyId: 'ignores-output', body: { uid: 'x', name: 'projects/1/locations/global/keys/zzz', etag: 'W/"x"' } });
    assert.equal(k.name, keyNameOf('ignores-output'));
    assert.notEqual(k.uid, 'x');
  });

  test('a location other than global is 400', async () => {
    assertError(await post(t, keysPath(DEMO.projectId, 'us-central1')), 400, 'INVALID_ARGUMENT', /global/);
  });

  describe('keys bound to a service account', () => {
    test('a project without organization is 400 FAILED_PRECONDITION', async () => {
      assertError(await post(t, keysPath(LOOSE.projectId), { serviceAccountEmail: CI_SA }), 400, 'FAILED_PRECONDITION', /organization/);
    });

    test('the default (enforced) policy is 400 FAILED_PRECONDITION naming the constraint', async () => {
      const err = assertError(await post(t, keysPath(DEMO.projectId), { serviceAccountEmail: CI_SA }), 400, 'FAILED_PRECONDITION');
      const pf = err.details.find((d: any) => d['@type'] === 'type.googleapis.com/google.rpc.PreconditionFailure');
      assert.ok(pf, JSON.stringify(err));
      assert.equal(pf.violations[0].type, 'constraints/iam.managed.disableServiceAccountApiKeyCreation');
      assert.equal(pf.violations[0].subject, `projects/${DEMO.projectNumber}`);
    });

    test('with the policy off and an existing service account the key is bound', async () => {
      const k = await createKey(t, {
        project: BOUND_OK.projectId,
        keyId: 'bound-key',
        body: { service_account_email: BOUND_SA, restrictions: { serverKeyRestrictions: { allowedIps: ['192.0.2.0/24'] } } },
      });
      assert.equal(k.name, keyNameOf('bound-key', BOUND_OK.projectNumber));
      assert.equal(k.serviceAccountEmail, BOUND_SA);
      assert.equal(Object.keys(k).at(-1), 'serviceAccountEmail');
      const got = (await t.call(ALICE, { method: 'GET', url: keyPath('bound-key', BOUND_OK.projectId) })).json();
      assert.equal(got.serviceAccountEmail, BOUND_SA);
    });

    test('only serverKeyRestrictions are allowed on a bound key', async () => {
      for (const restrictions of [
        { browserKeyRestrictions: { allowedReferrers: ['example.com/*'] } },
        { iosKeyRestrictions: { allowedBundleIds: ['com.example.app'] } },
      ]) {
        assertError(await post(t, keysPath(BOUND_OK.projectId), { serviceAccountEmail: BOUND_SA, restrictions }), 400, 'INVALID_ARGUMENT', /serverKeyRestrictions/);
      }
    });

    test('a service account that does not exist is 400', async () => {
      assertError(
        await post(t, keysPath(BOUND_OK.projectId), { serviceAccountEmail: 'nobody-robot@bound-project.iam.gserviceaccount.com' }),
        400,
        'INVALID_ARGUMENT',
        /does not exist/,
      );
    });
  });
});

describe('createKey: 300 keys per project', () => {
  test('the 301st create ends in RESOURCE_EXHAUSTED; deleted keys count until purged', async () => {
    const t = await startTestTwin();
    try {
      const url = keysPath(LOOSE.projectId);
      for (let i = 0; i < 300; i += 25) {
        const batch = await Promise.all(Array.from({ length: 25 }, (_, j) => post(t, `${url}?keyId=k${i + j}`)));
        for (const res of batch) {
          assert.equal(res.json().done, true);
          assert.equal(res.json().error, undefined, res.body);
        }
      }
      const over = (await post(t, url)).json();
      assert.equal(over.done, true);
      assert.equal(over.error.code, 8);
      assert.match(over.error.message, /300/);
      assert.equal(over.response, undefined);
      assert.equal((await listAll(t, { project: LOOSE.projectId })).length, 300);

      // a deleted key still counts
      assert.equal((await t.call(ALICE, { method: 'DELETE', url: keyPath('k0', LOOSE.projectId) })).statusCode, 200);
      assert.equal((await post(t, url)).json().error?.code, 8);
      // once purged (30 days after deletion) it no longer does
      await advanceClock(t, 30 * DAY_S + 1);
      const ok = (await post(t, `${url}?keyId=k0`)).json();
      assert.equal(ok.error, undefined, JSON.stringify(ok));
      assert.equal(ok.response.name, keyNameOf('k0', LOOSE.projectNumber));
      // other projects are not affected
      await createKey(t, { project: DEMO.projectId });
    } finally {
      await t.close();
    }
  });

  test('310 concurrent creates leave exactly 300 keys', async () => {
    const t = await startTestTwin();
    try {
      const results = await Promise.all(Array.from({ length: 310 }, (_, i) => post(t, `${keysPath()}?keyId=c${i}`)));
      const ops = results.map((r) => {
        assert.equal(r.statusCode, 200, r.body);
        return r.json();
      });
      assert.equal(ops.filter((o) => o.response).length, 300);
      const failed = ops.filter((o) => o.error);
      assert.equal(failed.length, 10);
      for (const o of failed) assert.equal(o.error.code, 8);
      assert.equal((await listAll(t)).length, 300);
      assert.equal((await listAll(t, { showDeleted: true })).length, 300);
    } finally {
      await t.close();
    }
  });
});

describe('createKey: delayed operations', () => {
  test('the first answer is the operation name only; the key appears when the operation is done', async () => {
    const t = await startTestTwin();
    try {
      await setOperationsMode(t, 'delayed', 60_000);
      const res = await post(t, `${keysPath()}?keyId=slow-key`, { displayName: 'slow' });
      assert.equal(res.statusCode, 200);
      const first = res.json();
      assert.deepEqual(Object.keys(first), ['name']);
      assert.match(first.name, CREATE_OP);
      assert.deepEqual(await getOperation(t, first.name), { name: first.name });
      assert.deepEqual(await listAll(t), []);
      assertError(await t.call(ALICE, { method: 'GET', url: keyPath('slow-key') }), 404, 'NOT_FOUND');

      await advanceClock(t, 61);
      const done = await getOperation(t, first.name);
      assert.equal(done.done, true);
      assert.equal(done.response.name, keyNameOf('slow-key'));
      assert.match(done.response.keyString, KEY_STRING);
      assert.deepEqual((await listAll(t)).map((k) => k.name), [keyNameOf('slow-key')]);
    } finally {
      await t.close();
    }
  });
});
